"""BookSim2's fly, mesh, torus and fat tree as wired by ``models/iq_topology.py``, routed and loaded by
``validate/arch/iq_routes.py``.

Each figure is derived here, not read back from the code under test: router and node counts from BookSim's
size formulas, the port numbering from BookSim's channel numbering (each builder's channel ids, restated in
this file and matched end to end), route lengths from the geometry (Manhattan distance, the shorter way round
each ring, n stages, twice the levels to the nearest common ancestor), the torus VC halves from whether the
walk actually crossed the k-1 | 0 dateline, and the traffic patterns' values by hand.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from numba import njit

from switchq.errors import InputError
from switchq.models.iq_topology import wiring
from switchq.validate.arch import iq_routes as R

SIZES = {"fly": [(2, 1), (2, 3), (3, 2), (4, 2)], "mesh": [(2, 2), (3, 1), (4, 2), (3, 3)],
         "torus": [(2, 2), (3, 1), (4, 2), (5, 2)], "fattree": [(2, 1), (2, 3), (3, 3), (4, 2)]}
CASES = [(t, k, n) for t, sizes in SIZES.items() for k, n in sizes]


@njit
def _seed(s):
    np.random.seed(s)


@njit
def _draws(s, k):
    np.random.seed(s)
    return np.random.randint(0, k), np.random.randint(0, k)


def _walk(w, dst, src, num_vcs=4, used=None):
    """Route a head flit from node ``src`` to node ``dst`` through the wiring: [(router, in_port, out_port,
    vc_lo, vc_hi, ph)] per router visited, the last the one ejecting it (checked to be ``dst``)."""
    topo = R.TOPOLOGY_CODES[w.topology]
    r, p = int(w.inj_router[src]), int(w.inj_port[src])
    assert R.route(topo, w.k, w.n, num_vcs, r, p, dst, -1, True) == (-1, 0, num_vcs - 1, -1)
    ph, hops = -1, []
    for _ in range(4 * w.n * w.k + 4):
        if used is None:
            out, lo, hi, ph = R.route(topo, w.k, w.n, num_vcs, r, p, dst, ph, False)
        else:
            out, lo, hi, ph = R.route_anca(w.k, w.n, num_vcs, r, p, dst, ph, False, used)
        hops.append((r, p, out, lo, hi, ph))
        if w.out_node[r, out] >= 0:
            assert w.out_node[r, out] == dst
            return hops
        assert w.out_router[r, out] >= 0, (r, out)
        r, p = int(w.out_router[r, out]), int(w.out_port[r, out])
    raise AssertionError(f"{src} -> {dst} never arrived")


def _coords(i, k, n):
    return [(i // k ** d) % k for d in range(n)]


# ---- wiring -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("topology,k,n", CASES)
def test_sizes_follow_booksims_formulas(topology, k, n):
    w = wiring(topology, k, n)
    routers = k ** n if topology in ("mesh", "torus") else n * k ** (n - 1)
    ports = {"fly": k, "mesh": 2 * n + 1, "torus": 2 * n + 1, "fattree": 2 * k if n > 1 else k}[topology]
    assert (w.nodes, w.routers, w.ports) == (k ** n, routers, ports)
    for a in (w.out_router, w.out_port, w.out_node, w.latency, w.in_used):
        assert a.shape == (routers, ports) and a.dtype == np.int64
    for a in (w.inj_router, w.inj_port, w.ej_router, w.ej_port):
        assert a.shape == (k ** n,) and a.dtype == np.int64


@pytest.mark.parametrize("topology,k,n", CASES)
def test_links_feed_each_used_input_exactly_once(topology, k, n):
    w = wiring(topology, k, n)
    fed = [(int(r), int(p)) for r, p in zip(w.out_router[w.out_router >= 0], w.out_port[w.out_router >= 0])]
    fed += list(zip(w.inj_router.tolist(), w.inj_port.tolist()))
    assert len(set(fed)) == len(fed)                                  # no input fed twice
    assert set(fed) == set(zip(*map(list, np.nonzero(w.in_used))))    # and every existing input fed
    # Every output in use goes to exactly one of a router and a node, over a channel of some latency.
    to_router, to_node = w.out_router >= 0, w.out_node >= 0
    assert not (to_router & to_node).any()
    assert ((to_router | to_node) == (w.latency > 0)).all()
    assert ((w.out_port >= 0) == to_router).all()
    assert sorted(w.out_node[to_node].tolist()) == list(range(w.nodes))
    assert (w.out_node[w.ej_router, w.ej_port] == np.arange(w.nodes)).all()
    if topology != "fly":   # a fly's links go one way, stage to stage; the others' come in pairs
        pairs = Counter(zip(np.nonzero(to_router)[0].tolist(), w.out_router[to_router].tolist()))
        assert pairs == Counter({(b, a): c for (a, b), c in pairs.items()})


def _booksim_channels(topology, k, n):
    """BookSim's channel ids, restated from its builders (kncube.cpp, fly.cpp, fattree.cpp): ``{("c", id) or
    ("node", i): (router, port)}`` for the sending and the receiving end, ports counted in the order each
    router attaches its channels."""
    send, recv = {}, {}
    nodes = k ** n
    if topology in ("mesh", "torus"):
        def step(i, d, s):
            return i - i // k ** d % k * k ** d + (i // k ** d % k + s) % k * k ** d
        for i in range(nodes):
            for d in range(n):
                right_ch, left_ch = 2 * n * i + 2 * d, 2 * n * i + 2 * d + 1
                recv[("c", 2 * n * step(i, d, 1) + 2 * d + 1)] = (i, 2 * d)       # from the right neighbour
                recv[("c", 2 * n * step(i, d, -1) + 2 * d)] = (i, 2 * d + 1)      # from the left one
                send[("c", right_ch)], send[("c", left_ch)] = (i, 2 * d), (i, 2 * d + 1)
            send[("node", i)] = recv[("node", i)] = (i, 2 * n)
    elif topology == "fly":
        per = k ** (n - 1)
        for s in range(n):
            for a in range(per):
                r = s * per + a
                for p in range(k):
                    if s == 0:
                        recv[("node", a * k + p)] = (r, p)
                    else:
                        shift = k ** (n - s - 1)
                        z = a // shift % k
                        recv[("c", (s - 1) * nodes + (a - z * shift + p * shift) * k + z)] = (r, p)
                    send[("node", a * k + p) if s == n - 1 else ("c", s * nodes + a * k + p)] = (r, p)
    else:
        per = k ** (n - 1)
        nxt_in, nxt_out = Counter(), Counter()
        for pos in range(per):
            for i in range(k):
                r = (n - 1) * per + pos
                recv[("node", pos * k + i)], send[("node", pos * k + i)] = (r, nxt_in[r]), (r, nxt_out[r])
                nxt_in[r] += 1
                nxt_out[r] += 1
        per_dir, per_level = k * per, 2 * k * per
        for up in (False, True):                   # down outputs of levels 0..n-2, then up outputs of 1..n-1
            for lev in range(1, n) if up else range(n - 1):
                for pos in range(per):
                    for p in range(k):
                        r = lev * per + pos
                        send[("c", lev * per_level - (per_dir if up else 0) + pos * k + p)] = (r, nxt_out[r])
                        nxt_out[r] += 1
        for up in (False, True):                   # down inputs of levels 0..n-2, then up inputs of 1..n-1
            for lev in range(1, n) if up else range(n - 1):
                hood = k ** (n - lev) if up else k ** (n - 1 - lev)
                branch = hood // k
                base = (lev - 1) * per_level if up else (lev + 1) * per_level - per_dir
                for pos in range(per):
                    for p in range(k):
                        r = lev * per + pos
                        c = (base + pos // hood * hood * k + p * branch * k + pos % hood % branch * k
                             + pos % hood // branch)
                        recv[("c", c)] = (r, nxt_in[r])
                        nxt_in[r] += 1
    return send, recv


@pytest.mark.parametrize("topology,k,n", CASES)
def test_ports_and_links_are_booksims(topology, k, n):
    w = wiring(topology, k, n)
    send, recv = _booksim_channels(topology, k, n)
    assert set(send) == set(recv)
    for ch, (r, o) in send.items():
        if ch[0] == "node":
            assert w.out_node[r, o] == ch[1] and w.out_router[r, o] == -1
            assert (w.inj_router[ch[1]], w.inj_port[ch[1]]) == recv[ch]
            assert (w.ej_router[ch[1]], w.ej_port[ch[1]]) == (r, o)
        else:
            assert (w.out_router[r, o], w.out_port[r, o]) == recv[ch], (ch, r, o)
    used_out = {(int(r), int(o)) for r, o in zip(*np.nonzero((w.out_router >= 0) | (w.out_node >= 0)))}
    assert used_out == set(send.values())


def test_latencies_are_booksims():
    # Torus links 2 cycles under use_noc_latency (BookSim's default), every link not only the wrap; else 1.
    # Mesh, fly, fattree links 1; injection and ejection 1; unused ports (a fat tree root's up side) 0.
    for topology, k, n, noc, link in [("torus", 4, 2, True, 2), ("torus", 4, 2, False, 1), ("mesh", 4, 2, True, 1),
                                      ("fly", 2, 3, True, 1), ("fattree", 2, 3, True, 1)]:
        w = wiring(topology, k, n, use_noc_latency=noc)
        assert set(w.latency[w.out_router >= 0].tolist()) == {link}
        assert set(w.latency[w.out_node >= 0].tolist()) == {1}
    t = wiring("fattree", 2, 3)
    assert (t.latency[:4, 2:] == 0).all() and (t.in_used[:4, 2:] == 0).all() and t.in_used[4:].all()


def test_the_mesh_is_wired_with_the_torus_wrap_links():
    # KNCube builds both alike; dimension-order mesh routing just never takes a wrap link (see the walks).
    m, t = wiring("mesh", 4, 2), wiring("torus", 4, 2)
    assert (m.out_router == t.out_router).all() and (m.out_port == t.out_port).all()
    assert m.out_router[3, 0] == 0 and m.out_router[0, 3] == 12      # (3,0) +x -> (0,0); (0,0) -y -> (0,3)


@pytest.mark.parametrize("args,parameter", [(("ring", 4, 2), "topology"), (("mesh", 1, 2), "k"),
                                            (("mesh", 4, 0), "n"), (("fly", 2, 21), "n"), (("torus", 1024, 3), "n"),
                                            (("fattree", 2.5, 2), "k"), (("mesh", 4, 2, 2), "use_noc_latency")])
def test_wiring_refuses_what_it_cannot_build(args, parameter):
    with pytest.raises(InputError) as e:
        wiring(*args)
    assert e.value.parameter == parameter
    if parameter == "n" and args[2] > 1:                # the largest n whose k^n nodes fit in 2^20
        assert e.value.allowed.startswith(f"an integer in [1, {20 if args[1] == 2 else 2}]")


# ---- routing ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("k,n", [(4, 2), (3, 3)])
def test_mesh_dimension_order_takes_dimension_0_first_and_the_manhattan_distance(k, n):
    w = wiring("mesh", k, n)
    for src in range(w.nodes):
        for dst in range(w.nodes):
            hops = _walk(w, dst, src)
            a, b = _coords(src, k, n), _coords(dst, k, n)
            assert len(hops) - 1 == sum(abs(x - y) for x, y in zip(a, b))
            dims = [out // 2 for _, _, out, _, _, _ in hops[:-1]]
            assert dims == sorted(dims)
            for (r, _, out, lo, hi, ph), (nxt, *_) in zip(hops, hops[1:]):
                d, sign = out // 2, 1 if out % 2 == 0 else -1
                assert _coords(nxt, k, n)[d] - _coords(r, k, n)[d] == sign        # one step, never a wrap
                assert (lo, hi, ph) == (0, 3, -1)
            assert hops[-1][2] == 2 * n and hops[-1][3:5] == (0, 3)


def _torus_expectations(w, hops, dst):
    """Per hop away from the destination, the VC half BookSim's dateline rule gives: a packet going +1 in a
    dimension takes the upper half iff its walk there crosses k-1 -> 0; going -1, iff it does not cross 0 -> k-1
    (BookSim codes both with 'current digit > destination digit')."""
    k, n = w.k, w.n
    by_dim = {}
    for (r, _, out, *_), (nxt, *_) in zip(hops, hops[1:]):
        d = out // 2
        crossed = (_coords(r, k, n)[d], _coords(nxt, k, n)[d]) == ((k - 1, 0) if out % 2 == 0 else (0, k - 1))
        by_dim.setdefault(d, [out % 2, False])[1] |= crossed
    return [1 if (by_dim[out // 2][0] == 0) == by_dim[out // 2][1] else 0 for _, _, out, *_ in hops[:-1]]


@pytest.mark.parametrize("k,n", [(5, 2), (4, 2), (2, 2), (8, 1)])
def test_torus_walks_go_the_short_way_round_in_the_dateline_half(k, n):
    _seed(3)
    w = wiring("torus", k, n)
    for src in range(w.nodes):
        for dst in range(w.nodes):
            hops = _walk(w, dst, src, num_vcs=4)
            a, b = _coords(src, k, n), _coords(dst, k, n)
            ring = [min((y - x) % k, (x - y) % k) for x, y in zip(a, b)]
            assert len(hops) - 1 == sum(ring)
            dims = [out // 2 for _, _, out, *_ in hops[:-1]]
            assert dims == sorted(dims)
            for d in set(dims):                       # one direction per dimension
                assert len({out for _, _, out, *_ in hops[:-1] if out // 2 == d}) == 1
            halves = [(lo, hi) for *_, lo, hi, _ in hops[:-1]]
            assert halves == [((2, 3) if up else (0, 1)) for up in _torus_expectations(w, hops, dst)]
            assert hops[-1][2:5] == (2 * n, 0, 3)     # all VCs at the destination router


def test_torus_ties_go_either_way_and_odd_vc_counts_overlap_as_in_booksim():
    w = wiring("torus", 4, 1)
    _seed(11)
    ways = Counter(_walk(w, 2, 0)[0][2] for _ in range(200))    # 0 -> 2 in a 4-ring: 2 hops either way
    assert set(ways) == {0, 1} and min(ways.values()) > 60
    # 3 VCs: BookSim's halves are [0, 3 - 1 - 1] and [1, 2]; 2 VCs: one VC each.
    assert R.route(R.TORUS, 5, 1, 3, 0, 2, 2, -1, False) == (0, 0, 1, 0)
    assert R.route(R.TORUS, 5, 1, 3, 3, 2, 1, -1, False) == (1, 1, 2, 1)
    assert R.route(R.TORUS, 5, 1, 2, 3, 2, 1, -1, False) == (1, 1, 1, 1)
    # Along a dimension the flit keeps its partition and direction: arriving at router 1 on input 1 (from 0).
    assert R.route(R.TORUS, 5, 1, 4, 1, 1, 3, 1, False) == (0, 2, 3, 1)


@pytest.mark.parametrize("k,n", [(2, 1), (2, 3), (3, 2), (4, 2)])
def test_fly_walks_reach_every_destination_through_one_router_per_stage(k, n):
    w = wiring("fly", k, n)
    per = k ** (n - 1)
    for src in range(w.nodes):
        for dst in range(w.nodes):
            hops = _walk(w, dst, src)
            assert [r // per for r, *_ in hops] == list(range(n))
            assert all(h[3:6] == (0, 3, -1) for h in hops)


@pytest.mark.parametrize("k,n", [(2, 1), (2, 3), (3, 3), (4, 2)])
def test_fattree_walks_climb_to_the_nearest_common_ancestor_and_back(k, n):
    _seed(5)
    w = wiring("fattree", k, n)
    per = k ** (n - 1)
    for src in range(w.nodes):
        for dst in range(w.nodes):
            # Climbing m levels from the leaves reaches routers over k^(m+1) consecutive nodes: the ancestor is
            # the least m whose block holds both; the walk visits 2m + 1 routers, levels n-1 ... n-1-m ... n-1.
            m = next(m for m in range(n) if src // k ** (m + 1) == dst // k ** (m + 1))
            hops = _walk(w, dst, src)
            assert [r // per for r, *_ in hops] == [n - 1 - min(i, 2 * m - i) for i in range(2 * m + 1)]
            assert all(h[2] >= k for h in hops[:m]) and all(h[2] < k for h in hops[m:])
            assert all(h[3:6] == (0, 3, -1) for h in hops)


def test_fattree_up_ports_are_drawn_uniformly():
    _seed(9)
    w = wiring("fattree", 4, 2)
    roots = Counter(_walk(w, 15, 0)[1][0] for _ in range(400))        # node 0 -> 15 climbs to a root, 0..3
    assert set(roots) == {0, 1, 2, 3} and min(roots.values()) > 60     # 100 expected, sd 8.7


def test_anca_takes_the_less_occupied_of_two_drawn_up_ports():
    k, n = 4, 2
    rising = np.array([0, 0, 0, 0, 0, 1, 2, 3])          # up port k + j holds j flits
    falling = np.array([0, 0, 0, 0, 3, 2, 1, 0])         # and here 3 - j
    for seed in range(20):
        j1, j2 = _draws(seed, k)
        _seed(seed)
        assert R.route_anca(k, n, 4, 4, 0, 15, -1, False, rising)[0] == k + min(j1, j2)
        _seed(seed)
        assert R.route_anca(k, n, 4, 4, 0, 15, -1, False, falling)[0] == k + max(j1, j2)
        _seed(seed)
        assert R.route_anca(k, n, 4, 4, 0, 15, -1, False, np.zeros(8, np.int64))[0] == k + j1   # tie: the first
    w = wiring("fattree", 3, 3)
    for src, dst in [(0, 26), (5, 3), (7, 7), (13, 14)]:
        assert len(_walk(w, dst, src, used=np.zeros(6, np.int64))) in (1, 3, 5)
    assert R.route_anca(k, n, 4, 4, 0, 15, -1, True, rising) == (-1, 0, 3, -1)


def test_check_routing_pairs_functions_with_their_topology():
    assert R.check_routing("dor_mesh", "mesh", 1) == (R.MESH, R.DIM_ORDER)
    assert R.check_routing("anca_fattree", "fattree", 2) == (R.FATTREE, R.ANCA)
    for args, parameter in [(("dim_order_torus", "torus", 1), "num_vcs"), (("dor_torus", "torus", 2), "routing"),
                            (("nca_fattree", "fly", 2), "routing"), (("nca_fattree", "tree", 2), "topology"),
                            (("dest_tag_fly", "fly", 0), "num_vcs")]:
        with pytest.raises(InputError) as e:
            R.check_routing(*args)
        assert e.value.parameter == parameter


# ---- traffic ------------------------------------------------------------------------------------------------

def test_patterns_by_hand():
    d = R.destination
    assert d(R.BITCOMP, 1, 8, 2, 3) == 6                    # ~001 = 110
    assert d(R.BITREV, 1, 8, 2, 3) == 4 and d(R.BITREV, 6, 8, 2, 3) == 3    # 001 -> 100, 110 -> 011
    assert d(R.TRANSPOSE, 1, 16, 4, 2) == 4 and d(R.TRANSPOSE, 4, 16, 4, 2) == 1 and d(R.TRANSPOSE, 9, 16, 4, 2) == 6
    assert d(R.SHUFFLE, 5, 8, 2, 3) == 3 and d(R.SHUFFLE, 4, 8, 2, 3) == 1    # rotate left: 101 -> 011, 100 -> 001
    assert d(R.TORNADO, 0, 8, 8, 1) == 3 and d(R.TORNADO, 6, 8, 8, 1) == 1     # 8-ring: + (9 // 2 - 1) = +3
    assert d(R.TORNADO, 0, 16, 4, 2) == 5 and d(R.TORNADO, 0, 25, 5, 2) == 12   # 4-ary: +1 a digit; 5-ary: +2
    assert d(R.NEIGHBOR, 0, 8, 8, 1) == 1 and d(R.NEIGHBOR, 3, 16, 4, 2) == 4   # (3, 0) -> (0, 1)
    assert d(99, 0, 8, 2, 3) == -1


@pytest.mark.parametrize("pattern", ["bitcomp", "transpose", "bitrev", "shuffle", "tornado", "neighbor"])
def test_deterministic_patterns_are_permutations(pattern):
    code = R.PATTERNS[pattern]
    for nodes, k, n in [(16, 4, 2), (64, 8, 2), (64, 2, 6)]:
        assert sorted(R.destination(code, s, nodes, k, n) for s in range(nodes)) == list(range(nodes))


def test_uniform_reaches_every_node_the_source_included():
    # 16,000 draws from node 3 of 8: each node 1/8 of them; the source's share within 0.0125 of 1/8
    # (its standard deviation is sqrt(1/8 x 7/8 / 16,000) = 0.0026, so the band is about 4.8 of them).
    _seed(2)
    got = Counter(R.destination(R.UNIFORM, 3, 8, 8, 1) for _ in range(16_000))
    assert set(got) == set(range(8))
    assert abs(got[3] / 16_000 - 1 / 8) < 0.0125


def test_check_pattern_refuses_what_booksim_refuses():
    assert R.check_pattern("transpose", 16) == R.TRANSPOSE and R.check_pattern("uniform", 12) == R.UNIFORM
    assert R.check_pattern(R.BITREV, 8) == R.BITREV and R.check_pattern("tornado", 27) == R.TORNADO
    for pattern, nodes, parameter in [("bitrev", 12, "pattern"), ("shuffle", 27, "pattern"),
                                      ("transpose", 8, "pattern"), ("transpose", 32, "pattern"),
                                      ("randperm", 8, "pattern"), (True, 8, "pattern"), ("uniform", 0, "nodes")]:
        with pytest.raises(InputError) as e:
            R.check_pattern(pattern, nodes)
        assert e.value.parameter == parameter
