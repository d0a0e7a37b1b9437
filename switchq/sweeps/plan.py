"""Planning a sweep: the grid parsed, every point checked, keyed and seeded before any work.

A bad grid fails here with one line, before anything is computed or
stored. Seeds: a simulated point's seed is a function of (root seed, model,
the point's parameters) through NumPy's ``SeedSequence``, and its
replications' seeds are spawned from it as in ``switchq simulate``; results
therefore do not depend on the order points run in, on the number of
workers, or on Dask vs local processes, and ``switchq simulate ... --seed
<its seed>`` with the same ``--slots``/``--warmup``/``--replications``
reproduces a point.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import time
from dataclasses import dataclass

from switchq.errors import InputError
from switchq.params import REQUIRED, Param, check_applies, each_takes_its_own
from switchq.registry import Model
from switchq.registry import get as get_model
from switchq.store import canonical_json, point_key, simulator_version

from .grid import MAX_POINTS, fmt, values

__all__ = ["Point", "Plan", "point_seed", "plan_sweep", "plan_points", "check_points", "build_point"]

@dataclass
class Point:
    """One grid point: its canonical parameters, store key and (simulated) seed."""

    params: dict
    key: str
    seed: int | None = None
    params_json: str = ""
    precomputed: tuple | None = None   # (results, wall) when checking it meant computing it
    note: str = ""          # rows side by side: the inputs this point left out (they do not apply to it)
    error: str = ""         # rows side by side: why this point has no answer (its one-line refusal)


@dataclass
class Plan:
    """A checked sweep, ready to run: nothing has been computed or stored yet."""

    model: Model
    mode: str
    axes: list            # [(Param, values)] in --vary order
    fixed: dict           # name -> value, given or default
    points: list
    settings: dict        # simulated: slots, warmup_slots, replications, root_seed, simulator; analytic: {}
    # Rows side by side (a ``many`` parameter given several values, ``--model all``): each point takes the inputs
    # that apply to it, and a point that cannot answer is a row with its reason rather than the sweep's failure.
    side_by_side: bool = False

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
                out.append(f"{k}={fmt(v)}{unit}")
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
               seed: int | None = None, check: bool = True, target: dict | None = None) -> Plan:
    """Parse and check a whole sweep; raise InputError (one line) before any work if anything is wrong.

    ``vary``: ``{"ports": "4,8,16", "load": [0.5, 0.8]}`` or ``["ports=4,8,16", ...]``; ``fixed``:
    ``{"buffer": 4}`` (values or their text). Simulation settings left None take ``switchq simulate``'s
    defaults; given without ``simulate`` they are an error. ``check=False`` leaves the model-level
    check of each point to :func:`check_points` (values are always checked). ``target``: a precision
    target (``precision``, ``half_width``, ``max_replications``, ``precision_metrics``, as
    :class:`~switchq.validate.harness.RunSettings` takes them).
    """
    model = get_model(model_name)
    if simulate and model.build is None:
        raise InputError("--simulate", True, f"a model with a simulated twin ({model.name} is analytic only: "
                                             + ", ".join(m.name for m in _models() if m.build) + ")")
    mode = "simulated" if (simulate or model.analytic is None) else "analytic"
    run = {_option(model, "slots"): slots, "--warmup": warmup, "--replications": replications, "--seed": seed}
    if mode == "analytic":
        for option, v in run.items():
            if v is not None:
                raise InputError(option, v, "only with --simulate (analytic points are not simulated)")
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
        side = p.values(text, p.option) if p.many else [p.parse(text, p.option)]
        if len(side) > 1:
            # A row each (--model all), as switchq size gives them: varied, after the --vary axes.
            axes.append((p, side))
            used.add(p.name)
            continue
        given[p.name] = side[0]
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
    settings = _run_settings(model, mode, slots, warmup, replications, seed, target)
    order = [p.name for p in model.params_for(mode)]
    names = [p.name for p, _ in axes]
    rows = [{**base, **dict(zip(names, combo))} for combo in itertools.product(*(v for _, v in axes))]
    side_by_side = any(p.many and len(v) > 1 for p, v in axes)
    if side_by_side:
        rows = each_takes_its_own(model.params, rows, used | set(given))
    else:
        for params in rows:
            check_applies(model.params, params, used | set(given))
        rows = [(params, ()) for params in rows]
    points = []
    for params, notes in rows:
        pt = _point(model, mode, {k: params[k] for k in order}, settings, derived=True)
        pt.note = "; ".join(notes)
        points.append(pt)
    plan = Plan(model, mode, axes, {k: base[k] for k in order if k in base}, points, settings, side_by_side)
    if check:
        check_points(plan)
    return plan


def plan_points(model_name: str, points: list, simulate: bool = True, slots: int | None = None,
                warmup: int | None = None, replications: int | None = None, seed: int = 1,
                check: bool = True, target: dict | None = None) -> Plan:
    """A plan of given points, each run with ``seed`` itself, as ``switchq simulate --seed SEED`` runs it.

    ``points``: dicts of parameter values by name (text or Python values; the rest take their
    defaults). This is how reports read their figures: through the same store as sweeps (a
    report resumes where it stopped), with the seeds a report states.

    Examples
    --------
    >>> plan = plan_points("fifo", [{"ports": 4, "load": 0.5}, {"ports": 8, "load": 0.5}], slots=1000, seed=7)
    >>> [(pt.params["ports"], pt.seed) for pt in plan.points]
    [(4, 7), (8, 7)]
    """
    model = get_model(model_name)
    mode = "simulated" if (simulate or model.analytic is None) else "analytic"
    if mode == "simulated" and model.build is None:
        raise InputError("--simulate", True, f"a model with a simulated twin ({model.name} is analytic only)")
    settings = _run_settings(model, mode, slots, warmup, replications, seed, target)
    defaults = {p.name: p.default for p in model.params_for(mode)}
    planned = []
    for given in points:
        params = dict(defaults)
        for name, value in given.items():
            p = model.param(name)
            params[p.name] = p.parse(value, p.option)
        check_applies(model.params, params, {model.param(name).name for name in given})
        missing = [p.option for p in model.params_for(mode) if params[p.name] is REQUIRED]
        if missing:
            raise InputError(missing[0], None, "a value (required)")
        planned.append(_point(model, mode, params, settings, derived=False))
    plan = Plan(model, mode, [], {}, planned, settings)
    if check:
        check_points(plan)
    return plan


# A precision target's settings (switchq.validate.harness.RunSettings), kept in a plan only when given.
TARGET = ("precision", "half_width", "max_replications", "precision_metrics")


def _option(model: Model, target: str) -> str:
    """The option that sets run setting ``target`` for ``model`` (``--cycles`` for slots on a flit network)."""
    from switchq.declaration import RUN_PARAMS

    d = model.declaration
    for p in (d.run_params() if d is not None else RUN_PARAMS):
        if p.target == target:
            return p.option
    return "--" + target.replace("_", "-")


def _run_settings(model: Model, mode: str, slots, warmup, replications, seed, target=None) -> dict:
    target = {k: v for k, v in (target or {}).items() if v not in (None, "", ())}
    if mode != "simulated":
        for k, v in target.items():
            raise InputError(_option(model, k), v, "only with --simulate (analytic points are exact)")
        return {}
    from switchq.validate.harness import RunSettings

    for k in target:
        if k not in TARGET:
            raise InputError("target", k, "one of " + ", ".join(TARGET))
    s = RunSettings(slots=50_000 if slots is None else slots, warmup_slots=warmup,
                    replications=8 if replications is None else replications, seed=1 if seed is None else seed,
                    **target)
    out = {"slots": s.slots, "warmup_slots": s.warmup_slots, "replications": s.replications, "root_seed": s.seed,
           "simulator": simulator_version()}
    if not model.declaration.slotted:     # its workload sets the run's length (simulated seconds, a round)
        if slots is not None or warmup is not None:
            clock = " and ".join(p.option for p in model.declaration.clock.params) or "its workload"
            raise InputError("--slots" if slots is not None else "--warmup", slots if slots is not None else warmup,
                             f"only on a slotted model ({model.name}'s runs are set by {clock})")
        del out["slots"], out["warmup_slots"]
    if s.targeted:
        out.update({k: list(getattr(s, k)) if k == "precision_metrics" else getattr(s, k) for k in TARGET})
    return out


def _point(model: Model, mode: str, params: dict, settings: dict, derived: bool) -> Point:
    """A point keyed for the store; simulated points seeded from the root seed and the point (``derived``)
    or with the root seed itself."""
    params_json = canonical_json(params)
    seed = None
    if mode == "simulated":
        seed = point_seed(settings["root_seed"], model.name, params_json) if derived else settings["root_seed"]
    return Point(params, point_key(model.name, mode, params_json, seed, canonical_json(settings)), seed, params_json)


def check_points(plan: Plan, skip=()) -> None:
    """Check every point's model (build it, or run the analytic check) except the keys in ``skip``.

    Rows side by side (:attr:`Plan.side_by_side`): a point refused keeps its reason (:attr:`Point.error`) and
    the others go on; the plan is refused only when none of its points answers."""
    names = plan.varied
    refused = []
    for point in plan.points:
        if point.key in skip:
            continue
        try:
            _check_point(plan.model, plan.mode, point)
        except InputError as e:
            if not plan.side_by_side:
                raise _point_error(plan.model, e, point.params, names) from None
            point.error = str(_point_error(plan.model, e, point.params, []))
            refused.append((point, e))
    if refused and len(refused) == len(plan.points):
        point, e = refused[0]
        raise _point_error(plan.model, e, point.params, names) from None


def _models():
    from switchq.registry import MODELS

    return MODELS.values()


def _check_point(model: Model, mode: str, point: Point) -> None:
    if mode == "simulated":
        build_point(model, point.params)
    elif model.check is not None:
        model.check(point.params)
    else:                       # checking is computing: keep the answer
        t0 = time.perf_counter()
        results = model.analytic(point.params)
        point.precomputed = (results, time.perf_counter() - t0)


def _point_error(model: Model, e: InputError, params: dict, varied: list) -> InputError:
    name = model.name_of(e.parameter)
    value = e.value if name is None else model.param(name).shown(e.value)
    if name is not None and name in varied:
        where = f"--vary {name}"
    elif name is not None:
        where = model.param(name).option
    else:
        where = e.parameter
    allowed = e.allowed
    if varied:
        allowed += " (at " + ", ".join(f"{k}={fmt(params[k])}" for k in varied) + ")"
    return InputError(where, value, allowed)


def build_point(model: Model, params: dict):
    """(system, workload) of a simulated point, checked by the one compatibility check ``simulate`` uses."""
    system, workload = model.build(params)
    model.declaration.check(system, workload)
    return system, workload
