"""One validation case judged: the model answered both ways, side by side, with a verdict (``switchq validate``).

A case (:class:`switchq.declaration.Case`) is handed in with the declaration that builds and simulates it;
which cases there are, and the order and processes they run in, is the front door's
(:mod:`switchq.suites`). Tolerances are stated per case: zero for exact models, the model's known error
for approximations (see :mod:`switchq.validate.compare`).
"""

from __future__ import annotations

from .compare import Comparison, compare, family_level, remeasured
from .harness import RunSettings, run

__all__ = ["run_case"]


def run_case(case, declaration, family: int, seed: int = 1, workers: int = 1, scale: float = 1.0,
             progress: bool = False) -> Comparison:
    """Simulate one declared case and judge it against its analytic value (:func:`compare`): at the level
    that holds over the ``family`` rows judged together (every declared row:
    :func:`~switchq.validate.compare.family_level`), with replications added up to the budget while the
    interval does not decide."""
    from dataclasses import replace

    slots = int(case.slots * scale)
    warmup = None if case.warmup_share is None else int(slots * case.warmup_share)
    settings = RunSettings(slots=slots, warmup_slots=warmup, replications=case.replications, seed=seed,
                           workers=workers)
    system, workload = declaration.build({**declaration.defaults(), **case.params})
    runs = {}

    def run_with(n):
        runs[n] = run(declaration, system, workload, replace(settings, replications=n), progress)
        return runs[n]

    metric = next((m for m in declaration.metrics if m.name == case.quantity), None)
    bounds = metric.bounds if metric is not None else (None, None)
    estimate = remeasured(run_with, case.quantity, family_level(family), bounds)(case.replications)
    value, method = case.analytic()
    tolerance = case.tolerance + case.tolerance_share * value + case.tolerance_slots / slots
    precision = case.precision + case.precision_share * abs(value)
    row = compare(case.suite, case.label, case.quantity, case.unit, value, method, estimate, settings, tolerance,
                  precision, family_level(family), case.saturated, slotted=declaration.slotted)
    unit = case.unit or runs[row.replications].units.get(case.quantity, "")
    return replace(row, unit=unit)
