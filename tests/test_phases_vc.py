"""The virtual-channel routers' phases (paper 004, MediaWorm §III), each called once on a hand-built state and
checked by its rule.

One router of k = 2 ports (links 0, 1 its outputs, links 2, 3 the NICs of nodes 0, 1), m = 4 VCs a link (VCs
2, 3 best effort), VC buffers of 4 flits: input VC c of input gi is queue gi * 4 + c, output VC c of output g is
queue 8 + g * 4 + c, node v's NIC queue for VC c is 16 + v * 4 + c.
"""

import numpy as np

from switchq.validate import kernel as K
from switchq.validate.arch.flit import vc as V
from switchq.validate.arch.flit import vc_crossbar as X
from switchq.validate.arch.flit import vc_inject as I
from switchq.validate.arch.flit import vc_links as L
from switchq.validate.arch.flit import vc_state as S
from switchq.validate.arch.flit.records import (FLITS_RECEIVED, H_BE, H_GEN, H_LEN, H_PKT, H_SENT, LAYOUT, P_DEST,
                                                P_DVC, P_GEN, P_LEN, P_MSG, P_NEXT, P_VT, SCHED_FGVC, SCHED_FIFO,
                                                TO_NODE, Va, Vc)
from switchq.validate.arch.flit.rules import nic_stamp
from switchq.validate.arch.flit.state import packets


def _vc(**kw):
    args = dict(k=2, m=4, cap=4, rmask=3, body_wait=1, header_extra=2, credit=1, link=1, full=0, sched=SCHED_FIFO,
                per_message=0, be_vtick=1.0, m_rt=2, be_rate=0.0, be_all=1, msg_flits=3, nic_messages=2,
                iterations=2, b_stamp=1, be_free=0, be_bits=0b1100, be_flat=0, regulated=1)
    args.update(kw)
    return Vc(**args)


def _net(vc=None, out_switch=(TO_NODE, TO_NODE, 0, 0), out_input=(0, 1, 0, 1)):
    """One router: outputs 0, 1 to nodes 0, 1; node v's NIC feeds input v."""
    vc = vc or _vc()
    d = S.dims(vc, 1, 2)
    st = S.new_state(d, vc, np.array(out_switch, dtype=np.int64), np.array(out_input, dtype=np.int64))
    pk, p_free = packets(d.pool)
    return vc, d, st, pk, p_free


def _va(n_frames=1):
    i64 = np.int64
    return Va(st_off=np.array([0, n_frames], dtype=i64), st_src=np.array([0], dtype=i64),
              st_dest=np.array([1], dtype=i64), st_ivc=np.array([1], dtype=i64), st_dvc=np.array([0], dtype=i64),
              f_start=np.array([5 + 30 * r for r in range(n_frames)], dtype=i64),
              f_msgs=np.full(n_frames, 2, dtype=i64), f_last=np.full(n_frames, 2, dtype=i64),
              f_spacing=np.full(n_frames, 10.0), frame_done=np.full(n_frames, -1, dtype=i64))


def test_turn_wheel_makes_flits_ready_and_input_ones_candidates():
    vc, d, (St, F, T, fr_t, fr_s, hd), pk, p_free = _net()
    t = 9
    St[S.WHEEL + (t & d.wmask), 1] = 0b0110          # input 1's VCs 1, 2
    St[S.WHEEL + (t & d.wmask), d.n_in + 0] = 0b1000  # output 0's VC 3
    X.turn_wheel(t, d, St)
    assert St[S.RDY, 1] == 0b0110 and St[S.XNEW, 1] == 0b0110
    assert St[S.RDY, d.n_in] == 0b1000 and St[S.XNEW, 0] == 0       # an output's flit is no crossbar candidate
    assert St[S.WHEEL + (t & d.wmask)].sum() == 0


def test_inject_messages_regulator_puts_message_in_its_nic_vc_and_schedules_the_next():
    vc, d, (St, F, T, fr_t, fr_s, hd), pk, p_free = _net()
    va = _va()
    streams, frames, heap_t, heap_c, heap_size, be_first = S.new_sources(va, vc, d, F)
    stats = LAYOUT.zeros()
    parts = K.parts(2 * d.nodes)
    be_first = I.inject_messages(5, True, 0, d, vc, St, F, hd, pk, pk.view(np.float64), p_free, stats, parts,
                                 streams, frames, va.f_spacing, heap_t, heap_c, heap_size, be_first)
    q = d.nq_ring + 0 * d.m + 1                      # node 0's NIC queue for the stream's input VC 1
    pkt = St[S.Q_HEAD, q]
    assert pkt >= 0 and St[S.Q_TAIL, q] == pkt and St[S.NIC_MASK, 0] == 0b10 and St[S.NIC_COUNT, 0] == 1
    assert pk[pkt, P_DEST] == 1 and pk[pkt, P_DVC] == 0 and pk[pkt, P_LEN] == 3 and pk[pkt, P_MSG] == 0
    assert pk[pkt, P_GEN] == 5 and pk[pkt, P_NEXT] == -1
    assert pk.view(np.float64)[pkt, P_VT] == 10.0 / 3          # Vtick: message interval / its flits (§III-D)
    assert hd[q, H_PKT] == pkt and hd[q, H_LEN] == 3 and hd[q, H_BE] == 0 and hd[q, H_GEN] == 5
    assert St[S.COUNT, S.C_OFFERED] == 3 and parts[0, 1] == 3
    # message 1 of the frame is due at start + floor(1 x spacing) = 15, the frame's last (2 flits)
    assert heap_size[0] == 1 and heap_t[0] == 15 * 1 + 0 and streams[S.ST_K, 0] == 1
    assert be_first == np.inf


def test_inject_messages_unregulated_frame_joins_the_nic_at_once_with_the_regulators_vtick():
    # With no regulator (Table II's reading), both of the frame's messages are made in its first cycle, queued
    # behind each other in the stream's NIC VC; each keeps the Vtick the regulator's spacing gives (10 / its
    # flits), the rate the stream reserves. Their stamps start from that cycle, each message's afresh (FGVC keeps
    # its auxVC per message, §III-D): the burst is not charged for its own length.
    vc, d, (St, F, T, fr_t, fr_s, hd), pk, p_free = _net(_vc(regulated=0))
    va = _va(n_frames=2)
    streams, frames, heap_t, heap_c, heap_size, be_first = S.new_sources(va, vc, d, F)
    I.inject_messages(5, True, 0, d, vc, St, F, hd, pk, pk.view(np.float64), p_free, LAYOUT.zeros(),
                      K.parts(4), streams, frames, va.f_spacing, heap_t, heap_c, heap_size, be_first)
    q = d.nq_ring + 1
    first = St[S.Q_HEAD, q]
    second = pk[first, P_NEXT]
    assert second >= 0 and St[S.Q_TAIL, q] == second and St[S.NIC_COUNT, 0] == 2
    assert (pk[first, P_LEN], pk[second, P_LEN]) == (3, 2) and pk[second, P_GEN] == 5
    assert pk.view(np.float64)[first, P_VT] == 10.0 / 3 and pk.view(np.float64)[second, P_VT] == 10.0 / 2
    # the next frame's first message is due at its start, 35
    assert heap_size[0] == 1 and heap_t[0] == 35 and streams[S.ST_ROW, 0] == 1 and streams[S.ST_K, 0] == 0


def test_inject_messages_full_nic_refuses_and_the_frame_is_lost():
    vc, d, (St, F, T, fr_t, fr_s, hd), pk, p_free = _net(_vc(nic_messages=0))
    va = _va()
    streams, frames, heap_t, heap_c, heap_size, be_first = S.new_sources(va, vc, d, F)
    stats = LAYOUT.zeros()
    I.inject_messages(5, True, 0, d, vc, St, F, hd, pk, pk.view(np.float64), p_free, stats, K.parts(4), streams,
                      frames, va.f_spacing, heap_t, heap_c, heap_size, be_first)
    assert St[S.Q_HEAD, d.nq_ring + 1] == -1 and St[S.COUNT, S.C_OFFERED] == 0
    assert frames[S.FM_LEFT, 0] < 0 and stats[K.STAT_M_DROPPED] == 1


def _header_at_input(d, St, hd, pk, gi, c, dest, dvc, flits=3):
    q = gi * d.m + c
    pkt = 7
    pk[pkt, P_DEST] = dest
    pk[pkt, P_DVC] = dvc
    hd[q, H_PKT] = pkt
    hd[q, H_LEN] = flits
    St[S.RDY, gi] |= 1 << c
    return q, pkt


def test_allocate_vcs_takes_least_loaded_free_output_vc_then_parks_when_none_is_free():
    vc, d, (St, F, T, fr_t, fr_s, hd), pk, p_free = _net()
    route = np.zeros((1, 2), dtype=np.int64)         # every destination: group 0, either output (the fat mesh)
    groups = np.array([[0b11]], dtype=np.int64)
    q, pkt = _header_at_input(d, St, hd, pk, 0, 1, dest=1, dvc=0)
    St[S.OUT_LOAD, 0] = 5                             # output 0 more loaded: output 1 it is
    F[S.Q_ST, q] = 4.0
    nx, live = X.allocate_vcs(0, d, vc, St, F, hd, pk, route, groups)
    qo = d.qo_base + 1 * d.m + 0
    assert hd[qo, H_PKT] == pkt and St[S.Q_DN, q] == qo and St[S.Q_GO, q] == 1 and St[S.OUT_MASK, 1] == 0b1
    assert St[S.XG, 0] == 0b10 and St[S.XT, 0 * d.k + 1] == 0b10                     # a candidate at once
    assert St[S.XO, 0] == 0b10 and St[S.XC, 0 * d.k + 1] == 1 and F[S.XS, 0 * d.k + 1] == 4.0
    assert (nx, live) == (0, 0b01)
    # a second header for VC 0 on both outputs: output 1's VC 0 is now held, output 0's too: it parks on both
    hd[d.qo_base + 0 * d.m + 0, H_PKT] = 3
    q2, _ = _header_at_input(d, St, hd, pk, 1, 2, dest=0, dvc=0)
    X.allocate_vcs(0, d, vc, St, F, hd, pk, route, groups)
    assert St[S.RDY, 1] == 0 and St[S.PARK_IN, 1] == 0b100
    assert St[S.PARKED, 0 * d.k + 1] == 0b100 and St[S.PARKED, 1 * d.k + 1] == 0b100 and St[S.Q_DN, q2] == -1


def _candidate(d, St, F, gi, c, o, st, ready=0):
    St[S.RDY, gi] |= 1 << c
    St[S.XG, gi] |= 1 << c
    St[S.XT, gi * d.k + o] |= 1 << c
    St[S.XO, gi] |= 1 << o
    St[S.XC, gi * d.k + o] = c
    F[S.XS, gi * d.k + o] = st
    F[S.Q_ST, gi * d.m + c] = st
    St[S.Q_RT, gi * d.m + c] = ready
    St[S.Q_GO, gi * d.m + c] = o


def test_allocate_switch_output_takes_smallest_stamp_and_loser_gets_its_other_output_next_round():
    vc, d, (St, F, T, fr_t, fr_s, hd), pk, p_free = _net()
    _candidate(d, St, F, 0, 1, 0, st=5.0)            # input 0 offers output 0 (stamp 5)
    _candidate(d, St, F, 1, 2, 0, st=3.0)            # input 1: output 0 at 3 (its best, A), output 1 at 4
    _candidate(d, St, F, 1, 3, 1, st=4.0)
    nx = X.allocate_switch(0, 0b11, d, vc, St, F)
    # round 1: output 0 takes input 1 (3 < 5, B); round 2: input 0 has only output 0, taken: no pair
    assert nx == 1 and St[S.XQ, 0] == 1 * d.m + 2 and St[S.XQ_GI, 0] == 1
    # B by ready cycle (crossbar_output="fifo"): output 0 takes the older offer, input 0's, and input 1 then
    # takes output 1 in round 2
    St[S.Q_RT, 0 * d.m + 1] = 1
    St[S.Q_RT, 1 * d.m + 2] = 2
    nx = X.allocate_switch(0, 0b11, d, _vc(b_stamp=0), St, F)
    assert nx == 2 and list(St[S.XQ, :2]) == [0 * d.m + 1, 1 * d.m + 3]


def test_traverse_crossbar_flit_reaches_vc_multiplexer_two_cycles_on_and_credit_goes_back():
    vc, d, (St, F, T, fr_t, fr_s, hd), pk, p_free = _net(_vc(full=1, sched=SCHED_FGVC))
    t = 20
    gi, c, go = 0, 1, 1
    q = gi * d.m + c
    qo = d.qo_base + go * d.m + 0
    _candidate(d, St, F, gi, c, go, st=2.0)
    St[S.Q_DN, q] = qo
    St[S.QIN, q] = 2                                  # two flits in, the first (a body flit) goes
    fr_t[q, 1] = 19
    fr_s[q, 1] = 6.0
    hd[q, H_LEN] = 3
    hd[q, H_SENT] = 1
    F[S.H_VT, q] = 2.5
    St[S.XQ, 0] = q
    St[S.XQ_GI, 0] = gi
    assert X.traverse_crossbar(t, 0, 1, d, vc, St, F, T, fr_t, fr_s, hd) == 1
    assert St[S.QOUT, q] == 1 and fr_t[q, 0] == t + vc.credit     # its slot: the cycle its credit is back
    assert F[S.Q_ST, q] == 6.0 and St[S.Q_RT, q] == 19 and St[S.RDY, gi] == 0b10      # next flit ready
    assert St[S.QIN, qo] == 1 and fr_t[qo, 0] == t + 2 and St[S.OUT_LOAD, go] == 1 and hd[q, H_SENT] == 2
    assert fr_s[qo, 0] == t + 2.5 and F[S.Q_ST, qo] == t + 2.5      # FGVC at the multiplexer (full crossbar)
    assert St[S.WHEEL + ((t + 2) & d.wmask), d.n_in + go] == 0b1
    assert St[S.XO, gi] == 0b10 and St[S.XC, gi * d.k + go] == c   # still its output's best candidate


def test_multiplex_takes_smallest_stamp_with_a_credit_downstream():
    # output 0 feeds input 1 of the router (a loop back, enough for one link's rule)
    vc, d, (St, F, T, fr_t, fr_s, hd), pk, p_free = _net(out_switch=(0, TO_NODE, 0, 0), out_input=(1, 1, 0, 1))
    t = 30
    base = d.qo_base + 0 * d.m
    for c, st in ((0, 1.0), (1, 2.0)):
        St[S.RDY, d.n_in + 0] |= 1 << c
        St[S.QIN, base + c] = 1
        F[S.Q_ST, base + c] = st
        hd[base + c, H_LEN] = 3
    St[S.PROG, 0] = 0b11                              # both messages started: their downstream VCs are theirs
    St[S.Q_DN, base + 0] = 1 * d.m + 0
    St[S.Q_DN, base + 1] = 1 * d.m + 1
    St[S.CREDIT_AT, 1 * d.m + 0] = t + 1             # VC 0's next place downstream is not free yet
    St[S.OUT_LOAD, 0] = 2
    q, c, sent, gi2, shared, shared_ok = L.multiplex(t, 0, d, vc, St, F, T, fr_t, fr_s, hd)
    assert (q, c, sent, gi2) == (base + 1, 1, 1, 1)
    assert St[S.QOUT, base + 1] == 1 and St[S.RDY, d.n_in + 0] == 0b01 and St[S.OUT_LOAD, 0] == 1
    St[S.CREDIT_AT, 1 * d.m + 0] = t
    assert L.multiplex(t, 0, d, vc, St, F, T, fr_t, fr_s, hd)[0] == base + 0
    assert L.multiplex(t, 0, d, vc, St, F, T, fr_t, fr_s, hd)[0] == -1    # nothing ready is left


def test_deliver_flit_tail_completes_frame_and_frees_packet():
    vc, d, (St, F, T, fr_t, fr_s, hd), pk, p_free = _net()
    q = d.qo_base + 1 * d.m + 0                       # output 1 (to node 1), VC 0
    pkt = p_free[d.pool - 1]
    St[S.COUNT, S.C_P_TOP] = d.pool - 1
    pk[pkt, P_MSG] = 0
    pk[pkt, P_GEN] = 100
    hd[q, H_PKT] = pkt
    hd[q, H_LEN] = 3
    frames = np.zeros((4, 1), dtype=np.int64)
    frames[S.FM_LEFT, 0] = 1
    frame_done = np.full(1, -1, dtype=np.int64)
    stats = LAYOUT.zeros()
    parts = K.parts(4)
    trace = np.zeros((4, 5), dtype=np.int64)
    L.deliver_flit(130, 131, 1, q, 0, 3, True, 0, d, St, T, hd, pk, p_free, stats, parts, trace, frames, frame_done)
    assert stats[FLITS_RECEIVED] == 1 and St[S.COUNT, S.C_RECEIVED] == 1 and parts[1, 1] == -1
    assert list(trace[0]) == [131, 1, pkt, 3, 0] and St[S.COUNT, S.C_TRACE] == 1
    assert frames[S.FM_LEFT, 0] == 0 and frame_done[0] == 131                 # the frame's last message
    assert stats[K.STAT_M_DELIVERED] == 1 and stats[K.STAT_M_LATENCY_SUM] == 31
    assert St[S.COUNT, S.C_P_TOP] == d.pool and p_free[d.pool - 1] == pkt


def test_enter_router_header_takes_its_vc_and_is_ready_after_routing():
    vc, d, (St, F, T, fr_t, fr_s, hd), pk, p_free = _net()
    g = 2                                             # node 0's NIC into input 0
    q = d.nq_ring + 0 * d.m + 1
    hd[q, H_PKT] = 4
    hd[q, H_LEN] = 3
    hd[q, H_SENT] = 1
    St[S.QIN, 0 * d.m + 1] = 4                       # the VC buffer's 4 places: this flit fills it
    St[S.QOUT, 0 * d.m + 1] = 1
    L.enter_router(41, g, q, 1, 1, 0, d.m, 0, d, vc, St, F, fr_t, fr_s, hd)
    q2 = 0 * d.m + 1
    assert St[S.Q_DN, q] == q2 and hd[q2, H_PKT] == 4 and hd[q2, H_LEN] == 3 and hd[q2, H_SENT] == 0
    assert St[S.IN_MASK, 0] == 0b10 and St[S.PROG, g] == 0b10
    assert fr_t[q2, 4 & vc.rmask] == 41 + vc.body_wait + vc.header_extra and fr_s[q2, 0] == 41.0
    assert St[S.QIN, q2] == 5 and St[S.CREDIT_AT, q2] == 1 << 62          # full: no credit upstream
    assert St[S.COUNT, S.C_MAX_HELD] == 4


def test_release_vc_output_tail_wakes_parked_headers_and_nic_tail_promotes_next_message():
    vc, d, (St, F, T, fr_t, fr_s, hd), pk, p_free = _net()
    g, c = 1, 0
    q = d.qo_base + g * d.m + c
    hd[q, H_PKT] = 2
    St[S.OUT_MASK, g] = 0b1
    St[S.PROG, g] = 0b1
    St[S.PARKED, g * d.k + 0] = 0b100                 # input 0's VC 2 parked on output 1
    St[S.PARK_IN, 0] = 0b100
    L.release_vc(g, q, c, d, vc, St, F, T, hd, pk, pk.view(np.float64))
    assert hd[q, H_PKT] == -1 and St[S.OUT_MASK, g] == 0 and St[S.PROG, g] == 0
    assert St[S.RDY, 0] == 0b100 and St[S.PARK_IN, 0] == 0 and St[S.PARKED, g * d.k + 0] == 0
    # node 1's NIC (link 3), VC 2: its head leaves, packet 5 behind it becomes the head
    g, c = 3, 2
    q = d.nq_ring + 1 * d.m + c
    St[S.Q_HEAD, q] = 4
    St[S.Q_TAIL, q] = 5
    pk[4, P_NEXT] = 5
    pk[5, P_LEN] = 3
    pk[5, P_MSG] = -1
    pk[5, P_GEN] = 77
    pk.view(np.float64)[5, P_VT] = 1.5
    St[S.NIC_COUNT, 1] = 2
    St[S.NIC_MASK, 1] = 0b100
    L.release_vc(g, q, c, d, vc, St, F, T, hd, pk, pk.view(np.float64))
    assert St[S.Q_HEAD, q] == 5 and St[S.NIC_COUNT, 1] == 1 and St[S.NIC_MASK, 1] == 0b100
    assert hd[q, H_PKT] == 5 and hd[q, H_BE] == 1 and hd[q, H_GEN] == 77 and F[S.H_VT, q] == 1.5
    assert F[S.Q_ST, q] == nic_stamp(77, 0, 1.5, True, True, vc.be_flat, vc.be_vtick)   # FIFO: by creation
