"""Interconnection networks built from switches: the k-ary n-tree (fat tree).

A k-ary n-tree (Petrini & Vanneschi, "k-ary n-trees: high performance
networks for massively parallel architectures", TR-95-18, 1995; paper 003
§2.2) connects

- k^n processing nodes, one per leaf-switch down port;
- n levels of k^(n-1) switches each, every switch with 2k ports: k down
  (towards the nodes) and k up (towards the roots); the top level's up ports
  are unused.

It is the fat tree of paper 003: the 16-node network of its Figure 4 is a
4-ary 2-tree (8 switches of 8 ports); its 256-node networks are a 4-ary
4-tree with 8-port switches (4 levels of 64) and a 16-ary 2-tree with 32-port
switches ("32 switches organized in two levels"). The wiring itself, routes
and multicast trees are in :mod:`switchq.solvers.fattree`.

No mathematics here beyond validation: the description is plain data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import _check

__all__ = ["FatTree", "FatTreeNetwork", "NetworkTiming", "UP_ROUTINGS", "MAX_NODES", "MAX_SWITCH_PORTS"]

# Same radix ceiling as a single switch (models.switch.MAX_PORTS): k <= 512.
MAX_SWITCH_PORTS = 1024
# How a packet picks its up port: most credits; at random among those with a credit; or fixed at the
# source, waiting for that port's credit: a random route drawn with the packet, or d-mod-k (the up
# port at level l is the destination's digit l).
UP_ROUTINGS = ("adaptive", "random", "source", "dmodk")
# A million nodes: larger than any machine studied here, and graph() stays buildable.
MAX_NODES = 1 << 20


def _max_levels(k: int) -> int:
    """The largest n with k**n <= MAX_NODES (integer arithmetic, no log rounding)."""
    n = 0
    while k ** (n + 1) <= MAX_NODES:
        n += 1
    return n


@dataclass(frozen=True)
class FatTree:
    """A k-ary n-tree, validated on construction.

    Parameters
    ----------
    k : int
        Arity: down ports (= up ports) per switch, in [2, 512]. Switches have
        ``switch_ports = 2k`` ports.
    n : int
        Levels of switches, >= 1, with ``k**n`` <= 2**20 nodes.

    Notes
    -----
    Levels are numbered from the bottom here: level 0 holds the leaf switches
    (the nodes hang off their down ports) and level n - 1 the roots
    (Petrini & Vanneschi count from the top: their level is n - 1 - ours).

    Examples
    --------
    The three networks of paper 003:

    >>> t = FatTree(4, 2)
    >>> t.nodes, t.switch_ports, t.switches_per_level, t.switches, t.links
    (16, 8, 4, 8, 32)
    >>> FatTree.for_nodes(256, switch_ports=8)
    FatTree(k=4, n=4)
    >>> FatTree.for_nodes(256, switch_ports=32).switches
    32
    >>> FatTree.for_nodes(100, switch_ports=8)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: nodes: got 100; allowed: a power of switch_ports/2 = 4: 4, 16, 64, ..., 1048576
    """

    k: int
    n: int

    def __post_init__(self):
        k = _check.integer("k", self.k, 2, MAX_SWITCH_PORTS // 2)
        n = _check.integer("n", self.n, 1, _max_levels(k))
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "n", n)

    @classmethod
    def for_nodes(cls, nodes: int, switch_ports: int) -> "FatTree":
        """The k-ary n-tree with ``nodes`` nodes built from ``switch_ports``-port switches.

        ``switch_ports`` must be even (k = switch_ports / 2 down and up) and
        ``nodes`` a power of k: the tree has exactly (switch_ports/2)^n nodes.

        Examples
        --------
        >>> FatTree.for_nodes(16, 8)
        FatTree(k=4, n=2)
        >>> FatTree.for_nodes(16, 7)
        Traceback (most recent call last):
        ...
        switchq.errors.InputError: switch_ports: got 7; allowed: an even integer in [4, 1024]
        """
        ports = _check.integer("switch_ports", switch_ports, 4, MAX_SWITCH_PORTS)
        if ports % 2:
            raise _check.InputError("switch_ports", switch_ports, f"an even integer in [4, {MAX_SWITCH_PORTS}]")
        k = ports // 2
        count = _check.integer("nodes", nodes, k, MAX_NODES)
        powers = [k ** n for n in range(1, _max_levels(k) + 1)]
        if count not in powers:
            shown = ", ".join(str(p) for p in powers[:3]) + (f", ..., {powers[-1]}" if len(powers) > 3 else "")
            raise _check.InputError("nodes", nodes, f"a power of switch_ports/2 = {k}: {shown}")
        return cls(k, powers.index(count) + 1)

    @property
    def switch_ports(self) -> int:
        """Ports per switch, 2k (the switch radix)."""
        return 2 * self.k

    @property
    def nodes(self) -> int:
        """Processing nodes, k**n."""
        return self.k ** self.n

    @property
    def levels(self) -> int:
        """Levels of switches, n."""
        return self.n

    @property
    def switches_per_level(self) -> int:
        """Switches on every level, k**(n-1)."""
        return self.k ** (self.n - 1)

    @property
    def switches(self) -> int:
        """All switches, n * k**(n-1)."""
        return self.n * self.switches_per_level

    @property
    def links(self) -> int:
        """Bidirectional links, n * k**n: k**n node links plus k**n between each pair of adjacent levels."""
        return self.n * self.nodes

    @property
    def name(self) -> str:
        """``"k-ary n-tree"``, e.g. ``"4-ary 2-tree"``."""
        return f"{self.k}-ary {self.n}-tree"

    def describe(self) -> dict:
        """Sizes for tables and JSON, in the units of the paper (nodes, switches, ports, links)."""
        return {"topology": self.name, "k": self.k, "n": self.n, "switch_ports": self.switch_ports,
                "nodes": self.nodes, "levels": self.levels, "switches_per_level": self.switches_per_level,
                "switches": self.switches, "links": self.links}


@dataclass(frozen=True)
class NetworkTiming:
    """Link and switch timing of a network (paper 003 Table 1, InfiniBand 4X, by default).

    All times in ns, the bandwidth in bit/s. ``packet_ns`` (the time a
    packet takes on a link, 204.8 ns by default) is the simulator's slot.

    Examples
    --------
    >>> t = NetworkTiming()
    >>> t.packet_ns, t.link_delay_slots, t.credit_delay_slots
    (204.8, 1, 1)
    >>> NetworkTiming(bandwidth_bps=-1)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: bandwidth_bps: got -1.0; allowed: a number in [1000000.0, 10000000000000.0]
    """

    bandwidth_bps: float = 10e9
    packet_bytes: int = 256
    channel_delay_ns: float = 20.0
    switch_delay_ns: float = 90.0
    asic_hz: float = 250e6
    nic_send_ns: float = 1300.0
    nic_recv_ns: float = 1300.0

    def __post_init__(self):
        object.__setattr__(self, "bandwidth_bps", _check.real("bandwidth_bps", self.bandwidth_bps, 1e6, 1e13))
        object.__setattr__(self, "packet_bytes", _check.integer("packet_bytes", self.packet_bytes, 1, 1 << 20))
        for name in ("channel_delay_ns", "switch_delay_ns", "nic_send_ns", "nic_recv_ns"):
            object.__setattr__(self, name, _check.real(name, getattr(self, name), 0.0, 1e9))
        object.__setattr__(self, "asic_hz", _check.real("asic_hz", self.asic_hz, 1e6, 1e11))

    @property
    def packet_ns(self) -> float:
        """Time of one packet on a link: packet_bytes * 8 / bandwidth, in ns (the slot)."""
        return self.packet_bytes * 8e9 / self.bandwidth_bps

    @property
    def link_delay_slots(self) -> int:
        """Slots from a packet leaving an output to being eligible at the next switch's output.

        Cut-through: the header crosses the channel and the switch pipeline
        (channel + switch delay) while the packet streams, so the next
        output can start at the first slot boundary after that; at least 1.
        """
        return max(1, math.ceil((self.channel_delay_ns + self.switch_delay_ns) / self.packet_ns - 1e-9))

    @property
    def credit_delay_slots(self) -> int:
        """Slots for a freed crosspoint slot's credit to cross the channel back; at least 1."""
        return max(1, math.ceil(self.channel_delay_ns / self.packet_ns - 1e-9))

    def describe(self) -> dict:
        return {"bandwidth_bps": self.bandwidth_bps, "packet_bytes": self.packet_bytes,
                "channel_delay_ns": self.channel_delay_ns, "switch_delay_ns": self.switch_delay_ns,
                "asic_hz": self.asic_hz, "nic_send_ns": self.nic_send_ns, "nic_recv_ns": self.nic_recv_ns,
                "packet_ns": self.packet_ns}


@dataclass(frozen=True)
class FatTreeNetwork:
    """A fat tree of crosspoint-buffered output-queued switches with credit flow control (paper 003 §3).

    Every switch input has ``crosspoint_cells`` packet buffers at every
    output; the sender upstream (a switch output or a node's NIC) holds one
    credit per buffer, so a packet is sent only into room. Upward ports are
    chosen adaptively (``up_routing="adaptive"``: the up port with the most
    credits; ``"random"``: any up port with a credit, at random) or fixed at
    the source (``"source"``: a random route drawn with the packet, as
    source-routed networks do; ``"dmodk"``: up port k + the destination's
    digit at that level, the deterministic fat-tree routing of InfiniBand
    subnet managers; multicast packets route on their lowest destination),
    downward paths are fixed; multicast packets are
    replicated in the switches along the paper's spanning tree (§2.2).

    Examples
    --------
    >>> net = FatTreeNetwork.for_nodes(256, switch_ports=32, crosspoint_cells=4)
    >>> net.tree.name, net.tree.switches, net.crosspoint_cells
    ('16-ary 2-tree', 32, 4)
    >>> FatTreeNetwork(FatTree(4, 2), crosspoint_cells=0)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: crosspoint_cells: got 0; allowed: an integer in [1, 64]
    """

    tree: FatTree
    crosspoint_cells: int = 4
    timing: NetworkTiming = NetworkTiming()
    up_routing: str = "adaptive"

    def __post_init__(self):
        _check.choice("up_routing", self.up_routing, UP_ROUTINGS)
        if not isinstance(self.tree, FatTree):
            raise _check.InputError("tree", self.tree, "a switchq.models.network.FatTree")
        if self.tree.switch_ports > 64:
            raise _check.InputError("switch_ports", self.tree.switch_ports,
                                    "at most 64 for the network simulator (port sets are 64-bit masks)")
        object.__setattr__(self, "crosspoint_cells", _check.integer("crosspoint_cells", self.crosspoint_cells, 1, 64))
        if not isinstance(self.timing, NetworkTiming):
            raise _check.InputError("timing", self.timing, "a switchq.models.network.NetworkTiming")

    @classmethod
    def for_nodes(cls, nodes: int, switch_ports: int, crosspoint_cells: int = 4,
                  timing: NetworkTiming = NetworkTiming(), up_routing: str = "adaptive") -> "FatTreeNetwork":
        """The network of ``nodes`` nodes built from ``switch_ports``-port switches."""
        return cls(FatTree.for_nodes(nodes, switch_ports), crosspoint_cells, timing, up_routing)

    def describe(self) -> dict:
        out = {"switch_ports": self.tree.switch_ports, "nodes": self.tree.nodes, "topology": self.tree.name,
               "levels": self.tree.levels, "switches": self.tree.switches,
               "crosspoint_cells": self.crosspoint_cells, "up_routing": self.up_routing}
        out.update(self.timing.describe())
        return out

    def topology(self):
        """The wiring and routing tables the simulator reads (:func:`switchq.models.topology.fat_tree`)."""
        from switchq.models.topology import fat_tree

        return fat_tree(self.tree)

    def check_traffic(self, traffic) -> None:
        """Refuse, in one line, traffic the network simulator does not model (before any work).

        Steady traffic (:class:`~switchq.models.traffic.Traffic`): uniform or a
        permutation of the nodes, Bernoulli, from every node; or a benchmark round
        (:class:`~switchq.models.namd.NamdRound`) whose senders fit the network.
        """
        from .namd import NamdRound
        from .traffic import PERMUTATIONS, Traffic

        nodes = self.tree.nodes
        if isinstance(traffic, NamdRound):
            traffic.check_nodes(nodes)
            return
        if not isinstance(traffic, Traffic):
            raise _check.InputError("traffic", type(traffic).__name__, "a Traffic or a NamdRound on a network")
        if traffic.pattern not in ("uniform",) + PERMUTATIONS:
            raise _check.InputError("pattern", traffic.pattern,
                                    "uniform, " + ", ".join(PERMUTATIONS) + " on a network")
        if traffic.arrivals != "bernoulli":
            raise _check.InputError("arrivals", traffic.arrivals, "bernoulli on a network")
        if traffic.active_inputs is not None:
            raise _check.InputError("active_inputs", traffic.active_inputs, "None on a network (every node sends)")
        try:
            if traffic.fanout != 1.0:
                if traffic.pattern != "uniform":
                    raise _check.InputError("pattern", traffic.pattern, "uniform for multicast traffic")
                traffic.check_ports(nodes - 1)
            elif traffic.pattern in PERMUTATIONS:
                traffic.check_ports(nodes)
        except _check.InputError as e:
            if e.parameter != "n_ports":
                raise
            # The pattern is laid on the nodes, not on a switch's ports.
            raise _check.InputError("nodes", nodes, e.allowed) from None
