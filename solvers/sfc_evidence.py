"""What paper 002's own stated rules give for its claims (Minkenberg & Gusat §5): the derivations the sfc report
quotes where a number the paper prints cannot come out of the rule it prints beside it.

- :func:`printed_burst_rule` (§5, Fig. 4 a, b): the paper's rule for the latency of "SFC off" at 10 % load,
  in round trips, "the ratio floor(B/Q_R)" of the mean burst size B and the crosspoint size Q_R, computed as
  written. The paper says it "evaluates to 5 (Q_R = 2), 4 (Q_R = 3), 3 (Q_R = 4), and 2 (Q_R = 6)" for B = 10,
  and calls 10, 7, 5 and 4 the same ratio for B = 20; the floor gives 5, 3, 2, 1 and 10, 6, 5, 3. Where the two
  differ, the printed number is not what the paper's rule gives.

Examples
--------
>>> [printed_burst_rule(10, q).value for q in (2, 3, 4, 6)]
[5, 3, 2, 1]
>>> printed_burst_rule(20, 3).why
'floor(B/Q_R) = floor(20/3) = 6 round trips'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from switchq.models import _check

__all__ = ["BurstRule", "printed_burst_rule"]

SOURCE = "Minkenberg & Gusat, speculative flow control (paper 002), section 5"


@dataclass(frozen=True)
class BurstRule:
    """The round trips the paper's rule floor(B/Q_R) gives for mean bursts of ``mean_burst`` cells through
    crosspoints of ``q_r`` cells (``value``, what a verdict's derivation reads)."""

    mean_burst: float
    q_r: int
    value: int
    source: str = SOURCE

    @property
    def why(self) -> str:
        return f"floor(B/Q_R) = floor({self.mean_burst:g}/{self.q_r}) = {self.value} round trips"


def printed_burst_rule(mean_burst, q_r) -> BurstRule:
    """The paper's rule for the "SFC off" latency at 10 % load, in round trips: floor(B / Q_R) (§5).

    Parameters
    ----------
    mean_burst : float
        B, the mean burst size in cells (the paper's 10 and 20), at least 1.
    q_r : int
        Q_R, the crosspoint buffer size in cells, at least 1.

    Notes
    -----
    One division and a floor, O(1). The paper's Fig. 1 gives the mechanism behind the rule (a burst through a
    crosspoint of Q_R credits waits one round trip for each Q_R cells); the rule itself is the ratio the paper
    prints, floor(B/Q_R), with the mean burst size for B.
    """
    b = _check.real("mean_burst", mean_burst, 1.0, 1e9)
    q = _check.integer("q_r", q_r, 1)
    return BurstRule(b, q, math.floor(b / q))
