"""Validation suites: each model answered both ways, side by side, with a verdict, case by case.

``switchq validate NAME`` runs one suite, ``switchq validate all`` every one.
The rows are the validation cases the architectures declare
(:class:`switchq.declaration.Case`, grouped by suite name); nothing here
lists them, and each is judged by :func:`switchq.validate.cases.run_case`
(this module finds and schedules them: it reads the declarations, so it is
the front door's). The default budget (quick) runs the lot (87 cases) in 211 s on
two cores from an empty Numba cache, the kernels of its 14 models compiled first (issue 26);
``scale=10`` (``--full``) multiplies the simulated slots by ten
for tighter intervals. Tolerances are stated per case: zero for exact
models, the model's known error for approximations (see
:mod:`switchq.validate.compare`).
"""

from __future__ import annotations

from .models import _check
from .registry import suites
from .validate.cases import run_case

__all__ = ["run_suite", "suite_names"]


def suite_names() -> list:
    return list(suites())


def run_suite(name: str, seed: int = 1, workers: int = 1, scale: float = 1.0, progress: bool = False,
              on_row=None, on_ready=None) -> list:
    """Rows of one suite, or of all of them (``name == "all"``), in listing order; ``on_row(i, n, row,
    seconds)`` as each finishes, ``on_ready(i, n, architecture, seconds)`` as each kernel is compiled.

    With several processes (``workers``, 0 = all cores) and at least as many cases, each kernel the
    suite uses is first compiled once, in parallel and largest first (:func:`switchq.warm.compile_one`),
    then the cases share the processes, each running its replications in turn. Parallel replications
    would compile every kernel in every process at once: on an empty cache that was most of a first
    ``validate all``. A case's numbers depend only on its seed, so they are the same either way.
    """
    import os
    import time

    cases = _cases(name)
    processes = (os.cpu_count() or 1) if workers == 0 else workers
    if processes > 1 and len(cases) >= processes:
        return _in_parallel(name, cases, processes, seed, scale, on_row, on_ready)
    rows = []
    for i, (case, d) in enumerate(cases, 1):
        t0 = time.perf_counter()
        rows.append(run_case(case, d, len(_cases("all")), seed, workers, scale, progress))
        if on_row is not None:
            on_row(i, len(cases), rows[-1], time.perf_counter() - t0)
    return rows


def _cases(name: str) -> list:
    """``[(Case, Architecture)]`` of suite ``name``, or of every suite (``all``), in listing order."""
    table = suites()
    _check.choice("suite", name, ("all", *table))
    return [c for s in table.values() for c in s] if name == "all" else table[name]


def _in_parallel(name, cases, processes, seed, scale, on_row, on_ready) -> list:
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    from .warm import by_compile_time, compile_one

    kernels = by_compile_time({d.name: d for _, d in cases if d.simulated}.values())
    waiting = {k: [i for i, (_, d) in enumerate(cases) if d.name == k] for k in kernels}
    rows = [None] * len(cases)
    with ProcessPoolExecutor(max_workers=processes) as pool:
        # Every compile is queued first and a kernel's cases only once it is compiled: a case whose kernel
        # another process were still compiling would compile it again. A process that finds no compile
        # left runs the cases of those that are done.
        running = {pool.submit(compile_one, k): ("kernel", k) for k in kernels}
        running.update({pool.submit(_case_row, name, i, seed, scale): ("case", i)
                        for i, (_, d) in enumerate(cases) if d.name not in waiting})
        ready = finished = 0
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for f in done:
                kind, key = running.pop(f)
                if kind == "kernel":
                    ready += 1
                    if on_ready is not None:
                        on_ready(ready, len(kernels), key, f.result())
                    running.update({pool.submit(_case_row, name, i, seed, scale): ("case", i)
                                    for i in waiting[key]})
                else:
                    rows[key], seconds = f.result()
                    finished += 1
                    if on_row is not None:
                        on_row(finished, len(cases), rows[key], seconds)
    return rows


def _case_row(name: str, k: int, seed: int, scale: float) -> tuple:
    """Case ``k`` of suite ``name``, run in this process (cases and their declarations are found by
    index: their analytic sides are closures, which do not pickle)."""
    import time

    case, d = _cases(name)[k]
    t0 = time.perf_counter()
    row = run_case(case, d, len(_cases("all")), seed, 1, scale)
    return row, time.perf_counter() - t0
