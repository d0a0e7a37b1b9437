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

from dataclasses import dataclass

from . import _check

__all__ = ["FatTree", "MAX_NODES", "MAX_SWITCH_PORTS"]

# Same radix ceiling as a single switch (models.switch.MAX_PORTS): k <= 512.
MAX_SWITCH_PORTS = 1024
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
