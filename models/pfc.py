"""A lossless Ethernet port (PFC, IEEE 802.1Qbb) and an InfiniBand link as buffer-sizing questions describe them.

No maths here (:mod:`switchq.solvers.pfc` sizes them): the inputs in
canonical units (bit/s, metres, m/s, bytes, seconds), checked once with
one-line errors that name the ``switchq size`` options. :class:`PfcLink` is
the simulated twin's system: a port, the headroom its buffer reserves above
the XOFF threshold, and the formula that sized it; :class:`Adversary` is its
workload (how the delays line up).

Examples
--------
>>> port = PfcPort(link_rate_bps=100e9, cable_m=100.0, mtu_bytes=9216)
>>> port.mtu_sender, port.medium, port.priorities
(9216, 'fiber', 1)
>>> PfcPort(link_rate_bps=100e9, cable_m=-1.0, mtu_bytes=9216)
Traceback (most recent call last):
...
switchq.errors.InputError: cable: got -1.0; allowed: a number >= 0.0
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _check

__all__ = ["PfcPort", "InfinibandLink", "PfcLink", "Adversary", "CreditLink", "Saturated", "MODELS", "MEDIA",
           "ASICS", "MIN_FRAME_BYTES", "MAX_MTU_BYTES", "PHASES", "IB_MIN_MTU", "IB_MAX_MTU", "IB_MTUS"]

MODELS = ("ieee", "mlx5", "sonic", "cisco")
MEDIA = ("fiber", "copper")
ASICS = ("spectrum", "spectrum2", "spectrum3")   # SONiC's Mellanox ASIC_TABLE rows
PHASES = ("worst", "random")
# IEEE 802.3 clause 3.2: a frame is 64 to 1518 B (9216 B jumbo frames are the common switch maximum;
# 16 KiB leaves room above it without letting a typo of a size through).
MIN_FRAME_BYTES = 64
MAX_MTU_BYTES = 16384
# InfiniBand Architecture Specification Vol. 1, 7.7.1: the path MTUs 256, 512, 1024, 2048 and 4096 B.
IB_MTUS = (256, 512, 1024, 2048, 4096)
IB_MIN_MTU, IB_MAX_MTU = IB_MTUS[0], IB_MTUS[-1]


def _mtu(name, value, low=MIN_FRAME_BYTES, high=MAX_MTU_BYTES):
    return _check.integer(name, value, low, high)


@dataclass(frozen=True)
class PfcPort:
    """One PFC port's sizing inputs; None leaves a figure to the model's table (response, interface delay).

    The cable's signal speed is ``propagation_speed`` if given, else the ``medium``'s (fiber unless given); the
    two are not taken together (the speed would silently replace the medium), and with a speed ``medium`` stays
    None."""

    link_rate_bps: float
    cable_m: float
    mtu_bytes: int
    mtu_sender: int | None = None
    medium: str | None = None
    propagation_speed: float | None = None
    response_quanta: int | None = None
    interface_delay_s: float | None = None
    transceiver_delay_s: float = 0.0
    priorities: int = 1
    model: str = "ieee"
    asic: str | None = None

    def __post_init__(self):
        _check.assign(self, link_rate_bps=_check.real("link_rate", self.link_rate_bps, 0.0, None, low_open=True),
                      cable_m=_check.real("cable", self.cable_m, 0.0),
                      mtu_bytes=_mtu("mtu", self.mtu_bytes),
                      model=_check.choice("model", self.model, MODELS),
                      priorities=_check.integer("priorities", self.priorities, 1, 8),
                      transceiver_delay_s=_check.real("transceiver_delay", self.transceiver_delay_s, 0.0))
        _check.assign(self, mtu_sender=self.mtu_bytes if self.mtu_sender is None
                      else _mtu("mtu_sender", self.mtu_sender))
        if self.medium is not None:
            _check.choice("medium", self.medium, MEDIA)
        if self.propagation_speed is not None:
            _check.real("propagation_speed", self.propagation_speed, 0.0, None, low_open=True)
            if self.medium is not None:     # as switchq.architectures.pfc declares --medium (``applies``)
                raise _check.InputError("medium", self.medium, "only without --propagation-speed (the speed given "
                                                               "replaces the medium's)")
        if self.response_quanta is not None:
            _check.integer("response", self.response_quanta, 0, 65535)   # a pause time is 16 bits (802.3 31B)
        if self.interface_delay_s is not None:
            _check.real("interface_delay", self.interface_delay_s, 0.0)
        fixed = {"mlx5": "the driver's constants", "sonic": "the script's constants"}.get(self.model)
        if fixed is not None:
            # Their formulas fix what these would change: accepting them silently would mislead.
            for name, value in (("medium", self.medium), ("propagation_speed", self.propagation_speed),
                                ("interface_delay", self.interface_delay_s),
                                ("transceiver_delay", self.transceiver_delay_s or None),
                                ("mtu_sender", None if self.mtu_sender == self.mtu_bytes else self.mtu_sender)):
                if value is not None:
                    raise _check.InputError(name, value, f"only with --model ieee or cisco ({self.model} takes "
                                                         f"{fixed})")
            if self.model == "mlx5" and self.response_quanta is not None:   # the driver has no response term
                raise _check.InputError("response", self.response_quanta, "only with --model ieee, cisco or sonic "
                                                                          "(mlx5 takes the driver's constants)")
            if self.model == "mlx5" and not float(self.cable_m).is_integer():
                raise _check.InputError("cable", self.cable_m, "whole metres with --model mlx5 (the driver's "
                                                               "cable_len is an integer number of metres)")
        if self.asic is not None:
            _check.choice("asic", self.asic, ASICS)
            if self.model != "sonic":
                raise _check.InputError("asic", self.asic, "only with --model sonic")
        if self.medium is None and self.propagation_speed is None:   # a given speed leaves no medium to name
            _check.assign(self, medium="fiber")


@dataclass(frozen=True)
class InfinibandLink:
    """One InfiniBand link's credit-buffer inputs: a data rate (or a speed and width by name), cable, MTU, VLs;
    the round trip's fixed part (SerDes, FEC, pipeline) and the longest a freed credit waits for the next
    flow-control packet (``credit_update_s``). Both 0 by default: the credits are then a lower bound."""

    link_rate_bps: float | None
    cable_m: float
    mtu_bytes: int = 4096
    speed: str | None = None
    width: int | None = None
    vls: int = 1
    propagation_speed: float | None = None
    fixed_delay_s: float = 0.0
    credit_update_s: float = 0.0

    def __post_init__(self):
        if self.link_rate_bps is not None:
            _check.real("link_rate", self.link_rate_bps, 0.0, None, low_open=True)
        _check.assign(self, cable_m=_check.real("cable", self.cable_m, 0.0),
                      vls=_check.integer("vls", self.vls, 1, 15),
                      fixed_delay_s=_check.real("fixed_delay", self.fixed_delay_s, 0.0),
                      credit_update_s=_check.real("credit_update", self.credit_update_s, 0.0))
        if self.mtu_bytes not in IB_MTUS:
            raise _check.InputError("mtu", f"{self.mtu_bytes}B", "one of " + ", ".join(f"{m}B" for m in IB_MTUS)
                                    + " (InfiniBand path MTUs)")
        if self.propagation_speed is not None:
            _check.real("propagation_speed", self.propagation_speed, 0.0, None, low_open=True)


@dataclass(frozen=True)
class PfcLink:
    """The twin's system: ``port`` (its delays: the IEEE 802.1Qbb Annex N terms), the buffer's headroom above
    the XOFF threshold in bytes, and the formula (``sized_by``) that gave it."""

    port: PfcPort
    headroom_bytes: int
    sized_by: str = "ieee"
    shortfall_bytes: int = 0
    granule_bytes: int = 1

    def __post_init__(self):
        _check.integer("headroom", self.headroom_bytes, 1)
        _check.choice("model", self.sized_by, MODELS)
        _check.integer("granule", self.granule_bytes, 1, 4096)

    def check_traffic(self, workload) -> None:
        _check.choice("phases", workload.phases, PHASES)

    def describe(self) -> dict:
        p = self.port
        return {"link_rate_bps": p.link_rate_bps, "cable_m": p.cable_m, "medium": p.medium, "mtu_bytes": p.mtu_bytes,
                "mtu_sender": p.mtu_sender, "sized_by": self.sized_by, "shortfall_bytes": self.shortfall_bytes,
                "headroom_bytes": self.headroom_bytes, "granule_bytes": self.granule_bytes}


@dataclass(frozen=True)
class Adversary:
    """How the twin's delays line up: ``worst`` (every frame and reaction at its bound, as the sizing assumes)
    or ``random`` (frame phases and the peer's reaction drawn uniformly within their bounds)."""

    phases: str = "random"

    def describe(self) -> dict:
        return {"phases": self.phases}


@dataclass(frozen=True)
class CreditLink:
    """The InfiniBand twin's system: one VL of ``link`` with ``buffer_bytes`` of receive buffer (whole 64-byte
    credits), and the credit round trip in byte times it was sized for."""

    link: InfinibandLink
    buffer_bytes: int
    round_trip_bytes: int
    shortfall_bytes: int = 0

    def __post_init__(self):
        _check.integer("buffer", self.buffer_bytes, 64)
        _check.integer("round_trip", self.round_trip_bytes, 6)

    def check_traffic(self, workload) -> None:
        pass

    def describe(self) -> dict:
        return {"cable_m": self.link.cable_m, "mtu_bytes": self.link.mtu_bytes, "buffer_bytes": self.buffer_bytes,
                "shortfall_bytes": self.shortfall_bytes, "round_trip_bytes": self.round_trip_bytes}


@dataclass(frozen=True)
class Saturated:
    """The InfiniBand twin's workload: the sender always has a packet ready (the full-rate question)."""

    def describe(self) -> dict:
        return {}
