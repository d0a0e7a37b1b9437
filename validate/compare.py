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

__all__ = ["Comparison", "compare", "at_level", "FAMILY_ERROR", "family_level", "judge_answer"]

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
    """The mean of replication (or batch) ``samples`` (the finite ones) and its Student-t interval, shown at
    ``level`` (:meth:`~switchq.validate.result.Estimate.at`): cut at ``bounds`` where it reaches past them.

    Examples
    --------
    >>> e = at_level([1.0, 1.1, 0.9, 1.0, 1.0], 0.95)
    >>> round(e.low, 4), round(e.high, 4), e.n
    (0.9122, 1.0878, 5)
    """
    import numpy as np

    x = np.asarray(samples, dtype=float)
    return Estimate.from_samples(x[np.isfinite(x)], bounds, stable=stable).at(level)


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
        # ``runs``: a replication in which nothing arrived measures nothing; the engine calls a figure too few
        # replications measured inconclusive (with its why) instead of refusing to judge it.
        if samples is None:     # a metric with no per-replication values: its own interval, at ``level``
            return measured(e.at(level), make, runs=n)
        return measured(at_level(samples, level, bounds, e.stable), make, runs=n)
    return make


def judge_answer(answer, values: dict, row: dict, *, overloaded: bool, remake=None, level: float = 0.95) -> list:
    """``answer``'s comparisons (:class:`switchq.declaration.Compare`) at the inputs ``values``, side by side with
    its twin's simulated ``row`` there (as ``--json`` gives it), each judged by the engine as a validate row is:
    the analytic value from ``answer.evaluate(values)``, the simulated interval from the row, a point target or the
    comparison's band. ``overloaded``: the twin ran overloaded by design (only then is a saturation comparison
    made). ``remake(n)``, if given, is the same point run with ``n`` replications (the engine takes an interval
    that does not decide to its budget). One dict per comparison: the figures, the difference, the verdict and
    why; or, where it does not hold at these inputs, the reason.

    Examples
    --------
    >>> from switchq.registry import answers
    >>> hol, _ = answers()["hol"]
    >>> row = {"throughput": 0.6185, "throughput_ci95": [0.6180, 0.6190], "replications": 8, "unstable": True}
    >>> [(c["verdict"], round(c["analytic"], 5)) for c in judge_answer(hol, {"ports": 8}, row, overloaded=True)]
    [('agree', 0.61839)]
    """
    import math

    from .rows import estimate

    from switchq.errors import InputError

    try:
        _, results = answer.evaluate(values)
    except InputError as e:
        # The analytic answer does not hold at these inputs (oq at load 1: no steady state): nothing to compare.
        return [{"result": c.result, "metric": c.metric, "why": c.why, "verdict": None,
                 "not_compared": f"no analytic answer here ({e})"} for c in answer.compares]
    out = []
    for c in answer.compares:
        shown = {"result": c.result, "metric": c.metric, "why": c.why}
        analytic = results.get(c.result)
        reason = c.applies(values, results) if c.applies is not None else ""
        if c.saturated and not overloaded:
            reason = reason or "a saturation figure: compared where the twin runs overloaded (at load 1)"
        number = isinstance(analytic, (int, float)) and not isinstance(analytic, bool) and math.isfinite(analytic)
        if not reason and not number:
            reason = f"no analytic {c.result} at these inputs"
        if not reason and row.get(c.metric) is None:
            reason = f"the twin measured no {c.metric}"
        if reason:
            out.append({**shown, "verdict": None, "not_compared": reason})
            continue
        tolerance = c.tolerance + c.tolerance_share * abs(analytic) + float(results.get(c.error_result) or 0.0
                                                                          if c.error_result else 0.0)
        precision = c.precision + c.precision_share * abs(analytic)
        e = estimate(row, c.metric).at(level)
        made = ((lambda n, m=c.metric: measured(estimate(remake(n), m).at(level), made)) if remake is not None
                else None)
        figure = measured(e, made, runs=int(row.get("replications") or 0))
        if tolerance > 0:
            v = within(figure, float(analytic), tolerance, claim=f"{answer.name}: {c.result}", section=answer.name,
                       saturated=c.saturated, budget=MIN_BUDGET, report="page")
        else:
            v = exactly(figure, float(analytic), precision, claim=f"{answer.name}: {c.result}", section=answer.name,
                        saturated=c.saturated, budget=MIN_BUDGET, report="page")
        out.append({**shown, "analytic": float(analytic), "simulated": v.value, "interval": [v.low, v.high],
                    "level": level, "replications": v.n, "difference": v.value - float(analytic),
                    "band": ([float(analytic) - tolerance, float(analytic) + tolerance] if tolerance > 0 else None),
                    "precision": None if tolerance > 0 else precision, "verdict": str(v), "verdict_why": v.why,
                    "saturated": c.saturated})
    return out
