"""Combined input- and crosspoint-queued buffered crossbar (CICQ): the configuration.

Paper 002 (Minkenberg & Gusat) §4: VOQs at the line cards feed N x N
crosspoint buffers over links governed by ``flow_control`` (credits or
speculative flow control, :class:`~switchq.models.flow_control.FlowControl`);
``arbitration`` (longest queue first or round robin) picks the VOQ at each
input and the crosspoint at each output, after strict ``priorities``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from . import _check
from .flow_control import FlowControl
from .switch import SingleSwitch, check_unicast_traffic

__all__ = ["BufferedCrossbar", "ARBITRATIONS", "MAX_PRIORITIES"]

ARBITRATIONS = ("lqf", "rr")
MAX_PRIORITIES = 4


@dataclass(frozen=True)
class BufferedCrossbar(SingleSwitch):
    """A buffered crossbar (``n_ports`` as :class:`~switchq.models.switch.SingleSwitch`), validated.

    ``flow_control``: the links into the crosspoints (round trip, crosspoint size, protocol); with
    SFC and no retransmission buffer given, Q_RTX = max(tau, Q_R N) (§4.2). ``priorities``:
    strict-priority classes, 1..4. ``arbitration``: VOQ and output arbitration, longest queue first
    (``lqf``) or round robin (``rr``).

    Examples
    --------
    >>> from switchq.models import FlowControl
    >>> BufferedCrossbar(16, FlowControl(32, 4, "sfc")).flow_control.retransmission_cells
    64
    >>> BufferedCrossbar(4, None)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: flow_control: got None; allowed: a FlowControl for architecture cicq
    """

    flow_control: FlowControl = None
    priorities: int = 1
    arbitration: str = "lqf"
    architecture: ClassVar[str] = "cicq"

    def __post_init__(self):
        super().__post_init__()
        if not isinstance(self.flow_control, FlowControl):
            raise _check.InputError("flow_control", self.flow_control, "a FlowControl for architecture cicq")
        fc = self.flow_control
        if fc.protocol == "sfc" and fc.retransmission_cells is None:
            # Paper 002 §4.2: Q_RTX = max(tau, Q_R N), a round trip or a whole crossbar row.
            q_rtx = max(fc.rtt_slots, fc.crosspoint_cells * self.n_ports)
            _check.assign(self, flow_control=replace(fc, retransmission_cells=q_rtx))
        _check.assign(self, priorities=_check.integer("priorities", self.priorities, 1, MAX_PRIORITIES))
        _check.choice("arbitration", self.arbitration, ARBITRATIONS)

    def describe(self) -> dict:
        fc = self.flow_control
        return {"architecture": self.architecture, "n_ports": self.n_ports, "priorities": self.priorities,
                "arbitration": self.arbitration, "protocol": fc.protocol, "rtt_slots": fc.rtt_slots,
                "data_delay_slots": fc.data_delay_slots, "crosspoint_cells": fc.crosspoint_cells,
                "retransmission_cells": fc.retransmission_cells, "replacement": fc.replacement,
                "resend": fc.resend}

    def check_traffic(self, traffic) -> None:
        check_unicast_traffic(self, traffic, self.priorities)
