"""The reduction twin's own wiring and times, from the model alone (paper 003 §2, Figures 2-3, §2.1-2.2, Table 1).

The twin builds these itself rather than reading :mod:`switchq.solvers.reduction`'s
plan, so that the simulation agreeing with the recursion checks the
recursion's wiring too. What paper 003 describes:

- the spanning tree (``buildTree``) is rooted at one lowest common ancestor
  of the members, reached by climbing from the smallest member's leaf switch;
  on an idle network no parent carries a tree yet, so ``leastLoadedParent``
  takes the lowest up port at every level. It holds the unique downward path
  to every member, on the wiring of :class:`switchq.models.network.FatTree`
  (levels from the bottom; a switch word's digit l is the up port at level l);
- read towards the root node R, every switch combines what comes in on its
  ports away from R and sends the partial result on its port towards R (§2.1);
- with one combine unit per switch that unit takes all those inputs; with
  r >= 3, port p feeds leaf unit ``p (r - 1) // ports`` and the root unit
  combines the leaves that have inputs (Figure 3), a leaf's partial reaching
  it at once.

The kernel's numbering: switches farthest from R first (ties by label); a
switch's leaf units by leaf number, then its root unit; a unit's channels in
the order it gets them (a root unit's leaf partials first, then the switch's
inputs by port); links from the members other than R in node order, then each
switch's output in switch order. -1 is "none".
"""

from __future__ import annotations

from collections import namedtuple
from functools import lru_cache

import numpy as np

from switchq.errors import InputError

__all__ = ["Wiring", "wiring", "packet_times_ps", "start_times_ps", "PS_PER_NS"]

PS_PER_NS = 1000
# Per unit: kind, inputs m, its channels (CSR: unit_in_chan[unit_in_ptr[u]:unit_in_ptr[u + 1]]), its output link
# (single or root unit) or channel into its root unit (leaf unit); per channel its unit; per link the node
# sending on it and the channel it delivers to (-1: R).
Wiring = namedtuple("Wiring", "unit_kind unit_inputs unit_in_ptr unit_in_chan unit_out_link unit_out_chan "
                              "chan_unit link_src_node link_dst_chan")
SINGLE, LEAF, ROOT = 0, 1, 2


def _ps(ns: float) -> int:
    return int(round(ns * PS_PER_NS))


def packet_times_ps(reduction) -> tuple[np.ndarray, np.ndarray]:
    """Per packet of ``reduction``: its serialization on a link and its combine-unit service, integer ps (each
    duration rounded to the picosecond once)."""
    bandwidth = reduction.timing.bandwidth_bps
    sizes = reduction.packet_sizes()
    ser = np.array([_ps(b * 8e9 / bandwidth) for b in sizes], dtype=np.int64)
    svc = np.array([_ps(reduction.combine_ns(b)) for b in sizes], dtype=np.int64)
    return ser, svc


def start_times_ps(reduction, start_ns=None) -> np.ndarray:
    """Every node's start time (length ``tree.nodes``) in integer ps; None is all zero."""
    nodes = reduction.tree.nodes
    if start_ns is None:
        return np.zeros(nodes, dtype=np.int64)
    a = np.asarray(start_ns, dtype=float)
    if a.shape != (nodes,) or not np.all(np.isfinite(a)) or np.any(a < 0) or np.any(a > 1e12):
        raise InputError("start_ns", start_ns, f"{nodes} finite start times in [0, 1e12] ns, one per node")
    return np.rint(a * PS_PER_NS).astype(np.int64)


def _digit(x: int, i: int, k: int) -> int:
    return x // k ** i % k


def _set_digit(x: int, i: int, k: int, d: int) -> int:
    return x + (d - _digit(x, i, k)) * k ** i


def _tree_ports(tree, members: tuple) -> dict:
    """``{(a, b): the port at a}`` for both ends of every link of ``buildTree``'s spanning tree of ``members``
    (sorted) on an idle network; a switch is ``("switch", level, word)``, a node ``("node", p)`` (port 0)."""
    k = tree.k
    top = 0            # the members' lowest common level: where their node numbers agree above digit top
    while members[0] // k ** (top + 1) != members[-1] // k ** (top + 1):
        top += 1
    # Climbing from the first member's leaf switch, an idle parent on the lowest up port: word digits below top 0.
    root_word = members[0] // k // k ** top * k ** top
    ports = {}
    for p in members:
        level, word = top, root_word
        while level > 0:
            down = _digit(p, level, k)                    # towards p: p's digit at this level
            child = _set_digit(word, level - 1, k, down)
            upper, lower = ("switch", level, word), ("switch", level - 1, child)
            ports[upper, lower], ports[lower, upper] = down, k + _digit(word, level - 1, k)
            level, word = level - 1, child
        leaf, node = ("switch", 0, word), ("node", p)
        ports[leaf, node], ports[node, leaf] = p % k, 0
    return ports


def _towards(near: dict, target: tuple) -> tuple[dict, dict]:
    """Every element's next hop towards ``target`` and its distance in links, breadth-first over the tree
    (``near``: each element's neighbours)."""
    toward, dist, frontier = {target: None}, {target: 0}, [target]
    while frontier:
        reached = []
        for x in frontier:
            for y in near[x]:
                if y not in dist:
                    dist[y], toward[y] = dist[x] + 1, x
                    reached.append(y)
        frontier = reached
    return toward, dist


class _Arrays:
    """The kernel's arrays as units, channels and links are made: an index is the order of making."""

    def __init__(self):
        self.unit_kind, self.unit_chans, self.unit_out_link, self.unit_out_chan = [], [], [], []
        self.chan_unit, self.link_src_node, self.link_dst_chan = [], [], []

    def link(self, src_node: int) -> int:
        self.link_src_node.append(src_node)
        self.link_dst_chan.append(-1)
        return len(self.link_src_node) - 1

    def unit(self, kind: int) -> int:
        self.unit_kind.append(kind)
        self.unit_chans.append([])
        self.unit_out_link.append(-1)
        self.unit_out_chan.append(-1)
        return len(self.unit_kind) - 1

    def chan(self, unit: int) -> int:
        self.chan_unit.append(unit)
        self.unit_chans[unit].append(len(self.chan_unit) - 1)
        return len(self.chan_unit) - 1

    def wiring(self) -> Wiring:
        ptr = np.zeros(len(self.unit_kind) + 1, dtype=np.int64)
        ptr[1:] = np.cumsum([len(c) for c in self.unit_chans])
        out = Wiring(unit_kind=self.unit_kind, unit_inputs=[len(c) for c in self.unit_chans], unit_in_ptr=ptr,
                     unit_in_chan=[c for cs in self.unit_chans for c in cs], unit_out_link=self.unit_out_link,
                     unit_out_chan=self.unit_out_chan, chan_unit=self.chan_unit, link_src_node=self.link_src_node,
                     link_dst_chan=self.link_dst_chan)
        out = out._replace(**{name: np.asarray(v, dtype=np.int64) for name, v in out._asdict().items()})
        for v in out:
            v.setflags(write=False)      # cached: shared by every replication of the reduction
        return out


def wiring(reduction) -> Wiring:
    """The kernel's wiring of ``reduction`` (cached on its tree, members, root and combine units).

    Examples
    --------
    >>> from switchq.models.collective import Reduction
    >>> from switchq.models.network import FatTree
    >>> w = wiring(Reduction(FatTree.for_nodes(256, 32), 256, combine_units=5))
    >>> len(w.unit_kind), len(w.link_src_node)
    (52, 272)
    """
    return _wiring(reduction.tree, reduction.members, reduction.root, reduction.combine_units)


@lru_cache(maxsize=64)
def _wiring(tree, members, root: int, r: int) -> Wiring:
    nodes = tuple(range(tree.nodes)) if members is None else members
    ports = _tree_ports(tree, nodes)
    near: dict = {}
    for x, y in ports:
        near.setdefault(x, []).append(y)
    toward, dist = _towards(near, ("node", root))
    switches = sorted((x for x in dist if x[0] == "switch"), key=lambda s: (-dist[s], s))
    a = _Arrays()
    node_link = {("node", p): a.link(p) for p in nodes if p != root}
    out_unit = {}                 # switch -> its single or root unit
    for s in switches:
        inputs = sorted((ports[s, y], y) for y in near[s] if y != toward[s])     # (port, neighbour) away from R
        if r == 1:
            top = a.unit(SINGLE)
            unit_of = {port: top for port, _ in inputs}
        else:
            leaf_of = {port: port * (r - 1) // tree.switch_ports for port, _ in inputs}   # Reduction.leaf_of_port
            leaf_unit = {leaf: a.unit(LEAF) for leaf in sorted(set(leaf_of.values()))}
            unit_of = {port: leaf_unit[leaf] for port, leaf in leaf_of.items()}
            top = a.unit(ROOT)
            for leaf in leaf_unit.values():
                a.unit_out_chan[leaf] = a.chan(top)
        for port, y in inputs:
            link = node_link[y] if y[0] == "node" else a.unit_out_link[out_unit[y]]
            a.link_dst_chan[link] = a.chan(unit_of[port])
        out_unit[s] = top
        a.unit_out_link[top] = a.link(-1)
    return a.wiring()
