"""Analytic vs simulated, row by row, with the verdict engine's class (:mod:`switchq.validate.verdict`).

A row of ``switchq validate`` is a claim like any report's: the analytic
answer is a point target (an exact model: ``tolerance`` 0) or a band (an
approximation with a known error: ± ``tolerance``), and the simulated figure
is judged on its interval by the one class rule:

- ``agree``: for a point target, the interval holds the analytic value and
  its half-width is at most the row's stated ``precision``; for a band, the
  interval lies inside it; in both, from a run shown stable (or a saturation
  row, whose run is overloaded by design);
- ``inconclusive``: the interval is wider than the precision or reaches past
  the band's edge after replications were added up to the budget
  (:data:`~switchq.validate.verdict.MIN_BUDGET` times the row's own), or the
  run's stability was not judged;
- ``defect``: anything else (the interval misses the analytic value, or an
  unstable run).

**The level.** ``switchq validate all`` judges every declared row at once, and
a 95 % interval misses a correct value one time in twenty: over 68 rows, three
or four rows of a correct simulator would read ``defect`` for almost any seed.
Each row's interval is therefore taken at the level that keeps the chance of
any false defect among all declared rows at :data:`FAMILY_ERROR` (Bonferroni:
1 - 0.05 / rows, 99.93 % for 68 rows), whatever suite is run, and printed with
that level. The precision a row states is a half-width at that level.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from .result import Estimate
from .verdict import MIN_BUDGET, exactly, measured, within

__all__ = ["Comparison", "compare", "at_level", "FAMILY_ERROR", "family_level"]

# The chance, over every declared validation row together, that a correct simulator reads "defect" in one.
FAMILY_ERROR = 0.05


def family_level(rows: int) -> float:
    """The confidence level of each of ``rows`` intervals that keeps the chance of any miss at
    :data:`FAMILY_ERROR` (Bonferroni).

    Examples
    --------
    >>> round(family_level(68), 5)
    0.99926
    """
    return 1.0 - FAMILY_ERROR / max(1, rows)


@dataclass(frozen=True)
class Comparison:
    """One ``switchq validate`` row: the analytic value, the simulated one with its interval at ``level``,
    the band (``tolerance``) or precision it was judged against, the class and why."""

    suite: str
    case: str
    quantity: str
    unit: str
    analytic: float
    analytic_method: str
    simulated: float
    interval: tuple
    level: float
    tolerance: float
    precision: float
    verdict: str
    why: str
    needed: float
    stable: bool | None
    saturated: bool
    seed: int
    slots: int
    warmup_slots: int
    replications: int
    base_replications: int

    @property
    def ci95(self) -> tuple:
        """The judged interval (kept under its old name for readers of ``row.ci95``; its level is ``level``)."""
        return self.interval

    def to_dict(self) -> dict:
        d = asdict(self)
        d["interval"] = list(self.interval)
        d["needed"] = self.needed if math.isfinite(self.needed) else None
        return d


def at_level(samples, level: float, bounds=(None, None), stable=None) -> Estimate:
    """The mean of replication (or batch) ``samples`` and its two-sided Student-t interval at ``level``, cut at
    ``bounds`` where it reaches past them (as :func:`switchq.validate.harness.estimate` does at 95 %).

    Examples
    --------
    >>> e = at_level([1.0, 1.1, 0.9, 1.0, 1.0], 0.95)
    >>> round(e.low, 4), round(e.high, 4), e.n
    (0.9122, 1.0878, 5)
    """
    import numpy as np

    from .student import t_quantile

    x = np.asarray(samples, dtype=float)
    x = x[np.isfinite(x)]
    if x.size < 2:
        m = float(x.mean()) if x.size else math.nan
        return Estimate(m, math.nan, math.nan, int(x.size), stable=stable, domain=tuple(bounds))
    m = float(x.mean())
    half = float(t_quantile(1 - (1 - level) / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    lo_b = -math.inf if bounds[0] is None else bounds[0]
    hi_b = math.inf if bounds[1] is None else bounds[1]
    low, high, method = m - half, m + half, "t"
    if low < lo_b or high > hi_b:
        cut = lambda v: min(max(v, lo_b), hi_b)    # noqa: E731
        m, low, high, method = cut(m), cut(low), cut(high), "clipped"
    return Estimate(m, low, high, int(x.size), method, stable, tuple(bounds))


def compare(suite: str, case: str, quantity: str, unit: str, analytic: float, analytic_method: str, estimate,
            settings, tolerance: float = 0.0, precision: float = 0.0, level: float = 0.95, saturated: bool = False,
            slotted: bool = True) -> Comparison:
    """A row from an analytic value and a simulated estimate (a :class:`~switchq.validate.verdict.Measured`
    takes more replications when its interval does not decide), judged by the engine: a point target
    with ``precision`` when ``tolerance`` is 0, the band ± ``tolerance`` otherwise.

    ``settings`` are the run's (seed, replications; slots and warm-up when ``slotted``).

    Examples
    --------
    >>> from switchq.validate.harness import RunSettings
    >>> e = Estimate(0.751, 0.749, 0.753, n=8, stable=True)
    >>> compare("s", "c", "throughput", "1", 0.75, "exact", e, RunSettings(), precision=0.005).verdict
    'agree'
    >>> compare("s", "c", "throughput", "1", 0.70, "exact", e, RunSettings(), precision=0.005).verdict
    'defect'
    """
    label = f"{suite}: {case}"
    if tolerance > 0:
        v = within(estimate, float(analytic), tolerance, claim=label, section=suite, saturated=saturated,
                   budget=MIN_BUDGET, report="validate")
    else:
        v = exactly(estimate, float(analytic), precision, claim=label, section=suite, saturated=saturated,
                    budget=MIN_BUDGET, report="validate")
    return Comparison(suite, case, quantity, unit, float(analytic), analytic_method, v.value, (v.low, v.high), level,
                      tolerance, precision, str(v), v.why, v.needed, v.stable, saturated, settings.seed,
                      settings.slots if slotted else 0, settings.warmup_slots if slotted else 0, v.n, v.base_n)


def remeasured(run_with, quantity: str, level: float, bounds) -> object:
    """A :class:`~switchq.validate.verdict.Measured` of metric ``quantity`` at ``level`` from
    ``run_with(replications)`` (a :class:`~switchq.validate.result.Result`), which the engine can take to more
    replications: replication r keeps its seed, so a longer run extends the first."""
    def make(n):
        result = run_with(n)
        samples = result.per_replication.get(quantity)
        e = result.metrics[quantity]
        if samples is None:     # a metric with no per-replication values: its own 95 % interval
            return measured(e, make)
        return measured(at_level(samples, level, bounds, e.stable), make)
    return make
