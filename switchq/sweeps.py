"""Design-space sweeps: any registered model, analytic or simulated, over a grid of parameters.

``switchq sweep MODEL --vary NAME=VALUES ...`` and :func:`sweep` (also
``switchq.sweep(...)``) share this engine:

1. **Plan**, before any work: the grid is parsed, every value checked
   against its parameter, and every point's model built (simulated) or
   checked (analytic), so a bad grid fails with one line and nothing is
   computed or stored.
2. **Reuse**: points already in the result store (:mod:`switchq.store`)
   under the same model, mode, parameters, seed and run settings are read,
   not computed.
3. **Run** the rest: analytic points in this process (microseconds to
   milliseconds each); simulated points over local processes (joblib/loky,
   ``workers``; replications spread inside a point when there are fewer
   points than workers), or on a Dask cluster (``scheduler``). Each point is
   committed to the store by this process as soon as it finishes, in any
   order.

Grid syntax (``VALUES``), pieces joined by commas, e.g. ``load=0.1:0.9:0.1,0.95``:

=================  ===============================================================
``V1,V2,...``      a list; choices (``pim,islip``), ``none`` for an optional
                   parameter, ``true``/``false`` for a flag, quantities with
                   units (``cable=10m,20m``)
``A:B``            integers A..B (step 1), integer parameters only
``A:B:STEP``       A, A+STEP, ... up to B (B included when it is on the grid);
                   quantities take units on all three (``cable=10m:100m:10m``)
``A:B:*F``         geometric: A, A*F, A*F^2, ... up to B (``ports=4:64:*2``)
``A..B:N``         N values log-spaced from A to B, both included (``1e-3..1:4``)
=================  ===============================================================

Integer parameters round geometric and log values to the nearest integer
(duplicates dropped). Values are canonical (``16.0`` for an integer is 16,
``1`` for a number is 1.0, ``64B`` for a cell is 512 bits), so the same
point is always the same store key.

Seeds: a simulated point's seed is a function of (root seed, model, the
point's parameters) through NumPy's ``SeedSequence``, and its replications'
seeds are spawned from it as in ``switchq simulate``; results therefore do
not depend on the order points run in, on the number of workers, or on Dask
vs local processes, and ``switchq simulate ... --seed <its seed>`` with the
same ``--slots``/``--warmup``/``--replications`` reproduces a point.

Examples
--------
>>> rows = run_sweep("hol", {"ports": "2:4"}, store=None).rows()
>>> [(r["ports"], r["exact"]) for r in rows]
[(2, '3/4'), (3, '43/63'), (4, '325/496')]
>>> values(get_model("oq").param("load"), "0.1:0.3:0.1,0.5", "--vary load")
[0.1, 0.2, 0.3, 0.5]
>>> values(get_model("hol").param("ports"), "4:64:*2", "--vary ports")
[4, 8, 16, 32, 64]
>>> values(get_model("oq").param("load"), "1e-3..1e-1:3", "--vary load")
[0.001, 0.01, 0.1]
>>> values(get_model("oq").param("load"), "0.5:0.1:0.1", "--vary load")
Traceback (most recent call last):
...
switchq.errors.InputError: --vary load: got '0.5:0.1:0.1'; allowed: a non-empty range: START:STOP:STEP with STEP > 0 going from START up to STOP (or STEP < 0 going down)
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError
from .registry import Model, Param
from .registry import get as get_model
from .store import DEFAULT_TIMEOUT, Store, canonical_json, default_path, dumps, point_key

__all__ = ["sweep", "run_sweep", "plan_sweep", "values", "point_seed", "SweepRun", "Plan", "Point",
           "check_points", "flatten", "write_csv", "write_parquet", "write_plot", "to_frame", "results_rows", "sweep_bench",
           "SweepInterrupted", "MAX_POINTS", "VARY_SYNTAX"]

MAX_POINTS = 1_000_000      # a grid beyond this is a typo, not a sweep
_DEFAULT = object()         # "use the default store"
_TEXT_RESULTS = ("method", "source", "formula", "note", "exact", "latency_per")

VARY_SYNTAX = """\
--vary NAME=VALUES, repeatable; VALUES is pieces joined by commas:
  V1,V2,...   list (choices, none, true/false, quantities with units: cable=10m,20m)
  A:B         integers A..B, step 1
  A:B:STEP    linear, B included when on the grid (load=0.1:1.0:0.05)
  A:B:*F      geometric, factor F (ports=4:64:*2)
  A..B:N      N log-spaced values, A and B included (load=1e-3..1:10)"""


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep: ``done`` of ``total`` points are in the store (``store``)."""

    def __init__(self, done: int, total: int, store):
        super().__init__(f"{done} of {total} points stored")
        self.done, self.total, self.store = done, total, store


# --------------------------------------------------------------------------- grid

def _sig(x: float) -> float:
    # Twelve significant digits: 0.1 + 3 * 0.05 is 0.25, not 0.25000000000000006.
    return float(f"{x:.12g}")


def _range_number(param: Param, text: str, where: str, whole: str):
    """One end or step of a range: a number, or a quantity with its unit."""
    if param.kind in ("int", "float"):
        try:
            v = float(text)
        except ValueError:
            raise InputError(where, whole, f"a range of numbers ({text!r} is not one)") from None
        if not math.isfinite(v):
            raise InputError(where, whole, f"a range of finite numbers ({text!r} is not one)")
        return v
    from .units import parse_quantity

    return parse_quantity(text, param.kind, where)


_EMPTY = "a non-empty range: START:STOP:STEP with STEP > 0 going from START up to STOP (or STEP < 0 going down)"


def _expand(param: Param, piece: str, where: str) -> list:
    if not param.numeric:
        raise InputError(where, piece, f"a list for {param.name} ({param.allowed()}); ranges are for numbers")
    if ".." in piece:
        ends, _, count = piece.partition(":")
        a_text, _, b_text = ends.partition("..")
        try:
            n = int(count)
        except ValueError:
            raise InputError(where, piece, "A..B:N, N log-spaced values (N a whole number >= 1)") from None
        a, b = _range_number(param, a_text, where, piece), _range_number(param, b_text, where, piece)
        if n < 1 or a <= 0 or b <= 0:
            raise InputError(where, piece, "A..B:N with A, B > 0 and N >= 1")
        if n > MAX_POINTS:
            raise InputError(where, piece, f"at most {MAX_POINTS} values")
        if n == 1:
            return [a]
        ratio = math.log(b / a)
        raw = [a * math.exp(ratio * i / (n - 1)) for i in range(n)]
        raw[-1] = b
    else:
        parts = piece.split(":")
        if len(parts) == 2:
            if param.kind != "int":
                raise InputError(where, piece, f"START:STOP:STEP (a step is needed for {param.name}; A:B "
                                               "counts in ones for integer parameters only)")
            parts.append("1")
        if len(parts) != 3:
            raise InputError(where, piece, "START:STOP, START:STOP:STEP, START:STOP:*FACTOR or START..STOP:N")
        a, b = _range_number(param, parts[0], where, piece), _range_number(param, parts[1], where, piece)
        if parts[2].startswith("*"):
            try:
                f = float(parts[2][1:])
            except ValueError:
                raise InputError(where, piece, "START:STOP:*FACTOR with FACTOR a number") from None
            if not (math.isfinite(f) and f > 0 and f != 1 and a > 0 and b > 0):
                raise InputError(where, piece, "START:STOP:*FACTOR with START, STOP > 0 and FACTOR > 0, != 1")
            count = math.log(b / a) / math.log(f)
            if count < -1e-9:
                raise InputError(where, piece, "a non-empty range: FACTOR > 1 going up from START to STOP "
                                               "(FACTOR < 1 going down)")
            n = math.floor(count + 1e-9) + 1
            if n > MAX_POINTS:
                raise InputError(where, piece, f"at most {MAX_POINTS} values")
            raw = [a * f ** i for i in range(n)]
        else:
            step = _range_number(param, parts[2], where, piece)
            if step == 0:
                raise InputError(where, piece, "START:STOP:STEP with STEP != 0")
            count = (b - a) / step
            if count < -1e-9:
                raise InputError(where, piece, _EMPTY)
            n = math.floor(count + 1e-9) + 1
            if n > MAX_POINTS:
                raise InputError(where, piece, f"at most {MAX_POINTS} values")
            raw = [a + i * step for i in range(n)]
    if param.kind == "int":
        return [int(round(x)) for x in raw]
    return [_sig(x) for x in raw]


def values(param: Param, spec, where: str) -> list:
    """Canonical, checked, de-duplicated values of ``param`` from a grid spec (text or a Python sequence)."""
    if isinstance(spec, str):
        pieces = [s.strip() for s in spec.split(",")]
        if not spec.strip() or any(not s for s in pieces):
            raise InputError(where, spec, "one or more values: V1,V2,..., A:B:STEP, A:B:*F or A..B:N")
        raw = []
        for piece in pieces:
            is_range = param.numeric and (":" in piece or ".." in piece)
            if is_range:
                raw.extend((v, piece) for v in _expand(param, piece, where))
            else:
                raw.append((piece, piece))
    else:
        try:
            raw = [(v, v) for v in spec]
        except TypeError:
            raw = [(spec, spec)]
        if not raw:
            raise InputError(where, list(spec), "one or more values")
    out, seen = [], set()
    for v, text in raw:
        try:
            value = param.parse(v, where)
        except InputError as e:
            raise InputError(where, e.value if e.value is not None else text, e.allowed) from None
        marker = json.dumps(value)
        if marker not in seen:
            seen.add(marker)
            out.append(value)
    return out


# --------------------------------------------------------------------------- plan

@dataclass
class Point:
    """One grid point: its canonical parameters, store key and (simulated) seed."""

    params: dict
    key: str
    seed: int | None = None
    params_json: str = ""
    precomputed: tuple | None = None   # (results, wall) when checking it meant computing it


@dataclass
class Plan:
    """A checked sweep, ready to run: nothing has been computed or stored yet."""

    model: Model
    mode: str
    axes: list            # [(Param, values)] in --vary order
    fixed: dict           # name -> value, given or default
    points: list
    settings: dict        # simulated: slots, warmup_slots, replications, root_seed; analytic: {}

    @property
    def varied(self) -> list:
        return [p.name for p, _ in self.axes]

    def fixed_text(self) -> str:
        """The fixed parameters that are not at their default, as ``name=value, ...``."""
        out = []
        for k, v in self.fixed.items():
            p = self.model.param(k)
            if p.required or v != p.default:
                unit = f" {p.unit}" if p.kind not in ("int", "float", "choice", "flag") and v is not None else ""
                out.append(f"{k}={_fmt(v)}{unit}")
        return ", ".join(out)


def point_seed(root_seed: int, model: str, params) -> int:
    """Seed of one simulated point: SeedSequence(root seed, SHA-256 of the model and its parameters).

    Independent of the order points run in and of where they run. ``params`` may be its
    :func:`~switchq.store.canonical_json` text.

    Examples
    --------
    >>> point_seed(1, "fifo", {"load": 0.5, "ports": 8}) == point_seed(1, "fifo", {"ports": 8, "load": 0.5})
    True
    >>> point_seed(1, "fifo", {"ports": 8, "load": 0.5}) != point_seed(2, "fifo", {"ports": 8, "load": 0.5})
    True
    """
    import numpy as np

    params = params if isinstance(params, str) else canonical_json(params)
    digest = hashlib.sha256(f"[{canonical_json(model)},{params}]".encode()).digest()
    words = [int.from_bytes(digest[i:i + 4], "little") for i in range(0, len(digest), 4)]
    state = np.random.SeedSequence([int(root_seed), *words]).generate_state(1, np.uint64)
    return int(state[0]) >> 1   # 63 bits: RunSettings takes seeds in [0, 2**63 - 1]


def _fmt(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if v is None:
        return "none"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _mode_text(mode):
    return "only with --simulate" if mode == "simulated" else "only without --simulate"


def _unused(model: Model, p: Param, mode: str, where: str, text):
    why = {"analytic": f"the analytic {model.name} answer does not depend on it",
           "simulated": f"the simulated {model.name} does not use it"}[mode]
    return InputError(where, text, f"{_mode_text(p.modes[0]) if len(p.modes) == 1 else 'not in this mode'} ({why})")


def _as_pairs(vary) -> list:
    if vary is None:
        return []
    if isinstance(vary, dict):
        return list(vary.items())
    if isinstance(vary, str):
        vary = [vary]
    pairs = []
    for spec in vary:
        if isinstance(spec, (tuple, list)) and len(spec) == 2:
            pairs.append(tuple(spec))
            continue
        name, sep, text = str(spec).partition("=")
        if not sep or not name.strip():
            raise InputError("--vary", spec, "NAME=VALUES, e.g. ports=4,8,16 or load=0.1:0.9:0.1")
        pairs.append((name.strip(), text))
    return pairs


def plan_sweep(model_name: str, vary=None, fixed: dict | None = None, simulate: bool = False,
               slots: int | None = None, warmup: int | None = None, replications: int | None = None,
               seed: int | None = None, check: bool = True) -> Plan:
    """Parse and check a whole sweep; raise InputError (one line) before any work if anything is wrong.

    ``vary``: ``{"ports": "4,8,16", "load": [0.5, 0.8]}`` or ``["ports=4,8,16", ...]``; ``fixed``:
    ``{"buffer": 4}`` (values or their text). Simulation settings left None take ``switchq simulate``'s
    defaults; given without ``simulate`` they are an error. ``check=False`` leaves the model-level
    check of each point to :func:`check_points` (values are always checked).
    """
    model = get_model(model_name)
    if simulate and model.build is None:
        raise InputError("--simulate", True, f"a model with a simulated twin ({model.name} is analytic only: "
                                             + ", ".join(m.name for m in _models() if m.build) + ")")
    mode = "simulated" if (simulate or model.analytic is None) else "analytic"
    run = {"slots": slots, "warmup": warmup, "replications": replications, "seed": seed}
    if mode == "analytic":
        for name, v in run.items():
            if v is not None:
                raise InputError(f"--{name}", v, "only with --simulate (analytic points are not simulated)")
    axes, used = [], set()
    for name, text in _as_pairs(vary):
        p = model.param(name)
        where = f"--vary {p.name}"
        if p.name in used:
            raise InputError(where, text, f"one --vary per parameter ({p.name} is varied twice)")
        if mode not in p.modes:
            raise _unused(model, p, mode, where, text)
        used.add(p.name)
        axes.append((p, values(p, text, where)))
    given = {}
    for name, text in (fixed or {}).items():
        p = model.param(name)
        if p.name in used:
            raise InputError(p.option, text, f"either {p.option} or --vary {p.name}, not both")
        if mode not in p.modes:
            raise _unused(model, p, mode, p.option, text)
        given[p.name] = p.parse(text, p.option)
    base = {}
    for p in model.params_for(mode):
        if p.name in given:
            base[p.name] = given[p.name]
        elif p.name not in used:
            if p.required:
                raise InputError(p.option, None, f"{p.allowed()} (required: give {p.option} or --vary "
                                                 f"{p.name}=VALUES)")
            base[p.name] = p.default
    total = math.prod(len(v) for _, v in axes) if axes else 1
    if total > MAX_POINTS:
        raise InputError("--vary", " ".join(f"{p.name}=<{len(v)} values>" for p, v in axes),
                         f"at most {MAX_POINTS:,} points in all (this grid has {total:,})")
    settings = {}
    if mode == "simulated":
        from .validate.harness import RunSettings

        s = RunSettings(slots=50_000 if slots is None else slots, warmup_slots=warmup,
                        replications=8 if replications is None else replications, seed=1 if seed is None else seed)
        settings = {"slots": s.slots, "warmup_slots": s.warmup_slots, "replications": s.replications,
                    "root_seed": s.seed}
    order = [p.name for p in model.params_for(mode)]
    settings_json = canonical_json(settings)
    points = []
    names = [p.name for p, _ in axes]
    for combo in itertools.product(*(v for _, v in axes)):
        params = dict(base)
        params.update(zip(names, combo))
        params = {k: params[k] for k in order}
        params_json = canonical_json(params)
        pt_seed = point_seed(settings["root_seed"], model.name, params_json) if mode == "simulated" else None
        points.append(Point(params, point_key(model.name, mode, params_json, pt_seed, settings_json), pt_seed,
                            params_json))
    plan = Plan(model, mode, axes, {k: base[k] for k in order if k in base}, points, settings)
    if check:
        check_points(plan)
    return plan


def check_points(plan: Plan, skip=()) -> None:
    """Check every point's model (build it, or run the analytic check) except the keys in ``skip``."""
    names = plan.varied
    for point in plan.points:
        if point.key not in skip:
            _check_point(plan.model, plan.mode, point, names)


def _models():
    from .registry import MODELS

    return MODELS.values()


def _check_point(model: Model, mode: str, point: Point, varied: list) -> None:
    try:
        if mode == "simulated":
            _build(model, point.params)
        elif model.check is not None:
            model.check(point.params)
        else:                       # checking is computing: keep the answer
            t0 = time.perf_counter()
            results = model.analytic(point.params)
            point.precomputed = (results, time.perf_counter() - t0)
    except InputError as e:
        raise _point_error(model, e, point.params, varied) from None


def _point_error(model: Model, e: InputError, params: dict, varied: list) -> InputError:
    name = model.name_of(e.parameter)
    if name is not None and name in varied:
        where = f"--vary {name}"
    elif name is not None:
        where = model.param(name).option
    else:
        where = e.parameter
    allowed = e.allowed
    if varied:
        allowed += " (at " + ", ".join(f"{k}={_fmt(params[k])}" for k in varied) + ")"
    return InputError(where, e.value, allowed)


def _build(model: Model, params: dict):
    """(Switch or FatTreeNetwork, Traffic) of a simulated point, checked as ``simulate`` would check them."""
    from .models import Switch, _check

    switch, traffic = model.build(params)
    if not isinstance(switch, Switch):     # a network: the simulator checks its own traffic
        from .validate.network import check_traffic

        check_traffic(switch, traffic)
        return switch, traffic
    traffic.check_ports(switch.n_ports)
    if len(traffic.priority_shares) > switch.priorities:
        raise _check.InputError("priority_shares", traffic.priority_shares,
                                f"at most {switch.priorities} share(s)")
    return switch, traffic


# --------------------------------------------------------------------------- computing one point

def _sim_results(r) -> dict:
    from dataclasses import asdict

    system = r.switch if hasattr(r, "switch") else r.network
    inputs = set(system.describe()) | set(r.traffic.describe()) | set(asdict(r.settings))
    return {k: v for k, v in r.to_dict().items() if k not in inputs and k not in ("wall_seconds", "seeds")}


def _run_point(model_name: str, mode: str, params: dict, settings: dict | None):
    """Compute one point (in this process, a loky worker or a Dask worker): (results, wall seconds)."""
    t0 = time.perf_counter()
    model = get_model(model_name)
    if mode == "analytic":
        results = model.analytic(params)
    else:
        from .validate.harness import RunSettings, simulate

        from .models import Switch

        switch, traffic = _build(model, params)
        if isinstance(switch, Switch):
            results = _sim_results(simulate(switch, traffic, RunSettings(**settings)))
        else:
            from .validate.network import simulate_network

            results = _sim_results(simulate_network(switch, traffic, RunSettings(**settings)))
    return results, time.perf_counter() - t0


def _run_indexed(i, model_name, mode, params, settings):
    results, wall = _run_point(model_name, mode, params, settings)
    return i, results, wall


# --------------------------------------------------------------------------- running

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
            row.update(seed=rec.point.seed, wall_seconds=rec.wall_seconds, cached=rec.cached)
            out.append(row)
        return out



def _progress(total: int, label: str):
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                   TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), transient=True,
                   console=Console(stderr=True))
    return bar, bar.add_task(label, total=total)


def _n_jobs(workers: int) -> int:
    return (os.cpu_count() or 1) if workers == 0 else workers


def run_sweep(model: str, vary=None, fixed: dict | None = None, *, simulate: bool = False, store=_DEFAULT,
              scheduler: str | None = None, slots: int | None = None, warmup: int | None = None,
              replications: int | None = None, seed: int | None = None, workers: int = 0,
              progress: bool = False, lock_timeout: float = DEFAULT_TIMEOUT,
              connect_timeout: float = 10.0) -> SweepRun:
    """Plan (checking everything), reuse stored points, run the rest, commit each as it finishes.

    ``store``: a path, None for no store, or the default (``$SWITCHQ_STORE`` or
    ``switchq-results.sqlite`` here). ``workers``: local processes for simulated
    points (0 = all cores, 1 = this process). ``scheduler``: a Dask scheduler
    address (simulated points then run there; ``connect_timeout`` seconds to reach it).
    """
    t0 = time.perf_counter()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise InputError("--workers", workers, "an integer >= 0 (0 = all cores)")
    plan = plan_sweep(model, vary, fixed, simulate, slots, warmup, replications, seed, check=False)
    if scheduler is not None and plan.mode == "analytic":
        raise InputError("--scheduler", scheduler, "only with --simulate (analytic points run here, in "
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
            else:
                todo.append(i)
        timing = _execute(plan, todo, records, db, scheduler, workers, progress, connect_timeout)
    finally:
        if db is not None:
            db.close()
    return SweepRun(plan, records, len(todo), len(plan.points) - len(todo), time.perf_counter() - t0, path,
                    timing["compute"], timing["waiting"], timing["local"])


def _execute(plan: Plan, todo: list, records: list, db, scheduler, workers, progress,
             connect_timeout: float = 10.0) -> float:
    """Compute the points ``todo`` (indices), store each as it finishes.

    Returns seconds: ``compute`` (summed over points), ``waiting`` (for workers), ``local`` (points
    computed in this process).
    """
    from . import __version__

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
        bar, task = _progress(len(todo), f"{model.name} ({mode})")
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
            _run_dask(plan, todo, scheduler, finish, timing, connect_timeout)
        else:
            _run_local(plan, todo, _n_jobs(workers), finish, timing)
    except KeyboardInterrupt:
        raise SweepInterrupted(len(records) - len(todo) + done[0], len(records),
                               None if db is None else db.path) from None
    finally:
        if bar is not None:
            bar.stop()
    return dict(timing, compute=done[1])


def _settings(plan: Plan, pt: Point, workers: int) -> dict:
    s = plan.settings
    return {"slots": s["slots"], "warmup_slots": s["warmup_slots"], "replications": s["replications"],
            "seed": pt.seed, "workers": workers}


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


def _run_local(plan: Plan, todo: list, n_jobs: int, finish, timing: dict) -> None:
    name, mode = plan.model.name, plan.mode
    if n_jobs == 1 or len(todo) < n_jobs:
        # Few points: one at a time here, each spreading its replications over the workers.
        for i in todo:
            pt = plan.points[i]
            results, wall = _run_point(name, mode, pt.params, _settings(plan, pt, n_jobs))
            timing["local"] += wall
            finish(i, results, wall)
        return
    from concurrent.futures import as_completed

    def submit_all(executor):
        return {executor.submit(_run_indexed, i, name, mode, plan.points[i].params,
                                _settings(plan, plan.points[i], 1)): i for i in todo}

    try:
        futures = submit_all(_executor(n_jobs))
    except RuntimeError:           # a pool left broken or shut down by an earlier sweep: start afresh
        _POOL.clear()
        futures = submit_all(_executor(n_jobs))
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


def _run_dask(plan: Plan, todo: list, address: str, finish, timing: dict, connect_timeout: float = 10.0) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError as e:  # pragma: no cover - a dependency
        raise InputError("--scheduler", address, f"Dask distributed installed ({e})") from None
    try:
        client = Client(address, timeout=f"{connect_timeout}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise InputError("--scheduler", address, f"the address of a running Dask scheduler, e.g. "
                                                 f"tcp://10.0.0.5:8786 (could not connect: {e})") from None
    futures = {}
    try:
        name, mode = plan.model.name, plan.mode
        for i in todo:
            pt = plan.points[i]
            f = client.submit(_run_point, name, mode, pt.params, _settings(plan, pt, 1), pure=False,
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


# --------------------------------------------------------------------------- tables and files

def flatten(row: dict) -> dict:
    """Flat columns for CSV, Parquet and DataFrames: ``x_ci95`` -> ``x_low``, ``x_high``; lists -> ``x_0``...

    Examples
    --------
    >>> flatten({"throughput": 0.8, "throughput_ci95": [0.79, 0.81], "settings": {"slots": 100}})
    {'throughput': 0.8, 'throughput_low': 0.79, 'throughput_high': 0.81, 'settings_slots': 100}
    """
    out = {}
    for k, v in row.items():
        if isinstance(v, dict):
            for k2, v2 in flatten({f"{k}_{kk}": vv for kk, vv in v.items()}).items():
                out[k2] = v2
        elif isinstance(v, (list, tuple)):
            base = k[:-5] if k.endswith("_ci95") else k
            if k.endswith("_ci95") and len(v) == 2 and not any(isinstance(x, (list, tuple)) for x in v):
                out[base + "_low"], out[base + "_high"] = v
            else:
                for j, x in enumerate(v):
                    if isinstance(x, (list, tuple)) and k.endswith("_ci95") and len(x) == 2:
                        out[f"{base}_{j}_low"], out[f"{base}_{j}_high"] = x
                    else:
                        out[f"{k}_{j}"] = x
        else:
            out[k] = v
    return out


def _columns(flat: list) -> list:
    cols = {}
    for r in flat:
        for k in r:
            cols.setdefault(k, None)
    return list(cols)


def write_csv(rows: list, path) -> None:
    """CSV with flattened columns; ``path`` ``-`` is standard output; empty cells for none."""
    import csv

    flat = [flatten(r) for r in rows]
    out = sys.stdout if str(path) == "-" else open(path, "w", newline="")
    try:
        w = csv.DictWriter(out, fieldnames=_columns(flat), restval="", lineterminator="\n")
        w.writeheader()
        for r in flat:
            w.writerow({k: "" if v is None else v for k, v in r.items()})
    finally:
        if out is not sys.stdout:
            out.close()


def to_frame(rows: list):
    """A pandas DataFrame of flattened rows (none -> NaN / None)."""
    import pandas as pd

    flat = [flatten(r) for r in rows]
    return pd.DataFrame(flat, columns=_columns(flat))


def write_parquet(rows: list, path) -> None:
    """Parquet (pyarrow) with flattened columns."""
    df = to_frame(rows)
    for c in df.columns:       # a column of text and numbers mixed (e.g. a result that is None or text)
        if df[c].dtype == object and len({type(v) for v in df[c] if v is not None}) > 1:
            df[c] = df[c].map(lambda v: None if v is None else str(v))
    df.to_parquet(path, index=False)


def write_plot(run: SweepRun, path, y: str | None = None) -> None:
    """x = the first varied parameter, one line per value of the others, 95 % CI bands where there are any."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    plan = run.plan
    y = y or plan.model.main[plan.mode]
    rows = run.rows()
    present = {k for r in rows for k, v in r.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    if y not in present or y in plan.fixed or y in plan.varied:
        raise InputError("--y", y, "a numeric result of these points: " + ", ".join(
            k for k in _numeric_results(plan) if k in present))
    fig = Figure(figsize=(7, 4.5))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    x_param = plan.axes[0][0] if plan.axes else None
    others = [p.name for p, _ in plan.axes[1:]]
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[n] for n in others), []).append(r)

    def num(v):
        return math.nan if v is None or isinstance(v, str) else float(v)

    categorical = x_param is not None and not x_param.numeric
    xticks = [] if not categorical else [_fmt(v) for v in plan.axes[0][1]]
    for label, group in groups.items():
        if x_param is None:
            xs = [0.0]
        elif categorical:
            xs = [xticks.index(_fmt(r[x_param.name])) for r in group]
        else:
            xs = [num(r[x_param.name]) for r in group]
        ys = [num(r.get(y)) for r in group]
        order = sorted(range(len(xs)), key=lambda j: xs[j])
        xs, ys = [xs[j] for j in order], [ys[j] for j in order]
        name = ", ".join(f"{n}={_fmt(v)}" for n, v in zip(others, label)) or None
        line, = ax.plot(xs, ys, marker="o", markersize=3, label=name)
        cis = [group[j].get(y + "_ci95") for j in order]
        if any(isinstance(c, (list, tuple)) for c in cis):
            lo = [num(c[0]) if isinstance(c, (list, tuple)) else math.nan for c in cis]
            hi = [num(c[1]) if isinstance(c, (list, tuple)) else math.nan for c in cis]
            ax.fill_between(xs, lo, hi, alpha=0.2, color=line.get_color(), linewidth=0)
    if categorical:
        ax.set_xticks(range(len(xticks)), xticks)
    elif x_param is not None:
        xv = [v for v in plan.axes[0][1] if v is not None and v > 0]
        if xv and len(xv) == len(plan.axes[0][1]) and max(xv) / min(xv) >= 50:
            ax.set_xscale("log")
    model = plan.model
    if x_param is not None:
        unit = model.unit_of(x_param.name)
        ax.set_xlabel(x_param.name + (f" [{unit}]" if unit and unit != "1" else ""))
    unit = model.unit_of(y)
    ax.set_ylabel(y + (f" [{unit}]" if unit and unit != "1" else ""))
    fixed = plan.fixed_text()
    ax.set_title(f"{model.name} ({plan.mode})" + (f": {fixed}" if fixed else ""), fontsize=9)
    if others:
        ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def _numeric_results(plan: Plan) -> list:
    return [r for r in plan.model.results.get(plan.mode, ()) if r not in _TEXT_RESULTS and not r.endswith("_ci95")]


def check_y(model_name: str, simulate: bool, y: str | None) -> None:
    """``--y`` must be a numeric result of the model in that mode (checked before any work)."""
    if y is None:
        return
    model = get_model(model_name)
    mode = "simulated" if (simulate or model.analytic is None) else "analytic"
    allowed = [r for r in model.results.get(mode, ()) if r not in _TEXT_RESULTS and not r.endswith("_ci95")]
    # The simulator may report more than the registry lists: those are checked once the points are in.
    if y not in allowed and (mode == "analytic" or y in _TEXT_RESULTS or y.endswith("_ci95")):
        raise InputError("--y", y, "a numeric result of " + f"{model.name} ({mode}): " + ", ".join(allowed))


# --------------------------------------------------------------------------- stored rows

def results_rows(store, model: str | None = None, mode: str | None = None, where=(), limit: int | None = None,
                 lock_timeout: float = DEFAULT_TIMEOUT) -> list:
    """Stored points as rows (id, model, mode, parameters, results, seed, settings, version, wall, created).

    ``where``: filters ``NAME=V1,V2``, ``NAME!=V``, ``NAME<V``, ``NAME<=V``, ``NAME>V``, ``NAME>=V`` on a
    parameter, a result or a column (model, mode, seed, switchq_version).
    """
    tests = [_where(w) for w in where]
    path = default_path() if store is _DEFAULT or store is None else Path(store)
    with Store(path, timeout=lock_timeout, readonly=True) as db:
        stored = db.rows(model, mode)
    from .registry import MODELS

    out = []
    for s in stored:
        row = {"id": s["id"], "model": s["model"], "mode": s["mode"]}
        known = MODELS.get(s["model"])
        order = [p.name for p in known.params if p.name in s["params"]] if known is not None else []
        row.update({k: s["params"][k] for k in order})
        row.update(s["params"])                 # anything the registry no longer lists, last
        for k, v in s["results"].items():
            row[k + "_result" if k in s["params"] else k] = v
        row.update(seed=s["seed"], settings=s["settings"], switchq_version=s["switchq_version"],
                   wall_seconds=s["wall_seconds"], created_at=s["created_at"])
        if all(t(row) for t in tests):
            out.append(row)
    return out if limit is None else out[-limit:] if limit > 0 else []


def _scalar(text: str):
    t = text.strip()
    if t.lower() == "none":
        return None
    if t.lower() in ("true", "false"):
        return t.lower() == "true"
    try:
        return float(t)
    except ValueError:
        return t


def _where(expr: str):
    import operator
    import re

    m = re.fullmatch(r"\s*([A-Za-z_][\w-]*)\s*(<=|>=|!=|=|<|>)\s*(.*?)\s*", expr or "")
    if m is None or not m.group(3):
        raise InputError("--where", expr, "NAME=V1,V2, NAME!=V, NAME<V, NAME<=V, NAME>V or NAME>=V")
    name, op, text = m.group(1).replace("-", "_"), m.group(2), m.group(3)
    if op in ("=", "!="):
        wanted = [_scalar(t) for t in text.split(",")]

        def same(a, b):
            if isinstance(a, (int, float)) and not isinstance(a, bool) and isinstance(b, float):
                return float(a) == b
            return a == b

        def test(row):
            if name not in row:
                return False
            hit = any(same(row[name], w) for w in wanted)
            return hit if op == "=" else not hit
        return test
    bound = _scalar(text)
    if not isinstance(bound, float):
        raise InputError("--where", expr, f"a number after {op}")
    compare = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}[op]

    def test(row):
        v = row.get(name)
        return isinstance(v, (int, float)) and not isinstance(v, bool) and compare(v, bound)
    return test


# --------------------------------------------------------------------------- Python API

def sweep(model: str, vary=None, *, simulate: bool = False, store=_DEFAULT, scheduler: str | None = None,
          slots: int | None = None, warmup: int | None = None, replications: int | None = None,
          seed: int | None = None, workers: int = 0, progress: bool = False,
          lock_timeout: float = DEFAULT_TIMEOUT, fixed: dict | None = None, **params):
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
    run = run_sweep(model, vary, {**(fixed or {}), **params}, simulate=simulate, store=store, scheduler=scheduler,
                    slots=slots, warmup=warmup, replications=replications, seed=seed, workers=workers,
                    progress=progress, lock_timeout=lock_timeout)
    df = to_frame(run.rows())
    df.attrs["sweep"] = {"model": run.plan.model.name, "mode": run.plan.mode, "points": len(run.records),
                         "computed": run.computed, "reused": run.reused,
                         "store": None if run.store is None else str(run.store),
                         "wall_seconds": run.wall_seconds}
    return df


# --------------------------------------------------------------------------- benchmark

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
