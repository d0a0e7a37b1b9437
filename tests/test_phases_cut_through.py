"""Paper 000's cut-through kernel's phases, each called once on a hand-built state and checked by its rule (§3-§5).

The network is one 8-port switch with 8 nodes (``FlitNetwork.single``): switch outputs 0-7 go to the nodes, node
v's link is ``n_in + v`` = 8 + v and feeds switch input v. Queues: a pair queue (input gi, output o) is
``gi * 8 + o``, a central queue ``qp + o``, node v's injection queue ``qc + v``.
"""

from types import SimpleNamespace

import numpy as np

from switchq.models.flit import FlitNetwork, FlitSwitch, MessageTraffic
from switchq.validate import kernel as K
from switchq.validate.arch.flit import cut_through_state as C
from switchq.validate.arch.flit import org_damq, org_fifo, org_hipiqs, org_safc
from switchq.validate.arch.flit.arguments import cut_through_arguments
from switchq.validate.arch.flit.cut_through_arrive import arrive
from switchq.validate.arch.flit.cut_through_central import admit_central
from switchq.validate.arch.flit.cut_through_inject import inject
from switchq.validate.arch.flit.cut_through_outputs import arbitrate, outputs, send_flit
from switchq.validate.arch.flit.records import (CENTRAL, DAMQ, E_ARR, E_CLAIM, E_DEST, E_DOWN, E_GI, E_LEN, E_NEXT,
                                                E_OI, E_PKT, E_Q, E_READY, E_RES, E_SENT, FIFO, HIPIQS, I_CHUNKS,
                                                I_HELD, I_LAST, I_USED, IW, LAYOUT, LK_D, LK_E, LK_SENT, LKW, ORG,
                                                P_DEST, P_GEN, P_LEN, P_MSG, Q_FIFO, Q_RP, Q_SH, Q_WP, QW, SAFC,
                                                TRACE_COLUMNS)
from switchq.validate.arch.flit.state import entries, new_entry, packets

RUN = K.Run(slots=1000, warmup=0, drain=0, seed=1)


def _net(org, traffic=None, **switch):
    net = FlitNetwork.single(8, FlitSwitch(buffer_org=org, **switch))
    tab, sw, tr = cut_through_arguments(net, traffic or MessageTraffic(0.5))
    dm = C.dims(tab, sw)
    ent, _ = entries(dm.pool)
    pk, _ = packets(dm.pool)
    stk = C.stacks(dm.pool)
    stk[C.E_FREE] = np.arange(dm.pool)      # the phases take the highest entries, never the hand-built ones
    return SimpleNamespace(org=ORG[org], sw=sw, tr=tr, dm=dm, S=C.new_state(dm, sw), T=C.tables(tab, tr, dm),
                           stk=stk, ent=ent, pk=pk, stats=LAYOUT.zeros(RUN))


def _queue(n, e, q, pkt, flits, gi, oi, arrived, ready, dest):
    """Entry ``e`` of packet ``pkt`` appended to queue ``q`` by hand."""
    new_entry(n.ent, e, pkt, q, flits, gi, oi, arrived, ready)
    n.ent[e, E_NEXT] = -1
    n.ent[e, E_DEST] = dest
    n.pk[pkt, P_DEST] = dest
    n.pk[pkt, P_LEN] = flits
    if n.S[C.QTAIL, q] >= 0:
        n.ent[n.S[C.QTAIL, q], E_NEXT] = e
    else:
        n.S[C.QHEAD, q] = e
    n.S[C.QTAIL, q] = e


def test_inject_a_message_joins_its_nodes_injection_queue_as_its_packets():
    # 20-flit messages in 8-flit packets: 3 packets (8, 8, 4), all their flits at the NIC, node 1's link active.
    n = _net("safc", MessageTraffic(0.5, message_flits=20, packet_flits=8, pattern="bitrev"))
    next_at = np.full(8, np.inf)
    next_at[1] = 6.5                        # starts in cycle 6 (t < next_at < t + 1 counts as cycle t)
    top = n.dm.pool
    K.seed_rng(1)
    m_top, p_top, e_top, offered, first, v = inject(6, n.tr, RUN, n.dm, n.stats, True, next_at, n.S, n.T, n.stk,
                                                    n.ent, n.pk, top, top, top, 0, 0, True)
    assert (m_top, p_top, e_top, offered, v) == (top - 1, top - 3, top - 3, 20, 8)
    assert first == next_at[1] > 7          # the next start is drawn
    dest = n.T[C.PERM, 1]
    assert dest == 4                        # bit reversal: 001 -> 100
    m = n.stk[C.M_FREE, m_top]
    assert n.stk[C.M_GEN, m] == 6 and n.stk[C.M_LEFT, m] == 3
    q = n.dm.qc + 1
    e = n.S[C.QHEAD, q]
    lens = []
    while e >= 0:
        pkt = n.ent[e, E_PKT]
        assert n.ent[e, E_ARR] == n.ent[e, E_LEN] == n.pk[pkt, P_LEN] and n.ent[e, E_READY] == 6
        assert n.pk[pkt, P_DEST] == n.ent[e, E_DEST] == dest and n.pk[pkt, P_MSG] == m and n.pk[pkt, P_GEN] == 6
        lens.append(n.ent[e, E_LEN])
        e = n.ent[e, E_NEXT]
    assert lens == [8, 8, 4] and n.S[C.NIC, 1] == 3
    g = n.dm.n_in + 1
    assert (n.S[C.ACT, g >> 6] >> (g & 63)) & 1
    assert n.S[C.PART_OFF, dest] == 20 and n.S[C.QHEAD, n.dm.qc + 2] == -1


def test_arrive_a_header_waits_bypass_cycles_if_clear_buffered_cycles_behind_a_waiting_packet():
    n = _net("safc", bypass_cycles=2, buffered_cycles=5)
    t = 10
    slot = t & n.dm.ring_mask
    # Input 1's queue for output 3 holds packet A (not sent on) then B; input 0's for output 4 holds C alone.
    qa, qc_ = 1 * 8 + 3, 0 * 8 + 4
    _queue(n, 0, qa, 0, 4, 1, 3, 4, 0, 3)
    _queue(n, 1, qa, 1, 4, 1, 3, 0, 1 << 62, 3)
    _queue(n, 2, qc_, 2, 4, 0, 4, 0, 1 << 62, 4)
    n.S[C.WAKE, 3] = n.S[C.WAKE, 4] = 1 << 62     # both outputs asleep
    for e, g in ((1, 8 + 1), (2, 8 + 0)):        # B's and C's headers on the node links into inputs 1 and 0
        n.S[C.RING, slot * n.dm.n_links + g] = e
        n.S[C.ARR, slot * n.dm.n_w + (g >> 6)] |= 1 << (g & 63)
    trace = np.zeros((1, TRACE_COLUMNS), dtype=np.int64)
    out = arrive(t, n.org, RUN, n.sw, n.dm, n.S, n.T, n.stk, n.ent, n.pk, n.stats, trace, True, 0, 0, 0, 0, 0, 0)
    assert out[2] == 2                                       # two flits moved
    assert n.ent[1, E_ARR] == 1 and n.ent[1, E_READY] == t + 5  # Pipe 3: stored behind A
    assert n.ent[2, E_ARR] == 1 and n.ent[2, E_READY] == t + 2  # Pipe 1: nothing ahead
    assert n.S[C.WAKE, 3] == t + 5 and n.S[C.WAKE, 4] == t + 2  # the sleeping outputs woken for them
    assert n.S[C.ARR, slot * n.dm.n_w] == 0


def test_arrive_a_tail_at_its_node_frees_its_packet_and_delivers_the_message_with_its_last_packet():
    n = _net("fifo")
    t = 30
    slot = t & n.dm.ring_mask
    m, pkt = 5, 9
    n.stk[C.M_GEN, m] = 12
    n.stk[C.M_LEFT, m] = 1
    n.pk[pkt, P_MSG] = m
    n.pk[pkt, P_GEN] = 20
    g = 6                                      # switch output 6 delivers to node 6
    n.S[C.RING, slot * n.dm.n_links + g] = ~pkt
    n.S[C.ARR, slot * n.dm.n_w] = 1 << g
    trace = np.zeros((1, TRACE_COLUMNS), dtype=np.int64)
    p_top, m_top, moved, received, m_received, _ = arrive(t, n.org, RUN, n.sw, n.dm, n.S, n.T, n.stk, n.ent, n.pk,
                                                          n.stats, trace, True, 0, 0, 0, 0, 0, 0)
    assert (p_top, m_top, moved, received, m_received) == (1, 1, 1, 1, 1)
    assert n.stk[C.P_FREE, 0] == pkt and n.stk[C.M_FREE, 0] == m and n.stk[C.M_LEFT, m] == 0
    assert n.stats[K.STAT_DELIVERED] == 1 and n.stats[K.STAT_M_LATENCY_SUM] == t - 12
    assert n.S[C.PART_GROW, 6] == -1


def test_admit_central_reserves_a_whole_packets_chunks_then_moves_one_flit_a_cycle():
    # 8-port central buffer: 8-flit chunks; a 20-flit packet needs 3 chunks, reserved at admission.
    n = _net("central", central_admission="packet")
    t = 4
    gi = 2
    _queue(n, 0, gi * 8, 0, 20, gi, -1, 5, 3, 6)     # 5 flits in the input FIFO, header ready at 3
    n.S[C.QFLITS, gi * 8] = 5
    n.S[C.INB, gi * IW + I_USED] = n.S[C.INB, gi * IW + I_HELD] = 5
    top = n.dm.pool
    e_top, moved = admit_central(t, n.sw, n.dm, n.S, n.T, n.stk, n.ent, n.pk, top, 0)
    assert (e_top, moved) == (top - 1, 1)
    d = n.ent[0, E_DOWN]
    cq = n.dm.qp + 6                          # the route to node 6 offers one output: 6
    assert d == n.stk[C.E_FREE, top - 1] and n.ent[d, E_Q] == cq and n.S[C.QHEAD, cq] == d
    assert n.ent[d, E_RES] == 3 and n.S[C.C_USED, 0] == 3
    assert n.ent[d, E_ARR] == 1 and n.S[C.QFLITS, cq] == 1 and n.ent[0, E_SENT] == 1
    assert n.S[C.QFLITS, gi * 8] == 4 and n.S[C.INB, gi * IW + I_USED] == 4
    assert n.S[C.CAND, 6] == 1 and (n.S[C.ACT, 0] >> 6) & 1
    # Too few chunks free for another whole packet: input 3's waits, nothing moves.
    n.S[C.C_USED, 0] = n.sw.c_chunks - 2
    _queue(n, 1, 3 * 8, 1, 20, 3, -1, 1, 0, 5)
    n.S[C.QHEAD, gi * 8] = -1
    e_top, moved = admit_central(t + 1, n.sw, n.dm, n.S, n.T, n.stk, n.ent, n.pk, e_top, 0)
    assert moved == 0 and n.ent[1, E_DOWN] == -1 and n.S[C.QHEAD, n.dm.qp + 5] == -1


def test_arbitrate_takes_the_first_eligible_header_round_robin_from_the_pointer():
    n = _net("safc")
    t = 20
    g = 5                                        # output 5 (to node 5)
    # Inputs 1, 3 and 6 hold a header for output 5; 1's is not ready, 3's and 6's are; the pointer is at 2.
    for e, i, ready in ((0, 1, t + 4), (1, 3, t), (2, 6, t - 1)):
        _queue(n, e, i * 8 + 5, e, 4, i, 5, 1, ready, 5)
        n.S[C.CAND, g] += 1
    n.S[C.RR, g] = 2
    n.S[C.WAKE, g] = t
    top = n.dm.pool
    e, e_top = arbitrate(t, n.org, n.sw, n.dm, n.S, n.T, n.stk, n.ent, g, 0, n.T[C.OUT_SWITCH, g], top)
    assert e == 1 and e_top == top               # to a node: no entry downstream
    assert n.ent[1, E_CLAIM] == g and n.S[C.LK, g * LKW + LK_E] == 1 and n.S[C.LK, g * LKW + LK_D] == -1
    assert n.S[C.RR, g] == 4 and n.S[C.CAND, g] == 2
    # Nothing eligible (0 not ready, 1 claimed, 2 claimed by hand): the output sleeps until 0's header is ready.
    n.ent[2, E_CLAIM] = 7
    n.S[C.LK, g * LKW + LK_E] = -1
    n.S[C.QHEAD, 3 * 8 + 5] = -1
    n.S[C.QHEAD, 6 * 8 + 5] = -1
    e, _ = arbitrate(t, n.org, n.sw, n.dm, n.S, n.T, n.stk, n.ent, g, 0, n.T[C.OUT_SWITCH, g], top)
    assert e == -1 and n.S[C.WAKE, g] == t + 4


def test_arbitrate_at_a_node_link_routes_one_hop_ahead_to_the_least_loaded_queue():
    # Node 0's packet to node 7 enters switch input 0; DAMQ: its queue there for output 7 is made at once.
    n = _net("damq")
    t = 3
    g = n.dm.n_in + 0
    _queue(n, 0, n.dm.qc + 0, 0, 6, -1, -1, 6, t, 7)
    top = n.dm.pool
    e, e_top = arbitrate(t, n.org, n.sw, n.dm, n.S, n.T, n.stk, n.ent, g, 0, n.T[C.OUT_SWITCH, g], top)
    d = n.stk[C.E_FREE, top - 1]
    assert e == 0 and e_top == top - 1 and n.ent[0, E_DOWN] == d
    assert n.ent[d, E_Q] == 0 * 8 + 7 and n.ent[d, E_GI] == 0 and n.ent[d, E_OI] == 7 and n.ent[d, E_ARR] == 0
    assert n.S[C.QHEAD, 7] == d and n.S[C.CAND, 7] == 1 and (n.S[C.ACT, 0] >> 7) & 1


def test_send_flit_commits_downstream_releases_upstream_and_a_tail_frees_the_output():
    n = _net("fifo", buffer_flits=16)
    t = 9
    g = n.dm.n_in + 1                            # node 1's link into switch input 1
    _queue(n, 0, n.dm.qc + 1, 0, 2, -1, -1, 2, 0, 4)
    n.S[C.NIC, 1] = 1
    top = n.dm.pool
    e, e_top = arbitrate(t, n.org, n.sw, n.dm, n.S, n.T, n.stk, n.ent, g, 0, n.T[C.OUT_SWITCH, g], top)
    d = n.ent[0, E_DOWN]
    out_base = ((t + 1) & n.dm.ring_mask) * n.dm.n_links
    how, e_top, held = send_flit(t, n.org, n.sw, n.dm, n.S, n.T, n.stk, n.ent, g, e, out_base, e_top, 0)
    assert how == 2 and n.S[C.RING, out_base + g] == d          # the header goes over the link
    assert n.S[C.INB, 1 * IW + I_USED] == 1 and n.S[C.INB, 1 * IW + I_HELD] == 1 and held == 1
    assert n.S[C.QFLITS, 8] == 1 and n.S[C.LK, g * LKW + LK_SENT] == 1
    n.ent[d, E_ARR] = 1                           # it arrived
    how, e_top, held = send_flit(t + 1, n.org, n.sw, n.dm, n.S, n.T, n.stk, n.ent, g, e, out_base, e_top, held)
    assert how == 1 and n.ent[d, E_ARR] == 2      # a body flit over a 1-cycle link: counted in at once
    assert n.S[C.LK, g * LKW + LK_E] == -1 and n.S[C.QHEAD, n.dm.qc + 1] == -1 and n.S[C.NIC, 1] == 0
    assert n.stk[C.E_FREE, e_top - 1] == 0 and held == 2
    # Full downstream: nothing sent.
    n2 = _net("fifo", buffer_flits=16)
    _queue(n2, 0, n2.dm.qc + 1, 0, 2, -1, -1, 2, 0, 4)
    e, e_top = arbitrate(t, n2.org, n2.sw, n2.dm, n2.S, n2.T, n2.stk, n2.ent, g, 0, n2.T[C.OUT_SWITCH, g], top)
    n2.S[C.INB, 1 * IW + I_USED] = 16
    how, _, _ = send_flit(t, n2.org, n2.sw, n2.dm, n2.S, n2.T, n2.stk, n2.ent, g, e, out_base, e_top, 0)
    assert how == 0 and n2.S[C.LK, g * LKW + LK_SENT] == 0


def test_outputs_an_idle_output_takes_a_packet_and_sends_its_header_in_the_same_cycle():
    n = _net("hipiqs")
    t = 2
    g = n.dm.n_in + 4
    _queue(n, 0, n.dm.qc + 4, 0, 3, -1, -1, 3, 0, 1)
    n.S[C.ACT, g >> 6] |= 1 << (g & 63)
    top = n.dm.pool
    e_top, moved, held, lazy = outputs(t, n.org, n.sw, n.dm, n.S, n.T, n.stk, n.ent, 0, top, 0, 0)
    slot = (t + 1) & n.dm.ring_mask
    assert (e_top, moved, held, lazy) == (top - 1, 1, 1, 0)
    assert n.S[C.RING, slot * n.dm.n_links + g] == n.ent[0, E_DOWN]
    assert (n.S[C.ARR, slot * n.dm.n_w + (g >> 6)] >> (g & 63)) & 1
    assert n.S[C.QST, (4 * 8 + n.ent[n.ent[0, E_DOWN], E_OI] % 8) * QW + Q_FIFO] == 1


def test_fifo_storage_is_the_inputs_buffer_whatever_the_queue():
    n = _net("fifo", buffer_flits=8)
    for _ in range(4):
        assert org_fifo.commit(n.sw, n.S, 8, 1) and org_fifo.commit(n.sw, n.S, 9, 1)
    assert not org_fifo.fits(n.sw, n.S, 10, 1) and not org_fifo.commit(n.sw, n.S, 10, 1)
    assert org_fifo.fits(n.sw, n.S, 0, 0)
    org_fifo.release(n.sw, n.S, 9, 1)
    assert org_fifo.fits(n.sw, n.S, 10, 1) and n.S[C.QFLITS, 8] == 4 and n.S[C.QFLITS, 9] == 3


def test_safc_storage_is_a_partition_per_input_output_pair():
    n = _net("safc", buffer_flits=16)              # 16 / 8 = 2 flits a partition
    assert org_safc.commit(n.sw, n.S, 8, 1) and org_safc.commit(n.sw, n.S, 8, 1)
    assert not org_safc.fits(n.sw, n.S, 8, 1) and not org_safc.commit(n.sw, n.S, 8, 1)
    assert org_safc.fits(n.sw, n.S, 9, 1)          # the same input's other partitions are untouched
    org_safc.release(n.sw, n.S, 8, 1)
    assert org_safc.fits(n.sw, n.S, 8, 1) and n.S[C.QFLITS, 8] == 1


def test_hipiqs_storage_fills_the_fifo_unit_then_chunks_and_frees_a_chunk_when_its_last_flit_is_read():
    n = _net("hipiqs", crosspoint_flits=2)
    k, q, gi = n.sw.k, 8 + 3, 1
    for _ in range(2):
        assert org_hipiqs.commit(n.sw, n.S, q, gi)
    assert n.S[C.QST, q * QW + Q_FIFO] == 2 and n.S[C.INB, gi * IW + I_CHUNKS] == 0
    for _ in range(k + 1):                         # a chunk filled, then one more flit takes a second chunk
        assert org_hipiqs.commit(n.sw, n.S, q, gi)
    assert n.S[C.QST, q * QW + Q_SH] == k + 1 and n.S[C.INB, gi * IW + I_CHUNKS] == 2
    assert n.S[C.QST, q * QW + Q_WP] == 1          # the last chunk partly filled
    for _ in range(k):                             # k flits read: the head chunk empties and is freed
        org_hipiqs.release(n.sw, n.S, q, gi)
    assert n.S[C.INB, gi * IW + I_CHUNKS] == 1 and n.S[C.QST, q * QW + Q_RP] == 0
    org_hipiqs.release(n.sw, n.S, q, gi)           # the queue empties: its last chunk is freed too
    assert n.S[C.INB, gi * IW + I_CHUNKS] == 0 and n.S[C.QST, q * QW + Q_SH] == 0
    assert n.S[C.QST, q * QW + Q_WP] == 0 and n.S[C.QST, q * QW + Q_FIFO] == 2
    # No chunk free: a full FIFO unit and an empty last chunk refuse.
    n.S[C.INB, gi * IW + I_CHUNKS] = n.sw.n_chunks
    assert not org_hipiqs.fits(n.sw, n.S, q, gi) and not org_hipiqs.commit(n.sw, n.S, q, gi)


def test_damq_read_port_a_busy_input_makes_the_output_wait_for_its_tail():
    n = _net("damq")
    gi, o, t = 2, 5, 40
    assert not org_damq.read_busy(n.S, gi, o)
    n.S[C.RD_BUSY, gi] = 1
    n.S[C.WAKE, o] = 1 << 62
    assert org_damq.read_busy(n.S, gi, o) and n.S[C.RD_WAIT, gi] == 1 << o
    org_damq.read_done(n.S, n.T, n.sw.k, gi, t)
    assert n.S[C.RD_BUSY, gi] == 0 and n.S[C.RD_WAIT, gi] == 0 and n.S[C.WAKE, o] == t + 1


def test_the_organisation_constants():
    assert (FIFO, SAFC, DAMQ, HIPIQS, CENTRAL) == tuple(ORG[o] for o in ("fifo", "safc", "damq", "hipiqs", "central"))
    assert I_LAST < IW and Q_RP < QW
