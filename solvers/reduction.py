"""Completion time of one hardware reduction on an idle fat tree (paper 003 §2, §2.1-2.2, §3.2, Table 1).

The reduction runs over paper 003's spanning tree (``buildTree`` with
``leastLoadedParent``, :func:`switchq.solvers.fattree.build_tree`) towards
the root node R. Every switch of the tree has its routing bit vector of k
tree ports; it combines the k - 1 packets arriving on all but the port
towards R and sends the partial result out of that port (§2.1).

Model (deterministic; every time below is a constant):

- the message of M bytes is cut into P = ceil(M / B) packets (B =
  packet_bytes; the last carries the remainder); a packet of b bytes takes
  ``ser(b) = 8 b / bandwidth`` on a link and ``S(b) = (header_cycles +
  ceil(b / bytes_per_cycle)) / asic_hz`` in a combine unit;
- each member except R pays the NIC send overhead ``o_s`` from its start
  time, then sends its P packets back to back; R receives the result and
  pays ``o_r`` after the last packet (its own contribution is folded in by
  its host: that cost is taken to be inside ``o_r``);
- a link carries one packet at a time, in packet order; a packet is wholly
  at the next combine unit ``ser + channel + switch`` delay after its first
  bit left (store and forward at the combine unit), or wholly at R
  ``ser + channel`` after;
- a combine unit is one server. It holds the local state of one partial
  result at a time, so it combines the packets of index j from each of its
  m inputs (each input's packets wait in their own FIFO, the crosspoint
  buffer) in the order they arrived, then emits partial j and moves to
  j + 1. With ``combine_units = 1`` a switch's unit has the k - 1 tree inputs;
  with r >= 3 the leaf unit of each port block combines that block's inputs,
  and the root unit combines the partials of the leaves that have inputs, a
  leaf's partial reaching the root unit at once (an on-chip transfer);
- buffers never fill (no credit stalls) and nothing else uses the network.

Equations (max-plus). For a link with packets ready at ``a_j`` (Z_j = the
sum of ser over packets 0..j): the last bit of packet j leaves at
``F_j = max(F_{j-1}, a_j) + ser_j = Z_j + max_{l<=j} (a_l - Z_{l-1})``. For a
unit with m inputs whose packets j arrive at ``a_j^(1) <= ... <= a_j^(m)``
(W_j = sum of m S over 0..j): ``C_j = max(C_{j-1} + m S_j, max_i (a_j^(i) +
(m - i + 1) S_j)) = W_j + max_{l<=j} (b_l - W_l)``, b_j the inner max. The
answer is ``F_{P-1} + channel + o_r`` on R's link. Times are integer
picoseconds (each duration rounded to the nearest ps once), so this
recursion and the event-driven simulator of :mod:`switchq.validate.arch.reduction`
agree to the picosecond. The recursion is exact for the model above: there
is no approximation, only the model's assumptions.

Closed form, full machine (every node of a k-ary n-tree, r = 1, every start at 0,
all packets of B bytes). Off R's path a switch combines k packets per index; the
top root k - 1; a switch on the path down to R gets the partial from above
after its k - 1 other inputs, so it adds S to the latency and k S to the
period. The critical path crosses 2n links and 2n - 1 switches::

    T = o_s + 2n (ser + d_ch) + (2n - 1) d_sw + (n k + n - 2) S + (P - 1) max(ser, k S) + o_r

(n = 1: the single switch combines k - 1 packets, ``T = o_s + 2 (ser + d_ch) +
d_sw + (k - 1) S + (P - 1) max(ser, (k - 1) S) + o_r``). A shorter last packet
enters through :func:`closed_form`'s tandem-line maximum. The form assumes
that at every switch on R's path the k - 1 packets j of the other subtrees
are combined by the time partial j from above arrives, or while the unit is
still on partial j - 1 (they crossed fewer stages of the same kinds). That
is an argument, not a proof: the tests compare the closed form
with the recursion over random k, n, roots, messages and timings, and it has
matched in every case tried. With r >= 3 units there is no closed form here:
unequal port blocks (the top root misses the port towards R, so 32 ports and
r = 5 give leaves of 7 and 8 packets) make a switch a fork-join rather than a
tandem stage, and the recursion is the answer.

Cost: building the spanning tree is O(nodes n); the recursion is
O(P x (tree links) x log k) array operations.

References
----------
S. Kumar, L. V. Kale and C. Stunkel, "Architecture for supporting hardware
collectives in output-queued high-radix routers", paper 003 of this
repository: §2 (combine unit, Figures 2-3), §2.1-2.2, §3.2 (Figure 16),
Table 1.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from switchq.models import _check
from switchq.models.collective import Reduction

from . import fattree

__all__ = ["SOURCE", "ReductionPlan", "ReductionTime", "ClosedForm", "plan", "packet_times_ps",
           "completion_time", "closed_form", "start_times_ps"]

SOURCE = ("Kumar, Kale & Stunkel, paper 003: combine units §2 (Figures 2-3), spanning trees and k - 1 packet "
          "combines §2.1-2.2, reduction time §3.2 (Figure 16), timing Table 1; combine-unit timing assumed "
          "(header_cycles + ceil(bytes / bytes_per_cycle)) ASIC cycles per packet")
METHOD = ("exact max-plus recursion over packets and combine units on paper 003's spanning tree "
          "(integer picoseconds)")

SINGLE, LEAF, ROOT = 0, 1, 2
PS_PER_NS = 1000
BREAKDOWN = ("start", "nic_send", "serialization", "channel", "switch", "combine", "nic_recv")


def _ps(ns: float) -> int:
    return int(round(ns * PS_PER_NS))


def _label(switch: tuple) -> str:
    return f"switch L{switch[1]}.{switch[2]}"


# ---------------------------------------------------------------- structure

@dataclass(frozen=True, eq=False)
class ReductionPlan:
    """Who feeds whom in one reduction: combine units, input channels and links, as flat arrays.

    Units are in topological order (every unit after the units that feed
    it). A *channel* is one input of a unit: a link into the switch, or a
    leaf unit's partial into its root unit. Links are node links first,
    then switch outputs. ``-1`` means "none" (a link from a node has no
    source unit; R's link has no destination channel).

    The recursion's own: the simulated twin builds its wiring with its own
    code (:mod:`switchq.validate.arch.reduction_plan`), so their agreement
    checks this wiring too.
    """

    switches: tuple                  # switch labels, in processing order
    unit_switch: np.ndarray          # index into switches
    unit_kind: np.ndarray            # SINGLE, LEAF or ROOT
    unit_leaf: np.ndarray            # leaf number of a LEAF unit, else -1
    unit_inputs: np.ndarray          # m: packets of each index it combines
    unit_in_ptr: np.ndarray          # CSR: channels of unit u are unit_in_chan[ptr[u]:ptr[u+1]]
    unit_in_chan: np.ndarray
    unit_out_link: np.ndarray        # SINGLE/ROOT: the switch's output link
    unit_out_chan: np.ndarray        # LEAF: its channel into the root unit
    chan_unit: np.ndarray            # destination unit of each channel
    chan_link: np.ndarray            # the link feeding it, or -1 (leaf partial)
    chan_leaf: np.ndarray            # the leaf unit feeding it, or -1
    link_src_node: np.ndarray        # node sending on it, or -1
    link_src_unit: np.ndarray        # unit whose results it carries, or -1
    link_dst_chan: np.ndarray        # channel it delivers to, or -1 (R)
    link_port: np.ndarray            # port at the receiving switch (R's link: -1)
    root_link: int
    lca_level: int

    @property
    def units(self) -> int:
        return len(self.unit_kind)

    @property
    def links(self) -> int:
        return len(self.link_src_node)

    def units_working(self) -> Counter:
        """Switches by the number of combine units that work in them (the paper's "effective" units)."""
        per_switch = Counter(int(s) for s in self.unit_switch)
        return Counter(per_switch.values())


def plan(reduction: Reduction) -> ReductionPlan:
    """The wiring of ``reduction`` (cached on tree, members, root and combine units).

    Examples
    --------
    >>> from switchq.models.network import FatTree
    >>> p = plan(Reduction(FatTree.for_nodes(256, 32), 256, combine_units=5))
    >>> len(p.switches), p.units, p.links
    (17, 52, 272)
    >>> sorted(p.units_working().items())      # 16 switches use 3 units, R's leaf switch 4
    [(3, 16), (4, 1)]
    """
    if not isinstance(reduction, Reduction):
        raise _check.InputError("reduction", reduction, "a switchq.models.collective.Reduction")
    return _plan(reduction.tree, reduction.members, reduction.root, reduction.combine_units)


@functools.lru_cache(maxsize=64)
def _plan(tree, members, root, r) -> ReductionPlan:
    nodes = tuple(range(tree.nodes)) if members is None else members
    spanning = fattree.build_tree(tree, nodes, {})
    port_at: dict = {}
    neighbours: dict = {}
    for u, v, d in spanning.edges(data=True):
        port_at[u, v], port_at[v, u] = d["out_port"], d["in_port"]
        neighbours.setdefault(u, []).append(v)
        neighbours.setdefault(v, []).append(u)
    # Orient the tree towards R: breadth-first from R gives every element its next hop and distance.
    target = ("node", root)
    toward, dist, frontier = {target: None}, {target: 0}, [target]
    while frontier:
        nxt = []
        for x in frontier:
            for y in neighbours.get(x, ()):
                if y not in dist:
                    dist[y], toward[y] = dist[x] + 1, x
                    nxt.append(y)
        frontier = nxt
    switches = sorted((x for x in dist if x[0] == "switch"), key=lambda s: (-dist[s], s))
    ports = tree.switch_ports

    unit_switch, unit_kind, unit_leaf, unit_inputs, unit_out_link, unit_out_chan = [], [], [], [], [], []
    unit_chans: list[list[int]] = []
    chan_unit, chan_link, chan_leaf = [], [], []
    link_src_node, link_src_unit, link_dst_chan, link_port = [], [], [], []
    out_unit = {}                 # switch -> its SINGLE or ROOT unit

    def new_link(src_node, src_unit, port):
        link_src_node.append(src_node)
        link_src_unit.append(src_unit)
        link_dst_chan.append(-1)
        link_port.append(port)
        return len(link_src_node) - 1

    def new_unit(s, kind, leaf):
        unit_switch.append(s)
        unit_kind.append(kind)
        unit_leaf.append(leaf)
        unit_inputs.append(0)
        unit_out_link.append(-1)
        unit_out_chan.append(-1)
        unit_chans.append([])
        return len(unit_kind) - 1

    def new_chan(unit, link=-1, leaf=-1):
        chan_unit.append(unit)
        chan_link.append(link)
        chan_leaf.append(leaf)
        unit_chans[unit].append(len(chan_unit) - 1)
        unit_inputs[unit] += 1
        return len(chan_unit) - 1

    # Node links first: every member but R sends.
    node_link = {}
    for p in nodes:
        if p != root:
            node_link[("node", p)] = new_link(p, -1, port_at[toward[("node", p)], ("node", p)])

    for si, s in enumerate(switches):
        inputs = sorted((port_at[s, y], y) for y in neighbours[s] if y != toward[s])
        if r == 1:
            top = new_unit(si, SINGLE, -1)
            leaf_of = {port: top for port, _ in inputs}
        else:
            leaves = sorted({port * (r - 1) // ports for port, _ in inputs})
            leaf_unit = {leaf: new_unit(si, LEAF, leaf) for leaf in leaves}
            leaf_of = {port: leaf_unit[port * (r - 1) // ports] for port, _ in inputs}
            top = new_unit(si, ROOT, -1)
            for leaf in leaves:
                unit_out_chan[leaf_unit[leaf]] = new_chan(top, leaf=leaf_unit[leaf])
        for port, y in inputs:
            link = node_link[y] if y[0] == "node" else unit_out_link[out_unit[y]]
            link_dst_chan[link] = new_chan(leaf_of[port], link=link)
        out_unit[s] = top
        unit_out_link[top] = new_link(-1, top, port_at[toward[s], s] if toward[s][0] == "switch" else -1)
    root_link = unit_out_link[out_unit[neighbours[target][0]]]   # R's leaf switch sends to R

    ptr = np.zeros(len(unit_kind) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(c) for c in unit_chans])
    arr = functools.partial(np.asarray, dtype=np.int64)
    out = ReductionPlan(tuple(switches), arr(unit_switch), arr(unit_kind), arr(unit_leaf), arr(unit_inputs), ptr,
                        arr([c for cs in unit_chans for c in cs]), arr(unit_out_link), arr(unit_out_chan),
                        arr(chan_unit), arr(chan_link), arr(chan_leaf), arr(link_src_node), arr(link_src_unit),
                        arr(link_dst_chan), arr(link_port), int(root_link), int(spanning.graph["lca_level"]))
    for name in out.__dataclass_fields__:
        v = getattr(out, name)
        if isinstance(v, np.ndarray):
            v.setflags(write=False)
    return out


# ---------------------------------------------------------------- times

def packet_times_ps(reduction: Reduction) -> tuple[np.ndarray, np.ndarray]:
    """Per packet: link serialization and combine service time, integer ps.

    Examples
    --------
    >>> from switchq.models.network import FatTree
    >>> ser, svc = packet_times_ps(Reduction(FatTree(4, 2), 300))
    >>> ser.tolist(), svc.tolist()        # 256 B and 44 B packets at 10 Gb/s and 250 MHz
    ([204800, 35200], [144000, 40000])
    """
    t = reduction.timing
    sizes = reduction.packet_sizes()
    ser = np.array([_ps(b * 8e9 / t.bandwidth_bps) for b in sizes], dtype=np.int64)
    svc = np.array([_ps(reduction.combine_cycles(b) * 1e9 / t.asic_hz) for b in sizes], dtype=np.int64)
    return ser, svc


def start_times_ps(reduction: Reduction, start_ns=None) -> np.ndarray:
    """Start time of every node (length ``tree.nodes``), integer ps; None is all zero."""
    nodes = reduction.tree.nodes
    if start_ns is None:
        return np.zeros(nodes, dtype=np.int64)
    a = np.asarray(start_ns, dtype=float)
    if a.shape != (nodes,) or not np.all(np.isfinite(a)) or np.any(a < 0) or np.any(a > 1e12):
        raise _check.InputError("start_ns", start_ns, f"{nodes} finite start times in [0, 1e12] ns, one per node")
    return np.rint(a * PS_PER_NS).astype(np.int64)


@dataclass(frozen=True)
class ReductionTime:
    """The analytic answer: when R has the whole result, and where that time goes.

    ``breakdown_ns`` splits the completion time along one critical path of
    the max-plus recursion (so its parts add up to ``completion_time_ns``
    exactly): ``start`` (the latest start on the path), ``nic_send``,
    ``serialization`` (every packet the path waits to be sent, pipelining
    included), ``channel``, ``switch``, ``combine`` (every packet the path
    waits to be combined) and ``nic_recv``. ``bottleneck`` is the link or
    unit where the path spends the most packet times (``bottleneck_packets``
    of them), ``critical_links`` the links the path crosses, and
    ``period_ns`` the slowest per-packet work of any unit or link (full
    packets): the steady interval between result packets of a long message.
    ``units_working`` counts switches by how many of their combine units
    work; ``closed_form_ns`` is :func:`closed_form` where it applies (full
    machine, r = 1, no start times), else None; ``per_packet_ns`` when R
    has each result packet (its arrival plus ``o_r``).
    """

    reduction: Reduction
    completion_time_ns: float
    breakdown_ns: dict
    period_ns: float
    period_element: str
    bottleneck: str
    bottleneck_packets: int
    serialization_ns: float
    combine_ns: float
    switches: int
    critical_links: int
    units_working: dict
    closed_form_ns: float | None
    method: str = METHOD
    source: str = SOURCE
    exact: bool = True
    per_packet_ns: np.ndarray = field(repr=False, default=None)

    def to_dict(self) -> dict:
        out = self.reduction.describe()
        out.update({"completion_time": self.completion_time_ns,
                    "breakdown": dict(self.breakdown_ns), "period": self.period_ns,
                    "period_element": self.period_element, "bottleneck": self.bottleneck,
                    "bottleneck_packets": self.bottleneck_packets, "serialization": self.serialization_ns,
                    "combine_service": self.combine_ns, "tree_switches": self.switches,
                    "critical_links": self.critical_links,
                    "switches_by_units_working": {str(k): v for k, v in sorted(self.units_working.items())},
                    "closed_form": self.closed_form_ns, "exact": self.exact, "method": self.method,
                    "source": self.source})
        return out


def completion_time(reduction: Reduction, start_ns=None) -> ReductionTime:
    """Time from 0 (when every member starts, by default) until R holds the whole result, in ns.

    Parameters
    ----------
    reduction : Reduction
    start_ns : array of float, optional
        Each node's start time in ns (length ``tree.nodes``; R's and
        non-members' are ignored); default all 0, the idle-network question.

    Returns
    -------
    ReductionTime

    Examples
    --------
    Paper 003 Figure 16's machines (256 nodes), one 8-byte packet:

    >>> from switchq.models.network import FatTree
    >>> eight = completion_time(Reduction(FatTree.for_nodes(256, 8), 8))
    >>> thirty_two = completion_time(Reduction(FatTree.for_nodes(256, 32), 8))
    >>> eight.completion_time_ns, thirty_two.completion_time_ns
    (3801.2, 3615.6)
    >>> eight.breakdown_ns["combine"], thirty_two.breakdown_ns["combine"]
    (360.0, 640.0)
    >>> eight.closed_form_ns == eight.completion_time_ns
    True
    """
    p = plan(reduction)
    ser, svc = packet_times_ps(reduction)
    t = reduction.timing
    o_s, o_r, d_ch, d_sw = _ps(t.nic_send_ns), _ps(t.nic_recv_ns), _ps(t.channel_delay_ns), _ps(t.switch_delay_ns)
    start = start_times_ps(reduction, start_ns)
    z = np.cumsum(ser)
    z_prev = z - ser
    n_packets = len(ser)

    # Rows: per link, when each packet may start (ready) and when its last bit leaves (sent);
    # per channel, when each packet is wholly at the unit (at); per unit, when each partial is complete (done).
    ready = np.empty((p.links, n_packets), dtype=np.int64)
    sent = np.empty((p.links, n_packets), dtype=np.int64)
    at = np.empty((len(p.chan_unit), n_packets), dtype=np.int64)
    done = np.empty((p.units, n_packets), dtype=np.int64)

    def send(links, a):
        ready[links] = a
        sent[links] = z + np.maximum.accumulate(a - z_prev, axis=-1)
        chans = p.link_dst_chan[links]
        into_switch = chans >= 0
        at[chans[into_switch]] = sent[links][into_switch] + d_ch + d_sw

    from_nodes = np.flatnonzero(p.link_src_node >= 0)
    send(from_nodes, np.broadcast_to((start[p.link_src_node[from_nodes]] + o_s)[:, None], (len(from_nodes), n_packets)))
    for u in range(p.units):
        chans = p.unit_in_chan[p.unit_in_ptr[u]:p.unit_in_ptr[u + 1]]
        m = len(chans)
        a = np.sort(at[chans], axis=0)
        b = (a + (m - np.arange(m))[:, None] * svc[None, :]).max(axis=0)
        w = np.cumsum(m * svc)
        done[u] = w + np.maximum.accumulate(b - w)
        if p.unit_kind[u] == LEAF:
            at[p.unit_out_chan[u]] = done[u]
        else:
            send(np.array([p.unit_out_link[u]]), done[u][None, :])
    arrive = sent[p.root_link] + d_ch
    total = int(arrive[-1] + o_r)

    parts, steps, links = _critical_path(p, ready, sent, at, done, ser, svc, start, o_s, d_ch, d_sw)
    parts["channel"] += d_ch
    parts["nic_recv"] += o_r
    assert sum(parts.values()) == total, (parts, total)
    worst = max(steps, key=lambda e: (steps[e], e)) if steps else "none (one packet per member)"
    period, period_element = _period(p, ser, svc)
    try:
        cf = closed_form(reduction).completion_time_ns if start_ns is None else None
    except _check.InputError:
        cf = None
    return ReductionTime(reduction, total / PS_PER_NS, {k: v / PS_PER_NS for k, v in parts.items()},
                         period / PS_PER_NS, period_element, worst, steps[worst] + 1,
                         int(ser[0]) / PS_PER_NS, int(svc[0]) / PS_PER_NS, len(p.switches), links,
                         dict(p.units_working()), cf, per_packet_ns=(arrive + o_r) / PS_PER_NS)


def _unit_name(p: ReductionPlan, u: int) -> str:
    where = _label(p.switches[p.unit_switch[u]])
    kind = p.unit_kind[u]
    return f"{where} " + ("combine unit" if kind == SINGLE else
                          f"leaf unit {p.unit_leaf[u]}" if kind == LEAF else "root unit")


def _link_name(p: ReductionPlan, link: int) -> str:
    node = p.link_src_node[link]
    src = f"node {node} NIC link" if node >= 0 else f"{_label(p.switches[p.unit_switch[p.link_src_unit[link]]])} output"
    return src


def _critical_path(p, ready, sent, at, done, ser, svc, start, o_s, d_ch, d_sw):
    """Walk one longest path back from R's last packet; sum its parts by kind (ps)."""
    parts = dict.fromkeys(BREAKDOWN, 0)
    steps: Counter = Counter()
    links = 0
    kind, elem, j = "link", p.root_link, len(ser) - 1
    while True:
        if kind == "link":
            parts["serialization"] += int(ser[j])
            if j > 0 and sent[elem][j - 1] >= ready[elem][j]:
                steps[_link_name(p, elem)] += 1
                j -= 1
                continue
            links += 1
            node = p.link_src_node[elem]
            if node >= 0:
                parts["nic_send"] += o_s
                parts["start"] += int(start[node])
                return parts, steps, links
            kind, elem = "unit", p.link_src_unit[elem]
            continue
        u = elem
        chans = p.unit_in_chan[p.unit_in_ptr[u]:p.unit_in_ptr[u + 1]]
        m = len(chans)
        c_j = done[u][j]
        if j > 0 and done[u][j - 1] + m * svc[j] == c_j:
            parts["combine"] += m * int(svc[j])
            steps[_unit_name(p, u)] += 1
            j -= 1
            continue
        times = sorted((int(at[c][j]), int(c)) for c in chans)
        i = next(i for i, (a, _) in enumerate(times) if a + (m - i) * svc[j] == c_j)
        parts["combine"] += (m - i) * int(svc[j])
        c = times[i][1]
        if p.chan_link[c] >= 0:
            parts["channel"] += d_ch
            parts["switch"] += d_sw
            kind, elem = "link", p.chan_link[c]
        else:
            elem = p.chan_leaf[c]


def _period(p: ReductionPlan, ser, svc) -> tuple[int, str]:
    """Slowest per-index work over every unit and link, for the first packet (a full one if P > 1)."""
    full_ser = int(ser[0])
    full_svc = int(svc[0])
    work = p.unit_inputs * full_svc
    u = int(np.argmax(work))
    if int(work[u]) > full_ser:
        return int(work[u]), f"{_unit_name(p, u)} ({int(p.unit_inputs[u])} packets per index)"
    return full_ser, "links (serialization)"


# ---------------------------------------------------------------- closed form

@dataclass(frozen=True)
class ClosedForm:
    """The full-machine closed form's value (ns), its formula and its terms (ns)."""

    completion_time_ns: float
    formula: str
    terms: dict


def closed_form(reduction: Reduction) -> ClosedForm:
    """Completion time of a full-machine reduction with one combine unit, in closed form.

    A tandem line of stages along the critical path (module docstring):
    stage i passes packet j on after ``x_ij = max(x_{i-1,j} + e_i, x_{i,j-1}
    + v_i)``; its latency ``e_i`` and period ``v_i`` are ``ser`` for a link,
    ``k S`` (``k - 1`` at the top root) for a combining switch and ``S`` and
    ``k S`` for a switch on the path down to R. With all packets full the
    longest path is ``sum e + (P - 1) max v``; with a shorter last packet
    (times e', v') it is ``max_b [sum_{i<=b} e_i + (P - 2) max_{i<=b} v_i +
    v'_b + sum_{i>b} e'_i]``.

    Examples
    --------
    >>> from switchq.models.network import FatTree
    >>> cf = closed_form(Reduction(FatTree.for_nodes(256, 32), 4096))
    >>> cf.completion_time_ns, cf.terms["pipeline"]
    (42937.2, 34560.0)
    >>> closed_form(Reduction(FatTree.for_nodes(256, 32), 4096, combine_units=5))
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: combine_units: got 5; allowed: 1 for the closed form (use completion_time for r >= 3)
    """
    if not reduction.full_machine:
        raise _check.InputError("members", reduction.members, "every node (None) for the closed form")
    if reduction.combine_units != 1:
        raise _check.InputError("combine_units", reduction.combine_units,
                                "1 for the closed form (use completion_time for r >= 3)")
    k, n = reduction.tree.k, reduction.tree.n
    t = reduction.timing
    ser, svc = packet_times_ps(reduction)
    o_s, o_r, d_ch, d_sw = _ps(t.nic_send_ns), _ps(t.nic_recv_ns), _ps(t.channel_delay_ns), _ps(t.switch_delay_ns)
    # (latency, period) in units of (ser, S); one entry per stage along the path.
    stages = [("ser", 1, 1)]
    if n == 1:
        stages += [("S", k - 1, k - 1), ("ser", 1, 1)]
    else:
        stages += [("S", k, k), ("ser", 1, 1)] * (n - 1)
        stages += [("S", k - 1, k - 1), ("ser", 1, 1)]
        stages += [("S", 1, k), ("ser", 1, 1)] * (n - 1)

    def cost(j):
        unit = {"ser": int(ser[j]), "S": int(svc[j])}
        return [e * unit[x] for x, e, _ in stages], [v * unit[x] for x, _, v in stages]

    e, v = cost(0)
    e_last, v_last = cost(len(ser) - 1)
    P = len(ser)
    if P == 1:
        body = sum(e_last)
    else:
        body = max(sum(e[:b + 1]) + (P - 2) * max(v[:b + 1]) + v_last[b] + sum(e_last[b + 1:])
                   for b in range(len(stages)))
    links, switches = 2 * n, 2 * n - 1
    delays = links * d_ch + switches * d_sw
    total = o_s + body + delays + o_r
    first = sum(e_last) if P == 1 else sum(e)
    formula = ("o_s + 2n (ser + d_ch) + (2n - 1) d_sw + (n k + n - 2) S + (P - 1) max(ser, k S) + o_r"
               if n > 1 else "o_s + 2 (ser + d_ch) + d_sw + (k - 1) S + (P - 1) max(ser, (k - 1) S) + o_r")
    terms = {"nic_send": o_s, "nic_recv": o_r, "channel": links * d_ch, "switch": switches * d_sw,
             "first_packet": first, "pipeline": body - first}
    return ClosedForm(total / PS_PER_NS, formula, {k_: v_ / PS_PER_NS for k_, v_ in terms.items()})
