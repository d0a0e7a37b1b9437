"""Link-level flow control between a sender and the buffers it feeds.

Paper 002 (Minkenberg & Gusat) §2-§3: the round trip tau = data delay +
credit delay, in cell slots; the downstream (crosspoint) buffers of
``crosspoint_cells`` cells; and the protocol:

``credit``
    relative credits, one per cell; a cell is sent only with a credit.
``sfc``
    speculative flow control, rules R1-R7 (§3.1): credited transmission when
    a credit is available, otherwise one speculative transmission per cell;
    cells kept in a retransmission buffer of ``retransmission_cells`` until
    ACKed; drops NAKed; optionally ``replacement`` of lower-priority cells at a
    full buffer (§3.2).

When a sent SFC cell goes again (``resend``), the paper can be read two ways:

``eager`` (default)
    R7 as written, "speculative cells and negatively acknowledged cells take
    precedence over unsent cells": a speculative cell not yet acknowledged
    either way is resent credited at the first credit, to expedite its
    delivery; if its first copy was accepted, the resend arrives as a
    duplicate and is dropped silently (R2).
``nak``
    only once negatively acknowledged: §6.2 marks a retransmission-queue
    entry eligible "upon NAK", and R7 lets unacknowledged cells wait for an
    expiry time (no transmission errors are modelled, so none expire).

``eager`` is the default because it is R7's own sentence, the rule that
governs the protocol (§3.1), read as it is written; §6.2's "upon NAK"
describes the sender's hardware, and is the other reading.
``switchq report sfc`` runs both against Fig. 3 (SFC makes no observable
difference under uniform Bernoulli traffic).

The same description will carry credits between switches in networks.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _check

__all__ = ["FlowControl", "PROTOCOLS", "RESENDS"]

PROTOCOLS = ("credit", "sfc")
RESENDS = ("eager", "nak")


@dataclass(frozen=True)
class FlowControl:
    """Flow control of the links into a buffered crossbar, validated on construction.

    Parameters
    ----------
    rtt_slots : int
        Normalised round trip tau in cell slots, >= 1.
    crosspoint_cells : int
        Cells per downstream (crosspoint) buffer, Q_R >= 1.
    protocol : {"credit", "sfc"}
    data_delay_slots : int or None
        Slots from sender to buffer, delta_d; the credit path takes the rest,
        delta_c = tau - delta_d >= 1. Default: delta_c = ceil(tau / 2).
    retransmission_cells : int or None
        SFC retransmission buffer Q_RTX per input; default max(tau, Q_R N)
        (paper 002 §4.2).
    replacement : bool
        SFC only: a cell arriving at a full buffer replaces the newest cell of
        the lowest priority present, which is NAKed (§3.2).
    resend : {"nak", "eager"} or None
        SFC only: when a sent cell is resent (module docstring); default "eager".

    Examples
    --------
    >>> fc = FlowControl(rtt_slots=8, crosspoint_cells=2, protocol="sfc")
    >>> fc.data_delay_slots, fc.credit_delay_slots
    (4, 4)
    >>> FlowControl(rtt_slots=4, crosspoint_cells=2, data_delay_slots=4)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: data_delay_slots: got 4; allowed: an integer in [0, 3]
    """

    rtt_slots: int
    crosspoint_cells: int
    protocol: str = "credit"
    data_delay_slots: int | None = None
    retransmission_cells: int | None = None
    replacement: bool = False
    resend: str | None = None

    def __post_init__(self):
        tau = _check.integer("rtt_slots", self.rtt_slots, 1, 1 << 16)
        object.__setattr__(self, "rtt_slots", tau)
        object.__setattr__(self, "crosspoint_cells",
                           _check.integer("crosspoint_cells", self.crosspoint_cells, 1, 1 << 16))
        _check.choice("protocol", self.protocol, PROTOCOLS)
        if self.data_delay_slots is None:
            object.__setattr__(self, "data_delay_slots", tau - (tau + 1) // 2)
        # A credit needs at least one slot to travel back: it is used in the slot after it is sent.
        object.__setattr__(self, "data_delay_slots",
                           _check.integer("data_delay_slots", self.data_delay_slots, 0, tau - 1))
        if self.retransmission_cells is not None:
            if self.protocol != "sfc":
                raise _check.InputError("retransmission_cells", self.retransmission_cells,
                                        "None unless protocol is sfc")
            object.__setattr__(self, "retransmission_cells",
                               _check.integer("retransmission_cells", self.retransmission_cells, 1, 1 << 20))
        if not isinstance(self.replacement, bool):
            raise _check.InputError("replacement", self.replacement, "True or False")
        if self.replacement and self.protocol != "sfc":
            raise _check.InputError("replacement", self.replacement, "False unless protocol is sfc")
        if self.protocol == "sfc":
            object.__setattr__(self, "resend", self.resend or RESENDS[0])
            _check.choice("resend", self.resend, RESENDS)
        elif self.resend is not None:
            raise _check.InputError("resend", self.resend, "None unless protocol is sfc")

    @property
    def credit_delay_slots(self) -> int:
        """delta_c = tau - delta_d."""
        return self.rtt_slots - self.data_delay_slots
