"""Simulated points for the web pages: queued, capped, one point at a time in a worker process that can be ended.

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
answers; and a process can be ended in the middle of a point, which a
kernel's loop cannot be asked to do. One long-lived process (``spawn``ed, so
it shares no thread state with the server, in a process group of its own so
that ending it ends whatever it started) keeps its compiled kernels warm
between requests; requests queue for it in order. Cancelling a running
request ends the worker (SIGTERM, then SIGKILL) within a fraction of a
second, marks the request cancelled and starts a fresh worker at once (its
kernels load from Numba's on-disk cache, so the next point waits a second or
two, not a compile); a cancelled point is not stored.

The work cap (:class:`Limits`, set by ``switchq serve`` options) is checked
before a request is queued: at most ``max_points`` points, ``max_replications``
replications and ``max_slots`` measured (and warm-up) time steps per point on a
slotted clock (``max_simulated`` simulated seconds on a clock of seconds), and at most ``queue`` requests
waiting. A request still running after ``max_seconds`` of wall time is
stopped as a cancel stops it (the points finished by then stay, and are stored).

Job ids are random (:func:`secrets.token_urlsafe`), so an id from before a
restart is unknown to the new server (a 404), never another request's.
"""

from __future__ import annotations

import atexit
import os
import secrets
import signal
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass, field

from switchq.errors import InputError

__all__ = ["Limits", "Job", "Jobs", "Busy", "Worker", "Stopped", "WorkerDied", "simulate_point", "report_progress"]

FINISHED = ("done", "cancelled", "failed")


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


class Stopped(RuntimeError):
    """A point was ended before it finished (cancelled, or over the wall-time cap): ``str(e)`` says why."""


class WorkerDied(RuntimeError):
    """The worker process ended on its own in the middle of a point."""


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
    # Per point (grid order): the twin runs overloaded by design (a saturation question), so its throughput is
    # the saturation throughput, and "unstable" is its set-up rather than a failure (pages.saturated_twin).
    saturated: list = field(default_factory=list)
    state: str = "queued"          # queued, running, done, cancelled, failed
    rows: list = field(default_factory=list)
    # Per point: the analytic answer's comparisons with the twin, each with the verdict engine's class (none where
    # the model declares no comparison).
    verdicts: list = field(default_factory=list)
    error: str | None = None
    stopped_because: str | None = None
    # Progress within the running point, as the runner reports it (report_progress): replications_done of
    # replications, and seconds_left (an estimate). None until the point's first replication is done.
    progress: dict | None = None
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


# --------------------------------------------------------------------------- the worker process

_REPORT = None       # in the worker process: sends ("progress", value) to the server while a point runs


def report_progress(value: dict) -> None:
    """Called in the worker while a point runs (by a runner that can say how far it is): ``value`` becomes the
    job's ``progress`` on the page. Does nothing outside a worker."""
    if _REPORT is not None:
        _REPORT(value)


def simulate_point(model: str, vary: dict, fixed: dict, run_kw: dict, index: int, store, workers: int) -> dict:
    """Point ``index`` of the sweep ``switchq sweep MODEL --simulate`` with these values, from the store or
    computed and stored: its row as ``--json`` prints it (runs in the worker process)."""
    import json

    from switchq.render import _clean
    from switchq.sweeps import plan_sweep, run_plan
    from switchq.sweeps.plan import Plan

    plan = plan_sweep(model, vary, fixed, simulate=True, check=False, **run_kw)
    one = Plan(plan.model, plan.mode, plan.axes, plan.fixed, [plan.points[index]], plan.settings)
    rows = run_plan(one, store=store, workers=workers, on_replication=_replication_progress()).rows()
    return json.loads(json.dumps(_clean(rows[0])))


def judged_point(model: str, vary: dict, fixed: dict, run_kw: dict, index: int, store, workers: int,
                 most_replications: int) -> dict:
    """:func:`simulate_point` and, where the model's analytic answer declares what its twin measures
    (:class:`switchq.declaration.Compare`), each comparison at these inputs judged by the verdict engine
    (:func:`switchq.validate.compare.judge_answer`, the rule every validate row follows): ``{"row", "verdicts"}``.
    An interval that does not decide is measured again on four times the point's replications, through the same
    store, when that fits the server's cap (``most_replications``); else the verdict says it could take no more."""
    from switchq.registry import answers
    from switchq.sweeps import plan_sweep
    from switchq.validate.compare import judge_answer
    from switchq.validate.verdict import MIN_BUDGET

    from .pages import saturated_twin

    row = simulate_point(model, vary, fixed, run_kw, index, store, workers)
    entry = answers().get(model)
    if entry is None or not entry[0].compares:
        return {"row": row, "verdicts": []}
    answer = entry[0]
    params = plan_sweep(model, vary, fixed, simulate=True, check=False, **run_kw).points[index].params
    base = int(row.get("replications") or run_kw.get("replications") or 0)
    affordable = base > 1 and MIN_BUDGET * base <= most_replications

    def again(n):
        return simulate_point(model, vary, fixed, {**run_kw, "replications": n}, index, store, workers)

    verdicts = judge_answer(answer, dict(params), row, overloaded=saturated_twin(model, params),
                            remake=again if affordable else None)
    return {"row": row, "verdicts": verdicts}


def _replication_progress():
    """``on_replication(done, total)`` for a point run here: reports the replications done and an estimate of the
    seconds left (the mean time of those done so far, per replication still to come; the first includes loading
    the kernel, so the estimate starts high)."""
    started = time.perf_counter()

    def on_replication(done: int, total: int) -> None:
        elapsed = time.perf_counter() - started
        report_progress({"replications_done": done, "replications": total,
                         "seconds_left": round(elapsed / done * (total - done), 1)})

    return on_replication


def _warm() -> None:
    """Imports of the worker process, paid when it starts rather than by the first request."""
    import switchq.sweeps  # noqa: F401
    import switchq.validate.harness  # noqa: F401


def _worker_main(conn, parent: int) -> None:
    """The worker's loop: ``(function, args)`` in, ``("ok", result)`` or ``("error", exception)`` out."""
    global _REPORT
    from switchq.sweeps.executors import _die_with_parent

    try:
        os.setpgrp()          # its own process group: ending it ends the processes it starts (--workers > 1)
    except OSError:
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C is the server's to handle; it ends the worker
    _die_with_parent(parent)
    _REPORT = lambda value: conn.send(("progress", value))  # noqa: E731
    _warm()
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        function, args = message
        try:
            out = ("ok", function(*args))
        except BaseException as e:  # noqa: BLE001 - every failure goes back to the server, in one piece
            out = ("error", e)
        try:
            conn.send(out)
        except Exception as e:  # an exception that does not pickle: its one line instead
            conn.send(("error", RuntimeError(f"{type(out[1]).__name__}: {out[1]}" if out[0] == "error" else e)))


class Worker:
    """One spawned worker process: runs one call at a time, and can be ended in the middle of one."""

    def __init__(self):
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child, os.getpid()), name="switchq-simulations")
        self.process.start()
        child.close()
        atexit.register(self.end)     # before multiprocessing's own exit handler would wait for it

    def call(self, function, args: tuple, stop=lambda: None, progress=lambda value: None, poll: float = 0.05):
        """``function(*args)`` in the worker. ``stop()`` is asked every ``poll`` seconds: a reason (text) ends
        the worker and raises :class:`Stopped`. ``progress(value)`` gets what the point reports."""
        try:
            self._conn.send((function, args))
        except (OSError, ValueError):
            raise WorkerDied("the simulation worker process had ended") from None
        while True:
            try:
                ready = self._conn.poll(poll)
            except (OSError, ValueError, EOFError):
                raise WorkerDied("the simulation worker process ended") from None
            if ready:
                try:
                    kind, value = self._conn.recv()
                except (EOFError, OSError, ValueError):
                    raise WorkerDied("the simulation worker process ended during a point") from None
                if kind == "progress":
                    progress(value)
                    continue
                if kind == "ok":
                    return value
                raise value
            why = stop()
            if why:
                self.end()
                raise Stopped(why)
            if not self.process.is_alive():
                raise WorkerDied(f"the simulation worker process ended (exit code {self.process.exitcode})")

    def alive(self) -> bool:
        return self.process.is_alive()

    def end(self, grace: float = 1.0) -> None:
        """End the worker and every process it started: SIGTERM, then SIGKILL after ``grace`` seconds."""
        atexit.unregister(self.end)
        p = self.process
        if p.pid is not None and p.is_alive():
            self._signal(signal.SIGTERM)
            p.join(grace)
            if p.is_alive():
                self._signal(signal.SIGKILL)
                p.join(grace)
        elif p.pid is not None:
            self._signal(signal.SIGKILL)   # whatever it started may still run
        try:
            self._conn.close()
        except OSError:
            pass

    def _signal(self, sig) -> None:
        pid = self.process.pid
        try:
            if os.getpgid(pid) == pid:     # its own group: the worker and the processes it started
                os.killpg(pid, sig)
                return
        except (ProcessLookupError, PermissionError, OSError):
            pass
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError, OSError):
            pass


# --------------------------------------------------------------------------- requests

def run_values(m, run: dict) -> dict:
    """``run_sweep``'s keywords (slots, warmup, replications, seed) from the run option texts of a page, each
    read by its Param as ``switchq sweep`` reads it (a seed as text: it may not fit a double)."""
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
        self._worker: Worker | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name="switchq-simulations", daemon=True)
        self._thread.start()

    # ----------------------------------------------------------------- requests

    def plan(self, name: str, vary: dict, fixed: dict, run: dict):
        """Plan and check a whole request and hold it to the cap: ``(vary, fixed, run, run_kw, plan)`` as
        cleaned, or InputError (one line) naming what is refused."""
        from switchq.sweeps import plan_sweep

        from .answers import clean_given
        from .pages import model

        m = model(name)
        if m.build is None:
            raise InputError("model", name, "a model with a simulated twin (this one is analytic only)")
        vary, fixed, run = clean_given(vary), clean_given(fixed), clean_given(run)
        run_kw = run_values(m, run)
        over = self.over_cap(m, run_kw)
        if over:
            raise over[0]
        lim = self.limits
        plan = plan_sweep(name, vary, fixed, simulate=True, check=True, **run_kw)
        sized = self.sized_run(m, plan, run, run_kw)
        if sized is not None:          # slots left blank: the run sized to what the question needs, within the cap
            run = sized
            run_kw = run_values(m, run)
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
        return vary, fixed, run, run_kw, plan

    # A run sized to the question aims at this many of what it measures (pauses), within the cap.
    SIZED_EVENTS = 4

    def sized_run(self, m, plan, run: dict, run_kw: dict) -> dict | None:
        """The run option texts with the slots (and warm-up) a run left blank needs, where the declaring module
        says what a run needs (``run_timeline(system, workload)``: the PFC twin's pauses): enough for
        ``SIZED_EVENTS`` of them within the cap, at least the default; None when the slots were given or the
        model does not say. Refused (InputError naming the slots one needs) when not even one fits the cap."""
        import importlib

        from switchq.sweeps.plan import build_point

        timeline = getattr(importlib.import_module(m.declaration.build.__module__), "run_timeline", None)
        if timeline is None or not m.declaration.slotted or "slots" in run_kw:
            return None
        length, warm = m.declaration.clock.params[:2]        # --slots (or --cycles) and --warmup, by name
        option = length.option
        most = self.limits.max_slots
        wanted = plan.settings["slots"]
        warmups = []
        for pt in plan.points:
            t = timeline(*build_point(m, pt.params))
            warmup = run_kw["warmup"] if "warmup" in run_kw else min(plan.settings["warmup_slots"], t.first_start)
            warmups.append(warmup)
            one = t.slots(1, warmup)
            if one > most:
                raise InputError(option, one, f"at most {most} per point on this server (switchq serve --max-slots): "
                                              f"{t.needs(most, warmup)}; or run it with switchq simulate")
            wanted = max(wanted, min(most, t.slots(self.SIZED_EVENTS, warmup)))
        sized = {**run, length.name: str(wanted)}
        if "warmup" not in run_kw:
            sized[warm.name] = str(min(warmups))
        return sized

    def over_cap(self, m, run_kw: dict) -> list:
        """The run options given over this server's cap, each an InputError (read before the sweep is planned, so
        a page shows them beside their fields together with any other refusal)."""
        lim, out = self.limits, []
        if run_kw.get("replications", 8) > lim.max_replications:
            out.append(InputError("--replications", run_kw["replications"],
                                  f"at most {lim.max_replications} on this server (switchq serve --max-replications)"))
        if m.declaration.slotted:
            for key, option in (("slots", m.declaration.clock.params[0].option), ("warmup", "--warmup")):
                if (run_kw.get(key) or 0) > lim.max_slots:
                    out.append(InputError(option, run_kw[key], f"at most {lim.max_slots} per point on this server "
                                                               "(switchq serve --max-slots)"))
        return out

    def submit(self, name: str, vary: dict, fixed: dict, run: dict) -> Job:
        """Plan and check the whole request, hold it to the cap, and queue it (InputError, or Busy)."""
        from .pages import command_line, python_call, saturated_twin

        vary, fixed, run, run_kw, plan = self.plan(name, vary, fixed, run)
        with self._lock:
            if len(self._waiting) >= self.limits.queue:
                raise Busy(f"simulations: got a request with {len(self._waiting)} waiting; allowed: at most "
                           f"{self.limits.queue} waiting (switchq serve --queue); try again when one has finished")
            job = Job(self._new_id(), name, vary, fixed, run, run_kw, len(plan.points),
                      command_line(name, fixed, vary, True, run), python_call(name, fixed, vary, True, run, self.store),
                      saturated=[saturated_twin(name, pt.params) for pt in plan.points])
            self._jobs[job.id] = job
            self._waiting.append(job)
            self._lock.notify_all()
        return job

    def _new_id(self) -> str:
        while True:
            job_id = secrets.token_urlsafe(12)     # 96 random bits: unique across restarts, not guessable
            if job_id not in self._jobs:
                return job_id

    def get(self, job_id: str) -> Job:
        job = self._jobs.get(job_id)
        if job is None:
            raise KeyError(job_id)
        return job

    def view(self, job_id: str) -> dict:
        with self._lock:
            job = self.get(job_id)
            position = next((i + 1 for i, j in enumerate(self._waiting) if j is job), None)
            return job.view(position)

    def cancel(self, job_id: str, wait: float = 2.0) -> dict:
        """Stop a request: at once if it waits; if it runs, its worker is ended and this returns once the request
        reads ``cancelled`` (or after ``wait`` seconds)."""
        with self._lock:
            job = self.get(job_id)
            job.cancel = True
            if job in self._waiting:
                self._waiting.remove(job)
                job.state, job.stopped_because, job.finished = "cancelled", "cancelled", time.time()
            deadline = time.time() + wait
            while job.state == "running" and time.time() < deadline:
                self._lock.wait(max(0.0, deadline - time.time()))
        return self.view(job_id)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            worker, self._worker = self._worker, None
            self._lock.notify_all()
        if worker is not None:
            worker.end()

    # ----------------------------------------------------------------- the worker

    def start_worker(self) -> None:
        """Start the worker process now (its imports paid before the first request)."""
        self._ensure_worker()

    def _ensure_worker(self) -> Worker:
        with self._lock:
            if self._closed:
                raise WorkerDied("the server is stopping")
            if self._worker is None or not self._worker.alive():
                if self._worker is not None:
                    self._worker.end()
                self._worker = Worker()
            return self._worker

    def _loop(self) -> None:
        while True:
            with self._lock:
                while not self._waiting and not self._closed:
                    self._lock.wait()
                if self._closed:
                    return
                job = self._waiting.popleft()
                job.state, job.started = "running", time.time()
            self._run(job)
            with self._lock:
                job.finished = time.time()
                self._lock.notify_all()

    def _stop_reason(self, job: Job) -> str | None:
        if job.cancel:
            return "cancelled"
        if time.time() - job.started > self.limits.max_seconds:
            return (f"over this server's {self.limits.max_seconds:g} s of wall time per request (switchq serve "
                    "--max-seconds)")
        return None

    def _run(self, job: Job) -> None:
        try:
            for index in range(job.total):
                why = self._stop_reason(job)
                if why:
                    raise Stopped(why)
                worker = self._ensure_worker()
                job.progress = None
                out = worker.call(judged_point, (job.model, job.vary, job.fixed, job.run_kw, index, self.store,
                                                 self.workers, self.limits.max_replications),
                                  stop=lambda: self._stop_reason(job), progress=lambda p: setattr(job, "progress", p))
                with self._lock:
                    job.rows.append(out["row"])
                    job.verdicts.append(out["verdicts"])
            job.state = "done"
        except Stopped as e:
            job.state, job.stopped_because = "cancelled", str(e)
            if self._worker is not None and not self._worker.alive() and not self._closed:
                try:
                    self._ensure_worker()      # the next request finds a fresh worker, its imports already paid
                except WorkerDied:
                    pass
        except InputError as e:
            job.state, job.error = "failed", str(e)
        except WorkerDied as e:
            job.state, job.error = "failed", f"{e}; the next request starts a new one"
        except Exception as e:  # a bug, reported in one line rather than a traceback to the page
            job.state, job.error = "failed", f"{type(e).__name__}: {e}"
        job.progress = None
