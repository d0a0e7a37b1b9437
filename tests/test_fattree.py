"""Fat trees: k-ary n-tree sizes and wiring (Petrini & Vanneschi 1995), up/down routes, buildTree (paper 003 §2.2)."""

import functools
import itertools
import random
import subprocess
import sys

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from switchq.errors import InputError
from switchq.models.network import FatTree
from switchq.solvers import fattree as ft

# The paper's three networks: Figure 4 and the two 256-node machines of §3.
PAPER = {"fig4": FatTree.for_nodes(16, 8), "256x8": FatTree.for_nodes(256, 8), "256x32": FatTree.for_nodes(256, 32)}


@functools.lru_cache(maxsize=None)
def _graph(tree):
    return ft.graph(tree)


def _digits(x, k, width):
    """Base-k digits of x, least significant first: an independent spelling of the labels."""
    return [(x // k ** i) % k for i in range(width)]


def _port_at(g, end, other):
    """The port at ``end`` of the link end-other, read from the edge attributes."""
    data = g.edges[end, other]
    lower = end if end[0] == "node" or (other[0] == "switch" and end[1] < other[1]) else other
    return data["up_port"] if end == lower else data["down_port"]


# ---------------------------------------------------------------- sizes

@pytest.mark.parametrize("key, k, n, ports, per_level, switches, links", [
    ("fig4", 4, 2, 8, 4, 8, 32),          # Figure 4: 4-ary 2-tree, 8 switches
    ("256x8", 4, 4, 8, 64, 256, 1024),     # 4 levels of 64 8-port switches
    ("256x32", 16, 2, 32, 16, 32, 512),    # "32 switches organized in two levels"
])
def test_paper_configurations_have_the_right_sizes(key, k, n, ports, per_level, switches, links):
    t = PAPER[key]
    assert (t.k, t.n, t.switch_ports, t.levels) == (k, n, ports, n)
    assert t.nodes == k ** n == (16 if key == "fig4" else 256)
    assert (t.switches_per_level, t.switches, t.links) == (per_level, switches, links)
    g = _graph(t)
    assert sum(1 for _, d in g.nodes(data=True) if d["kind"] == "switch") == switches
    assert sum(1 for _, d in g.nodes(data=True) if d["kind"] == "node") == t.nodes
    assert g.number_of_edges() == links
    for level in range(n):
        assert sum(1 for _, d in g.nodes(data=True) if d.get("level") == level) == per_level
    assert t.describe()["switches"] == switches and t.name == f"{k}-ary {n}-tree"


def test_for_nodes_round_trips_every_small_tree():
    for k in range(2, 9):
        for n in range(1, 5):
            assert FatTree.for_nodes(k ** n, 2 * k) == FatTree(k, n)


# ---------------------------------------------------------------- wiring

@pytest.mark.parametrize("key", PAPER)
def test_graph_is_connected_and_regular(key):
    t = PAPER[key]
    g = _graph(t)
    assert nx.is_connected(g) and nx.is_bipartite(g)
    for v, data in g.nodes(data=True):
        if data["kind"] == "node":
            assert g.degree(v) == 1
        else:
            assert g.degree(v) == (t.k if data["level"] == t.n - 1 else 2 * t.k)


@pytest.mark.parametrize("key", PAPER)
def test_wiring_follows_petrini_vanneschi(key):
    # Bottom-up levels: <w, l> -- <w', l+1> iff the words differ at most in digit l;
    # node p -- leaf <p // k, 0>. Every unordered pair that qualifies must be an edge.
    t = PAPER[key]
    k, width = t.k, t.n - 1
    g = _graph(t)
    expected = set()
    for level in range(t.n - 1):
        for w, w2 in itertools.product(range(t.switches_per_level), repeat=2):
            a, b = _digits(w, k, width), _digits(w2, k, width)
            if all(a[i] == b[i] for i in range(width) if i != level):
                expected.add(frozenset({("switch", level, w), ("switch", level + 1, w2)}))
    expected |= {frozenset({("node", p), ("switch", 0, p // k)}) for p in range(t.nodes)}
    assert {frozenset(e) for e in g.edges} == expected


@pytest.mark.parametrize("key", PAPER)
def test_ports_are_distinct_and_agree_with_neighbour(key):
    t = PAPER[key]
    g = _graph(t)
    for sw, data in g.nodes(data=True):
        if data["kind"] != "switch":
            continue
        ports = sorted(_port_at(g, sw, other) for other in g[sw])
        top = data["level"] == t.n - 1
        assert ports == list(range(t.k if top else 2 * t.k))
        for other in g[sw]:
            assert ft.neighbour(t, sw, _port_at(g, sw, other)) == (other, _port_at(g, other, sw))
        if top:
            assert all(ft.neighbour(t, sw, p) is None for p in range(t.k, 2 * t.k))


# ---------------------------------------------------------------- routes

def _check_route(t, src, dst, hops):
    """Hops are adjacent in the graph, ports match the links, and the route is a shortest path."""
    g = _graph(t)
    walk = [("node", src)] + [h.switch for h in hops] + [("node", dst)]
    for i, hop in enumerate(hops):
        before, after = walk[i], walk[i + 2]
        assert g.has_edge(before, hop.switch) and g.has_edge(hop.switch, after)
        assert hop.in_port == _port_at(g, hop.switch, before)
        assert hop.out_port == _port_at(g, hop.switch, after)
    level = ft.lca_level(t, [src, dst])
    links = len(hops) + 1
    assert links == 2 * (level + 1) == nx.shortest_path_length(g, ("node", src), ("node", dst))
    assert hops[level].switch in ft.lowest_common_ancestors(t, src, dst)
    # Up then down: levels rise strictly to the LCA and fall strictly after it.
    levels = [h.switch[1] for h in hops]
    assert levels == list(range(level)) + list(range(level, -1, -1))


def test_all_routes_of_the_16_node_tree_are_minimal_and_valid():
    t = PAPER["fig4"]
    for src, dst in itertools.permutations(range(t.nodes), 2):
        _check_route(t, src, dst, ft.route(t, src, dst))


@pytest.mark.parametrize("key", ["256x8", "256x32"])
def test_random_routes_of_the_256_node_trees_are_minimal_and_valid(key):
    t = PAPER[key]
    rng = random.Random(2024)
    for _ in range(400):
        src, dst = rng.sample(range(t.nodes), 2)
        _check_route(t, src, dst, ft.route(t, src, dst))


@given(key=st.sampled_from(sorted(PAPER)), data=st.data())
def test_adaptive_upward_choices_stay_minimal(key, data):
    t = PAPER[key]
    src, dst = data.draw(st.lists(st.integers(0, t.nodes - 1), min_size=2, max_size=2, unique=True))
    choices = data.draw(st.lists(st.integers(0, t.k - 1), min_size=t.n, max_size=t.n))
    it = iter(choices)
    hops = ft.route(t, src, dst, choose_up=lambda sw, ports: ports[next(it)])
    _check_route(t, src, dst, hops)


def test_upward_choices_reach_every_lca_and_nothing_else():
    t = PAPER["256x8"]
    src, dst = 0, 255  # LCA at the top: 4^3 = 64 roots
    lcas = ft.lowest_common_ancestors(t, src, dst)
    assert len(lcas) == 64
    tops = set()
    for seq in itertools.product(range(t.k), repeat=3):
        it = iter(seq)
        tops.add(ft.route(t, src, dst, choose_up=lambda sw, ports: ports[next(it)])[3].switch)
    assert tops == lcas


@pytest.mark.parametrize("key", PAPER)
def test_lca_count_is_k_to_the_level_and_each_reaches_both_ends(key):
    t = PAPER[key]
    g = _graph(t)
    rng = random.Random(7)
    for _ in range(40):
        src, dst = rng.sample(range(t.nodes), 2)
        level = ft.lca_level(t, [src, dst])
        lcas = ft.lowest_common_ancestors(t, src, dst)
        assert len(lcas) == t.k ** level
        for a in lcas:
            assert a[1] == level
            assert nx.shortest_path_length(g, a, ("node", src)) == level + 1
            assert nx.shortest_path_length(g, a, ("node", dst)) == level + 1


@pytest.mark.parametrize("key", PAPER)
def test_complement_pairs_meet_only_at_the_top(key):
    # Complement (paper §3): every base-k digit differs (k is a power of 2), so only roots reach both.
    t = PAPER[key]
    for p in range(t.nodes):
        assert ft.lca_level(t, [p, t.nodes - 1 - p]) == t.n - 1
        assert len(ft.lowest_common_ancestors(t, p, t.nodes - 1 - p)) == t.switches_per_level


@pytest.mark.parametrize("key", ["256x8", "256x32"])
def test_transpose_pairs_meet_at_the_highest_differing_digit(key):
    # Transpose on 8-bit addresses swaps the nibbles; the LCA level is the most significant
    # base-k digit where p and its transpose differ.
    t = PAPER[key]
    g = _graph(t)
    for p in range(t.nodes):
        q = ((p & 0xF) << 4) | (p >> 4)
        if q == p:
            continue
        a, b = _digits(p, t.k, t.n), _digits(q, t.k, t.n)
        expected = max(i for i in range(t.n) if a[i] != b[i])
        assert ft.lca_level(t, [p, q]) == expected
        if p % 17 == 1:  # spot-check against the graph
            assert nx.shortest_path_length(g, ("node", p), ("node", q)) == 2 * (expected + 1)


# ---------------------------------------------------------------- spanning trees

def _group(t):
    return st.sets(st.integers(0, t.nodes - 1), min_size=1, max_size=min(t.nodes, 40))


@given(key=st.sampled_from(sorted(PAPER)), policy=st.sampled_from(ft.POLICIES), data=st.data())
def test_spanning_tree_is_an_arborescence_whose_leaves_are_the_group(key, policy, data):
    t = PAPER[key]
    g = _graph(t)
    dests = data.draw(_group(t))
    # Some earlier trees so leastLoadedParent has loads to look at.
    load = {}
    for earlier in data.draw(st.lists(_group(t), max_size=5)):
        ft.build_tree(t, earlier, load, policy)
    before = dict(load)
    s = ft.build_tree(t, dests, load, policy)
    assert nx.is_arborescence(s) and nx.is_tree(s.to_undirected())
    root = s.graph["root"]
    assert s.in_degree(root) == 0 and root[1] == s.graph["lca_level"] == ft.lca_level(t, dests)
    assert {v for v in s if s.out_degree(v) == 0} == {("node", p) for p in dests}
    assert s.graph["destinations"] == frozenset(dests)
    for u, v, ports in s.edges(data=True):
        assert g.has_edge(u, v)
        assert ports["out_port"] == _port_at(g, u, v) and ports["in_port"] == _port_at(g, v, u)
        assert v[0] == "node" or v[1] == u[1] - 1  # edges only point down
    switches = {v for v in s if v[0] == "switch"}
    assert load == {sw: before.get(sw, 0) + (sw in switches) for sw in set(before) | switches}
    table = ft.routing_table(s)
    assert set(table) == switches
    assert all(len(table[sw]) == s.degree(sw) for sw in switches)


@given(key=st.sampled_from(sorted(PAPER)), data=st.data())
def test_root_is_an_lca_of_every_pair_spanning_the_group(key, data):
    t = PAPER[key]
    dests = sorted(data.draw(_group(t).filter(lambda d: len(d) >= 2)))
    s = ft.build_tree(t, dests, {})
    level = s.graph["lca_level"]
    assert any(s.graph["root"] in ft.lowest_common_ancestors(t, a, b)
               for a, b in itertools.combinations(dests, 2) if ft.lca_level(t, [a, b]) == level)


def test_naive_scheme_climbs_through_the_last_up_port():
    t = PAPER["256x8"]
    s = ft.build_tree(t, [0, 255], {}, policy="naive")
    assert s.graph["root"] == ("switch", 3, 63)  # all three free digits = k - 1
    assert ft.routing_table(s)[("switch", 0, 0)] == frozenset({0, 2 * t.k - 1})


def _random_groups(seed, groups=64, fanout=8, nodes=256):
    rng = random.Random(seed)
    return [rng.sample(range(nodes), fanout) for _ in range(groups)]


def test_least_loaded_parent_balances_the_top_level_better_than_port_k_minus_1():
    # Paper §2.2: 64 simultaneous groups of fanout 8 on 256 nodes with 8-port switches.
    t = PAPER["256x8"]
    strictly = False
    for seed in range(10):
        groups = _random_groups(seed)
        best = ft.tree_load_stats(t, ft.build_trees(t, groups))
        naive = ft.tree_load_stats(t, ft.build_trees(t, groups, policy="naive"))
        assert best[-1].max <= naive[-1].max
        strictly |= best[-1].max < naive[-1].max
        # Naive piles every top-level tree onto one root; the means agree (same trees, other switches).
        at_top = sum(ft.lca_level(t, grp) == t.n - 1 for grp in groups)
        assert naive[-1].max == at_top
        assert [x.mean for x in best] == pytest.approx([x.mean for x in naive])
        assert best[-1].balance <= naive[-1].balance
    assert strictly


def test_tree_load_stats_add_up():
    t = PAPER["256x32"]
    trees = ft.build_trees(t, _random_groups(3))
    stats = ft.tree_load_stats(t, trees)
    for level in stats:
        used = sum(sum(1 for v in s if v[0] == "switch" and v[1] == level.level) for s in trees)
        assert level.mean == pytest.approx(used / t.switches_per_level)
        assert level.min <= level.mean <= level.max and level.balance >= 1
    empty = ft.tree_load_stats(t, [])
    assert all((x.max, x.mean, x.balance) == (0, 0.0, 1.0) for x in empty)


def test_build_trees_shares_a_load_the_caller_can_keep():
    t = PAPER["fig4"]
    load = {}
    trees = ft.build_trees(t, [[0, 15], [1, 14]], load=load)
    assert sum(load.values()) == sum(sum(1 for v in s if v[0] == "switch") for s in trees)


# ---------------------------------------------------------------- link counts

@given(key=st.sampled_from(sorted(PAPER)), data=st.data())
def test_hardware_multicast_never_uses_more_links_than_unicasts(key, data):
    t = PAPER[key]
    group = sorted(data.draw(_group(t).filter(lambda d: len(d) >= 2)))
    src = data.draw(st.sampled_from(group))
    multicast = ft.tree_links(ft.build_tree(t, group, {}))
    unicast = ft.unicast_links(t, src, group)
    assert len(group) <= multicast <= unicast
    if len(group) == 2:
        assert multicast == unicast


def test_unicast_links_are_route_lengths():
    t = PAPER["256x8"]
    dests = [1, 5, 17, 200]
    assert ft.unicast_links(t, 0, dests) == sum(len(ft.route(t, 0, d)) + 1 for d in dests)


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("make, parameter", [
    (lambda: FatTree.for_nodes(100, 8), "nodes"),
    (lambda: FatTree.for_nodes(0, 8), "nodes"),
    (lambda: FatTree.for_nodes(256, 7), "switch_ports"),
    (lambda: FatTree.for_nodes(256, 2), "switch_ports"),
    (lambda: FatTree.for_nodes(256, 2048), "switch_ports"),
    (lambda: FatTree.for_nodes(256, "8"), "switch_ports"),
    (lambda: FatTree(1, 3), "k"),
    (lambda: FatTree(True, 3), "k"),
    (lambda: FatTree(4.5, 2), "k"),
    (lambda: FatTree(4, 0), "n"),
    (lambda: FatTree(4, 11), "n"),
    (lambda: ft.route(PAPER["fig4"], 0, 16), "dst"),
    (lambda: ft.route(PAPER["fig4"], -1, 3), "src"),
    (lambda: ft.route(PAPER["fig4"], 3, 3), "dst"),
    (lambda: ft.route(PAPER["fig4"], 0, 15, choose_up=lambda sw, ports: 0), "choose_up"),
    (lambda: ft.route((4, 2), 0, 15), "tree"),
    (lambda: ft.lowest_common_ancestors(PAPER["fig4"], 0, 99), "dst"),
    (lambda: ft.lca_level(PAPER["fig4"], []), "nodes"),
    (lambda: ft.build_tree(PAPER["fig4"], [], {}), "dest_nodes"),
    (lambda: ft.build_tree(PAPER["fig4"], 3, {}), "dest_nodes"),
    (lambda: ft.build_tree(PAPER["fig4"], [0, 16], {}), "dest_nodes"),
    (lambda: ft.build_tree(PAPER["fig4"], [0, 1], None), "load"),
    (lambda: ft.build_tree(PAPER["fig4"], [0, 1], {}, policy="random"), "policy"),
    (lambda: ft.build_trees(PAPER["fig4"], 5), "groups"),
    (lambda: ft.neighbour(PAPER["fig4"], ("switch", 2, 0), 0), "switch"),
    (lambda: ft.neighbour(PAPER["fig4"], ("switch", 0, 0), 8), "port"),
    (lambda: ft.unicast_links(PAPER["fig4"], 0, []), "dests"),
])
def test_bad_inputs_name_the_parameter_on_one_line(make, parameter):
    with pytest.raises(InputError) as err:
        make()
    assert err.value.parameter == parameter
    assert str(err.value).startswith(parameter + ": got ") and "\n" not in str(err.value)


def test_importing_the_solver_does_not_import_networkx():
    code = "import sys, switchq.solvers.fattree; print('networkx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("k, n", [(2, 3), (4, 2), (3, 2), (4, 3)])
def test_mean_route_links_is_the_mean_shortest_path(k, n):
    # Independent: NetworkX shortest paths between every ordered pair of distinct nodes.
    t = FatTree(k, n)
    g = ft.graph(t)
    total = sum(d for src in range(t.nodes)
                for dst, d in nx.single_source_shortest_path_length(g, ("node", src)).items()
                if dst[0] == "node" and dst[1] != src)
    assert ft.mean_route_links(t) == pytest.approx(total / (t.nodes * (t.nodes - 1)))
