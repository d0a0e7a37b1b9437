"""Ideal output queuing (speedup N), with optional finite output buffers: the configuration.

Karol, Hluchyj & Morgan 1987 §IV; paper 000 §2.2. The fabric delivers up to
``n_ports`` cells per slot to an output; cells queue at the outputs,
optionally in a finite buffer of ``output_buffer_cells`` (cells beyond it
are lost).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from . import _check
from .switch import SingleSwitch

__all__ = ["OutputQueuedSwitch"]


@dataclass(frozen=True)
class OutputQueuedSwitch(SingleSwitch):
    """Output queues (``n_ports`` as :class:`~switchq.models.switch.SingleSwitch`), validated on construction.

    ``output_buffer_cells``: cells an output queue may hold, counting the one being sent (Karol et
    al.'s b); None = unbounded.

    Examples
    --------
    >>> OutputQueuedSwitch(16, 4).describe()
    {'architecture': 'oq', 'n_ports': 16, 'output_buffer_cells': 4}
    >>> OutputQueuedSwitch(4, output_buffer_cells=0)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: output_buffer_cells: got 0; allowed: an integer in [1, 1048576]
    """

    output_buffer_cells: int | None = None
    architecture: ClassVar[str] = "oq"

    def __post_init__(self):
        super().__post_init__()
        _check.assign(self, output_buffer_cells=_check.optional(_check.integer, "output_buffer_cells",
                                                                self.output_buffer_cells, 1, 1 << 20))

    @property
    def speedup(self) -> int:
        """Cells an output can receive per slot: N."""
        return self.n_ports
