"""Fat trees (k-ary n-trees): wiring, up/down routes and multicast spanning trees.

Wiring (Petrini & Vanneschi, TR-95-18, 1995, §2, with levels counted from
the bottom as in :class:`switchq.models.network.FatTree`). Write a node
``p`` in base k as digits ``p_0`` (least significant) .. ``p_{n-1}`` and a
switch as ``("switch", l, w)``, level ``l`` in 0..n-1 and ``w`` an
(n-1)-digit base-k word ``w_0 .. w_{n-2}`` read as an integer.

- Node ``p`` hangs off down port ``p_0`` of leaf switch ``w = p // k``
  (``w_j = p_{j+1}``); its own (only) port is 0.
- Switches ``<w, l>`` and ``<w', l+1>`` are linked iff ``w`` and ``w'``
  differ at most in digit ``l``. The link leaves the lower switch on up
  port ``k + w'_l`` and enters the upper one on down port ``w_l``.

Ports 0..k-1 are down, k..2k-1 up (the top level's up ports are unused), so
switch ``<w, l>`` reaches the k^(l+1) nodes whose digits above ``p_l``
spell ``w_l .. w_{n-2}``; the k^l switches of level l that differ only in
digits 0..l-1 reach the same nodes. This is P & V's definition with their
level ``n - 1 - l`` and word read backwards.

Routing (paper 003 §2.2; P & V §3): a packet climbs from the source to any
lowest common ancestor (LCA) of source and destination, choosing each upward
port freely (adaptive routing), then descends on the unique path to the
destination. If the LCA level is L there are k^L LCAs and the route crosses
2(L + 1) links, which is the shortest path in the graph.

Multicast (paper 003 §2.1-2.2, ``buildTree``): a group's spanning tree is
rooted at one LCA of all its members and holds the unique downward paths to
each; the root is reached by climbing from a member's leaf switch, taking at
each level the up port to the least loaded parent (``leastLoadedParent``,
load = multicast trees already through a switch) rather than always the
last up port (the simple scheme of the paper's Figure 4), which piles every
tree onto one top switch.

NetworkX is imported inside the functions that build graphs, so importing
this module stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from switchq.models import _check
from switchq.models.network import FatTree

if TYPE_CHECKING:  # pragma: no cover - typing only
    import networkx as nx

__all__ = ["Hop", "LevelLoad", "POLICIES", "SOURCE", "graph", "neighbour", "lca_level",
           "lowest_common_ancestors", "route", "mean_route_links", "build_tree", "build_trees", "routing_table",
           "tree_load_stats", "tree_links", "unicast_links"]

SOURCE = ("Petrini & Vanneschi, 'k-ary n-trees: high performance networks for massively parallel "
          "architectures', TR-95-18, 1995; paper 003 §2.1-2.2 (up/down routing, buildTree with "
          "leastLoadedParent)")
# "least-loaded" is the paper's leastLoadedParent; "naive" always climbs through the last up port.
POLICIES = ("least-loaded", "naive")


class Hop(NamedTuple):
    """One switch on a route: where the packet enters and where it leaves."""

    switch: tuple
    in_port: int
    out_port: int


@dataclass(frozen=True)
class LevelLoad:
    """Multicast trees per switch on one level (every switch of the level counted, used or not).

    ``balance`` is max / mean: 1 is perfectly even; it is 1 when no tree uses the level.
    """

    level: int
    switches: int
    max: int
    mean: float
    min: int
    balance: float


# ---------------------------------------------------------------- digits and labels

def _digit(x: int, i: int, k: int) -> int:
    return (x // k ** i) % k


def _with_digit(x: int, i: int, k: int, d: int) -> int:
    return x + (d - _digit(x, i, k)) * k ** i


def _switch(level: int, index: int) -> tuple:
    return ("switch", level, index)


def _check_tree(tree) -> FatTree:
    if not isinstance(tree, FatTree):
        raise _check.InputError("tree", tree, "a switchq.models.network.FatTree")
    return tree


def _check_node(tree: FatTree, name: str, value) -> int:
    return _check.integer(name, value, 0, tree.nodes - 1)


def _check_nodes(tree: FatTree, name: str, values) -> list[int]:
    allowed = f"a non-empty collection of node numbers in [0, {tree.nodes - 1}]"
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise _check.InputError(name, values, allowed)
    nodes = sorted({_check_node(tree, name, v) for v in values})
    if not nodes:
        raise _check.InputError(name, values, allowed)
    return nodes


def _check_switch(tree: FatTree, switch) -> tuple[int, int]:
    ok = (isinstance(switch, tuple) and len(switch) == 3 and switch[0] == "switch"
          and all(isinstance(x, int) and not isinstance(x, bool) for x in switch[1:])
          and 0 <= switch[1] < tree.n and 0 <= switch[2] < tree.switches_per_level)
    if not ok:
        raise _check.InputError("switch", switch, f"('switch', level in [0, {tree.n - 1}], "
                                                  f"index in [0, {tree.switches_per_level - 1}])")
    return switch[1], switch[2]


# ---------------------------------------------------------------- wiring

def neighbour(tree: FatTree, switch: tuple, port: int):
    """What is wired to ``port`` of ``switch``: ``(label, port there)``, or None for a top up port.

    Examples
    --------
    >>> t = FatTree(4, 2)
    >>> neighbour(t, ("switch", 0, 1), 2)       # leaf 1, down port 2: node 1*4 + 2
    (('node', 6), 0)
    >>> neighbour(t, ("switch", 0, 1), 4 + 3)   # up port k + 3: top switch with digit 0 = 3
    (('switch', 1, 3), 1)
    >>> neighbour(t, ("switch", 1, 3), 4) is None
    True
    """
    level, index = _check_switch(_check_tree(tree), switch)
    k = tree.k
    port = _check.integer("port", port, 0, 2 * k - 1)
    if port < k:
        if level == 0:
            return ("node", index * k + port), 0
        # Down port c leads to the child whose digit level-1 is c; we sit on its up port k + our digit.
        return _switch(level - 1, _with_digit(index, level - 1, k, port)), k + _digit(index, level - 1, k)
    if level == tree.n - 1:
        return None
    return _switch(level + 1, _with_digit(index, level, k, port - k)), _digit(index, level, k)


def graph(tree: FatTree) -> "nx.Graph":
    """The k-ary n-tree as an undirected NetworkX graph.

    Nodes are ``("node", p)`` (attribute ``kind="node"``) and
    ``("switch", level, index)`` (``kind="switch"``, ``level``, ``index``).
    Every edge joins a lower end to an upper end and carries ``up_port`` (the
    port at the lower end: an up port of a switch, or 0 at a node) and
    ``down_port`` (the port at the upper end). See the module docstring for
    the wiring.

    Examples
    --------
    >>> g = graph(FatTree(4, 2))
    >>> g.number_of_nodes(), g.number_of_edges()
    (24, 32)
    >>> g.edges[("switch", 0, 1), ("switch", 1, 3)]
    {'up_port': 7, 'down_port': 1}
    >>> sorted(d for n, d in g.degree if n[0] == "switch")[::4]
    [4, 8]
    """
    import networkx as nx

    _check_tree(tree)
    k, n, width = tree.k, tree.n, tree.switches_per_level
    g = nx.Graph(name=tree.name, k=k, n=n)
    g.add_nodes_from((("node", p), {"kind": "node", "index": p}) for p in range(tree.nodes))
    g.add_nodes_from((_switch(l, w), {"kind": "switch", "level": l, "index": w})
                     for l in range(n) for w in range(width))
    g.add_edges_from((("node", p), _switch(0, p // k), {"up_port": 0, "down_port": p % k})
                     for p in range(tree.nodes))
    for level in range(n - 1):
        for w in range(width):
            for j in range(k):
                g.add_edge(_switch(level, w), _switch(level + 1, _with_digit(w, level, k, j)),
                           up_port=k + j, down_port=_digit(w, level, k))
    return g


# ---------------------------------------------------------------- routing

def lca_level(tree: FatTree, nodes) -> int:
    """The lowest level at which one switch reaches all ``nodes`` (0: they share a leaf switch).

    Examples
    --------
    >>> t = FatTree(4, 2)
    >>> lca_level(t, [4, 7]), lca_level(t, [0, 15]), lca_level(t, [5])
    (0, 1, 0)
    """
    k = _check_tree(tree).k
    ps = _check_nodes(tree, "nodes", nodes)
    # A level-l switch reaches exactly the nodes with equal digits above p_l, i.e. equal p // k^(l+1).
    level = 0
    while ps[0] // k ** (level + 1) != ps[-1] // k ** (level + 1):
        level += 1
    return level


def lowest_common_ancestors(tree: FatTree, src: int, dst: int) -> frozenset:
    """All k^L lowest common ancestors of ``src`` and ``dst``, L = their LCA level.

    Examples
    --------
    >>> t = FatTree(4, 2)
    >>> sorted(lowest_common_ancestors(t, 4, 7))
    [('switch', 0, 1)]
    >>> len(lowest_common_ancestors(t, 0, 15))
    4
    """
    _check_tree(tree)
    src = _check_node(tree, "src", src)
    dst = _check_node(tree, "dst", dst)
    level = lca_level(tree, (src, dst))
    k = tree.k
    # Digits level..n-2 are fixed by the subtree; the lower `level` digits are free.
    base = (src // k ** (level + 1)) * k ** level
    return frozenset(_switch(level, base + r) for r in range(k ** level))


def route(tree: FatTree, src: int, dst: int,
          choose_up: Callable[[tuple, tuple], int] | None = None) -> list[Hop]:
    """Up/down route from node ``src`` to node ``dst``: the switches crossed, with ports.

    Parameters
    ----------
    tree : FatTree
    src, dst : int
        Distinct node numbers.
    choose_up : callable, optional
        ``choose_up(switch, up_ports) -> port`` picks the up port at each
        switch of the upward phase (adaptive routing); any choice reaches an
        LCA. Default: the destination's digit at that level (``k + dst_l``,
        "d-mod-k"), so every route to a node ends on the same root.

    Returns
    -------
    list of Hop
        ``2 L + 1`` hops (L = LCA level), ``2 (L + 1)`` links counting the
        two node links; the first hop enters on ``src``'s port and the last
        leaves on ``dst``'s.

    Examples
    --------
    >>> t = FatTree(4, 2)
    >>> route(t, 1, 2)
    [Hop(switch=('switch', 0, 0), in_port=1, out_port=2)]
    >>> [h.switch for h in route(t, 0, 15)]
    [('switch', 0, 0), ('switch', 1, 3), ('switch', 0, 3)]
    >>> [h.switch for h in route(t, 0, 15, choose_up=lambda sw, ports: ports[0])]
    [('switch', 0, 0), ('switch', 1, 0), ('switch', 0, 3)]
    """
    _check_tree(tree)
    src = _check_node(tree, "src", src)
    dst = _check_node(tree, "dst", dst)
    if src == dst:
        raise _check.InputError("dst", dst, f"a node other than src ({src})")
    k = tree.k
    top = lca_level(tree, (src, dst))
    hops: list[Hop] = []
    w, in_port = src // k, src % k
    for level in range(top):
        here = _switch(level, w)
        out = _choose(tree, here, choose_up) if choose_up else k + _digit(dst, level, k)
        hops.append(Hop(here, in_port, out))
        # The parent sees us on its down port numbered by our digit `level`.
        w, in_port = _with_digit(w, level, k, out - k), _digit(w, level, k)
    for level in range(top, -1, -1):
        # Going down to level-1 sets digit level-1 of the word to dst's node digit `level`.
        out = _digit(dst, level, k)
        hops.append(Hop(_switch(level, w), in_port, out))
        if level:
            w, in_port = _with_digit(w, level - 1, k, out), k + _digit(w, level - 1, k)
    return hops


def mean_route_links(tree: FatTree) -> float:
    """Mean links crossed by a packet to a uniformly random other node: E[2 (L + 1)].

    From a node, k^(L+1) - k^L of the other k^n - 1 nodes have LCA level L,
    so the mean is sum_L (k^(L+1) - k^L) 2 (L + 1) / (k^n - 1). With one
    slot per link it is the zero-load latency of uniform traffic in slots.

    Examples
    --------
    >>> mean_route_links(FatTree(4, 2))       # 3 nodes at 2 links, 12 at 4
    3.6
    >>> round(mean_route_links(FatTree(4, 4)), 4), round(mean_route_links(FatTree(16, 2)), 4)
    (7.3647, 3.8824)
    """
    k, n = _check_tree(tree).k, tree.n
    return sum((k ** (lv + 1) - k ** lv) * 2 * (lv + 1) for lv in range(n)) / (k ** n - 1)


def _choose(tree: FatTree, switch: tuple, choose_up: Callable) -> int:
    ports = tuple(range(tree.k, 2 * tree.k))
    port = choose_up(switch, ports)
    if isinstance(port, bool) or port not in ports:
        raise _check.InputError("choose_up", port, f"a callback returning an up port in [{ports[0]}, {ports[-1]}]")
    return int(port)


# ---------------------------------------------------------------- multicast spanning trees

def build_tree(tree: FatTree, dest_nodes, load: MutableMapping, policy: str = "least-loaded") -> "nx.DiGraph":
    """Paper 003's ``buildTree``: a multicast spanning tree rooted at one LCA of ``dest_nodes``.

    Climbs from the leaf switch of the smallest destination to the group's
    LCA level, at each switch taking the parent with the fewest trees in
    ``load`` (``leastLoadedParent``; ties to the lowest port) or, with
    ``policy="naive"``, always the last up port 2k - 1 (paper Figure 4's
    "port K - 1", K = switch ports). Then adds the unique downward path from
    that root to every destination. Every switch of the tree gets +1 in
    ``load``.

    Parameters
    ----------
    tree : FatTree
    dest_nodes : iterable of int
        The group (non-empty; duplicates ignored). The tree is undirected in
        the paper's sense: any member can multicast to the others over it.
    load : dict
        Switch label -> trees through it; read and updated.
    policy : {"least-loaded", "naive"}

    Returns
    -------
    networkx.DiGraph
        An arborescence whose edges point down, with ``out_port`` (at the
        tail) and ``in_port`` (at the head) attributes and graph attributes
        ``root``, ``lca_level``, ``destinations`` and ``policy``. Its leaves
        are exactly the destination nodes.

    Examples
    --------
    >>> t = FatTree(4, 2)
    >>> load = {}
    >>> a = build_tree(t, [0, 5, 10], load)
    >>> b = build_tree(t, [0, 5, 10], load)
    >>> a.graph["root"], b.graph["root"]            # the second tree avoids the loaded root
    (('switch', 1, 0), ('switch', 1, 1))
    >>> sorted(n for n in a if a.out_degree(n) == 0)
    [('node', 0), ('node', 5), ('node', 10)]
    >>> build_tree(t, [0, 5, 10], {}, policy="naive").graph["root"]
    ('switch', 1, 3)
    """
    _check_tree(tree)
    dests = _check_nodes(tree, "dest_nodes", dest_nodes)
    if not isinstance(load, MutableMapping):
        raise _check.InputError("load", load, "a dict mapping switch labels to tree counts")
    _check.choice("policy", policy, POLICIES)
    top = lca_level(tree, dests)
    root = _climb(tree, dests[0] // tree.k, top, load, policy)
    spanning = _down_tree(tree, root, dests)
    spanning.graph.update(root=root, lca_level=top, destinations=frozenset(dests), policy=policy)
    for node in spanning:
        if node[0] == "switch":
            load[node] = load.get(node, 0) + 1
    return spanning


def _climb(tree: FatTree, w: int, top: int, load: MutableMapping, policy: str) -> tuple:
    """The root reached from leaf switch ``w`` by ``top`` upward steps under ``policy``."""
    k = tree.k
    for level in range(top):
        if policy == "naive":
            j = k - 1
        else:
            parents = [_with_digit(w, level, k, j) for j in range(k)]
            j = min(range(k), key=lambda i: (load.get(_switch(level + 1, parents[i]), 0), i))
        w = _with_digit(w, level, k, j)
    return _switch(top, w)


def _down_tree(tree: FatTree, root: tuple, dests: list[int]) -> "nx.DiGraph":
    import networkx as nx

    k = tree.k
    spanning = nx.DiGraph()
    spanning.add_node(root)
    for p in dests:
        level, w = root[1], root[2]
        # The same descent as route(): digit level-1 of the word becomes p's node digit `level`.
        while level > 0:
            c = _digit(p, level, k)
            child = _with_digit(w, level - 1, k, c)
            spanning.add_edge(_switch(level, w), _switch(level - 1, child),
                              out_port=c, in_port=k + _digit(w, level - 1, k))
            level, w = level - 1, child
        spanning.add_edge(_switch(0, w), ("node", p), out_port=p % k, in_port=0)
    return spanning


def build_trees(tree: FatTree, groups, policy: str = "least-loaded",
                load: MutableMapping | None = None) -> list["nx.DiGraph"]:
    """Spanning trees for many simultaneous groups, built in order against a shared ``load``.

    Examples
    --------
    >>> t = FatTree(4, 2)
    >>> trees = build_trees(t, [[0, 15]] * 4)
    >>> sorted(s.graph["root"][2] for s in trees)        # one per top switch
    [0, 1, 2, 3]
    >>> {s.graph["root"] for s in build_trees(t, [[0, 15]] * 4, policy="naive")}
    {('switch', 1, 3)}
    """
    _check_tree(tree)
    load = {} if load is None else load
    if isinstance(groups, (str, bytes)) or not isinstance(groups, Iterable):
        raise _check.InputError("groups", groups, "an iterable of node collections")
    return [build_tree(tree, g, load, policy) for g in groups]


def routing_table(spanning_tree: "nx.DiGraph") -> dict:
    """Per-switch port bit vector of a spanning tree, as the paper's switches store it (§2.1).

    Every tree port of a switch, up or down: a multicast packet goes out on
    all of them except the one it arrived on, so any member can send.

    Examples
    --------
    >>> s = build_tree(FatTree(4, 2), [0, 5], {})
    >>> {sw: sorted(ports) for sw, ports in routing_table(s).items()}
    {('switch', 1, 0): [0, 1], ('switch', 0, 0): [0, 4], ('switch', 0, 1): [1, 4]}
    """
    table: dict = {}
    for u, v, ports in spanning_tree.edges(data=True):
        if u[0] == "switch":
            table.setdefault(u, set()).add(ports["out_port"])
        if v[0] == "switch":
            table.setdefault(v, set()).add(ports["in_port"])
    return {sw: frozenset(p) for sw, p in table.items()}


def tree_load_stats(tree: FatTree, trees) -> tuple[LevelLoad, ...]:
    """Trees per switch on each level (0 = leaves): max, mean, min and max/mean balance.

    Examples
    --------
    >>> t = FatTree(4, 2)
    >>> best = tree_load_stats(t, build_trees(t, [[0, 15]] * 4))[1]
    >>> naive = tree_load_stats(t, build_trees(t, [[0, 15]] * 4, policy="naive"))[1]
    >>> (best.max, best.mean, best.balance), (naive.max, naive.mean, naive.balance)
    ((1, 1.0, 1.0), (4, 1.0, 4.0))
    """
    _check_tree(tree)
    width = tree.switches_per_level
    counts = [[0] * width for _ in range(tree.n)]
    for spanning in trees:
        for node in spanning:
            if node[0] == "switch":
                counts[node[1]][node[2]] += 1
    stats = []
    for level, row in enumerate(counts):
        mean = sum(row) / width
        stats.append(LevelLoad(level, width, max(row), mean, min(row), max(row) / mean if mean else 1.0))
    return tuple(stats)


# ---------------------------------------------------------------- link counts

def tree_links(spanning_tree: "nx.DiGraph") -> int:
    """Link traversals of one hardware multicast over ``spanning_tree``: its number of edges.

    A member sending over the tree crosses each tree link exactly once (it
    goes out on every tree port but the one it came in on), including its
    own link up to its leaf switch.

    Examples
    --------
    >>> t = FatTree(4, 2)
    >>> tree_links(build_tree(t, [0, 1, 2, 3, 15], {}))   # 2 links down from the root, 5 to nodes
    7
    """
    return spanning_tree.number_of_edges()


def unicast_links(tree: FatTree, src: int, dests) -> int:
    """Link traversals when ``src`` sends one point-to-point message to each of ``dests``.

    Each message crosses 2 (L + 1) links, L the LCA level of ``src`` and that
    destination; ``src`` itself, if listed, is skipped (no message to self).

    Examples
    --------
    >>> t = FatTree(4, 2)
    >>> unicast_links(t, 0, [0, 1, 2, 3, 15])     # 3 * 2 links + 4 links
    10
    """
    _check_tree(tree)
    src = _check_node(tree, "src", src)
    return sum(2 * (lca_level(tree, (src, d)) + 1)
               for d in _check_nodes(tree, "dests", dests) if d != src)
