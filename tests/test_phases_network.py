"""Each phase of the fat-tree network kernel (validate/arch/network_phases.py) on a hand-built state.

The network is the 16-node fat tree of 8-port switches (paper 003 §2): leaf switches 0-3 (ports 0-3 down to
nodes 4s..4s+3, ports 4-7 up to top switches 4-7, entering at input s), top switches 4-7 (port j down to leaf
j, entering it at input 4 + s - 4). Node v's NIC link is link 64 + v into leaf v // 4 at input v % 4.
Crosspoint x = (switch * 8 + input) * 8 + output port. One slot per link and per credit return.

Where a copy must climb at a switch above the leaves (a choice of up ports one hop ahead), or a source route's
word must be read at its stage, the tests use the 64-node tree, three levels of the same switches: leaves 0-15,
middle switches 16-31, top switches 32-47; node v's NIC link is link 384 + v into leaf v // 4 at input v % 4.

Paths covered: credits coming back; arrival (forks, routing one hop ahead, copies down to nodes needing
nothing); generation (permutation, uniform never to the sender, multicast sets); batches; injection (adaptive,
and a fixed route's up port); output arbitration (oldest eligible head, ties, a climbing copy's choice),
credit return with a group's last copy, forwarding, delivery, a batch's log; the closing account.
"""

import numpy as np
import pytest
from switchq.models.network import FatTreeNetwork
from switchq.validate import kernel as K
from switchq.validate.arch import network as N
from switchq.validate.arch import network_phases as P
from switchq.validate.arch import network_state as S
from switchq.validate.arch.credit_routing import candidates

NODES, PORTS, Q = 16, 8, 4


def _net(routing="adaptive", nic_cap=4, n_msg=16, f_cap=4, nodes=NODES):
    """The sizes, tables and an idle state (pools free, credits home, links empty) of the 16-node tree."""
    d, tab = N._arguments(FatTreeNetwork.for_nodes(nodes, PORTS, up_routing=routing))
    assert (d.q, d.ld, d.cd) == (Q, 1, 1) and (nodes != NODES or (d.n_out, d.n_links) == (64, 80))
    d = d._replace(nic_cap=nic_cap)
    return d, tab, S.new_state(d, n_msg, f_cap)


def _message(st, mid, dests, birth=0, route=0):
    st.msgs[[S.M_BIRTH, S.M_N, S.M_LEFT, S.M_ROUTE], mid] = [birth, len(dests), len(dests), route]
    st.dest[mid, :len(dests)] = dests


def _stats(nodes=NODES):
    return N.LAYOUT.zeros(), K.parts(nodes)


def test_return_credits_gives_back_the_credits_freed_cd_slots_ago():
    d, _, st = _net()
    st.ring[1, :3] = [2, 3, 5]                              # slot 3 reads ring entry 1: crosspoints 3 and 5
    st.ring[0, :2] = [1, 7]
    st.xs[S.CREDITS, [3, 5, 7]] = 1
    P.return_credits(3, d, st)
    assert st.xs[S.CREDITS, [3, 5, 7]].tolist() == [2, 2, 1]
    assert st.ring[1, 0] == 0 and st.ring[0, :2].tolist() == [1, 7]
    assert (st.xs[S.CREDITS] == Q).sum() == d.n_xp - 3


def test_arrive_forks_a_multicast_into_its_granted_crosspoints():
    d, tab, st = _net()
    _message(st, 0, [1, 2, 5])
    c_top, g_top = d.n_pk - 1, d.n_pk
    pid = st.pool[S.C_FREE, c_top]
    st.pool[[S.C_MSG, S.C_LO, S.C_HI, S.C_NEXT], pid] = [0, 0, 3, 0b11]   # granted: top switch 4's ports 0, 1
    t = 7
    st.link[0 * 8 + 4, t & 1] = pid                        # leaf 0's up port 4 into top switch 4, input 0
    c_top, g_top = P.arrive(t, d, tab, st, c_top, g_top)
    assert (st.link == -1).all()
    assert (c_top, g_top) == (d.n_pk - 2, d.n_pk - 1)      # one new copy, one arrival group
    x0 = (4 * 8 + 0) * 8
    gid = st.pool[S.C_GRP, pid]
    assert st.pool[[S.G_LEFT, S.G_MASK, S.G_X0], gid].tolist() == [2, 0b11, x0]
    got = {}
    for port in (0, 1):
        assert st.xs[S.XP_LEN, x0 + port] == 1 and st.xs[S.OCCUPIED, 4 * 8 + port] == 1
        cid = st.xq[x0 + port, st.xs[S.XP_HEAD, x0 + port]]
        assert st.pool[[S.C_MSG, S.C_T, S.C_GRP], cid].tolist() == [0, t, gid]
        got[port] = (cid, *st.pool[[S.C_LO, S.C_HI, S.C_NEED], cid].tolist())
    assert got[0] == (pid, 0, 2, 0b110)                    # the arriving copy: down to leaf 0, nodes 1 and 2
    assert got[1][1:] == (2, 3, 1 << 1)                    # a new copy: down to leaf 1, node 5
    assert st.xs[S.OCCUPIED].sum() == 2


@pytest.mark.parametrize("routing", ["adaptive", "source"])
def test_arrive_routes_each_copy_one_hop_ahead(routing):
    # 64 nodes, three levels: node 0's packet to node 63 climbs from its leaf to a middle switch, where it
    # must climb again (a choice of up ports), then descends from a top switch.
    d, tab, st = _net(routing=routing, nodes=64)
    _message(st, 0, [63], route=6)
    c_top = d.n_pk - 1
    pid = st.pool[S.C_FREE, c_top]
    st.pool[[S.C_MSG, S.C_LO, S.C_HI, S.C_NEXT], pid] = [0, 0, 1, 1 << 4]  # granted: its leaf's up port 4
    s0, i0 = tab.out_switch[d.n_out], tab.out_input[d.n_out]              # node 0's NIC link
    st.link[d.n_out, 1] = pid
    P.arrive(1, d, tab, st, c_top, d.n_pk)
    x = (s0 * 8 + i0) * 8 + 4
    assert st.xs[S.XP_LEN, x] == 1 and st.xq[x, 0] == pid and st.pool[S.C_T, pid] == 1
    nxt = tab.out_switch[s0 * 8 + 4]
    choice = candidates(nxt, 63, tab)
    assert bin(choice).count("1") == PORTS // 2                          # any up port of the middle switch
    need = st.pool[S.C_NEED, pid]
    if routing == "adaptive":
        assert need == ~choice                                             # the choice, left to the sender
    else:
        assert need == 1 << tab.source_port[tab.stage[nxt], 6] and need & choice   # the route word's port


@pytest.mark.parametrize("routing", ["adaptive", "source"])
def test_arrive_down_to_nodes_needs_nothing_further(routing):
    # A copy entering a port down to a node has no next switch (out_switch -1): the node sinks it, so it
    # needs no credit anywhere (need 0), whatever its pool column held before and whatever its route word.
    # Here a multicast for nodes 1 and 2 comes down from top switch 4 and forks at leaf 0.
    d, tab, st = _net(routing=routing)
    _message(st, 0, [1, 2], route=9)
    c_top, g_top = d.n_pk - 1, d.n_pk
    pid = st.pool[S.C_FREE, c_top]
    st.pool[[S.C_MSG, S.C_LO, S.C_HI, S.C_NEXT, S.C_NEED], pid] = [0, 0, 2, 0b110, 1 << 5]  # a stale need
    st.pool[S.C_NEED, st.pool[S.C_FREE, c_top - 1]] = ~0xF0                      # the fork's copy: a stale choice
    g = 4 * 8 + 0                                          # top switch 4's port 0, into leaf 0 at input 4
    assert (tab.out_switch[g], tab.out_input[g]) == (0, 4) and (tab.out_switch[[1, 2]] == -1).all()
    t = 3
    st.link[g, t & 1] = pid
    c_top, _ = P.arrive(t, d, tab, st, c_top, g_top)
    assert c_top == d.n_pk - 2
    x0 = (0 * 8 + 4) * 8
    for port in (1, 2):                                    # leaf 0's port p is node p
        assert st.xs[S.XP_LEN, x0 + port] == 1
        cid = st.xq[x0 + port, st.xs[S.XP_HEAD, x0 + port]]
        assert st.dest[0, st.pool[S.C_LO, cid]] == port and st.pool[S.C_HI, cid] == st.pool[S.C_LO, cid] + 1
        assert st.pool[S.C_NEED, cid] == 0


def test_generate_a_permutation_at_full_load_fills_every_nic_with_room():
    d, _, st = _net(nic_cap=4, n_msg=32)
    stats, parts = _stats()
    perm = np.roll(np.arange(NODES), 1).astype(np.int64)
    src = N.Sources(load=1.0, kind=K.DEST_PERMUTATION, perm=perm, size_cdf=np.ones(1), f_cap=1)
    st.nics[S.NIC_LEN, 0] = 4                              # node 0's queue is full
    K.seed_rng(1)
    m_top = P.generate(5, d, src, 0, stats, parts, st, 32)
    assert stats[K.STAT_ARRIVED] == NODES - 1 and stats[K.STAT_DROPPED] == 1
    assert stats[N.COPIES_OWED] == NODES - 1 and stats[S.M_COPIES_OWED] == NODES - 1
    assert st.nics[S.NIC_LEN].tolist() == [4] + [1] * (NODES - 1)
    for v in range(1, NODES):
        mid = st.nic_q[v, 0]
        assert st.dest[mid, 0] == perm[v] and st.msgs[S.M_BIRTH, mid] == 5 and st.msgs[S.M_LEFT, mid] == 1
    assert m_top == 32 - (NODES - 1)


def test_generate_uniform_never_picks_the_sender():
    # Uniform unicast: any other node (a draw over nodes - 1, shifted past the sender). Every node sends each
    # slot at full load; its queue and the message pool are emptied between slots so each draw is kept.
    d, _, st = _net(n_msg=NODES)
    stats, parts = _stats()
    src = N.Sources(load=1.0, kind=K.DEST_UNIFORM, perm=np.zeros(1, dtype=np.int64), size_cdf=np.ones(1), f_cap=1)
    seen = np.zeros((NODES, NODES), dtype=np.int64)        # seen[sender, destination]
    K.seed_rng(5)
    slots = 400
    for t in range(slots):
        st.nics[[S.NIC_HEAD, S.NIC_LEN]] = 0
        assert P.generate(t, d, src, 0, stats, parts, st, NODES) == 0
        for v in range(NODES):
            mid = st.nic_q[v, 0]
            assert st.msgs[S.M_N, mid] == 1
            seen[v, st.dest[mid, 0]] += 1                  # a destination past the last node would raise here
    assert stats[K.STAT_ARRIVED] == slots * NODES
    assert np.diag(seen).sum() == 0                        # never the sender
    assert (seen + np.eye(NODES, dtype=np.int64) > 0).all()  # but every other node (about 27 draws each)


def test_generate_multicast_draws_sorted_subsets_without_the_sender_and_source_routes():
    d, _, st = _net(routing="source", n_msg=32, f_cap=5)
    stats, parts = _stats()
    src = N.Sources(load=1.0, kind=K.DEST_MULTICAST, perm=np.zeros(1, dtype=np.int64),
                    size_cdf=np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.0]), f_cap=5)
    K.seed_rng(11)
    P.generate(0, d, src, 0, stats, parts, st, 32)
    assert stats[N.COPIES_OWED] == 5 * NODES and parts[0].sum() == 5 * NODES
    routes = set()
    for v in range(NODES):
        mid = st.nic_q[v, 0]
        dests = st.dest[mid].tolist()
        assert st.msgs[S.M_N, mid] == 5 and dests == sorted(set(dests)) and v not in dests
        routes.add(st.msgs[S.M_ROUTE, mid])
    assert routes <= set(range(NODES)) and len(routes) > 1  # a random node each


def test_load_batch_queues_the_packets_in_list_order():
    d, _, st = _net(routing="dmodk")
    stats, _ = _stats()
    batch = N.Batch(src=np.array([2, 2, 7]), ready=np.array([0, 3, 1]), n=np.array([1, 2, 1]),
                    dest=np.array([[9, 0], [0, 4], [1, 0]]))
    P.load_batch(d, batch, stats, st)
    assert st.nics[S.NIC_LEN, 2] == 2 and st.nic_q[2, :2].tolist() == [0, 1]
    assert st.nics[S.NIC_LEN, 7] == 1 and st.nic_q[7, 0] == 2
    assert st.msgs[S.M_BIRTH, :3].tolist() == [0, 3, 1] and st.msgs[S.M_LEFT, :3].tolist() == [1, 2, 1]
    assert st.msgs[S.M_ROUTE, :3].tolist() == [9, 0, 1]    # d-mod-k: the first destination
    assert stats[K.STAT_ARRIVED] == 3 and stats[N.COPIES_OWED] == 4


def test_inject_sends_ready_heads_with_credit():
    d, tab, st = _net()
    _message(st, 0, [1])                                   # node 0 to node 1: leaf 0, input 0, port 1
    _message(st, 1, [9], birth=9)                          # node 4's head is not ready
    _message(st, 2, [6])                                   # node 8 to node 6: up from leaf 2, any port 4-7
    _message(st, 3, [13])                                  # node 12: leaf 3, no credit on its port 1
    for v, mid in ((0, 0), (4, 1), (8, 2), (12, 3)):
        st.nic_q[v, 0] = mid
        st.nics[S.NIC_LEN, v] = 1
    credits = st.xs[S.CREDITS]
    x12 = (3 * 8 + 0) * 8
    credits[x12 + 1] = 0
    x8 = (2 * 8 + 0) * 8
    credits[x8 + 4:x8 + 8] = [1, 3, 2, 3]
    K.seed_rng(2)
    t = 4
    c_top = P.inject(t, d, tab, st, d.n_pk)
    assert c_top == d.n_pk - 2
    assert st.nics[S.NIC_LEN].tolist()[::4] == [0, 1, 0, 1]
    assert credits[1] == Q - 1
    assert credits[x8 + 4:x8 + 8].tolist() in ([1, 2, 2, 3], [1, 3, 2, 2])  # most credits, tie at random
    slot = (t + 1) & 1
    sent = {v: st.link[64 + v, slot] for v in range(NODES) if st.link[64 + v, slot] >= 0}
    assert sorted(sent) == [0, 8]
    assert st.pool[[S.C_MSG, S.C_LO, S.C_HI, S.C_NEXT], sent[0]].tolist() == [0, 0, 1, 1 << 1]
    assert st.pool[S.C_NEXT, sent[8]] in (1 << 5, 1 << 7)


@pytest.mark.parametrize("routing, route, port", [("source", 9, 5), ("dmodk", 6, 6)])
def test_inject_under_a_fixed_route_takes_the_route_words_up_port(routing, route, port):
    # 64 nodes: node 0's packet for node 6 climbs from leaf 0 (stage 0), where up ports 4-7 are all candidates.
    # A route fixed at the source takes the up port of the route word's stage-0 digit, 4 + route % 4, however
    # many credits the others hold, and waits for that port's credit. Source routing: a random word (9, not
    # the destination: its port would be 6); d-mod-k: the destination. Other digits name other ports (9: 6, 4;
    # 6: 5, 4), so reading the wrong stage fails too.
    d, tab, st = _net(routing=routing, nodes=64)
    _message(st, 0, [6], route=route)
    st.nic_q[0, 0] = 0
    st.nics[S.NIC_LEN, 0] = 1
    s, i = tab.out_switch[d.n_out], tab.out_input[d.n_out]
    assert (s, i) == (0, 0) and candidates(s, 6, tab) == 0xF0
    x0 = (s * 8 + i) * 8
    credits = st.xs[S.CREDITS]
    credits[x0 + port] = 0                                 # the route's port is full, the other three are not
    assert P.inject(0, d, tab, st, d.n_pk) == d.n_pk
    assert st.nics[S.NIC_LEN, 0] == 1 and (st.link == -1).all()
    credits[x0 + port] = 1                                 # now it has one credit: the fewest, still taken
    t = 1
    assert P.inject(t, d, tab, st, d.n_pk) == d.n_pk - 1
    pid = st.link[d.n_out, (t + 1) & 1]
    assert st.nics[S.NIC_LEN, 0] == 0 and st.pool[S.C_MSG, pid] == 0
    assert st.pool[S.C_NEXT, pid] == 1 << port
    assert credits[x0 + 4:x0 + 8].tolist() == [0 if p == port else Q for p in range(4, 8)]


def _head(st, x, cid, arrived, need=0, group=None, g_top=None):
    """Copy ``cid`` at the tail of crosspoint ``x`` (its output: x // 8 // 8 * 8 + x % 8), in ``group`` or a
    group of its own taken from the top ``g_top`` of the group pool; returns that top."""
    o = x // PORTS // PORTS * PORTS + x % PORTS
    st.pool[S.C_T, cid] = arrived
    st.pool[S.C_NEED, cid] = need
    xs = st.xs
    st.xq[x, (xs[S.XP_HEAD, x] + xs[S.XP_LEN, x]) & 3] = cid
    xs[S.XP_LEN, x] += 1
    if xs[S.XP_LEN, x] == 1:
        xs[S.OCCUPIED, o] += 1
    if group is None:
        g_top -= 1
        group = st.pool[S.G_FREE, g_top]
        st.pool[[S.G_LEFT, S.G_MASK, S.G_X0], group] = [1, 1 << (x % PORTS), x - x % PORTS]
    st.pool[S.C_GRP, cid] = group
    return g_top


def _send(d, tab, st, t, tops, out=None):
    stats, parts = _stats()
    out = N._NO_OUTPUT if out is None else out
    tops = P.send_outputs(t, 0, d, tab, stats, parts, st, out, *tops)
    return stats, tops


def test_send_outputs_takes_the_oldest_head_whose_next_hop_has_credit():
    o = 0 * 8 + 5                                          # leaf 0's up port 5 to top switch 5, input 0
    nx0 = (5 * 8 + 0) * 8
    for seed in range(1, 11):                              # no tie here: the same choice whatever the draws
        goes = []
        for blocked in ([2], [2, 1], [2, 1, 3]):
            d, tab, st = _net()
            st.xs[S.CREDITS, [nx0 + b for b in blocked]] = 0
            g = _head(st, (0 * 8 + 1) * 8 + 5, 10, arrived=2, need=1 << 2, g_top=d.n_pk)   # oldest, wants leaf 2
            g = _head(st, (0 * 8 + 3) * 8 + 5, 11, arrived=4, need=1 << 1, g_top=g)        # wants leaf 1
            g = _head(st, (0 * 8 + 0) * 8 + 5, 12, arrived=6, need=1 << 3, g_top=g)        # youngest, wants leaf 3
            K.seed_rng(seed)
            _send(d, tab, st, 8, (d.n_pk - 3, g, 16))
            goes.append(st.link[o, (8 + 1) & 1])
        assert goes == [11, 12, -1]


def test_send_outputs_breaks_a_tie_of_equally_old_heads_at_random():
    d, tab, _ = _net()
    picked = set()
    for seed in range(1, 30):
        _, _, st = _net()
        g = _head(st, (0 * 8 + 1) * 8 + 5, 10, arrived=2, need=1 << 2, g_top=d.n_pk)
        _head(st, (0 * 8 + 3) * 8 + 5, 11, arrived=2, need=1 << 1, g_top=g)
        K.seed_rng(seed)
        _send(d, tab, st, 8, (d.n_pk - 2, g - 1, 16))
        picked.add(st.link[0 * 8 + 5, 1])
    assert picked == {10, 11}


def test_send_outputs_returns_a_groups_credits_with_its_last_copy():
    d, tab, st = _net()
    _message(st, 0, [1, 2])
    g_top = d.n_pk - 1
    gid = st.pool[S.G_FREE, g_top]
    st.pool[[S.G_LEFT, S.G_MASK, S.G_X0], gid] = [2, 0b110, 16]   # leaf 0, input 2: ports 1 and 2
    st.pool[S.C_MSG, [20, 21]] = 0
    st.pool[S.C_LO, 21] = 1
    _head(st, 17, 20, arrived=0, group=gid)
    _head(st, 18, 21, arrived=0, group=gid)
    t = 6
    stats, (c_top, g_top, m_top) = _send(d, tab, st, t, (d.n_pk - 2, g_top, 15))
    rr = (t + 1) & 1
    assert st.ring[rr, :3].tolist() == [2, 17, 18]
    assert (c_top, g_top, m_top) == (d.n_pk, d.n_pk, 16)
    assert st.xs[S.XP_LEN].sum() == 0 and st.xs[S.OCCUPIED].sum() == 0
    assert stats[N.COPIES] == 2 and stats[K.STAT_DELIVERED] == 1


def test_send_outputs_forwards_up_and_delivers_down():
    d, tab, st = _net()
    _message(st, 0, [1])
    _message(st, 1, [6])
    st.pool[S.C_MSG, [0, 1]] = [0, 1]
    g = _head(st, 0 * 8 + 1, 0, arrived=3, g_top=d.n_pk)             # leaf 0 input 0 to port 1: node 1
    g = _head(st, 1 * 8 + 4, 1, arrived=3, need=1 << 1, g_top=g)      # leaf 0 input 1 up port 4 to top 4, then leaf 1
    t = 5
    stats, (c_top, g_top, m_top) = _send(d, tab, st, t, (d.n_pk - 2, g, 14))
    assert st.xs[S.OCCUPIED].sum() == 0 and st.xs[S.XP_LEN].sum() == 0
    assert stats[N.COPIES] == 1 and stats[K.STAT_DELIVERED] == 1
    assert stats[K.STAT_M_LATENCY_SUM] == t + 1 and m_top == 15
    assert st.link[4, (t + 1) & 1] == 1 and st.pool[S.C_NEXT, 1] == 1 << 1
    nx0 = (4 * 8 + 0) * 8
    assert st.xs[S.CREDITS, nx0 + 1] == Q - 1
    rr = (t + 1) & 1
    assert sorted(st.ring[rr, 1:1 + st.ring[rr, 0]].tolist()) == [1, 12]
    assert g_top == d.n_pk and c_top == d.n_pk - 1 and st.pool[S.C_FREE, d.n_pk - 2] == 0


@pytest.mark.parametrize("routing, up_credits, granted", [
    ("adaptive", [0, 0, 0, 0], set()),                     # no candidate has credit: the climbing copy waits
    ("adaptive", [0, 0, 2, 0], {6}),                       # one has: it is eligible and takes that one
    ("adaptive", [1, 3, 2, 0], {5}),                       # adaptive: the candidate with the most credits
    ("random", [0, 3, 0, 1], {5, 7}),                      # oblivious: any candidate with a credit, at random
])
def test_send_outputs_a_climbing_copy_needs_credit_at_one_of_its_candidates(routing, up_credits, granted):
    # 64 nodes: at leaf 0, a copy from node 1 for node 63 waits at up port 4 (to middle switch 16), where it must
    # climb again through any of up ports 4-7 (need ~candidates, a choice). The middle switch's down ports 0-3
    # are no candidates: they keep their credits, which must not count for it. A younger head from node 2
    # for node 5 (down port 1 there, a fixed route) shares the output: it goes when the older one may not.
    o = 0 * 8 + 4
    t = 5
    picked = set()
    for seed in range(1, 21):
        d, tab, st = _net(routing=routing, nodes=64)
        nxt = tab.out_switch[o]
        nx0 = (nxt * 8 + tab.out_input[o]) * 8
        assert nxt == 16 and candidates(nxt, 63, tab) == 0xF0 and candidates(nxt, 5, tab) == 1 << 1
        credits = st.xs[S.CREDITS]
        credits[nx0 + 4:nx0 + 8] = up_credits
        g = _head(st, (0 * 8 + 1) * 8 + 4, 10, arrived=2, need=~0xF0, g_top=d.n_pk)   # older: the choice
        g = _head(st, (0 * 8 + 2) * 8 + 4, 11, arrived=3, need=1 << 1, g_top=g)       # younger: fixed
        K.seed_rng(seed)
        _send(d, tab, st, t, (d.n_pk - 2, g, 16))
        sent = st.link[o, (t + 1) & 1]
        if not granted:
            assert sent == 11 and st.pool[S.C_NEXT, 11] == 1 << 1 and credits[nx0 + 1] == Q - 1
            assert st.xs[S.XP_LEN, (0 * 8 + 1) * 8 + 4] == 1                           # still waiting
            assert credits[nx0 + 4:nx0 + 8].tolist() == up_credits
            continue
        assert sent == 10
        mask = int(st.pool[S.C_NEXT, 10])
        assert mask & (mask - 1) == 0 and mask & 0xF0      # one port, a candidate
        p = mask.bit_length() - 1
        picked.add(p)
        assert credits[nx0 + 4:nx0 + 8].tolist() == [c - (q == p) for q, c in zip(range(4, 8), up_credits)]
        assert credits[nx0 + 1] == Q and st.xs[S.XP_LEN, (0 * 8 + 2) * 8 + 4] == 1    # the younger waits
    assert picked == granted


def test_send_outputs_in_a_batch_logs_each_copy_and_the_message_with_its_last():
    d, tab, st = _net()
    _message(st, 0, [1, 2], birth=1)
    st.pool[S.C_MSG, [0, 1]] = 0
    st.pool[S.C_LO, 1] = 1
    g = _head(st, 0 * 8 + 1, 0, arrived=3, g_top=d.n_pk)              # to node 1 now
    g = _head(st, 1 * 8 + 2, 1, arrived=3, g_top=g)                   # to node 2 now
    out = S.Output(deliveries=np.full(1, -1, dtype=np.int64), log=np.full((2, 3), -1, dtype=np.int64),
                   batched=True)
    stats, (_, _, m_top) = _send(d, tab, st, 4, (d.n_pk - 2, g, 0), out)
    assert out.log.tolist() == [[0, 1, 5], [0, 2, 5]] and out.deliveries[0] == 5
    assert stats[K.STAT_DELIVERED] == 1 and stats[K.STAT_M_LATENCY_SUM] == 5 - 1
    assert m_top == 0 and st.msgs[S.M_LEFT, 0] == 0                 # a batch's messages are not reused


@pytest.mark.parametrize("held, returning, owed", [(0, 0, 0), (3, 1, 2), (5, 5, 0)])
def test_account_counts_undelivered_messages_and_credits_out(held, returning, owed):
    d, _, st = _net()
    stats, parts = _stats()
    st.msgs[S.M_LEFT, :3] = [0, 2, 1]
    st.xs[S.CREDITS, :held] -= 1                           # credits held by packets sent on
    st.ring[1, 0] = returning                              # credits on their way back
    P.account(d, stats, parts, st)
    assert stats[K.STAT_QUEUED] == 2
    assert stats[S.CREDITS_OUT] == owed
