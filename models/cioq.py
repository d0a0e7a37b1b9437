"""Combined input-output queuing (CIOQ) with speedup S: the configuration.

VOQs at the inputs, FIFO queues at the outputs, and a fabric that runs S
matching phases per slot (PIM or iSLIP, ``iterations`` rounds each): an
input sends, and an output receives, up to S cells per slot, and each output
sends one cell per slot on its link. S = 1 is the VOQ switch
(:mod:`switchq.models.voq`); S = N with a maximal matching in each phase is
ideal output queuing (:mod:`switchq.models.oq`). Chuang, Goel, McKeown &
Prabhakar, "Matching output queueing with a combined input/output-queued
switch", IEEE JSAC 17(6), 1999; Dai & Prabhakar, "The throughput of data
switches with and without speedup", INFOCOM 2000.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from . import _check
from .switch import SingleSwitch
from .voq import check_matching

__all__ = ["CioqSwitch"]


@dataclass(frozen=True)
class CioqSwitch(SingleSwitch):
    """A CIOQ switch (``n_ports`` as :class:`~switchq.models.switch.SingleSwitch`), validated on construction.

    ``speedup``: matching phases per slot, S in [1, N]; ``matching``, ``iterations`` (per phase; N or
    more makes every phase's matching maximal) and ``input_buffer_cells`` as for
    :class:`~switchq.models.voq.VoqSwitch`.

    Examples
    --------
    >>> CioqSwitch(8, speedup=2).describe()
    {'architecture': 'cioq', 'n_ports': 8, 'speedup': 2, 'matching': 'islip', 'iterations': 1, 'input_buffer_cells': None}
    >>> CioqSwitch(4, speedup=5)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: speedup: got 5; allowed: an integer in [1, 4]
    """

    speedup: int = 2
    matching: str = "islip"
    iterations: int = 1
    input_buffer_cells: int | None = None
    architecture: ClassVar[str] = "cioq"

    def __post_init__(self):
        super().__post_init__()
        _check.assign(self, speedup=_check.integer("speedup", self.speedup, 1, self.n_ports))
        check_matching(self)

    @property
    def maximal(self) -> bool:
        """Every phase's matching is maximal: each iteration adds a match while one is possible."""
        return self.iterations >= self.n_ports
