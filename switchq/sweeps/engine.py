"""Running a sweep: reuse what the store has, compute the rest, commit each point as it finishes.

Analytic points run in this process (microseconds to milliseconds each);
simulated points over local processes or a Dask cluster
(:mod:`.executors`), with the same runner as ``switchq simulate``
(:func:`switchq.validate.harness.run`). Each point is committed to the store
(:mod:`switchq.store`) by this process as soon as it finishes, in any order,
so an interrupted sweep resumes with nothing lost and nothing computed twice.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from switchq.errors import InputError
from switchq.registry import get as get_model
from switchq.store import DEFAULT_TIMEOUT, Store, canonical_json, default_path, dumps

from .executors import n_jobs, progress_bar, run_dask, run_local
from .export import to_frame
from .plan import Plan, Point, build_point, check_points, plan_points, plan_sweep

__all__ = ["run_sweep", "run_points", "run_plan", "sweep", "SweepRun", "Record", "SweepInterrupted"]

_DEFAULT = object()         # "use the default store"


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep: ``done`` of ``total`` points are in the store (``store``)."""

    def __init__(self, done: int, total: int, store):
        super().__init__(f"{done} of {total} points stored")
        self.done, self.total, self.store = done, total, store


def _sim_results(r) -> dict:
    # The replications and batches stay: a precision target decides them, and a verdict counts them.
    inputs = set(r.inputs()) - {"replications", "batches"}
    return {k: v for k, v in r.to_dict().items() if k not in inputs and k not in ("wall_seconds", "seeds")}


def _run_point(model_name: str, mode: str, params: dict, settings: dict | None, on_replication=None):
    """Compute one point (in this process, a loky worker or a Dask worker): (results, wall seconds).
    ``on_replication(done, total)``: called as each of a simulated point's replications finishes."""
    t0 = time.perf_counter()
    model = get_model(model_name)
    if mode == "analytic":
        results = model.analytic(params)
    else:
        from switchq.validate.harness import RunSettings, run

        system, workload = build_point(model, params)
        results = _sim_results(run(model.declaration, system, workload, RunSettings(**settings),
                                   on_replication=on_replication))
    return results, time.perf_counter() - t0


def _run_indexed(i, model_name, mode, params, settings):
    results, wall = _run_point(model_name, mode, params, settings)
    return i, results, wall


@dataclass
class Record:
    point: Point
    results: dict
    wall_seconds: float
    cached: bool


@dataclass
class SweepRun:
    """A finished sweep: the plan, one record per point (grid order) and what it cost."""

    plan: Plan
    records: list
    computed: int
    reused: int
    wall_seconds: float
    store: Path | None
    compute_seconds: float = 0.0     # summed over computed points, wherever they ran
    waiting_seconds: float = 0.0     # this process waiting for worker processes or Dask
    local_seconds: float = 0.0       # points computed in this process

    @property
    def bookkeeping_seconds(self) -> float:
        """This process's time not spent computing points or waiting for workers: planning and checking,
        the store, scheduling and output rows."""
        return self.wall_seconds - self.local_seconds - self.waiting_seconds

    def rows(self) -> list:
        """One dict per point: model, mode, parameters, results (CIs as [low, high]), seed, wall_seconds, cached."""
        plan = self.plan
        out = []
        for rec in self.records:
            row = {"model": plan.model.name, "mode": plan.mode}
            row.update(rec.point.params)
            for k, v in rec.results.items():
                row[k + "_result" if k in rec.point.params else k] = v
            if rec.point.note:          # rows side by side: the inputs this point left out
                row["note"] = "; ".join(x for x in (rec.point.note, row.get("note")) if x)
            if rec.point.error:         # rows side by side: why this point has no answer
                row["error"] = rec.point.error
            row.update(seed=rec.point.seed, wall_seconds=rec.wall_seconds, cached=rec.cached)
            out.append(row)
        return out


def run_sweep(model: str, vary=None, fixed: dict | None = None, *, simulate: bool = False, store=_DEFAULT,
              dask_scheduler: str | None = None, slots: int | None = None, warmup: int | None = None,
              replications: int | None = None, seed: int | None = None, workers: int = 0,
              progress: bool = False, lock_timeout: float = DEFAULT_TIMEOUT,
              connect_timeout: float = 10.0, target: dict | None = None, on_replication=None) -> SweepRun:
    """Plan (checking everything), reuse stored points, run the rest, commit each as it finishes.

    ``store``: a path, None for no store, or the default (``$SWITCHQ_STORE`` or
    ``switchq-results.sqlite`` here). ``workers``: local processes for simulated
    points (0 = all cores, 1 = this process). ``dask_scheduler``: a Dask scheduler
    address (simulated points then run there; ``connect_timeout`` seconds to reach it). ``target``: a
    precision target for simulated points (:func:`~switchq.sweeps.plan.plan_sweep`). ``on_replication``: see
    :func:`run_plan`.
    """
    t0 = time.perf_counter()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise InputError("--workers", workers, "an integer >= 0 (0 = all cores)")
    plan = plan_sweep(model, vary, fixed, simulate, slots, warmup, replications, seed, check=False, target=target)
    return run_plan(plan, store=store, dask_scheduler=dask_scheduler, workers=workers, progress=progress,
                    lock_timeout=lock_timeout, connect_timeout=connect_timeout, started=t0,
                    on_replication=on_replication)


def run_points(model: str, points: list, *, simulate: bool = True, store=None, slots: int | None = None,
               warmup: int | None = None, replications: int | None = None, seed: int = 1, workers: int = 0,
               progress: bool = False, lock_timeout: float = DEFAULT_TIMEOUT, target: dict | None = None) -> list:
    """Rows of given points (see :func:`~switchq.sweeps.plan.plan_points`), in order: stored ones reused,
    the rest computed and stored. Each point runs with ``seed`` itself (and ``target``, a precision target)."""
    t0 = time.perf_counter()
    plan = plan_points(model, points, simulate, slots, warmup, replications, seed, check=False, target=target)
    return run_plan(plan, store=store, workers=workers, progress=progress, lock_timeout=lock_timeout,
                    started=t0).rows()


def run_plan(plan: Plan, *, store=_DEFAULT, dask_scheduler: str | None = None, workers: int = 0,
             progress: bool = False,
             lock_timeout: float = DEFAULT_TIMEOUT, connect_timeout: float = 10.0,
             started: float | None = None, on_replication=None) -> SweepRun:
    """Check the points the store does not have, then compute and store them.

    ``on_replication(done, total)``: called as each replication of a simulated point computed in this process
    finishes (points run one at a time here when they are fewer than the workers, or with one worker); points
    in a pool of processes or on Dask report nothing. It only observes: the numbers are the same without it.
    """
    t0 = time.perf_counter() if started is None else started
    if dask_scheduler is not None and plan.mode == "analytic":
        raise InputError("--dask-scheduler", dask_scheduler, "only with --simulate (analytic points run here, in "
                                                   "microseconds)")
    path = default_path() if store is _DEFAULT else (None if store is None else Path(store))
    # An existing store is opened (and checked) first, so stored points need no check; a new one is
    # created only once the whole grid has passed.
    db = Store(path, timeout=lock_timeout) if path is not None and path.exists() else None
    try:
        finished = db.finished(plan.model.name, plan.mode) if db is not None else {}
        check_points(plan, skip=finished)
        if db is None and path is not None:
            db = Store(path, timeout=lock_timeout)
        records = [None] * len(plan.points)
        todo = []
        for i, pt in enumerate(plan.points):
            row = finished.get(pt.key)
            if row is not None:
                records[i] = Record(pt, row["results"], row["wall_seconds"], True)
            elif pt.error:              # a row side by side that cannot answer: its reason, nothing computed
                records[i] = Record(pt, {}, 0.0, False)
            else:
                todo.append(i)
        timing = _execute(plan, todo, records, db, dask_scheduler, workers, progress, connect_timeout,
                          on_replication)
    finally:
        if db is not None:
            db.close()
    return SweepRun(plan, records, len(todo), sum(r.cached for r in records), time.perf_counter() - t0, path,
                    timing["compute"], timing["waiting"], timing["local"])


def _execute(plan: Plan, todo: list, records: list, db, scheduler, workers, progress,
             connect_timeout: float = 10.0, on_replication=None) -> float:
    """Compute the points ``todo`` (indices), store each as it finishes.

    Returns seconds: ``compute`` (summed over points), ``waiting`` (for workers), ``local`` (points
    computed in this process).
    """
    from switchq import __version__

    model, mode = plan.model, plan.mode
    settings_json = canonical_json(plan.settings)
    done = [0, 0.0]
    timing = {"waiting": 0.0, "local": 0.0}

    def finish(i, results, wall):
        pt = plan.points[i]
        text = dumps(results)
        results = json.loads(text)        # exactly what the store holds: fresh and reused rows are alike
        if db is not None:
            db.add(pt.key, model.name, mode, pt.params_json, text, pt.seed, settings_json, wall, __version__)
        records[i] = Record(pt, results, wall, False)
        done[0] += 1
        done[1] += wall
        if bar is not None:
            bar.advance(task)

    bar = task = None
    if progress and todo:
        bar, task = progress_bar(len(todo), f"{model.name} ({mode})")
        bar.start()
    try:
        if mode == "analytic":
            for i in todo:
                pt = plan.points[i]
                if pt.precomputed is not None:
                    results, wall = pt.precomputed
                    pt.precomputed = None
                else:
                    results, wall = _run_point(model.name, mode, pt.params, None)
                timing["local"] += wall
                finish(i, results, wall)
        elif scheduler is not None:
            run_dask(plan, todo, scheduler, finish, timing, _run_point, connect_timeout)
        else:
            here = _run_point if on_replication is None else partial(_run_point, on_replication=on_replication)
            run_local(plan, todo, n_jobs(workers), finish, timing, here, _run_indexed)
    except KeyboardInterrupt:
        raise SweepInterrupted(len(records) - len(todo) + done[0], len(records),
                               None if db is None else db.path) from None
    finally:
        if bar is not None:
            bar.stop()
    return dict(timing, compute=done[1])


def sweep(model: str, vary=None, *, simulate: bool = False, store=_DEFAULT, dask_scheduler: str | None = None,
          slots: int | None = None, warmup: int | None = None, replications: int | None = None,
          seed: int | None = None, workers: int = 0, progress: bool = False,
          lock_timeout: float = DEFAULT_TIMEOUT, fixed: dict | None = None, target: dict | None = None, **params):
    """Sweep ``model`` over a grid; return a pandas DataFrame, one row per point (grid order).

    The same engine, seeds and store as ``switchq sweep``: ``vary`` maps parameter names to
    values (a grid spec such as ``"0.1:0.9:0.1"`` or a list), fixed parameters are keywords
    (``ports=16``) or ``fixed={...}``. ``store``: a path, None for none, default
    ``$SWITCHQ_STORE`` or ``./switchq-results.sqlite``. Columns: model, mode, the parameters,
    the results (CIs as ``x_low``/``x_high``), seed, wall_seconds, cached (read from the
    store). ``df.attrs["sweep"]`` says how many points were computed and reused.

    Examples
    --------
    >>> df = sweep("oq", {"load": [0.5, 0.8]}, ports=16, store=None)
    >>> df[["load", "mean_wait"]].round(4).values.tolist()
    [[0.5, 0.4688], [0.8, 1.875]]
    """
    run = run_sweep(model, vary, {**(fixed or {}), **params}, simulate=simulate, store=store, dask_scheduler=dask_scheduler,
                    slots=slots, warmup=warmup, replications=replications, seed=seed, workers=workers,
                    progress=progress, lock_timeout=lock_timeout, target=target)
    df = to_frame(run.rows())
    df.attrs["sweep"] = {"model": run.plan.model.name, "mode": run.plan.mode, "points": len(run.records),
                         "computed": run.computed, "reused": run.reused,
                         "store": None if run.store is None else str(run.store),
                         "wall_seconds": run.wall_seconds}
    return df
