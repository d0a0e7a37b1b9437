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
- *Stability*: an "unbounded" queue is stored in ``kernel.UNBOUNDED_CELLS``
  cells. A run is flagged ``unstable`` when a queue fills that storage, or
  when the backlog grew while measuring by more than ``UNSTABLE_GROWTH`` of
  the cells offered (plus the declaration's allowance for noise): it is
  offered more than it carries (or has not reached its steady state), so its
  throughput is the saturation throughput and its latency grows with the run
  length. What counts as backlog is the declaration's (by default: offered -
  dropped - delivered while measuring).
"""

from __future__ import annotations

import importlib
import math
import time
from dataclasses import dataclass

import numpy as np

from switchq.models import _check

from .result import Estimate, Result

__all__ = ["RunSettings", "simulate", "run", "run_replications", "replication_seeds", "confidence_interval",
           "Counts", "UNSTABLE_GROWTH"]

# Backlog growth (share of the offered cells) that marks a run unstable. Stable runs measured here grow
# by under 0.1 % once warm (VOQ iSLIP at 0.95: 0.6 %, still warming); FIFO 32 x 32 at 0.6, 2 % over its
# saturation load, grows by 1.1 %, a crosspoint switch offered 10 % more than it carries by 10 %.
UNSTABLE_GROWTH = 0.01


@dataclass(frozen=True)
class RunSettings:
    """How long, how often and with which seed to simulate.

    Examples
    --------
    >>> RunSettings(slots=20_000).warmup_slots
    2000
    """

    slots: int = 50_000
    warmup_slots: int | None = None
    replications: int = 8
    seed: int = 1
    workers: int = 1

    def __post_init__(self):
        object.__setattr__(self, "slots", _check.integer("slots", self.slots, 100, 10**10))
        if self.warmup_slots is None:
            object.__setattr__(self, "warmup_slots", max(1000, self.slots // 10))
        object.__setattr__(self, "warmup_slots",
                           _check.integer("warmup_slots", self.warmup_slots, 0, 10**10))
        # Two replications is the least that gives a variance, hence an interval.
        object.__setattr__(self, "replications",
                           _check.integer("replications", self.replications, 2, 10**5))
        object.__setattr__(self, "seed", _check.integer("seed", self.seed, 0, 2**63 - 1))
        object.__setattr__(self, "workers", _check.integer("workers", self.workers, 0, 1024))


def replication_seeds(seed: int, replications: int) -> list[int]:
    """Independent 32-bit seeds for each replication, fixed by ``seed`` alone."""
    children = np.random.SeedSequence(seed).spawn(replications)
    return [int(c.generate_state(1, dtype=np.uint32)[0]) for c in children]


def confidence_interval(samples) -> tuple[float, float, float]:
    """Mean and 95 % Student-t interval ``(mean, low, high)`` of replication samples.

    NaN samples (a replication with nothing to measure) are left out.
    """
    from scipy import stats

    x = np.asarray(samples, dtype=float)
    x = x[~np.isnan(x)]
    if x.size == 0:
        return math.nan, math.nan, math.nan
    m = float(x.mean())
    if x.size < 2:
        return m, math.nan, math.nan
    half = float(stats.t.ppf(0.975, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return m, m - half, m + half


def estimate(samples) -> Estimate:
    """The :class:`Estimate` of replication samples."""
    return Estimate(*confidence_interval(samples))


class Counts:
    """The replications' counters by name (``c["m_delivered"]``: one value per replication), and the run."""

    def __init__(self, rows: np.ndarray, layout, system, workload, settings):
        self.rows, self.layout = rows, layout
        self.system, self.workload, self.settings = system, workload, settings

    def __getitem__(self, name: str) -> np.ndarray:
        return self.layout.column(self.rows, name)

    def __contains__(self, name: str) -> bool:
        return name in self.layout


def run_replications(replicate, args: list, workers: int = 1, progress: bool = False, label: str = "") -> list:
    """``[replicate(*a) for a in args]``, in this process or over ``workers`` processes (0 = all cores).

    Results come back in the order of ``args`` whatever finishes first, so row r is replication r.
    """
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    if workers == 1 or len(args) == 1:
        results = (replicate(*a) for a in args)
    else:
        from joblib import Parallel, delayed

        n_jobs = -1 if workers == 0 else workers
        results = Parallel(n_jobs=n_jobs, return_as="generator")(delayed(replicate)(*a) for a in args)
    if not progress:
        return list(results)
    rows = []
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeRemainingColumn(), transient=True) as bar:
        task = bar.add_task(label, total=len(args))
        for r in results:
            rows.append(r)
            bar.advance(task)
    return rows


def simulate(system, workload=None, settings: RunSettings = RunSettings(), progress: bool = False) -> Result:
    """Simulate ``system`` (a switch, network or collective) under ``workload``; figures with 95 % intervals.

    The system's declaration (found by its type in :mod:`switchq.registry`)
    checks the pair, names the kernel and says what to measure.

    Examples
    --------
    >>> from switchq.models import Switch, Traffic
    >>> r = simulate(Switch(n_ports=4, architecture="oq"), Traffic(load=0.5),
    ...              RunSettings(slots=2000, replications=2, seed=7))
    >>> 0.4 < r.throughput.value < 0.6, r.arrived == r.delivered + r.queued + 0
    (True, True)
    """
    from switchq import registry

    return run(registry.for_system(system, workload), system, workload, settings, progress)


def _replicate(kernel: str, system, workload, run_args):
    return importlib.import_module(kernel).replicate(system, workload, run_args)


def run(declaration, system, workload, settings: RunSettings = RunSettings(), progress: bool = False) -> Result:
    """Run ``declaration``'s kernel on ``system`` and ``workload``: the one replication runner."""
    from . import kernel as K

    declaration.check(system, workload)
    seeds = replication_seeds(settings.seed, settings.replications)
    args = [(declaration.kernel, system, workload, K.Run(settings.slots, settings.warmup_slots, 0, s))
            for s in seeds]
    t0 = time.perf_counter()
    rows = np.array(run_replications(_replicate, args, settings.workers, progress,
                                     declaration.label(system, workload)))
    wall = time.perf_counter() - t0
    layout = importlib.import_module(declaration.kernel).LAYOUT
    return summarise(declaration, Counts(rows, layout, system, workload, settings), wall, seeds)


def summarise(declaration, c: Counts, wall: float, seeds) -> Result:
    """Metrics with intervals, counter totals, labels and the stability verdict of counter rows."""
    metrics, per_replication = {}, {}
    overflow = "overflow" in c and bool(c["overflow"].sum() > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        for m in declaration.metrics:
            if m.derived is not None:
                source, f = m.derived
                e = metrics[source]
                metrics[m.name] = Estimate(*(f(v, c) for v in (e.value, e.low, e.high)))
                continue
            samples = m.samples(c)
            if samples is None:
                continue
            samples = np.asarray(samples, dtype=float)
            if m.lossy_on_overflow and overflow:
                # An overflowing "unbounded" queue is a refusal, not a loss the user configured.
                metrics[m.name] = Estimate.nan()
            elif samples.ndim == 2:
                metrics[m.name] = tuple(estimate(samples[:, j]) for j in range(samples.shape[1]))
            else:
                metrics[m.name] = estimate(samples)
                per_replication[m.name] = samples.tolist()
    counters = {}
    for counter in declaration.counters:
        column = c[counter.counter or counter.name]
        counters[counter.name] = int({"sum": np.sum, "min": np.min, "max": np.max}[counter.reduce](column))
    labels = declaration.labels(c) if declaration.labels is not None else {}
    unstable = None
    if declaration.stability is not None:
        growth, offered, slack = declaration.stability(c)
        unstable = overflow or bool(np.any(growth > UNSTABLE_GROWTH * offered + slack))
    return Result(declaration.name, c.system, c.workload, c.settings, metrics, counters, labels, unstable, wall,
                  tuple(seeds), per_replication, declaration.units_of(c.system, c.workload),
                  declaration.settings_shown)
