"""Topologies as data: wiring and routing tables that simulation kernels read and solvers walk.

A description both layers need, so it lives in ``models`` (a kernel importing it from a solver would
not be independent of what it checks).

A topology is a function returning a :class:`Topology`: switches with
``ports`` ports each, nodes hanging off some of them, and

- **wiring**: output port ``g = s * ports + p`` of switch ``s`` (and, after
  them, the injection link ``switches * ports + v`` of node ``v``) leads to
  switch ``out_switch[g]``, input ``out_input[g]``; ``out_switch = -1`` means
  to node ``out_input[g]``, ``-2`` an unwired port;
- **routing**: at switch ``s`` a packet for node ``d`` may take any port of
  the mask ``groups[s, route[s, d]]``: one port where the route is fixed, two
  or more where the switch chooses (adaptively, by credits, in the kernels);
- **fixed source routes**: ``source_port[stage[s], r]`` is the port a packet
  carrying route word ``r`` takes where it has a choice (trees: the up port
  of digit ``stage`` of ``r``), -1 where the topology has none.

Kernels read these tables and nothing else (no arity, no levels): a new
topology is a new function here. Tables cost ``2 * switches * nodes`` bytes
for ``route`` (a 256-node 4-ary 4-tree: 128 KiB).

Topologies
----------
:func:`fat_tree`
    k-ary n-trees (Petrini & Vanneschi 1995; paper 003 §2.2), which are also
    the bidirectional MINs (BMIN) with turnaround routing of paper 000 §5:
    a packet climbs to a least common ancestor of source and destination
    (any up port: adaptive) and descends the unique down path.
:func:`boards`
    SP2-style boards of a 2-stage tree cabled to each other directly (paper
    000's 64-node reading).
:func:`mesh`
    A 2-D mesh of routers, neighbours joined by ``parallel`` links
    (paper 004's 2 x 2 "fat mesh" of 8 x 8 routers uses 2), routed in
    dimension order (x, then y), any of the parallel links by current load.
:func:`crossbar`
    One switch, node ``v`` on port ``v``: a single-stage switch as a network.

Examples
--------
>>> from switchq.models.network import FatTree
>>> t = fat_tree(FatTree(4, 2))
>>> t.switches, t.ports, t.nodes, int(t.groups[0, t.route[0, 5]])    # leaf 0 sends node 5 up: ports 4-7
(8, 8, 16, 240)
>>> m = mesh(2, 2, nodes_per_router=4, parallel=2)
>>> m.switches, m.ports, bin(int(m.groups[0, m.route[0, 4]]))  # router 0 to router 1 (+x): ports 4 and 5
(4, 12, '0b110000')
>>> crossbar(4).route[0].tolist()
[0, 1, 2, 3]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from switchq.models import _check

__all__ = ["Topology", "fat_tree", "boards", "board_counts", "mesh", "crossbar"]

UNWIRED = -2
TO_NODE = -1


@dataclass(frozen=True, eq=False)
class Topology:
    """Wiring and routing tables of a network (see the module docstring for their meaning)."""

    name: str
    ports: int
    out_switch: np.ndarray
    out_input: np.ndarray
    route: np.ndarray
    groups: np.ndarray
    stage: np.ndarray
    source_port: np.ndarray
    multicast: bool

    @property
    def switches(self) -> int:
        return self.route.shape[0]

    @property
    def nodes(self) -> int:
        return self.route.shape[1]

    def node_link(self, v: int) -> int:
        """Index of node ``v``'s injection link in ``out_switch``/``out_input``."""
        return self.switches * self.ports + v


def _ports(ports) -> int:
    """A set of ports as the signed 64-bit word the kernels read: port 63 is the sign bit.

    Examples
    --------
    >>> _ports([0, 2]), _ports([63])
    (5, -9223372036854775808)
    """
    word = sum(1 << p for p in ports)
    return word - (1 << 64) if word >= 1 << 63 else word


def _tables(switches: int, ports: int, nodes: int, n_groups: int, stages: int):
    out_switch = np.full(switches * ports + nodes, UNWIRED, dtype=np.int64)
    out_input = np.zeros_like(out_switch)
    route = np.zeros((switches, nodes), dtype=np.int16)
    groups = np.zeros((switches, n_groups), dtype=np.int64)
    stage = np.zeros(switches, dtype=np.int64)
    source_port = np.full((stages, nodes), -1, dtype=np.int64)
    return out_switch, out_input, route, groups, stage, source_port


@lru_cache(maxsize=16)
def fat_tree(tree, fixed_up: bool = False) -> Topology:
    """Tables of a k-ary n-tree (:class:`switchq.models.network.FatTree`) with turnaround routing.

    Switch ``s = l W + w`` (level l from the leaves, W = k^(n-1) switches a
    level) has down ports 0..k-1 and up ports k..2k-1. Down port p of a
    level-l switch leads to the child whose digit l-1 is p; up port k + u to
    the parent whose digit l is u. Groups 0..k-1 are the single down ports,
    group k the up ports. Switch s reaches node d iff ``d // k^(l+1) ==
    w // k^l``; it then sends d down port ``(d // k^l) % k``, else up. A
    fixed route word r climbs through up port ``k + (r // k^l) % k`` at level l
    (d-mod-k routing when r is the destination). ``fixed_up``: the routing
    tables themselves send destination d up that one port (groups k+1.. are
    the single up ports), as a non-adaptive BMIN routes.

    Examples
    --------
    >>> from switchq.models.network import FatTree
    >>> t = fat_tree(FatTree(2, 2))
    >>> t.out_switch[:8].tolist(), t.out_input[:8].tolist()   # switch 0: nodes 0, 1 below; parents 2, 3 above
    ([-1, -1, 2, 3, -1, -1, 2, 3], [0, 1, 0, 0, 2, 3, 1, 1])
    """
    k, n = tree.k, tree.n
    ports, width = 2 * k, tree.switches_per_level
    switches, nodes = n * width, tree.nodes
    out_switch, out_input, route, groups, stage, source_port = _tables(switches, ports, nodes, 2 * k + 1, n)
    kpow = [k ** i for i in range(n + 1)]
    d = np.arange(nodes)
    up = _ports(range(k, ports))
    for lv in range(n):
        source_port[lv] = k + (d // kpow[lv]) % k
        for w in range(width):
            s = lv * width + w
            stage[s] = lv
            groups[s, :k] = [_ports([p]) for p in range(k)]
            groups[s, k] = up
            groups[s, k + 1:] = [_ports([k + u]) for u in range(k)]
            below = d // kpow[lv + 1] == w // kpow[lv]
            route[s] = np.where(below, (d // kpow[lv]) % k, k + 1 + (d // kpow[lv]) % k if fixed_up else k)
            for p in range(ports):
                g = s * ports + p
                if p < k:
                    if lv == 0:
                        out_switch[g], out_input[g] = TO_NODE, w * k + p
                    else:
                        # Down port p: the child whose digit lv-1 is p; we are on its up port k + our digit.
                        child = w + (p - (w // kpow[lv - 1]) % k) * kpow[lv - 1]
                        out_switch[g], out_input[g] = (lv - 1) * width + child, k + (w // kpow[lv - 1]) % k
                elif lv < n - 1:
                    parent = w + (p - k - (w // kpow[lv]) % k) * kpow[lv]
                    out_switch[g], out_input[g] = (lv + 1) * width + parent, (w // kpow[lv]) % k
    for v in range(nodes):
        out_switch[switches * ports + v], out_input[switches * ports + v] = v // k, v % k

    name = tree.name + (", up port by destination digit" if fixed_up else "")
    return Topology(name, ports, out_switch, out_input, route, groups, stage, source_port, True)


@lru_cache(maxsize=8)
def board_counts(links: int) -> list:
    """How many SP2-style boards, each with ``links`` external links, can be cabled directly to each other: those
    whose links split evenly over the other boards, or leave one over for the opposite board (an even count).

    Examples
    --------
    >>> board_counts(16), board_counts(9)
    ([2, 3, 4, 5, 6, 9, 16, 17], [2, 4, 10])
    """
    return [b for b in range(2, links + 2) if links % (b - 1) == 0 or (b % 2 == 0 and links % (b - 1) == 1)]


def boards(n_boards: int, k: int = 4) -> Topology:
    """Tables of ``n_boards`` boards of 2k-port switches joined directly, board to board (no third stage).

    The IBM SP2 builds systems of up to 80 nodes from 16-node switch boards
    cabled to each other (Stunkel et al., "The SP2 High-Performance Switch",
    IBM Systems Journal 34(2), 1995; paper 000 §5.1 takes its switch from
    it). A board is a 2-stage k-ary tree: k leaf switches (stage 0) of k
    nodes each, and k board switches (stage 1) whose k up ports leave the
    board. Those k^2 links are spread as evenly as pairs of boards allow
    over the other boards, each board switch reaching every other board;
    with 4 boards of 16 nodes each board sends 5 links to each neighbour
    and 6 to the opposite board (the paper does not give the split). A
    packet climbs to any board switch of its board (adaptive), crosses to
    its destination's board on any link to it from there (adaptive), and
    descends. Switch ``s = b 2k + stage k + i``; groups 0..k-1 are the down
    ports, group k a leaf's up ports, group k+1+o the links to board b+1+o.

    Examples
    --------
    >>> t = boards(4)
    >>> t.switches, t.nodes, int(t.groups[0, t.route[0, 5]])       # leaf 0 sends node 5 up: ports 4-7
    (32, 64, 240)
    >>> sorted(sum(1 for p in range(4, 8) if t.out_switch[(4 + j) * 8 + p] // 8 == b)
    ...        for j in range(4) for b in (1,))                     # board 0's links to board 1, by switch
    [1, 1, 1, 2]
    """
    if n_boards not in board_counts(k * k):
        raise _check.InputError("boards", n_boards, f"one of {board_counts(k * k)} (the links split evenly)")
    ports, per_board = 2 * k, 2 * k
    switches, nodes = n_boards * per_board, n_boards * k * k
    others = n_boards - 1
    out_switch, out_input, route, groups, stage, source_port = _tables(switches, ports, nodes, k + 1 + others, 2)
    base, extra = divmod(k * k, others)
    # Each board switch j's k up ports, round robin over the other boards (offset o: board b + 1 + o); the one
    # extra link of an even board count goes to the opposite board, its own reverse.
    slots = {o: [] for o in range(others)}
    offsets = [o for o in range(others) for _ in range(base)] + [n_boards // 2 - 1] * extra
    for link, o in enumerate(sorted(offsets)):      # link x: board switch x % k, port k + x // k
        slots[o].append((link % k, k + link // k))
    d = np.arange(nodes)
    for b in range(n_boards):
        for i in range(per_board):
            s = b * per_board + i
            stage[s] = i // k
            groups[s, :k] = [_ports([p]) for p in range(k)]
            if i < k:      # leaf i: nodes below, board switches above
                groups[s, k] = _ports(range(k, ports))
                here = d // k == b * k + i
                route[s] = np.where(here, d % k, k)
                for p in range(k):
                    out_switch[s * ports + p], out_input[s * ports + p] = TO_NODE, (b * k + i) * k + p
                    out_switch[s * ports + k + p], out_input[s * ports + k + p] = b * per_board + k + p, i
            else:          # board switch j: leaves below, other boards above
                j = i - k
                for o in range(others):
                    groups[s, k + 1 + o] = _ports([p for jj, p in slots[o] if jj == j])
                target_board = d // (k * k)
                route[s] = np.where(target_board == b, (d // k) % k, k + 1 + (target_board - b - 1) % n_boards)
                for p in range(k):
                    out_switch[s * ports + p], out_input[s * ports + p] = b * per_board + p, k + j
    # Board-to-board cables: the n-th link of board b to offset o meets the n-th of the far board's back to b.
    for b in range(n_boards):
        for o in range(others):
            far = (b + 1 + o) % n_boards
            back = (b - far - 1) % n_boards
            for (j, p), (j2, p2) in zip(slots[o], slots[back]):
                out_switch[(b * per_board + k + j) * ports + p] = far * per_board + k + j2
                out_input[(b * per_board + k + j) * ports + p] = p2
    for v in range(nodes):
        out_switch[switches * ports + v], out_input[switches * ports + v] = v // k // k * per_board + v // k % k, v % k

    return Topology(f"{n_boards} boards of {k * k} nodes joined directly", ports, out_switch, out_input, route,
                    groups, stage, source_port, True)


def mesh(rows: int, cols: int, nodes_per_router: int = 4, parallel: int = 2) -> Topology:
    """Tables of a ``rows`` x ``cols`` mesh of routers, neighbours joined by ``parallel`` links.

    Router ``r = y * cols + x`` has ports 0..nodes_per_router-1 for its
    nodes (node ``v`` on router ``v // nodes_per_router``), then ``parallel``
    ports towards each of +x, -x, +y, -y (in that order; unwired at the
    edges). Dimension-order routing: x first, then y; a hop may take any of
    its parallel links (the kernel picks by credits), so paper 004's fat
    mesh (Fig. 4) is ``mesh(2, 2, 4, 2)`` with 12-port routers (its 8 x 8
    routers use 4 node ports and 4 link ports; two links per neighbour).

    Examples
    --------
    >>> m = mesh(1, 3, nodes_per_router=1, parallel=1)
    >>> int(m.groups[0, m.route[0, 2]]), int(m.groups[2, m.route[2, 0]])   # east from router 0, west from router 2
    (2, 4)
    """
    rows = _check.integer("rows", rows, 1, 64)
    cols = _check.integer("cols", cols, 1, 64)
    per = _check.integer("nodes_per_router", nodes_per_router, 1, 32)
    par = _check.integer("parallel", parallel, 1, 8)
    ports = per + 4 * par
    if ports > 64:
        raise _check.InputError("parallel", parallel, f"at most {(64 - per) // 4} with {per} nodes per router "
                                                      "(ports are 64-bit masks)")
    switches, nodes = rows * cols, rows * cols * per
    out_switch, out_input, route, groups, stage, source_port = _tables(switches, ports, nodes, per + 4, 1)
    steps = ((1, 0), (-1, 0), (0, 1), (0, -1))            # +x, -x, +y, -y
    for s in range(switches):
        y, x = divmod(s, cols)
        groups[s, :per] = [_ports([p]) for p in range(per)]
        for direction, (dx, dy) in enumerate(steps):
            first = per + direction * par
            groups[s, per + direction] = _ports(range(first, first + par))
            nx, ny = x + dx, y + dy
            if 0 <= nx < cols and 0 <= ny < rows:
                back = direction ^ 1                     # +x pairs with -x, +y with -y
                for j in range(par):
                    g = s * ports + first + j
                    out_switch[g], out_input[g] = ny * cols + nx, per + back * par + j
        for p in range(per):
            out_switch[s * ports + p], out_input[s * ports + p] = TO_NODE, s * per + p
        for d in range(nodes):
            ty, tx = divmod(d // per, cols)
            if tx != x:
                route[s, d] = per + (0 if tx > x else 1)
            elif ty != y:
                route[s, d] = per + (2 if ty > y else 3)
            else:
                route[s, d] = d % per
    for v in range(nodes):
        out_switch[switches * ports + v], out_input[switches * ports + v] = v // per, v % per

    return Topology(f"{rows} x {cols} mesh, {par} link(s) per neighbour", ports, out_switch, out_input, route,
                    groups, stage, source_port, False)


def crossbar(n_ports: int) -> Topology:
    """One ``n_ports`` x ``n_ports`` switch with node ``v`` on port ``v``.

    Examples
    --------
    >>> c = crossbar(2)
    >>> c.out_switch.tolist(), c.out_input.tolist()
    ([-1, -1, 0, 0], [0, 1, 0, 1])
    """
    n = _check.integer("n_ports", n_ports, 1, 64)
    out_switch, out_input, route, groups, stage, source_port = _tables(1, n, n, n, 1)
    groups[0] = [_ports([p]) for p in range(n)]
    route[0] = np.arange(n)
    out_switch[:n], out_input[:n] = TO_NODE, np.arange(n)
    out_switch[n:], out_input[n:] = 0, np.arange(n)

    return Topology(f"{n} x {n} crossbar", n, out_switch, out_input, route, groups, stage, source_port, True)
