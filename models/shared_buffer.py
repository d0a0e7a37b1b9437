"""A shared-memory output-queued switch and what it is offered: the configuration (issue 37).

Every output queue of the switch keeps its cells in one memory of ``buffer_cells`` cells of ``cell_bytes``
each. A cell is admitted to its queue by the switch's ``policy``:

- ``dt``, the dynamic threshold (Choudhury & Hahne, IEEE/ACM ToN 6(2), 1998): while the queue is
  shorter than ``alpha`` times the shared memory still free (SAI ``SHARED_DYNAMIC_TH``, SONiC ``dynamic_th``
  with alpha = 2^dynamic_th);
- ``st``, a static threshold: while the queue is shorter than ``threshold_cells``;
- ``cs``, complete sharing: while the memory has a free cell;
- ``cp``, complete partitioning: while the queue is shorter than its 1/N share of the memory;
- ``pushout``, the reference (Wei, Coyle & Hsiao 1991): every cell is admitted while the memory has room;
  a full memory drops the last cell of the longest queue, or the arrival if its own queue is the longest.

``reserved_cells`` is a guaranteed minimum per queue, taken from the memory before it is shared (``dt``,
``st``, ``cs``): a queue below it admits without asking the shared part.

``priorities``: P queues per output port (IEEE 802.1Q traffic classes), N x P queues in the memory, each output
sending its highest nonempty priority first (strict priority, 802.1Q's default transmission selection).
``priority_alphas`` gives each priority's queues their own alpha under ``dt`` (the multi-class thresholds of
Hahne & Choudhury, IEEE/ACM ToN 10(3), 2002, which give each loss class its own alpha of the same free memory).

``lossless``: every cell is of a lossless class with PFC (IEEE 802.1Qbb) and ingress accounting, as SONiC sets
it up: each input's priority group counts its cells in the memory and sends XOFF upstream once it holds
``xoff_cells`` there, or, with ``xoff_alpha`` (SONiC's lossless ``dynamic_th``), once it holds ``xoff_alpha`` times
the shared memory still free; its sender stops ``pause_slots`` later, and the cells in flight meanwhile land in
the group's private headroom (``headroom_cells``) and then in a shared headroom pool (``headroom_pool_cells``)
beside the memory; with P priorities the groups are (input, priority) pairs and only the priorities in
``lossless_priorities`` (all of them when unset) are lossless; the group sends XON when it has drained to the
higher of ``xon_cells`` and its threshold
less ``xon_offset_cells`` (SAI's XON_TH and XON_OFFSET_TH, read so), its headroom given back. A
lossless class's egress queues admit while the memory has room (policy ``cs``): its ingress thresholds bound it.

The workloads: :class:`Overload` (S queues each fed every slot by ``feeders`` inputs, the 1998 paper's
overload), :class:`Incast` (N inputs each send a burst to one output at once), or a
:class:`~switchq.models.traffic.Traffic` (uniform, hotspot, on-off).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from . import _check
from .switch import SingleSwitch, check_unicast_traffic

__all__ = ["POLICIES", "SharedBufferSwitch", "Overload", "Incast", "MAX_BUFFER_CELLS", "MAX_PRIORITIES",
           "overflowing_burst"]

POLICIES = ("dt", "st", "cs", "cp", "pushout")
# A memory of 2^24 cells (4 GiB of 256-byte cells) is beyond any switch made; the kernel's state grows with it.
MAX_BUFFER_CELLS = 1 << 24
# alpha = 2^dynamic_th with SONiC's dynamic_th in [-8, 8] (sonic-buffermgrd's range).
ALPHA_RANGE = (2.0 ** -8, 2.0 ** 8)
# IEEE 802.1Q's eight traffic classes.
MAX_PRIORITIES = 8


@dataclass(frozen=True)
class SharedBufferSwitch(SingleSwitch):
    """N output queues in one shared memory (``n_ports`` as :class:`~switchq.models.switch.SingleSwitch`).

    ``buffer_cells``: the memory in cells; ``cell_bytes``: its allocation unit; ``policy``: one of
    :data:`POLICIES`; ``alpha``: the dynamic threshold's factor (``dt`` only); ``threshold_cells``: the static
    threshold (``st`` only, required there); ``reserved_cells``: the guaranteed minimum per queue (not with
    ``cp`` or ``pushout``), N of them taken from the memory before it is shared; ``priorities``: queues per
    output, served in strict priority (the highest first); ``priority_alphas``: one alpha per priority
    (``dt`` only, instead of ``alpha``); ``lossless_priorities``: which priorities are lossless (with
    ``lossless``; all when None).

    Examples
    --------
    >>> sw = SharedBufferSwitch(32, 1000, 256, "dt", alpha=2.0)
    >>> sw.shared_cells, sw.buffer_bytes
    (1000, 256000)
    >>> SharedBufferSwitch(32, 1000, 256, "dt", alpha=0.0)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: alpha: got 0.0; allowed: a number in [0.00390625, 256.0]
    >>> SharedBufferSwitch(8, 1000, 256, "dt", priorities=2, priority_alphas=(4.0, 0.5)).alphas
    (4.0, 0.5)
    >>> SharedBufferSwitch(4, 100, 256, "cs", reserved_cells=30)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: reserved_cells: got 30; allowed: an integer in [0, 24], so the 4 queues' reserves leave a shared cell
    """

    buffer_cells: int = 1000
    cell_bytes: int = 256
    policy: str = "dt"
    alpha: float = 1.0
    threshold_cells: int | None = None
    reserved_cells: int = 0
    lossless: bool = False
    xoff_cells: int | None = None
    xoff_alpha: float | None = None
    xon_offset_cells: int = 0
    xon_cells: int = 0
    headroom_cells: int = 0
    headroom_pool_cells: int = 0
    pause_slots: int = 0
    priorities: int = 1
    priority_alphas: tuple | None = None
    lossless_priorities: tuple | None = None
    architecture: ClassVar[str] = "shared-buffer"

    def __post_init__(self):
        super().__post_init__()
        _check.assign(self, buffer_cells=_check.integer("buffer_cells", self.buffer_cells, 1, MAX_BUFFER_CELLS),
                      cell_bytes=_check.integer("cell_bytes", self.cell_bytes, 1, 1 << 16),
                      policy=_check.choice("policy", self.policy, POLICIES))
        _check.assign(self, alpha=_check.real("alpha", self.alpha, *ALPHA_RANGE),
                      priorities=_check.integer("priorities", self.priorities, 1, MAX_PRIORITIES))
        _check.only_with("alpha", self.alpha, 1.0, self.policy == "dt", "policy is dt")
        self._check_priority_alphas()
        if self.policy == "st":
            _check.assign(self, threshold_cells=_check.integer("threshold_cells", self.threshold_cells, 1,
                                                               self.buffer_cells))
        else:
            _check.only_with("threshold_cells", self.threshold_cells, None, False, "policy is st")
        reserved = _check.integer("reserved_cells", self.reserved_cells, 0)
        _check.only_with("reserved_cells", reserved, 0, self.policy in ("dt", "st", "cs"), "policy is dt, st or cs")
        queues = self.n_ports * self.priorities
        most = (self.buffer_cells - 1) // queues
        if reserved > most:
            raise _check.InputError("reserved_cells", reserved, f"an integer in [0, {most}], so the {queues} "
                                                                "queues' reserves leave a shared cell")
        _check.assign(self, reserved_cells=reserved)
        self._check_lossless()

    def _check_priority_alphas(self):
        alphas = self.priority_alphas
        if alphas is None:
            return
        _check.only_with("priority_alphas", alphas, None, self.policy == "dt", "policy is dt")
        _check.only_with("alpha", self.alpha, 1.0, False, "priority_alphas is unset (one alpha per priority)")
        alphas = tuple(alphas)
        if len(alphas) != self.priorities:
            raise _check.InputError("priority_alphas", ",".join(f"{a:g}" for a in alphas),
                                    f"{self.priorities} numbers, one per priority")
        _check.assign(self, priority_alphas=tuple(_check.real("priority_alphas", a, *ALPHA_RANGE) for a in alphas))

    def _check_lossless(self):
        names = ("xoff_cells", "xoff_alpha", "xon_offset_cells", "xon_cells", "headroom_cells", "headroom_pool_cells",
                 "pause_slots", "lossless_priorities")
        if not self.lossless:
            for name, default in zip(names, (None, None, 0, 0, 0, 0, 0, None)):
                _check.only_with(name, getattr(self, name), default, False, "lossless is set")
            return
        chosen = tuple(range(self.priorities)) if self.lossless_priorities is None else self.lossless_priorities
        chosen = tuple(sorted({_check.integer("lossless_priorities", p, 0, self.priorities - 1) for p in chosen}))
        if not chosen:
            raise _check.InputError("lossless_priorities", "", f"priorities in [0, {self.priorities - 1}]")
        _check.assign(self, lossless_priorities=chosen)
        if self.policy != "cs" and len(chosen) == self.priorities:
            raise _check.InputError("policy", self.policy, "cs with every priority lossless (a lossless class's "
                                                           "egress admits while the memory has room; PFC bounds "
                                                           "its groups)")
        if self.policy == "pushout":
            raise _check.InputError("policy", self.policy, "dt, st, cs or cp with lossless (pushout could drop "
                                                           "a lossless cell)")
        _check.only_with("reserved_cells", self.reserved_cells, 0, False, "lossless is unset")
        if (self.xoff_cells is None) == (self.xoff_alpha is None):
            raise _check.InputError("xoff_cells", self.xoff_cells, "a static XOFF threshold, or none with xoff_alpha "
                                                                   "(a dynamic one): exactly one of the two")
        if self.xoff_alpha is None:
            xoff = _check.integer("xoff_cells", self.xoff_cells, 1, self.buffer_cells)
        else:
            _check.assign(self, xoff_alpha=_check.real("xoff_alpha", self.xoff_alpha, *ALPHA_RANGE))
            xoff = self.buffer_cells
        _check.assign(self, xoff_cells=None if self.xoff_alpha is not None else xoff,
                      xon_offset_cells=_check.integer("xon_offset_cells", self.xon_offset_cells, 0, xoff),
                      xon_cells=_check.integer("xon_cells", self.xon_cells, 0, xoff),
                      headroom_cells=_check.integer("headroom_cells", self.headroom_cells, 0, MAX_BUFFER_CELLS),
                      headroom_pool_cells=_check.integer("headroom_pool_cells", self.headroom_pool_cells, 0,
                                                         MAX_BUFFER_CELLS),
                      pause_slots=_check.integer("pause_slots", self.pause_slots, 0, 1 << 24))

    @property
    def shared_cells(self) -> int:
        """The cells left to share once every queue's guaranteed minimum is set aside."""
        return self.buffer_cells - self.n_ports * self.priorities * self.reserved_cells

    @property
    def partition_cells(self) -> int:
        """A queue's part under complete partitioning: the memory split evenly over the N x P queues."""
        return self.buffer_cells // (self.n_ports * self.priorities)

    @property
    def buffer_bytes(self) -> int:
        return self.buffer_cells * self.cell_bytes

    @property
    def alphas(self) -> tuple:
        """Each priority's alpha: ``priority_alphas``, or ``alpha`` for every one."""
        return self.priority_alphas or (self.alpha,) * self.priorities

    def is_lossless(self, priority: int) -> bool:
        return self.lossless and priority in self.lossless_priorities

    def check_traffic(self, workload) -> None:
        if isinstance(workload, Incast) and workload.priority >= self.priorities:
            raise _check.InputError("incast_priority", workload.priority,
                                    f"an integer in [0, {self.priorities - 1}], below --priorities")
        if isinstance(workload, (Overload, Incast)):
            workload.check_ports(self.n_ports)
        else:
            check_unicast_traffic(self, workload)


@dataclass(frozen=True)
class Overload:
    """The dynamic threshold's overload (Choudhury & Hahne 1998): ``congested`` queues (outputs 0 to
    S - 1) each fed a cell every slot by each of its ``feeders`` inputs, every other queue idle. With P
    priorities the k-th is output k's queue of priority k mod P, each on its own output so each is sent from.

    >>> Overload(4).describe()
    {'congested': 4, 'feeders': 2}
    """

    congested: int
    feeders: int = 2

    def __post_init__(self):
        _check.assign(self, congested=_check.integer("congested", self.congested, 1),
                      feeders=_check.integer("feeders", self.feeders, 2, 64))

    def check_ports(self, n_ports: int) -> None:
        most = n_ports // self.feeders
        if self.congested > most:
            raise _check.InputError("congested", self.congested,
                                    f"an integer in [1, {most}]: {self.feeders} inputs feed each congested queue "
                                    f"and the switch has {n_ports}")

    def describe(self) -> dict:
        return {"congested": self.congested, "feeders": self.feeders}


def overflowing_burst(buffer_cells: int, degree: int) -> int:
    """Cells per sender that overflow any queue of a ``buffer_cells`` memory under any policy: twice the memory
    over N - 1, and 2 more. An incast twin sends this much so that every burst drops and its first drop measures
    the burst absorbed (chosen from the memory alone, not from the answer it checks).

    >>> overflowing_burst(1000, 8)
    287
    """
    return 2 * buffer_cells // (degree - 1) + 2


@dataclass(frozen=True)
class Incast:
    """A synchronized N:1 incast: every ``period_slots`` slots inputs 0 to N - 1 each send ``burst_cells``
    cells, one a slot, to the last output's queue of ``priority``; the other inputs send Bernoulli
    ``background_load`` traffic uniformly to the other outputs and priorities (the flows that share only the
    memory with the incast).

    ``period_slots`` None: N x burst + 1, time for the burst to drain before the next.

    >>> Incast(8, 20).period
    161
    """

    degree: int
    burst_cells: int
    period_slots: int | None = None
    background_load: float = 0.0
    priority: int = 0

    def __post_init__(self):
        _check.assign(self, degree=_check.integer("incast", self.degree, 2),
                      priority=_check.integer("incast_priority", self.priority, 0, MAX_PRIORITIES - 1),
                      burst_cells=_check.integer("burst_cells", self.burst_cells, 1, MAX_BUFFER_CELLS),
                      background_load=_check.real("background_load", self.background_load, 0.0, 1.0))
        _check.assign(self, period_slots=_check.optional(_check.integer, "period_slots", self.period_slots,
                                                         self.burst_cells, 1 << 40))

    @property
    def period(self) -> int:
        return self.period_slots or self.degree * self.burst_cells + 1

    def check_ports(self, n_ports: int) -> None:
        if self.degree > n_ports:
            raise _check.InputError("incast", self.degree, f"an integer in [2, {n_ports}], at most --ports")
        if self.background_load > 0 and n_ports - self.degree < 1:
            raise _check.InputError("background_load", self.background_load,
                                    "0 when every input is an incast sender (no input left for background)")

    def describe(self) -> dict:
        out = {"incast": self.degree, "burst_cells": self.burst_cells, "period_slots": self.period,
               "background_load": self.background_load}
        if self.priority:
            out["incast_priority"] = self.priority
        return out
