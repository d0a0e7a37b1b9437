"""Analytic vs simulated, row by row, with a verdict.

The simulated figure has a 95 % Student-t interval over R replications. The
distance between the two answers, less the row's ``tolerance``, is measured in
standard errors of the simulated mean:

- ``agree``: inside the 95 % interval (within t_{0.975, R-1} standard errors);
- ``marginal``: outside it but inside the 99.9 % interval; with twenty rows,
  one or two land here by chance alone for some seed, so this is not a failure;
- ``DISAGREE``: outside the 99.9 % interval.

The tolerance is zero for exact models (agreement is then purely
statistical) and states the known error of an approximation otherwise, for
example a large-N formula checked at finite N; each suite says why.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

__all__ = ["Comparison", "compare", "verdict"]


@dataclass(frozen=True)
class Comparison:
    suite: str
    case: str
    quantity: str
    unit: str
    analytic: float
    simulated: float
    ci95: tuple
    tolerance: float
    standard_errors: float
    verdict: str
    analytic_method: str
    seed: int
    slots: int
    warmup_slots: int
    replications: int

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ci95"] = list(self.ci95)
        return d


def verdict(analytic: float, simulated: float, ci95: tuple, replications: int,
            tolerance: float = 0.0) -> tuple[float, str]:
    """Distance in standard errors beyond ``tolerance``, and the verdict it gives.

    Examples
    --------
    >>> verdict(0.75, 0.751, (0.749, 0.753), 8)[1]
    'agree'
    >>> verdict(0.70, 0.751, (0.749, 0.753), 8)[1]
    'DISAGREE'
    """
    from .student import t_quantile

    low, high = ci95
    if any(math.isnan(x) for x in (analytic, simulated, low, high)):
        return math.nan, "no interval"
    dof = replications - 1
    t95 = t_quantile(0.975, dof)
    se = (high - low) / (2 * t95)
    gap = max(0.0, abs(analytic - simulated) - tolerance)
    if se == 0.0:
        # Every replication gave the same figure (e.g. zero loss); only an exact match agrees.
        return (0.0, "agree") if gap == 0.0 else (math.inf, "DISAGREE")
    z = gap / se
    if z <= t95:
        return float(z), "agree"
    if z <= t_quantile(0.9995, dof):
        return float(z), "marginal"
    return float(z), "DISAGREE"


def compare(suite: str, case: str, quantity: str, unit: str, analytic: float, analytic_method: str, estimate,
            settings, tolerance: float = 0.0, slotted: bool = True) -> Comparison:
    """A row from an analytic value and a simulated :class:`~switchq.validate.result.Estimate`.

    ``settings`` are the run's (seed, replications; slots and warm-up when ``slotted``).

    Examples
    --------
    >>> from switchq.validate.harness import RunSettings
    >>> from switchq.validate.result import Estimate
    >>> compare("s", "c", "throughput", "1", 0.75, "exact", Estimate(0.751, 0.749, 0.753), RunSettings()).verdict
    'agree'
    """
    # The samples behind the interval: the replications, or the batches of one long run.
    samples = getattr(estimate, "n", 0) or (settings.replications if settings.replications > 1 else settings.batches)
    if samples < 5:
        raise ValueError(f"{suite}: {case}: {samples} replications or batches; a verdict needs at least 5")
    # A clipped interval keeps its Student-t half-width on the side away from the limit: the standard error
    # comes from that side, not from the cut width.
    half = max(estimate.value - estimate.low, estimate.high - estimate.value)
    z, word = verdict(float(analytic), float(estimate.value), (estimate.value - half, estimate.value + half),
                      samples, tolerance)
    return Comparison(suite, case, quantity, unit, float(analytic), float(estimate.value), estimate.ci95, tolerance,
                      z, word, analytic_method, settings.seed, settings.slots if slotted else 0,
                      settings.warmup_slots if slotted else 0, samples)
