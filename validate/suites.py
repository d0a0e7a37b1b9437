"""Validation suites: each model answered both ways, side by side, with a verdict.

``switchq validate NAME`` runs one suite, ``switchq validate all`` every one.
The rows are the validation cases the architectures declare
(:class:`switchq.declaration.Case`, grouped by suite name); nothing here
lists them. The default budget (quick) runs the lot in about a minute on
two cores; ``scale=10`` (``--full``) multiplies the simulated slots by ten
for tighter intervals. Tolerances are stated per case: zero for exact
models, the model's known error for approximations (see
:mod:`switchq.validate.compare`).
"""

from __future__ import annotations

from switchq.models import _check

from .compare import Comparison, compare
from .harness import RunSettings, run

__all__ = ["run_suite", "run_case", "suite_names"]


def suite_names() -> list:
    from switchq.registry import suites

    return list(suites())


def run_case(case, declaration, seed: int = 1, workers: int = 1, scale: float = 1.0,
             progress: bool = False) -> Comparison:
    """Simulate one declared case and compare it with its analytic value."""
    slots = int(case.slots * scale)
    warmup = None if case.warmup_share is None else int(slots * case.warmup_share)
    settings = RunSettings(slots=slots, warmup_slots=warmup, replications=case.replications, seed=seed,
                           workers=workers)
    system, workload = declaration.build({**declaration.defaults(), **case.params})
    result = run(declaration, system, workload, settings, progress)
    value, method = case.analytic()
    tolerance = case.tolerance + case.tolerance_share * value + case.tolerance_slots / slots
    unit = case.unit or result.units.get(case.quantity, "")
    return compare(case.suite, case.label, case.quantity, unit, value, method, result.metrics[case.quantity],
                   settings, tolerance, slotted=declaration.slotted)


def run_suite(name: str, seed: int = 1, workers: int = 1, scale: float = 1.0, progress: bool = False,
              on_row=None) -> list:
    """Rows of one suite, or of all of them (``name == "all"``); ``on_row(i, n, row, seconds)`` as each
    finishes."""
    import time

    from switchq.registry import suites

    table = suites()
    _check.choice("suite", name, ("all", *table))
    cases = [c for s in table.values() for c in s] if name == "all" else table[name]
    rows = []
    for i, (case, d) in enumerate(cases, 1):
        t0 = time.perf_counter()
        rows.append(run_case(case, d, seed, workers, scale, progress))
        if on_row is not None:
            on_row(i, len(cases), rows[-1], time.perf_counter() - t0)
    return rows
