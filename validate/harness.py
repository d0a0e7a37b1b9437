"""Run any registered model in its simulator: replications, warm-up, confidence intervals, stability.

One runner serves every kernel: single switches, networks, event-driven
collectives and batch workloads. A model's declaration
(:mod:`switchq.architectures`) names its kernel, its metrics and its counters;
the runner does the rest the same way for all of them.

Simulation practice (what every simulated figure in switchq follows):

- *Warm-up*: the first ``warmup_slots`` slots of each replication start from
  empty queues and are discarded; by default 10 % of the measured slots, at
  least 1000.
- *Replications*: ``replications`` independent runs with seeds spawned from
  one ``seed`` by :class:`numpy.random.SeedSequence`. Replication r always
  gets the same stream, so results do not depend on how many ``workers``
  share the work or in which order they finish.
- *Intervals*: each figure is the mean over replications with a 95 %
  Student-t interval (mean +- t_{0.975, R-1} s / sqrt(R)).
- *Batch means*: with one replication (``replications=1``) the measured
  slots of the one long run are cut into ``batches`` (default 20) equal
  batches and the interval is the Student-t interval over the batch means
  (df = batches - 1). A note says so when neighbouring batch means are
  correlated (lag-1 autocorrelation above 2/sqrt(batches), the 95 % bound
  for independent ones): the batches are then too short to be independent.
- *Impossible intervals*: an interval reaching past what a figure can be
  (below 0, or above 1 for a share) is printed as computed, with a note
  that says why (too few replications or batches for the spread).
- *Stability*: an "unbounded" queue is stored in ``kernel.UNBOUNDED_CELLS``
  cells. A run is flagged ``unstable`` when a queue fills that storage, or
  when a backlog grew while measuring by more than ``UNSTABLE_GROWTH`` of
  what was offered to it plus an allowance: it is offered more than it
  carries (or has not reached its steady state), so its throughput is the
  saturation throughput and its latency grows with the run length. The
  backlog is the whole system's (for a switch, offered - dropped - delivered
  while measuring; for a network, everything owed to destinations and not
  yet delivered, in NICs, buffers and links), judged three ways: on average
  over the replications, with the declaration's allowance (noise averages
  out; a system that cannot carry its load grows in every replication); in
  each replication, with ``NOISE_SIGMAS`` standard deviations of the random
  walk a critically loaded backlog makes added (sqrt(offered x E[B^2] /
  E[B]) for units arriving in batches B: bursts, messages), since
  replications differ (a stream placement may overload an output in one);
  and per part the declaration names (an output, an input, a destination
  node, a traffic class at a destination), in each replication with the
  same noise term, because one overloaded part of many grows inside any
  whole-system allowance (the kernel keeps the part furthest beyond its
  allowance). Every result shows ``backlog_growth`` (the mean),
  ``replication_backlog_growth`` and ``part_backlog_growth`` (the
  replication and the part furthest beyond their allowances) beside their
  allowances, and an unstable one says which rule it broke
  (``unstable_because``).
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import time
from dataclasses import dataclass

import numpy as np

from switchq.models import _check

from .result import Estimate, Result
from .stability import Backlog, backlog_allowed  # noqa: F401  (declarations build their rule from these)

__all__ = ["RunSettings", "run", "run_replications", "replication_seeds", "confidence_interval",
           "Counts", "Backlog", "backlog_allowed", "DEFAULT_BATCHES", "MIN_BATCH_SLOTS"]

# Batch means: batches of one long run by default, and the fewest slots a batch may have.
DEFAULT_BATCHES = 20
MIN_BATCH_SLOTS = 100
# Segments every replication of a slotted kernel snapshots its counters at, for the trend test of stability
# (switchq.validate.stability); with one long run its batches are the segments.
SEGMENTS = 10
# The fewest replications a precision-targeted run starts from (and that a verdict may stand on).
MIN_REPLICATIONS = 5


@dataclass(frozen=True)
class RunSettings:
    """How long, how often and with which seed to simulate.

    Examples
    --------
    >>> RunSettings(slots=20_000).warmup_slots
    2000
    >>> RunSettings(slots=20_000, replications=1).batches      # one long run: batch means
    20
    """

    slots: int = 50_000
    warmup_slots: int | None = None
    replications: int = 8
    seed: int = 1
    workers: int = 1
    batches: int | None = None
    precision: float | None = None
    half_width: float | None = None
    max_replications: int | None = None
    precision_metrics: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "slots", _check.integer("slots", self.slots, 100, 10**10))
        if self.warmup_slots is None:
            object.__setattr__(self, "warmup_slots", max(1000, self.slots // 10))
        object.__setattr__(self, "warmup_slots",
                           _check.integer("warmup_slots", self.warmup_slots, 0, 10**10))
        # One replication gives an interval only through batch means.
        r = _check.integer("replications", self.replications, 1, 10**5)
        object.__setattr__(self, "replications", r)
        if r > 1:
            if self.batches not in (None, 1):
                raise _check.InputError("batches", self.batches, "1 with replications >= 2 (batch means are for "
                                                                 "one long run: replications 1)")
            object.__setattr__(self, "batches", 1)
        else:
            most = self.slots // MIN_BATCH_SLOTS
            if most < 2:
                raise _check.InputError("slots", self.slots, f"at least {2 * MIN_BATCH_SLOTS} for batch means "
                                                             "(replications 1)")
            b = DEFAULT_BATCHES if self.batches is None else self.batches
            object.__setattr__(self, "batches", _check.integer("batches", b, 2, most))
        object.__setattr__(self, "seed", _check.integer("seed", self.seed, 0, 2**63 - 1))
        object.__setattr__(self, "workers", _check.integer("workers", self.workers, 0, 1024))
        if self.precision is not None or self.half_width is not None:
            if self.precision is not None:
                _check.real("precision", self.precision, 0.0, 1.0, low_open=True)
            if self.half_width is not None:
                _check.real("half_width", self.half_width, 0.0, None, low_open=True)
            if r < 2:
                raise _check.InputError("replications", r, "at least 2 with a precision target (it adds "
                                                           "replications; one long run cannot)")
            most = 200 if self.max_replications is None else self.max_replications
            object.__setattr__(self, "max_replications",
                               _check.integer("max_replications", most, max(r, MIN_REPLICATIONS), 10**5))
        names = self.precision_metrics
        if isinstance(names, str):
            names = [n.strip() for n in names.split(",") if n.strip()]
        object.__setattr__(self, "precision_metrics", tuple(names))
        if not self.targeted:
            # Options of a precision target given without one would be silently ignored.
            if self.precision_metrics:
                raise _check.InputError("precision_metrics", ",".join(self.precision_metrics),
                                        "only with a precision target (--precision or --half-width)")
            if self.max_replications is not None:
                raise _check.InputError("max_replications", self.max_replications,
                                        "only with a precision target (--precision or --half-width)")

    @property
    def targeted(self) -> bool:
        """Whether replications are added until a precision target is met (:func:`run`)."""
        return self.precision is not None or self.half_width is not None


def replication_seeds(seed: int, replications: int) -> list[int]:
    """Independent 32-bit seeds for each replication, fixed by ``seed`` alone."""
    children = np.random.SeedSequence(seed).spawn(replications)
    return [int(c.generate_state(1, dtype=np.uint32)[0]) for c in children]


def confidence_interval(samples) -> tuple[float, float, float]:
    """Mean and 95 % Student-t interval ``(mean, low, high)`` of replication samples
    (:meth:`Estimate.confidence_interval`, uncut). NaN samples (a replication with nothing to measure) are
    left out."""
    e = Estimate.from_samples(samples)
    return (e.value, *e.confidence_interval(0.95))


def estimate(samples, bounds=(None, None)) -> Estimate:
    """The :class:`Estimate` of replication (or batch) samples of a figure that can only lie in ``bounds``
    (:meth:`Estimate.from_samples`: it keeps the spread, so any level's interval can be asked of it).

    Where the Student-t interval reaches past a bound (a share above 1, a latency below 0), it is cut
    there, and a mean past it too, and marked ``clipped``: the true value lies inside the bounds, so
    cutting the interval to them keeps its 95 % coverage and never widens it. (A log or logit
    transformation by the delta method was tried and rejected: near a bound it widens the interval by
    orders of magnitude, e.g. a carried share of 0.999992 ± 0.00008 becomes [0.845, 1].)

    Examples
    --------
    >>> e = estimate([0.99998, 1.00001, 0.99999, 1.00002, 1.0], bounds=(0.0, 1.0))
    >>> e.high, e.method, e.n
    (1.0, 'clipped', 5)
    >>> estimate([3.0, 4.0, 5.0], bounds=(0.0, None)).method
    't'
    """
    return Estimate.from_samples(samples, bounds)


class Counts:
    """The replications' counters by name (``c["m_delivered"]``: one value per replication, or per batch),
    the run, and ``slots``: the measured slots behind each row."""

    def __init__(self, rows: np.ndarray, layout, system, workload, settings, slots=None):
        self.rows, self.layout = rows, layout
        self.system, self.workload, self.settings = system, workload, settings
        self.slots = settings.slots if slots is None else slots

    def __getitem__(self, name: str) -> np.ndarray:
        return self.layout.column(self.rows, name)

    def __contains__(self, name: str) -> bool:
        return name in self.layout


def run_replications(replicate, args: list, workers: int = 1, progress: bool = False, label: str = "",
                     on_replication=None) -> list:
    """``[replicate(*a) for a in args]``, in this process or over ``workers`` processes (0 = all cores).

    Results come back in the order of ``args`` whatever finishes first, so row r is replication r.
    ``on_replication(done, total)``, if given, is called in this process as each comes back (``done`` = 1, 2,
    ..., ``total``); it only observes.
    """
    if workers == 1 or len(args) == 1:
        results = (replicate(*a) for a in args)
    else:
        from joblib import Parallel, delayed

        n_jobs = -1 if workers == 0 else workers
        results = Parallel(n_jobs=n_jobs, return_as="generator")(delayed(replicate)(*a) for a in args)
    if on_replication is not None:
        results = _observed(results, len(args), on_replication)
    if not progress:
        return list(results)
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    rows = []
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeRemainingColumn(), transient=True) as bar:
        task = bar.add_task(label, total=len(args))
        for r in results:
            rows.append(r)
            bar.advance(task)
    return rows


def _observed(results, total: int, on_replication):
    """``results`` as they come, calling ``on_replication(done, total)`` after each."""
    for done, r in enumerate(results, 1):
        on_replication(done, total)
        yield r


def _replicate(kernel: str, system, workload, run_args):
    return importlib.import_module(kernel).replicate(system, workload, run_args)


def _rows(declaration, system, workload, settings: RunSettings, seeds, progress: bool,
          on_replication=None) -> np.ndarray:
    """Counter rows of the replications with ``seeds``: a slotted kernel snapshots its counters at the
    start of each of ``SEGMENTS`` segments of the measured slots (or of each batch of one long run)."""
    from . import kernel as K

    timed = declaration.slotted or declaration.timeline is not None
    segments = settings.batches if settings.batches > 1 else SEGMENTS if timed else 1
    args = [(declaration.kernel, system, workload, K.Run(slots=settings.slots, warmup=settings.warmup_slots, drain=0,
                                                         seed=s, batches=segments))
            for s in seeds]
    return np.array(run_replications(_replicate, args, settings.workers, progress,
                                     declaration.label(system, workload), on_replication))


def run(declaration, system, workload, settings: RunSettings = RunSettings(), progress: bool = False,
        on_replication=None) -> Result:
    """Run ``declaration``'s kernel on ``system`` and ``workload``: the one replication runner.

    With a precision target (``settings.precision`` or ``half_width``), replications are added in rounds
    until the 95 % interval of each targeted metric is within it (:func:`_to_precision`).
    ``on_replication(done, total)``, if given, is called as each replication finishes (with a precision
    target, ``total`` is the current round's end); it only observes, so the numbers are the same without it.
    """
    declaration.check(system, workload)
    if settings.batches > 1 and not declaration.slotted:
        raise _check.InputError("replications", settings.replications,
                                f"at least 2 for {declaration.name} (its runs are not slotted: no batch means)")
    layout = importlib.import_module(declaration.kernel).LAYOUT
    if settings.targeted:
        return _to_precision(declaration, system, workload, settings, progress, layout, on_replication)
    seeds = replication_seeds(settings.seed, settings.replications)
    t0 = time.perf_counter()
    rows = _rows(declaration, system, workload, settings, seeds, progress, on_replication)
    return summarise(declaration, Counts(rows, layout, system, workload, settings), time.perf_counter() - t0, seeds)


def _targets(declaration, settings: RunSettings) -> tuple:
    """The metrics a precision target applies to: those named, or the declaration's main figure."""
    names = settings.precision_metrics or (declaration.main,)
    known = {m.name: m.unit for m in declaration.metrics if m.samples is not None}
    for name in names:
        _check.choice("precision_metrics", name, tuple(known))
    if settings.half_width is not None and len({known[n] for n in names}) > 1:
        raise _check.InputError("half_width", settings.half_width,
                                "metrics of one unit (" + ", ".join(f"{n}: {known[n]}" for n in names)
                                + "); use --precision, a share of each value, instead")
    return tuple(names)


def _needed(result: Result, names, settings: RunSettings) -> float:
    """Replications the widest targeted interval needs to meet its target (half-widths shrink as
    1/sqrt(n)); at most ``result``'s own count when every target is met."""
    if _unmeasured(result, names):
        return math.inf                 # no number of replications is known to meet it
    n, need = result.settings.replications, 0.0
    for name in names:
        e = result.metrics.get(name)
        for one in (e if isinstance(e, tuple) else (e,)):
            goal = min(x for x in (settings.half_width, None if settings.precision is None
                                   else settings.precision * abs(one.value)) if x is not None)
            # A clipped interval keeps its Student-t half-width on the side away from the limit.
            width = max(one.value - one.low, one.high - one.value)
            width = width if np.isfinite(width) else math.inf
            need = max(need, n if width <= goal else math.inf if goal == 0 else n * (width / goal) ** 2)
    return need


def _unmeasured(result: Result, names) -> list:
    """The targeted metrics the run could not measure (no value)."""
    out = []
    for name in names:
        e = result.metrics.get(name)
        if any(one is None or not np.isfinite(one.value) for one in (e if isinstance(e, tuple) else (e,))):
            out.append(name)
    return out


def _to_precision(declaration, system, workload, settings: RunSettings, progress: bool, layout,
                  on_replication=None) -> Result:
    """Add replications until every targeted metric's 95 % half-width is within ``settings.precision`` of
    its value (or ``half_width``), up to ``max_replications``; an unstable run stops at once (its figures
    are not steady-state ones). Each round's size follows from the results alone and replication r always
    has seed r of ``seed``'s SeedSequence, so the answer does not depend on the workers."""
    from dataclasses import replace

    names = _targets(declaration, settings)
    seeds = replication_seeds(settings.seed, settings.max_replications)
    n = max(settings.replications, MIN_REPLICATIONS)
    t0 = time.perf_counter()
    rows = _rows(declaration, system, workload, settings, seeds[:n], progress, on_replication)
    rounds = 1
    while True:
        now = replace(settings, replications=n)
        result = summarise(declaration, Counts(rows, layout, system, workload, now), time.perf_counter() - t0,
                           seeds[:n])
        need = _needed(result, names, settings)
        if need <= n or n >= settings.max_replications or result.unstable:
            break
        # At most four times as many a round: the first intervals' spread is itself noisy.
        more = int(min(settings.max_replications, max(n + 1, math.ceil(min(4 * n, need)))))
        later = None if on_replication is None else (lambda done, _, n=n, more=more: on_replication(n + done, more))
        rows = np.vstack([rows, _rows(declaration, system, workload, settings, seeds[n:more], progress, later)])
        n, rounds = more, rounds + 1
    target = {"precision": settings.precision, "half_width": settings.half_width}
    labels = {**result.labels, **{k: v for k, v in target.items() if v is not None},
              "precision_metrics": list(names), "precision_met": bool(need <= n), "precision_rounds": rounds}
    units = {**result.units, "precision": "1", "precision_rounds": "rounds"}
    if settings.half_width is not None:
        units["half_width"] = result.units.get(names[0], "")
    notes = result.notes
    if need > n:
        missing = _unmeasured(result, names)
        why = ("the run is unstable" if result.unstable else
               f"{', '.join(missing)} not measured (no value)" if missing else
               f"it would take about {need:.3g} replications, over --max-replications {settings.max_replications}")
        notes += (f"precision target not met after {n} replications: {why}.",)
    return replace(result, labels=labels, units=units, notes=notes)


def _segments(c: Counts) -> np.ndarray | None:
    """Each replication's counters per segment of its measured slots (the batches of one long run),
    (replications, segments, counters), from the snapshots the kernel took (:func:`_rows`); None without
    them."""
    size = c.layout.size
    k = c.rows.shape[1] // size - 1
    if k < 2:
        return None
    blocks = c.rows.reshape(c.rows.shape[0], k + 1, size)
    # Block j + 1 holds the counters when segment j began; block 0 the counters at the end.
    return np.diff(np.concatenate([blocks[:, 1:], blocks[:, :1]], axis=1), axis=1)


def _batches(c: Counts) -> tuple:
    """One long run's counters as totals and as batch rows (:func:`switchq.validate.kernel.mark_batch`)."""
    from .kernel import batch_slots

    totals = Counts(c.rows[:, :c.layout.size], c.layout, c.system, c.workload, c.settings)
    return totals, Counts(_segments(c)[0], c.layout, c.system, c.workload, c.settings,
                          batch_slots(c.settings.slots, c.settings.batches))


def _notes(metrics: dict, declaration, settings, per_sample: dict) -> list:
    """Why an interval reaches past what its figure can be, or why batch means may not be independent."""
    notes = []
    spread = (f"{settings.batches} batches of one run" if settings.batches > 1
              else f"{settings.replications} replications")
    for m in declaration.metrics:
        e = metrics.get(m.name)
        for one in (e if isinstance(e, tuple) else (e,)):
            if one is not None and one.method == "clipped":
                low, high = m.bounds
                limits = " and ".join(f"{w} {b:g}" for w, b, end in (("at least", low, one.low),
                                                                     ("at most", high, one.high)) if b == end)
                notes.append(f"{m.name}: the Student-t interval over {spread} reached past what {m.name} can be "
                             f"({limits}) and is cut there ({one.low:.6g} .. {one.high:.6g}): the figure lies at "
                             "or within a half-width of that limit.")
                break
    if settings.batches > 1:
        bound = 2 / math.sqrt(settings.batches)
        for name, x in per_sample.items():
            x = np.asarray(x, dtype=float)
            if x.size > 2 and np.all(np.isfinite(x)) and x.std() > 0:
                r1 = float(np.corrcoef(x[:-1], x[1:])[0, 1])
                if r1 > bound:
                    notes.append(f"{name}: neighbouring batch means are correlated (lag-1 autocorrelation "
                                 f"{r1:.2f} > 2/sqrt({settings.batches}) = {bound:.2f}), so the batches are too "
                                 "short to be independent and the interval too narrow; run more slots or fewer "
                                 "batches.")
    return notes


def _with_stability(e, stable):
    """An estimate (or one per class) marked with whether its run was shown stable (None: not judged)."""
    if stable is None:
        return e
    return (tuple(dataclasses.replace(x, stable=stable) for x in e) if isinstance(e, tuple)
            else dataclasses.replace(e, stable=stable))


def summarise(declaration, c: Counts, wall: float, seeds) -> Result:
    """Metrics with intervals, counter totals, labels and the stability verdict of counter rows."""
    segments = _segments(c)
    if c.settings.batches > 1:
        totals, c = _batches(c)
    else:
        c = totals = Counts(c.rows[:, :c.layout.size], c.layout, c.system, c.workload, c.settings)
    metrics, per_replication = {}, {}
    overflow = "overflow" in totals and bool(totals["overflow"].sum() > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        for m in declaration.metrics:
            if m.derived is not None:
                source, f = m.derived
                e = metrics[source]
                metrics[m.name] = Estimate(*(f(v, c) for v in (e.value, e.low, e.high)), e.n, e.method)
                continue
            samples = m.samples(c)
            if samples is None:
                continue
            samples = np.asarray(samples, dtype=float)
            if m.lossy_on_overflow and overflow:
                # An overflowing "unbounded" queue is a refusal, not a loss the user configured.
                metrics[m.name] = Estimate.nan()
            elif samples.ndim == 2:
                metrics[m.name] = tuple(estimate(samples[:, j], m.bounds) for j in range(samples.shape[1]))
            else:
                metrics[m.name] = estimate(samples, m.bounds)
                per_replication[m.name] = samples.tolist()
    counters = {}
    for counter in declaration.counters:
        column = totals[counter.counter or counter.name]
        counters[counter.name] = int({"sum": np.sum, "min": np.min, "max": np.max}[counter.reduce](column))
    labels = declaration.labels(totals) if declaration.labels is not None else {}
    unstable = None
    units = declaration.units_of(c.system, c.workload)
    notes = _notes(metrics, declaration, c.settings, per_replication)
    if declaration.stability is not None:
        from .stability import judge

        b = declaration.stability(totals)
        unstable, _, shown, more = judge(declaration, b, totals, c, segments, overflow)
        if not np.any(np.asarray(b.offered) > 0):
            # Nothing offered while measuring: no figure was measured (a throughput of 0 would read as one), and
            # an empty system says nothing of its stability.
            metrics = {k: (tuple(Estimate.nan() for _ in e) if isinstance(e, tuple) else Estimate.nan())
                       for k, e in metrics.items()}
            per_replication = {}
            unstable = None
            shown["stability_not_judged"] = f"nothing arrived while measuring ({b.unit})"
            shown["nothing_arrived"] = True
            spread = (f"{c.settings.batches} batches of one run" if c.settings.batches > 1
                      else f"{c.settings.replications} replications")
            notes = [f"nothing arrived while measuring in any of the {spread}: no figure was measured; run longer "
                     "or offer more."]
        labels = {**labels, **shown}
        units = {**units, **more}
    stable = None if unstable is None else not unstable
    if declaration.stability is None and declaration.bounded:
        stable = True
        labels = {**labels, "stability": f"no test needed: {declaration.bounded}"}
    # Whether the run each figure comes from was shown to be a steady state (every verdict on it reads it); a count of
    # a phase that ends within the run is a whole measurement whatever the run's state.
    phase = {m.name for m in declaration.metrics if not m.steady_state}
    metrics = {k: _with_stability(e, True if k in phase else stable) for k, e in metrics.items()}
    if phase & set(metrics):
        labels = {**labels, "whole_measurements": sorted(phase & set(metrics))}
    return Result(declaration.name, c.system, c.workload, c.settings, metrics, counters, labels, unstable, wall,
                  tuple(seeds), per_replication, units, declaration.settings_shown, tuple(notes))
