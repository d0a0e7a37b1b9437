"""Collectives on a fat tree (paper 003 §2, §2.1-2.2, §3.2).

:class:`Reduction` is one hardware reduction on a fat tree of combining
switches, :class:`StartSkew` how its members' start times spread (the
NAMD-like multicast round of §4 is :mod:`switchq.models.namd`).

Reductions

Kumar, Kale & Stunkel's output-queued switch has *combine units*: a unit
hangs off a switch output and feeds back into an input (their Figure 2); it
stores a whole reduction packet, looks the reduction up in the routing
table, folds the packet's data into the reduction's local state and, after
the ``k - 1`` packets its routing bit vector calls for, sends the partial
result out of the remaining port (§2.1). With ``r`` units the switch has a
tree of them (Figure 3): ``r - 1`` leaf units, each serving a contiguous
block of ports, and one root unit that combines the leaves' partial results.

Which units a fat-tree reduction uses (§3.2's remark). A switch of
``K = 2k`` ports on the spanning tree of a full k-ary n-tree has at most
``k + 1 = K/2 + 1`` tree ports: its k down ports and one up port. Off the
path to the result's node every packet comes in on the k down ports and the
result leaves on the up port, so only the leaf units whose blocks cover
ports ``0..k-1`` work. With 32 ports and r = 5 the four leaf blocks are
ports 0-7, 8-15, 16-23 and 24-31: two leaves and the root, three units,
"effectively 3" as the paper says. (On the path down to the result's node a
partial result comes *in* on an up port, so there one more leaf unit works,
on that single packet.)

Assumptions, since the paper gives no combine-unit timing: the unit reads
``bytes_per_cycle`` bytes per ASIC cycle (8: one 64-bit add a cycle) after
``header_cycles`` cycles of header handling and routing-table lookup (4), so
combining one packet of b bytes takes ``(header_cycles + ceil(b /
bytes_per_cycle)) / asic_hz``. Link, ASIC clock and NIC figures are the
paper's Table 1 (:class:`switchq.models.network.NetworkTiming`).

No mathematics here beyond validation: the completion time is
:mod:`switchq.solvers.reduction`, the simulated twin
:mod:`switchq.validate.arch.reduction`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass

from . import _check
from .network import FatTree, NetworkTiming

__all__ = ["Reduction", "StartSkew", "MAX_PACKETS", "MAX_PACKET_LINKS"]

# The simulator keeps one counter per packet index and unit input; 65536 packets (16 MiB at 256 B) is plenty.
MAX_PACKETS = 1 << 16
# Packets x links of the tree: the solver and the simulator hold a few int64 arrays of this size
# (2^25: 256 MiB each); e.g. 8 MiB messages on 256 nodes with 8-port switches.
MAX_PACKET_LINKS = 1 << 25


@dataclass(frozen=True)
class Reduction:
    """One reduction of a ``message_bytes`` message over a fat tree, validated on construction.

    Parameters
    ----------
    tree : FatTree
    message_bytes : int
        Bytes each member contributes (and the result's size), >= 1; at most
        ``MAX_PACKETS`` packets, and packets x links of the tree at most
        ``MAX_PACKET_LINKS``.
    combine_units : int
        ``r``: 1 (one unit per switch) or 3 .. switch_ports + 1 (``r - 1``
        leaf units over contiguous port blocks, port p to leaf
        ``p * (r - 1) // switch_ports``, plus a root unit). r = 2 (one leaf
        feeding the root) is refused: it is one unit with an extra step.
    members : iterable of int or None
        The nodes that take part (>= 2 distinct); None is every node, the paper's case.
    root : int or None
        The member that receives the result; default the smallest member (node 0 for the full machine).
    timing : NetworkTiming
        Link, switch, ASIC and NIC timing; default paper 003's Table 1 (10 Gb/s, 256 B packets,
        20 ns channel, 90 ns switch, 250 MHz ASIC, 1300 ns NIC send and receive overheads).
    bytes_per_cycle : int
        Combine datapath width, bytes per ASIC cycle (assumed 8: one 64-bit add a cycle).
    header_cycles : int
        Cycles per packet before the data: header, error check, routing-table lookup (assumed 4).

    Examples
    --------
    >>> r = Reduction(FatTree.for_nodes(256, 32), message_bytes=1000, combine_units=5)
    >>> r.packets, r.root, r.full_machine, r.leaf_of_port(15), r.leaf_of_port(16)
    (4, 0, True, 1, 2)
    >>> r.combine_ns(256), r.combine_ns(8)
    (144.0, 20.0)
    >>> Reduction(FatTree(4, 2), 64, members=[3, 9], root=5)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: root: got 5; allowed: one of the members: 3, 9
    >>> Reduction(FatTree(4, 2), 64, combine_units=2)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: combine_units: got 2; allowed: 1, or an integer in [3, 9] (r - 1 leaf units and a root)
    """

    tree: FatTree
    message_bytes: int
    combine_units: int = 1
    members: tuple | None = None
    root: int | None = None
    timing: NetworkTiming = NetworkTiming()
    bytes_per_cycle: int = 8
    header_cycles: int = 4

    def __post_init__(self):
        if not isinstance(self.tree, FatTree):
            raise _check.InputError("tree", self.tree, "a switchq.models.network.FatTree")
        if not isinstance(self.timing, NetworkTiming):
            raise _check.InputError("timing", self.timing, "a switchq.models.network.NetworkTiming")
        # The solver and its twin keep a time per packet per link: bound packets x links, not packets alone.
        packets = min(MAX_PACKETS, MAX_PACKET_LINKS // self.tree.links)
        if packets < 1:
            raise _check.InputError("tree", self.tree.name, f"at most {MAX_PACKET_LINKS} links for a reduction")
        most = packets * self.timing.packet_bytes
        allowed = f"1 B to {most} B on this tree ({packets} packets of {self.timing.packet_bytes} B)"
        try:
            object.__setattr__(self, "message_bytes", _check.integer("message_bytes", self.message_bytes, 1, most))
        except _check.InputError:
            raise _check.InputError("message_bytes", self.message_bytes, allowed) from None
        ports = self.tree.switch_ports
        allowed = f"1, or an integer in [3, {ports + 1}] (r - 1 leaf units and a root)"
        try:
            r = _check.integer("combine_units", self.combine_units)
        except _check.InputError:
            raise _check.InputError("combine_units", self.combine_units, allowed) from None
        if not (r == 1 or 3 <= r <= ports + 1):
            raise _check.InputError("combine_units", r, allowed)
        object.__setattr__(self, "combine_units", r)
        object.__setattr__(self, "members", self._members())
        nodes = self.member_nodes
        root = nodes[0] if self.root is None else self.root
        if isinstance(root, bool) or not isinstance(root, numbers.Integral) or int(root) not in set(nodes):
            shown = ", ".join(str(p) for p in nodes[:8]) + (", ..." if len(nodes) > 8 else "")
            raise _check.InputError("root", self.root, f"one of the members: {shown}")
        object.__setattr__(self, "root", int(root))
        object.__setattr__(self, "bytes_per_cycle", _check.integer("bytes_per_cycle", self.bytes_per_cycle, 1, 1 << 16))
        object.__setattr__(self, "header_cycles", _check.integer("header_cycles", self.header_cycles, 0, 1 << 16))

    def _members(self):
        if self.members is None:
            return None
        allowed = f"None (every node) or at least 2 distinct node numbers in [0, {self.tree.nodes - 1}]"
        if isinstance(self.members, (str, bytes)) or not isinstance(self.members, Iterable):
            raise _check.InputError("members", self.members, allowed)
        nodes = sorted({_check.integer("members", p, 0, self.tree.nodes - 1) for p in self.members})
        if len(nodes) < 2:
            raise _check.InputError("members", self.members, allowed)
        return None if len(nodes) == self.tree.nodes else tuple(nodes)

    @property
    def member_nodes(self) -> tuple:
        """The members, sorted."""
        return tuple(range(self.tree.nodes)) if self.members is None else self.members

    @property
    def full_machine(self) -> bool:
        """Every node takes part (the paper's Figure 16)."""
        return self.members is None

    @property
    def packets(self) -> int:
        """ceil(message_bytes / packet_bytes)."""
        return -(-self.message_bytes // self.timing.packet_bytes)

    def packet_sizes(self) -> list[int]:
        """Bytes of each packet: full packets, then the remainder."""
        b, m = self.timing.packet_bytes, self.message_bytes
        return [min(b, m - j * b) for j in range(self.packets)]

    def leaf_of_port(self, port: int) -> int:
        """The leaf unit serving ``port`` when ``combine_units`` >= 3 (contiguous, near-equal blocks)."""
        port = _check.integer("port", port, 0, self.tree.switch_ports - 1)
        return port * (self.combine_units - 1) // self.tree.switch_ports

    def combine_cycles(self, packet_bytes: int) -> int:
        """ASIC cycles to combine one packet: header_cycles + ceil(bytes / bytes_per_cycle)."""
        return self.header_cycles + math.ceil(packet_bytes / self.bytes_per_cycle)

    def combine_ns(self, packet_bytes: int) -> float:
        """Combine service time of one packet, in ns (grows with the packet)."""
        return self.combine_cycles(packet_bytes) * 1e9 / self.timing.asic_hz

    def describe(self) -> dict:
        out = {"topology": self.tree.name, "switch_ports": self.tree.switch_ports, "nodes": self.tree.nodes,
               "members": len(self.member_nodes), "root": self.root, "message_bytes": self.message_bytes,
               "packets": self.packets, "combine_units": self.combine_units,
               "bytes_per_cycle": self.bytes_per_cycle, "header_cycles": self.header_cycles}
        out.update(self.timing.describe())
        return out

    def check_traffic(self, skew) -> None:
        """A reduction's workload is its members' start skew."""
        if not isinstance(skew, StartSkew):
            raise _check.InputError("skew", skew, "a switchq.models.collective.StartSkew")


@dataclass(frozen=True)
class StartSkew:
    """Members of a collective start uniformly in [0, ``skew_ns``] ns (0: all together).

    Examples
    --------
    >>> StartSkew(500).describe()
    {'skew': 500.0}
    >>> StartSkew(-1)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: skew_ns: got -1.0; allowed: a number in [0.0, 1000000000.0]
    """

    skew_ns: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "skew_ns", _check.real("skew_ns", self.skew_ns, 0.0, 1e9))

    def describe(self) -> dict:
        return {"skew": self.skew_ns}
