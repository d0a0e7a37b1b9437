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
``oq-crosspoint``, ``iq-split``, ``iq-nosplit``, ``iq-wba``
    Multicast switches (paper 003 §2, §3.1): output queuing with a crosspoint
    buffer of ``crosspoint_cells`` per (input, output) and credits that come
    back only when a packet's last copy has left (the packet crosses the
    crossbar once); or FIFO input queuing with and without fanout splitting,
    the outputs of a split switch choosing at random (``iq-split``) or by
    the weight based algorithm (``iq-wba``, Prabhakar, McKeown & Ahuja 1997:
    HOL age minus residue, simulated only).
``cicq``
    Combined input- and crosspoint-queued buffered crossbar (paper 002 §4):
    VOQs at the line cards feed N x N crosspoint buffers over links governed
    by ``flow_control`` (credits or SFC); ``arbitration`` (longest queue first
    or round robin) picks the VOQ at each input and the crosspoint at each
    output, after strict ``priorities``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import _check
from .flow_control import FlowControl

__all__ = ["Switch", "ARCHITECTURES", "MULTICAST_ARCHITECTURES", "MATCHINGS", "WINDOW_POLICIES", "ARBITRATIONS", "MAX_PORTS",
           "MAX_PRIORITIES"]

ARCHITECTURES = ("fifo", "oq", "voq", "cicq", "oq-crosspoint", "iq-split", "iq-nosplit", "iq-wba")
MULTICAST_ARCHITECTURES = ("oq-crosspoint", "iq-split", "iq-nosplit", "iq-wba")
# Multicast destination sets are 64-bit masks in the simulator.
MAX_MULTICAST_PORTS = 64
ARBITRATIONS = ("lqf", "rr")
MAX_PRIORITIES = 4
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
    architecture : str
        One of ``ARCHITECTURES`` (see above).
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
    flow_control : FlowControl or None
        Link flow control into the crosspoints; required for ``cicq``.
    priorities : int
        Strict-priority classes (1..4); ``cicq`` only for more than one.
    arbitration : {"lqf", "rr"}
        ``cicq`` VOQ and output arbitration: longest queue first or round robin.
    crosspoint_cells : int
        ``oq-crosspoint``: cells per crosspoint buffer (the paper uses 2 and 4).

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
    flow_control: FlowControl | None = None
    priorities: int = 1
    arbitration: str = "lqf"
    crosspoint_cells: int = 4

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
        object.__setattr__(self, "priorities", _check.integer("priorities", self.priorities, 1, MAX_PRIORITIES))
        object.__setattr__(self, "crosspoint_cells",
                           _check.integer("crosspoint_cells", self.crosspoint_cells, 1, 1 << 16))
        if self.architecture in MULTICAST_ARCHITECTURES:
            _check.integer("n_ports", n, 1, MAX_MULTICAST_PORTS)
            if self.input_buffer_cells is not None:
                raise _check.InputError("input_buffer_cells", self.input_buffer_cells,
                                        "None for multicast switches (input queues are unbounded)")
        _check.choice("arbitration", self.arbitration, ARBITRATIONS)
        if self.architecture == "cicq":
            if not isinstance(self.flow_control, FlowControl):
                raise _check.InputError("flow_control", self.flow_control, "a FlowControl for architecture cicq")
            fc = self.flow_control
            if fc.protocol == "sfc" and fc.retransmission_cells is None:
                # Paper 002 §4.2: Q_RTX = max(tau, Q_R N), a round trip or a whole crossbar row.
                q_rtx = max(fc.rtt_slots, fc.crosspoint_cells * n)
                object.__setattr__(self, "flow_control", replace(fc, retransmission_cells=q_rtx))
            if self.input_buffer_cells is not None:
                raise _check.InputError("input_buffer_cells", self.input_buffer_cells,
                                        "None for cicq (line-card VOQs are unbounded)")
        else:
            if self.flow_control is not None:
                raise _check.InputError("flow_control", self.flow_control, "None unless architecture is cicq")
            if self.priorities != 1:
                raise _check.InputError("priorities", self.priorities, "1 unless architecture is cicq")

    def describe(self) -> dict:
        """The fields that matter for this architecture, in declaration order."""
        relevant = {"fifo": ("window", "window_policy", "input_buffer_cells"),
                    "oq": ("output_buffer_cells",),
                    "voq": ("matching", "iterations", "input_buffer_cells"),
                    "cicq": ("priorities", "arbitration"),
                    "oq-crosspoint": ("crosspoint_cells",), "iq-split": (), "iq-nosplit": (),
                    "iq-wba": ()}[self.architecture]
        out = {"architecture": self.architecture, "n_ports": self.n_ports}
        out.update({k: getattr(self, k) for k in relevant})
        if self.flow_control is not None:
            fc = self.flow_control
            out.update(protocol=fc.protocol, rtt_slots=fc.rtt_slots, data_delay_slots=fc.data_delay_slots,
                       crosspoint_cells=fc.crosspoint_cells, retransmission_cells=fc.retransmission_cells,
                       replacement=fc.replacement)
        return out

    @property
    def speedup(self) -> int:
        """Cells an output can receive per slot: N for ideal output queuing, else 1."""
        return self.n_ports if self.architecture == "oq" else 1
