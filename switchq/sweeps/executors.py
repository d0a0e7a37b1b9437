"""Where simulated sweep points run: local worker processes (loky, joblib's engine) or a Dask cluster.

The engine passes the function that computes a point, so the workers run
exactly what this process would. A point's seed is fixed at planning, so
results do not depend on where or in which order points run.
"""

from __future__ import annotations

import os
import time

from switchq.errors import InputError

__all__ = ["run_local", "run_dask", "progress_bar", "n_jobs"]

def progress_bar(total: int, label: str):
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                   TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), transient=True,
                   console=Console(stderr=True))
    return bar, bar.add_task(label, total=total)


def n_jobs(workers: int) -> int:
    return (os.cpu_count() or 1) if workers == 0 else workers


def _settings(plan, pt, workers: int) -> dict:
    from .plan import TARGET

    s = plan.settings
    # A model whose workload sets its run length (simulated seconds) keeps no slots in its settings.
    return {**{k: s[k] for k in ("slots", "warmup_slots") if k in s}, "replications": s["replications"],
            "seed": pt.seed, "workers": workers, **{k: s[k] for k in TARGET if k in s}}


def _completed(futures, as_completed, timing, **kw):
    """``as_completed(futures)``, adding the time spent waiting for the next one to ``timing["waiting"]``."""
    it = iter(as_completed(futures, **kw))
    while True:
        t0 = time.perf_counter()
        try:
            f = next(it)
        except StopIteration:
            return
        finally:
            timing["waiting"] += time.perf_counter() - t0
        yield f


def run_local(plan, todo: list, jobs: int, finish, timing: dict, run_point, run_indexed) -> None:
    """Points ``todo`` in this process (few points: each spreads its replications over ``jobs``) or over a
    pool of ``jobs`` processes, unordered; ``finish(i, results, wall)`` as each comes back."""
    name, mode = plan.model.name, plan.mode
    if jobs == 1 or len(todo) < jobs:
        # Few points: one at a time here, each spreading its replications over the workers.
        for i in todo:
            pt = plan.points[i]
            results, wall = run_point(name, mode, pt.params, _settings(plan, pt, jobs))
            timing["local"] += wall
            finish(i, results, wall)
        return
    from concurrent.futures import as_completed

    def submit_all(executor):
        return {executor.submit(run_indexed, i, name, mode, plan.points[i].params,
                                _settings(plan, plan.points[i], 1)): i for i in todo}

    try:
        futures = submit_all(_executor(jobs))
    except RuntimeError:           # a pool left broken or shut down by an earlier sweep: start afresh
        _POOL.clear()
        futures = submit_all(_executor(jobs))
    try:
        # Unordered: each point is committed the moment it is back, whatever its place in the grid.
        for f in _completed(futures, as_completed, timing):
            finish(*f.result())
    finally:
        for f in futures:
            f.cancel()


_POOL = {}


def _executor(n_jobs: int):
    """This process's pool of ``n_jobs`` loky worker processes (joblib's engine), kept for later sweeps.

    Its own pool, not joblib's shared one (which ``simulate`` uses to spread replications). Each worker
    watches this process and exits if it dies (kill -9) instead of idling as an orphan.
    """
    from joblib.externals.loky import ProcessPoolExecutor

    pool = _POOL.get(n_jobs)
    flags = getattr(pool, "_flags", None)
    if pool is not None and not (getattr(flags, "broken", False) or getattr(flags, "shutdown", False)):
        return pool
    for old in _POOL.values():
        old.shutdown(wait=False, kill_workers=True)
    _POOL.clear()
    pool = ProcessPoolExecutor(max_workers=n_jobs, timeout=300, initializer=_die_with_parent,
                               initargs=(os.getpid(),))
    _POOL[n_jobs] = pool
    return pool


def _die_with_parent(parent: int) -> None:
    """Worker initializer: a thread that ends this worker once ``parent`` is gone."""
    import threading

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="switchq-parent-watch", daemon=True).start()


def run_dask(plan, todo: list, address: str, finish, timing: dict, run_point, connect_timeout: float = 10.0) -> None:
    """Points ``todo`` on the Dask scheduler at ``address``; ``finish(i, results, wall)`` as each comes back."""
    try:
        from distributed import Client, as_completed
    except ImportError as e:  # pragma: no cover - a dependency
        raise InputError("--dask-scheduler", address, f"Dask distributed installed ({e})") from None
    try:
        client = Client(address, timeout=f"{connect_timeout}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise InputError("--dask-scheduler", address, f"the address of a running Dask scheduler, e.g. "
                                                 f"tcp://10.0.0.5:8786 (could not connect: {e})") from None
    futures = {}
    try:
        name, mode = plan.model.name, plan.mode
        for i in todo:
            pt = plan.points[i]
            f = client.submit(run_point, name, mode, pt.params, _settings(plan, pt, 1), pure=False,
                              key=f"switchq-{name}-{pt.key[:16]}-{i}")
            futures[f] = i
        for f in _completed(list(futures), as_completed, timing, loop=client.loop):
            results, wall = f.result()
            finish(futures[f], results, wall)
    finally:
        try:
            client.cancel([f for f in futures if not f.done()])
        finally:
            client.close()
