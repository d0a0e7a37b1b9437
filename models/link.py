"""A link as a buffer-sizing question describes it: rate, round trip (or cable) and cell.

Paper 002 (Minkenberg & Gusat) §2: the round trip tau that a flow-control
loop must cover is the link rate times the RTT, in cells. The RTT is given,
or comes from a cable: RTT = 2 x cable / propagation speed + a fixed delay
(SerDes, logic). Canonical units: bit/s, seconds, metres, m/s, bits.

Errors name the ``switchq size`` options (``--rtt``, ``--cable``), since
that is where these values are typed.

Examples
--------
>>> link = Link.resolve(10e9, None, 20.0, None, None, 2048)
>>> link.rtt_s, link.cell_bits
(2e-07, 2048)
>>> Link.resolve(10e9, 2e-7, 20.0, None, None, 2048)
Traceback (most recent call last):
...
switchq.errors.InputError: cable: got 20.0; allowed: either --rtt or --cable, not both
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _check

__all__ = ["Link", "DEFAULT_PROPAGATION_SPEED"]

# Paper 003 (Kumar, Kale & Stunkel, section 2) pairs 20 m of cable with 200 ns of round trip:
# 2 x 20 m / 2e8 m/s. 2e8 m/s (5 ns/m, about 2/3 c) is typical of both copper twinax and fibre.
DEFAULT_PROPAGATION_SPEED = 2e8


def _sig(x: float) -> float:
    # Display only: 12 significant digits hide binary noise (2.0000000000000002e-07 * 1e9)
    # that no input, typed with at most a few digits, can carry.
    return float(f"{x:.12g}")


@dataclass(frozen=True)
class Link:
    """A link in canonical units; ``cable_m``, ``fixed_delay_s`` and ``propagation_speed`` only when the
    RTT came from a cable."""

    link_rate_bps: float
    rtt_s: float
    cell_bits: int
    cable_m: float | None = None
    fixed_delay_s: float | None = None
    propagation_speed: float | None = None

    @classmethod
    def resolve(cls, link_rate: float | None, rtt: float | None, cable: float | None, fixed_delay: float | None,
                propagation_speed: float | None, cell_bits: int | None) -> "Link":
        """Check the link options together: a rate, exactly one of ``rtt`` and ``cable``, and a cell."""
        if link_rate is None:
            raise _check.InputError("link_rate", None, "a rate with a unit, e.g. 10Gb/s (required)")
        _check.real("link_rate", link_rate, 0.0, None, low_open=True)
        for name, value in (("rtt", rtt), ("cable", cable), ("fixed_delay", fixed_delay)):
            if value is not None:
                _check.real(name, value, 0.0, None, low_open=name == "rtt")
        if propagation_speed is not None:
            _check.real("propagation_speed", propagation_speed, 0.0, None, low_open=True)
        if rtt is not None and cable is not None:
            raise _check.InputError("cable", cable, "either --rtt or --cable, not both")
        if rtt is None and cable is None:
            raise _check.InputError("rtt", None, "a time with a unit, e.g. 200ns, or --cable 20m (one is required)")
        if rtt is not None:
            for name, value in (("fixed_delay", fixed_delay), ("propagation_speed", propagation_speed)):
                if value is not None:
                    raise _check.InputError(name, value, "only with --cable (with --rtt, include it in the RTT)")
            link = {"rtt_s": rtt}
        else:
            delay = 0.0 if fixed_delay is None else fixed_delay
            speed = DEFAULT_PROPAGATION_SPEED if propagation_speed is None else propagation_speed
            total = 2 * cable / speed + delay      # there and back over the cable, plus the fixed part
            if total <= 0:
                raise _check.InputError("cable", cable, "a cable or --fixed-delay > 0 (the RTT must be > 0)")
            link = {"rtt_s": total, "cable_m": cable, "fixed_delay_s": delay, "propagation_speed": speed}
        if cell_bits is None:
            raise _check.InputError("cell", None, "a size with a unit, e.g. 256B (required)")
        cell_bits = _check.integer("cell", cell_bits, 1)
        return cls(link_rate_bps=link_rate, cell_bits=cell_bits, **link)

    def inputs(self) -> dict:
        """The link's fields for a payload, named and scaled as printed."""
        out = {"link_rate_bps": self.link_rate_bps, "rtt_ns": _sig(self.rtt_s * 1e9)}
        if self.cable_m is not None:
            out.update(cable_m=self.cable_m, fixed_delay_ns=_sig(self.fixed_delay_s * 1e9),
                       propagation_speed_m_per_s=self.propagation_speed)
        return out
