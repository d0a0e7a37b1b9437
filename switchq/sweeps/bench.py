"""Speed of sweeps themselves (``switchq bench``): analytic points per second, and the bookkeeping around
simulated points."""

from __future__ import annotations

import os
import time
from pathlib import Path

from .engine import run_sweep

__all__ = ["sweep_bench"]

def sweep_bench(quick: bool = False) -> list:
    """Speed of sweeps, as rows like :mod:`switchq.bench`'s (``case``, ``value``, ``unit``, ``target``,
    ``booksim2``, ``met``).

    - 10,000 analytic sizing points (``size-cicq``, ports 1..100 x rtt_slots 1..100) into a new store,
      after a warm-up sweep (imports); then the same sweep again, every point read back.
    - Bookkeeping on simulated points of about 1 s (``fifo`` 32 x 32, slots calibrated here): this
      process's time that is neither computing points nor waiting for workers (plan, checks, store,
      scheduling, rows), over the points' summed compute; in this process, then over 2 warm worker
      processes, where the wall-clock efficiency (including CPU contention) is reported too.
    """
    import tempfile

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite"
        run_sweep("size-cicq", {"ports": "1:3", "rtt_slots": "1:3"}, store=Path(tmp) / "warm.sqlite")
        t0 = time.perf_counter()
        run = run_sweep("size-cicq", {"ports": "1:100", "rtt_slots": "1:100"}, store=db)
        first = time.perf_counter() - t0
        assert run.computed == 10_000
        rows.append({"case": "sweep size-cicq: 10,000 analytic points, stored", "value": first, "unit": "s",
                     "target": 2.0, "booksim2": None, "met": first < 2.0})
        t0 = time.perf_counter()
        again = run_sweep("size-cicq", {"ports": "1:100", "rtt_slots": "1:100"}, store=db)
        reuse = time.perf_counter() - t0
        rows.append({"case": "the same sweep again: 10,000 points read from the store", "value": reuse,
                     "unit": "s", "target": 2.0, "booksim2": None, "met": reuse < 2.0 and again.computed == 0})

        # Simulated points of about one second each: calibrate slots on this machine.
        run_sweep("fifo", {"load": [1.0]}, {"ports": 32}, slots=2000, replications=2, store=None, workers=1)
        t0 = time.perf_counter()
        run_sweep("fifo", {"load": [0.99]}, {"ports": 32}, slots=40_000, replications=4, store=None, workers=1)
        rate = 4 * 44_000 / (time.perf_counter() - t0)          # slots per second, warm-up included
        slots = max(1000, int(rate / 4 / 1.1))
        configs = [(1, 2 if quick else 4)] + ([(2, 4 if quick else 8)] if (os.cpu_count() or 1) >= 2 else [])
        for jobs, n_points in configs:
            if jobs > 1:   # start the worker pool first (processes, Numba cache), as a long sweep amortises it
                run_sweep("fifo", {"load": [0.5, 0.6, 0.7, 0.8]}, {"ports": 8}, slots=1000, replications=2,
                          store=None, workers=jobs)
            loads = [round(0.99 - 0.01 * k, 2) for k in range(n_points)]
            run = run_sweep("fifo", {"load": loads}, {"ports": 32}, slots=slots, replications=4, store=db,
                            workers=jobs)
            where = "in this process" if jobs == 1 else f"over {jobs} processes"
            share = run.bookkeeping_seconds / run.compute_seconds
            rows.append({"case": f"sweep bookkeeping (plan, store, scheduling), {n_points} simulated points {where}",
                         "value": share, "unit": "fraction of compute", "target": 0.05, "booksim2": None,
                         "met": share < 0.05, "point_seconds": run.compute_seconds / n_points})
            if jobs > 1:
                idle = (run.wall_seconds * jobs - run.compute_seconds) / run.compute_seconds
                rows.append({"case": f"sweep wall x {jobs} processes over summed point compute, minus 1 "
                                     "(bookkeeping, imbalance and CPU contention)",
                             "value": idle, "unit": "fraction of compute", "target": None, "booksim2": None,
                             "met": None})
    return rows
