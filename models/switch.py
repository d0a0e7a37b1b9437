"""A single switch: ports, queuing architecture, scheduler and buffers.

The description is shared verbatim by the analytic solvers (``switchq.solvers``)
and the simulator (``switchq.validate``), so both answer the same question.

Architectures (paper 000 §2; Karol, Hluchyj & Morgan 1987):

``fifo``
    One FIFO per input; with ``window`` w > 1 the scheduler looks at the first
    w cells. w = 1 is plain FIFO input queuing with head-of-line (HOL)
    blocking. ``window_policy`` picks how the windows are matched each slot:

    - ``rounds`` (Hluchyj & Karol 1988): in round k = 1..w every unmatched
      input offers its k-th cell and every unmatched output accepts one offer
      at random;
    - ``random`` (paper 001 §2.1, central control): outputs in random order
      each pick one cell at random among all cells for them in the windows of
      unmatched inputs.
``oq``
    Ideal output queuing: the fabric delivers up to ``n_ports`` cells per slot
    to an output (speedup N); cells queue at the outputs, optionally in a
    finite buffer of ``output_buffer_cells`` (cells beyond it are lost).
``voq``
    Virtual output queues at each input matched each slot by PIM
    (Anderson et al. 1993) or iSLIP (McKeown 1999) with ``iterations`` rounds.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _check

__all__ = ["Switch", "ARCHITECTURES", "MATCHINGS", "WINDOW_POLICIES", "MAX_PORTS"]

ARCHITECTURES = ("fifo", "oq", "voq")
MATCHINGS = ("pim", "islip")
WINDOW_POLICIES = ("rounds", "random")
# The simulator keeps per-port state in dense arrays (VOQs are n_ports**2 rings);
# 1024 ports keeps one replication's state in tens of megabytes.
MAX_PORTS = 1024


@dataclass(frozen=True)
class Switch:
    """An N x N single-stage switch, validated on construction.

    Parameters
    ----------
    n_ports : int
        Inputs = outputs = N, in [1, 1024].
    architecture : {"fifo", "oq", "voq"}
    window : int
        Look-ahead depth of FIFO input queues (1 = plain FIFO).
    window_policy : {"rounds", "random"}
        How windows are matched (see above); the same for window 1.
    matching : {"pim", "islip"}
        VOQ matching algorithm.
    iterations : int
        Request-grant-accept iterations per slot for VOQ matching.
    input_buffer_cells : int or None
        Cells an input may hold (all its queues together); None = unbounded.
        Cells arriving at a full input buffer are dropped and counted.
    output_buffer_cells : int or None
        Cells an output queue may hold, counting the one being sent (Karol et
        al.'s b); None = unbounded. Only for ``oq``.

    Examples
    --------
    >>> Switch(n_ports=8, architecture="voq", matching="islip", iterations=2).iterations
    2
    >>> Switch(n_ports=0)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: n_ports: got 0; allowed: an integer in [1, 1024]
    """

    n_ports: int
    architecture: str = "fifo"
    window: int = 1
    window_policy: str = "rounds"
    matching: str = "islip"
    iterations: int = 1
    input_buffer_cells: int | None = None
    output_buffer_cells: int | None = None

    def __post_init__(self):
        n = _check.integer("n_ports", self.n_ports, 1, MAX_PORTS)
        object.__setattr__(self, "n_ports", n)
        _check.choice("architecture", self.architecture, ARCHITECTURES)
        object.__setattr__(self, "window", _check.integer("window", self.window, 1, 4096))
        _check.choice("window_policy", self.window_policy, WINDOW_POLICIES)
        _check.choice("matching", self.matching, MATCHINGS)
        object.__setattr__(self, "iterations", _check.integer("iterations", self.iterations, 1, 64))
        if self.input_buffer_cells is not None:
            b = _check.integer("input_buffer_cells", self.input_buffer_cells, 1, 1 << 20)
            object.__setattr__(self, "input_buffer_cells", b)
        if self.output_buffer_cells is not None:
            if self.architecture != "oq":
                raise _check.InputError("output_buffer_cells", self.output_buffer_cells,
                                        "None unless architecture is oq")
            b = _check.integer("output_buffer_cells", self.output_buffer_cells, 1, 1 << 20)
            object.__setattr__(self, "output_buffer_cells", b)
        if self.window > 1 and self.architecture != "fifo":
            raise _check.InputError("window", self.window, "1 unless architecture is fifo")

    def describe(self) -> dict:
        """The fields that matter for this architecture, in declaration order."""
        relevant = {"fifo": ("window", "window_policy", "input_buffer_cells"),
                    "oq": ("output_buffer_cells",),
                    "voq": ("matching", "iterations", "input_buffer_cells")}[self.architecture]
        out = {"architecture": self.architecture, "n_ports": self.n_ports}
        out.update({k: getattr(self, k) for k in relevant})
        return out

    @property
    def speedup(self) -> int:
        """Cells an output can receive per slot: N for ideal output queuing, else 1."""
        return self.n_ports if self.architecture == "oq" else 1
