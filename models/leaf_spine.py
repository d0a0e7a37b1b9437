"""A two-tier leaf-spine fabric of shared-memory switches with PFC between them, and its incast (issue 37).

``leaves`` leaf switches, each with ``hosts_per_leaf`` hosts below and one link up to each of ``spines`` spine
switches. Every link carries a cell a slot each way and takes ``link_delay`` slots, PFC frames too. Each
switch is the lossless shared-memory switch of :mod:`switchq.models.shared_buffer` (output queues in
``buffer_cells`` of shared memory; each input port's group sends XOFF upstream at ``xoff_cells``, XON at
``xoff_cells - xon_offset_cells``, and holds what arrives above that in its headroom, ``headroom_cells`` per
port). A flow takes the spine (src + dst) mod S (a fixed ECMP hash), so the route is the same every run.

The workload (:class:`FabricIncast`): ``degree`` backlogged senders on the leaves other than the first send
to host 0 (on leaf 0); ``victims`` other hosts on those leaves each send Bernoulli ``victim_load`` to a host of
another leaf, never leaf 0: flows that share only the leaves' uplinks and the spines with the incast.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from . import _check

__all__ = ["LeafSpineFabric", "FabricIncast"]


@dataclass(frozen=True)
class LeafSpineFabric:
    """The fabric. ``headroom_cells`` None: 2 x link_delay - 1, every cell still arriving after an XOFF
    (those on the wire, and those sent while the PFC frame travels).

    >>> f = LeafSpineFabric(4, 2, 4)
    >>> f.hosts, f.links, f.headroom
    (16, 48, 19)
    >>> LeafSpineFabric(1, 2, 4)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: leaves: got 1; allowed: an integer in [2, 256]
    """

    leaves: int = 4
    spines: int = 2
    hosts_per_leaf: int = 4
    buffer_cells: int = 1000
    xoff_cells: int = 20
    xon_offset_cells: int = 5
    headroom_cells: int | None = None
    link_delay: int = 10
    architecture: ClassVar[str] = "leaf-spine"

    def __post_init__(self):
        _check.assign(self, leaves=_check.integer("leaves", self.leaves, 2, 256),
                      spines=_check.integer("spines", self.spines, 1, 64),
                      hosts_per_leaf=_check.integer("hosts_per_leaf", self.hosts_per_leaf, 1, 256),
                      link_delay=_check.integer("link_delay", self.link_delay, 1, 1 << 16),
                      buffer_cells=_check.integer("buffer_cells", self.buffer_cells, 1, 1 << 22))
        _check.assign(self, xoff_cells=_check.integer("xoff_cells", self.xoff_cells, 1, self.buffer_cells),
                      headroom_cells=_check.optional(_check.integer, "headroom_cells", self.headroom_cells, 0,
                                                     1 << 22))
        _check.assign(self, xon_offset_cells=_check.integer("xon_offset_cells", self.xon_offset_cells, 0,
                                                            self.xoff_cells))

    @property
    def hosts(self) -> int:
        return self.leaves * self.hosts_per_leaf

    @property
    def links(self) -> int:
        """Directed links: each host's up and down, each leaf-spine pair's up and down."""
        return 2 * self.hosts + 2 * self.leaves * self.spines

    @property
    def headroom(self) -> int:
        return 2 * self.link_delay - 1 if self.headroom_cells is None else self.headroom_cells

    def describe(self) -> dict:
        return {"architecture": self.architecture, "leaves": self.leaves, "spines": self.spines,
                "hosts_per_leaf": self.hosts_per_leaf, "buffer_cells": self.buffer_cells,
                "xoff_cells": self.xoff_cells, "xon_offset_cells": self.xon_offset_cells,
                "headroom_cells": self.headroom, "link_delay": self.link_delay}

    def check_traffic(self, workload) -> None:
        workload.check_fabric(self)


@dataclass(frozen=True)
class FabricIncast:
    """``degree`` backlogged senders (hosts of leaves 1..L-1, taken leaf by leaf in turn) to host 0; ``victims``
    hosts of those leaves not sending to it, each at Bernoulli ``victim_load`` to a host of another leaf (not
    leaf 0)."""

    degree: int = 8
    victims: int = 2
    victim_load: float = 0.5

    def __post_init__(self):
        _check.assign(self, degree=_check.integer("incast", self.degree, 0),
                      victims=_check.integer("victims", self.victims, 0),
                      victim_load=_check.real("victim_load", self.victim_load, 0.0, 1.0))

    def check_fabric(self, f: LeafSpineFabric) -> None:
        others = (f.leaves - 1) * f.hosts_per_leaf
        if self.degree + self.victims > others:
            raise _check.InputError("incast", self.degree, f"at most {others - self.victims}: senders and victims "
                                                           f"are the {others} hosts off leaf 0")
        if self.victims and f.leaves < 3:
            raise _check.InputError("victims", self.victims, "0 with 2 leaves (a victim sends to a leaf other "
                                                             "than its own and leaf 0)")

    def describe(self) -> dict:
        return {"incast": self.degree, "victims": self.victims, "victim_load": self.victim_load}
