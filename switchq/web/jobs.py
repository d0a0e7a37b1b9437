"""Simulated points for the web pages: queued, capped, one point at a time in a warm worker process.

A request to simulate is a sweep (``switchq sweep NAME --simulate``): it is
planned and checked whole by the sweep engine (:func:`switchq.sweeps.plan_sweep`),
so every point has the seed and store key ``switchq sweep`` gives it, and then
run point by point through :func:`switchq.sweeps.run_plan` with the server's
store: a point already stored (by the CLI or an earlier request) comes back at
once, each new one is stored the moment it finishes, and a cancelled or
interrupted request resumes where it stopped. Points are returned as they
finish, so a page draws each as it arrives.

Why a worker process: a Numba kernel holds the interpreter lock while it
runs, so simulating in the server's process would stall the analytic
answers. One long-lived process (``spawn``ed, so it shares no thread state
with the server) keeps its compiled kernels warm between requests; requests
queue for it in order.

The work cap (:class:`Limits`, set by ``switchq serve`` options) is checked
before a request is queued: at most ``max_points`` points, ``max_replications``
replications and ``max_slots`` measured (and warm-up) time steps per point on a
slotted clock (``max_simulated`` simulated seconds on a clock of seconds), and at most ``queue`` requests
waiting. A request that runs past
``max_seconds`` of wall time stops after its current point (as a cancel does:
a point in progress always finishes, and is stored).
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass, field

from switchq.errors import InputError

__all__ = ["Limits", "Job", "Jobs", "Busy", "simulate_point"]


@dataclass(frozen=True)
class Limits:
    """The per-request work cap of simulations, and how many requests may wait."""

    max_points: int = 25
    max_replications: int = 32
    max_slots: int = 200_000
    max_simulated: float = 2.0       # simulated seconds (and warm-up) per point, on a clock of simulated seconds
    max_seconds: float = 300.0
    queue: int = 8


class Busy(RuntimeError):
    """The queue of simulation requests is full (HTTP 429)."""


@dataclass
class Job:
    """One simulation request: its sweep, its state and the rows finished so far (in grid order)."""

    id: str
    model: str
    vary: dict
    fixed: dict
    run: dict
    run_kw: dict
    total: int
    command: str
    python: str
    state: str = "queued"          # queued, running, done, cancelled, failed
    rows: list = field(default_factory=list)
    error: str | None = None
    stopped_because: str | None = None
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    cancel: bool = False

    def view(self, position: int | None = None) -> dict:
        out = {k: v for k, v in asdict(self).items() if k not in ("run_kw", "cancel")}
        out["done"] = len(self.rows)
        out["position"] = position
        end = self.finished or time.time()
        out["wall_seconds"] = None if self.started is None else end - self.started
        return out


def simulate_point(model: str, vary: dict, fixed: dict, run_kw: dict, index: int, store, workers: int) -> dict:
    """Point ``index`` of the sweep ``switchq sweep MODEL --simulate`` with these values, from the store or
    computed and stored: its row as ``--json`` prints it (runs in the worker process)."""
    import json

    from switchq.render import _clean
    from switchq.sweeps import plan_sweep, run_plan
    from switchq.sweeps.plan import Plan

    plan = plan_sweep(model, vary, fixed, simulate=True, check=False, **run_kw)
    one = Plan(plan.model, plan.mode, plan.axes, plan.fixed, [plan.points[index]], plan.settings)
    rows = run_plan(one, store=store, workers=workers).rows()
    return json.loads(json.dumps(_clean(rows[0])))


def _warm() -> None:
    """Imports of the worker process, paid when the server starts rather than by the first request."""
    import switchq.sweeps  # noqa: F401
    import switchq.validate.harness  # noqa: F401


def run_values(m, run: dict) -> dict:
    """``run_sweep``'s keywords (slots, warmup, replications, seed) from the run option texts of a page, each
    read by its Param as ``switchq sweep`` reads it."""
    from switchq.cli_sweep import SWEEP_KEYWORDS

    from .pages import run_options

    opts = {p.name: p for p in run_options(m)}
    out = {}
    for k, text in run.items():
        p = opts.get(k)
        if p is None:
            raise InputError("run option", k, "one of " + ", ".join(opts) + " (the server sets --workers; "
                                                                             "precision targets are not offered)")
        out[SWEEP_KEYWORDS[p.target]] = p.parse(text, p.option)
    return out


class Jobs:
    """The queue of simulation requests and the one thread that feeds the worker process."""

    def __init__(self, store, limits: Limits = Limits(), workers: int = 1):
        self.store = None if store is None else str(store)
        self.limits = limits
        self.workers = workers
        self._jobs: dict = {}
        self._waiting: deque = deque()
        self._lock = threading.Condition()
        self._ids = itertools.count(1)
        self._pool = None
        self._thread = threading.Thread(target=self._loop, name="switchq-simulations", daemon=True)
        self._thread.start()

    # ----------------------------------------------------------------- requests

    def submit(self, name: str, vary: dict, fixed: dict, run: dict) -> Job:
        """Plan and check the whole request, hold it to the cap, and queue it (InputError, or Busy)."""
        from switchq.sweeps import plan_sweep

        from .answers import clean_given
        from .pages import command_line, model, python_call

        m = model(name)
        if m.build is None:
            raise InputError("model", name, "a model with a simulated twin (this one is analytic only)")
        vary, fixed, run = clean_given(vary), clean_given(fixed), clean_given(run)
        run_kw = run_values(m, run)
        lim = self.limits
        if run_kw.get("replications", 8) > lim.max_replications:
            raise InputError("--replications", run_kw["replications"],
                             f"at most {lim.max_replications} on this server (switchq serve --max-replications)")
        plan = plan_sweep(name, vary, fixed, simulate=True, check=True, **run_kw)
        if "slots" in plan.settings:
            for key, option in (("slots", m.declaration.clock.params[0].option), ("warmup_slots", "--warmup")):
                if plan.settings[key] > lim.max_slots:
                    raise InputError(option, plan.settings[key],
                                     f"at most {lim.max_slots} per point on this server (switchq serve --max-slots)")
        for pt in plan.points:    # a clock of simulated seconds: the point's own length (and warm-up)
            for key in ("seconds", "warmup_seconds"):
                if (pt.params.get(key) or 0.0) > lim.max_simulated:
                    raise InputError("--" + key.replace("_", "-"), pt.params[key],
                                     f"at most {lim.max_simulated:g} s per point on this server (switchq serve "
                                     "--max-simulated)")
        if len(plan.points) > lim.max_points:
            raise InputError("--vary", f"{len(plan.points)} points",
                             f"at most {lim.max_points} points per request on this server (switchq serve "
                             "--max-points)")
        with self._lock:
            if len(self._waiting) >= lim.queue:
                raise Busy(f"simulations: got a request with {len(self._waiting)} waiting; allowed: at most "
                           f"{lim.queue} waiting (switchq serve --queue); try again when one has finished")
            job = Job(str(next(self._ids)), name, vary, fixed, run, run_kw, len(plan.points),
                      command_line(name, fixed, vary, True, run), python_call(name, fixed, vary, True, run, self.store))
            self._jobs[job.id] = job
            self._waiting.append(job)
            self._lock.notify_all()
        return job

    def get(self, job_id: str) -> Job:
        job = self._jobs.get(job_id)
        if job is None:
            raise KeyError(job_id)
        return job

    def view(self, job_id: str) -> dict:
        with self._lock:
            job = self.get(job_id)
            position = next((i for i, j in enumerate(self._waiting) if j is job), None)
            return job.view(position)

    def cancel(self, job_id: str) -> dict:
        """Stop a request: at once if it waits, after its current point if it runs."""
        with self._lock:
            job = self.get(job_id)
            job.cancel = True
            if job in self._waiting:
                self._waiting.remove(job)
                job.state, job.stopped_because, job.finished = "cancelled", "cancelled", time.time()
        return self.view(job_id)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    # ----------------------------------------------------------------- the worker

    def start_worker(self) -> None:
        """Start the worker process now (its imports paid before the first request)."""
        self._executor().submit(_warm)

    def _executor(self):
        if self._pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            from switchq.sweeps.executors import _die_with_parent

            # The worker ends with the server, however the server ends (Ctrl-C, a signal, kill -9).
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_die_with_parent, initargs=(os.getpid(),))
        return self._pool

    def _loop(self) -> None:
        while True:
            with self._lock:
                while not self._waiting:
                    self._lock.wait()
                job = self._waiting.popleft()
                job.state, job.started = "running", time.time()
            self._run(job)

    def _run(self, job: Job) -> None:
        from concurrent.futures.process import BrokenProcessPool

        try:
            for index in range(job.total):
                if job.cancel:
                    job.state, job.stopped_because = "cancelled", "cancelled"
                    break
                if time.time() - job.started > self.limits.max_seconds:
                    job.state = "cancelled"
                    job.stopped_because = (f"over this server's {self.limits.max_seconds:g} s of wall time per "
                                           "request (switchq serve --max-seconds)")
                    break
                future = self._executor().submit(simulate_point, job.model, job.vary, job.fixed, job.run_kw, index,
                                                 self.store, self.workers)
                row = future.result()
                with self._lock:
                    job.rows.append(row)
            else:
                job.state = "done"
        except InputError as e:
            job.state, job.error = "failed", str(e)
        except BrokenProcessPool:
            self._pool = None
            job.state, job.error = "failed", "the simulation worker process died; the next request starts a new one"
        except Exception as e:  # a bug, reported in one line rather than a traceback to the page
            job.state, job.error = "failed", f"{type(e).__name__}: {e}"
        job.finished = time.time()
