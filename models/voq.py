"""Virtual output queuing matched by PIM or iSLIP: the configuration.

Each input keeps one FIFO per output (paper 000 §2.1, "virtual output
queuing"); each slot a matching pairs inputs with outputs, one cell per
input and per output: PIM (Anderson, Owicki, Saxe & Thacker 1993) or iSLIP
(McKeown 1999) with ``iterations`` request-grant-accept rounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from . import _check
from .switch import SingleSwitch

__all__ = ["VoqSwitch", "MATCHINGS", "check_matching"]

MATCHINGS = ("pim", "islip")


def check_matching(switch) -> None:
    """The matching, its iterations (1..64) and the input buffer (None or 1..2**20) of a VOQ-fed switch."""
    _check.choice("matching", switch.matching, MATCHINGS)
    _check.assign(switch, iterations=_check.integer("iterations", switch.iterations, 1, 64),
                  input_buffer_cells=_check.optional(_check.integer, "input_buffer_cells",
                                                     switch.input_buffer_cells, 1, 1 << 20))


@dataclass(frozen=True)
class VoqSwitch(SingleSwitch):
    """Virtual output queues (``n_ports`` as :class:`~switchq.models.switch.SingleSwitch`), validated.

    ``matching``: ``pim`` or ``islip``; ``iterations``: request-grant-accept iterations per slot, in
    [1, 64]; ``input_buffer_cells``: cells an input may hold, all its VOQs together (None = unbounded).

    Examples
    --------
    >>> VoqSwitch(8, "pim", 2).describe()
    {'architecture': 'voq', 'n_ports': 8, 'matching': 'pim', 'iterations': 2, 'input_buffer_cells': None}
    """

    matching: str = "islip"
    iterations: int = 1
    input_buffer_cells: int | None = None
    architecture: ClassVar[str] = "voq"

    def __post_init__(self):
        super().__post_init__()
        check_matching(self)
