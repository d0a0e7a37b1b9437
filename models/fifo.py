"""FIFO input queuing, with window (look-ahead) scheduling: the configuration.

One FIFO per input (paper 000 §2.1; Karol, Hluchyj & Morgan 1987). With a
``window`` of w > 1 the scheduler looks at the first w cells of each queue;
w = 1 is plain FIFO input queuing with head-of-line (HOL) blocking.
``window_policy`` picks how the windows are matched each slot:

- ``rounds`` (Hluchyj & Karol 1988): in round k = 1..w every unmatched
  input offers its k-th cell and every unmatched output accepts one offer
  at random;
- ``random`` (paper 001 §2.1, central control): outputs in random order
  each pick one cell at random among all cells for them in the windows of
  unmatched inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from . import _check
from .switch import SingleSwitch

__all__ = ["FifoSwitch", "WINDOW_POLICIES"]

WINDOW_POLICIES = ("rounds", "random")


@dataclass(frozen=True)
class FifoSwitch(SingleSwitch):
    """FIFO input queues (``n_ports`` as :class:`~switchq.models.switch.SingleSwitch`), validated on construction.

    ``window``: look-ahead depth of each input FIFO (1 = plain FIFO), in [1, 4096];
    ``window_policy``: how windows are matched (module docstring), the same for window 1;
    ``input_buffer_cells``: cells an input may hold (None = unbounded); cells arriving at a full
    input buffer are dropped and counted.

    Examples
    --------
    >>> FifoSwitch(8, window=4).describe()
    {'architecture': 'fifo', 'n_ports': 8, 'window': 4, 'window_policy': 'rounds', 'input_buffer_cells': None}
    """

    window: int = 1
    window_policy: str = "rounds"
    input_buffer_cells: int | None = None
    architecture: ClassVar[str] = "fifo"

    def __post_init__(self):
        super().__post_init__()
        _check.choice("window_policy", self.window_policy, WINDOW_POLICIES)
        _check.assign(self, window=_check.integer("window", self.window, 1, 4096),
                      input_buffer_cells=_check.optional(_check.integer, "input_buffer_cells",
                                                         self.input_buffer_cells, 1, 1 << 20))
