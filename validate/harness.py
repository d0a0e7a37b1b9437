"""Run a switch model in the simulator: replications, warm-up, confidence intervals.

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
  when the cells waiting inside grew by more than ``UNSTABLE_GROWTH`` of
  the cells offered while measuring (offered - dropped - delivered): it is
  offered more than it carries (or has not reached its steady state), so
  its throughput is the saturation throughput and its latency grows with
  the run length.
"""

from __future__ import annotations

import importlib
import math
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from switchq.models import Switch, Traffic
from switchq.models import _check

__all__ = ["RunSettings", "SimResult", "simulate", "replication_seeds", "confidence_interval", "UNSTABLE_GROWTH"]

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


@dataclass(frozen=True)
class SimResult:
    """One simulated answer: figures with 95 % intervals, and what reproduces them.

    Throughput is cells (multicast: packets, counted when their last copy
    leaves) delivered per offering input per slot, so it compares with the
    load; ``output_utilization`` is cells or copies sent per output per slot. Waits and latencies are in
    slots. ``latency_per`` says what a latency is measured on: a ``cell``
    (latency = wait + 1) or a ``burst`` (first cell in to last cell out,
    buffered crossbars, paper 002 §5). ``latency_by_priority`` holds
    ``(mean, (low, high))`` per priority class; ``counters`` the flow-control
    counters of a buffered crossbar, summed over replications.
    """

    switch: Switch
    traffic: Traffic
    settings: RunSettings
    throughput: float
    throughput_ci95: tuple
    mean_latency: float
    mean_latency_ci95: tuple
    mean_wait: float
    mean_wait_ci95: tuple
    loss_probability: float
    loss_probability_ci95: tuple
    arrived: int
    delivered: int
    dropped: int
    queued: int
    unstable: bool
    wall_seconds: float
    per_replication: dict = field(repr=False)
    latency_per: str = "cell"
    output_utilization: float = math.nan
    output_utilization_ci95: tuple = (math.nan, math.nan)
    latency_by_priority: tuple = ()
    counters: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """Flat JSON-ready dict: inputs first, then results."""
        out = self.switch.describe()
        out.update(self.traffic.describe())
        out.update(asdict(self.settings))
        for name in ("throughput", "throughput_ci95", "output_utilization", "output_utilization_ci95",
                     "mean_latency", "mean_latency_ci95", "latency_per",
                     "mean_wait", "mean_wait_ci95", "loss_probability", "loss_probability_ci95",
                     "arrived", "delivered", "dropped", "queued", "unstable", "wall_seconds"):
            v = getattr(self, name)
            out[name] = list(v) if isinstance(v, tuple) else v
        if len(self.latency_by_priority) > 1:
            out["mean_latency_by_priority"] = [m for m, _ in self.latency_by_priority]
            out["mean_latency_by_priority_ci95"] = [list(ci) for _, ci in self.latency_by_priority]
        out.update(self.counters)
        return out


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


def _replicate(architecture, switch, traffic, slots, warmup, seed):
    from .arch import ARCH_MODULES

    mod = importlib.import_module(f"switchq.validate.arch.{ARCH_MODULES[architecture]}")
    return mod.replicate(switch, traffic, slots, warmup, seed)


def simulate(switch: Switch, traffic: Traffic, settings: RunSettings = RunSettings(),
             progress: bool = False) -> SimResult:
    """Simulate ``switch`` under ``traffic``; return figures with 95 % intervals.

    Examples
    --------
    >>> from switchq.models import Switch, Traffic
    >>> r = simulate(Switch(n_ports=4, architecture="oq"), Traffic(load=0.5),
    ...              RunSettings(slots=2000, replications=2, seed=7))
    >>> 0.4 < r.throughput < 0.6
    True
    """
    traffic.check_ports(switch.n_ports)
    _check_combination(switch, traffic)
    if len(traffic.priority_shares) > switch.priorities:
        raise _check.InputError("priority_shares", traffic.priority_shares,
                                f"at most {switch.priorities} share(s) for a switch with {switch.priorities} "
                                "priority class(es)")
    seeds = replication_seeds(settings.seed, settings.replications)
    args = [(switch.architecture, switch, traffic, settings.slots, settings.warmup_slots, s)
            for s in seeds]
    t0 = time.perf_counter()
    rows = _run_all(args, settings.workers, progress,
                    f"{switch.architecture} {switch.n_ports}x{switch.n_ports} load {traffic.load:g}")
    wall = time.perf_counter() - t0
    return _summarise(switch, traffic, settings, np.array(rows), wall)


def _check_combination(switch, traffic):
    """Reject traffic features the chosen architecture does not model (one line, before any work)."""
    from switchq.models.switch import MULTICAST_ARCHITECTURES

    if switch.architecture in MULTICAST_ARCHITECTURES:
        if traffic.pattern != "uniform":
            raise _check.InputError("pattern", traffic.pattern, "uniform for multicast switches")
        if traffic.arrivals == "onoff":
            raise _check.InputError("arrivals", traffic.arrivals, "bernoulli or poisson for multicast switches")
    else:
        if traffic.arrivals == "poisson":
            raise _check.InputError("arrivals", traffic.arrivals,
                                    "bernoulli or onoff unless architecture is one of " + ", ".join(MULTICAST_ARCHITECTURES))
        if traffic.fanout != 1.0:
            raise _check.InputError("fanout", traffic.fanout,
                                    "1 unless architecture is one of " + ", ".join(MULTICAST_ARCHITECTURES))
        if traffic.active_inputs is not None:
            raise _check.InputError("active_inputs", traffic.active_inputs,
                                    "None unless architecture is one of " + ", ".join(MULTICAST_ARCHITECTURES))


def _run_all(args, workers, progress, label, replicate=None):
    """Run ``replicate(*a)`` for each ``a`` in ``args`` (default: a switch replication),
    in this process or over ``workers`` processes (0 = all cores)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    replicate = replicate or _replicate
    if workers == 1 or len(args) == 1:
        results = (replicate(*a) for a in args)
    else:
        from joblib import Parallel, delayed

        n_jobs = -1 if workers == 0 else workers
        # Ordered generator: row r is replication r whatever finishes first.
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


def _summarise(switch, traffic, settings, rows, wall) -> SimResult:
    from switchq.models.switch import MULTICAST_ARCHITECTURES

    from . import kernel as K

    n = switch.n_ports
    measured = settings.slots
    # Throughput is per offering input: cells (or multicast packets) per input per slot.
    inputs = traffic.active_inputs or n
    throughput = rows[:, K.STAT_M_DELIVERED] / (inputs * measured)
    multicast = switch.architecture in MULTICAST_ARCHITECTURES
    sent = rows[:, K.STAT_M_COPIES if multicast else K.STAT_M_DELIVERED]
    utilization = confidence_interval(sent / (n * measured))
    with np.errstate(invalid="ignore", divide="ignore"):
        wait = rows[:, K.STAT_M_WAIT_SUM] / rows[:, K.STAT_M_WAIT_COUNT]
        latency = rows[:, K.STAT_M_LATENCY_SUM] / rows[:, K.STAT_M_LATENCY_COUNT]
        loss = rows[:, K.STAT_M_DROPPED] / rows[:, K.STAT_M_OFFERED]
        by_prio = [confidence_interval(rows[:, K.STAT_M_LATENCY_SUM_P + p] / rows[:, K.STAT_M_LATENCY_COUNT_P + p])
                   for p in range(switch.priorities)]
    tp = confidence_interval(throughput)
    wt = confidence_interval(wait)
    lt = confidence_interval(latency)
    ls = confidence_interval(loss)
    # An overflowing "unbounded" queue is a refusal, not a loss the user configured.
    overflow = bool(rows[:, K.STAT_OVERFLOW].sum() > 0)
    if overflow:
        ls = (math.nan, math.nan, math.nan)
    offered = rows[:, K.STAT_M_OFFERED].sum()
    growth = offered - rows[:, K.STAT_M_DROPPED].sum() - rows[:, K.STAT_M_DELIVERED].sum()
    unstable = overflow or bool(offered > 0 and growth > UNSTABLE_GROWTH * offered)
    return SimResult(
        switch=switch, traffic=traffic, settings=settings,
        throughput=tp[0], throughput_ci95=tp[1:],
        mean_latency=lt[0], mean_latency_ci95=lt[1:],
        mean_wait=wt[0], mean_wait_ci95=wt[1:],
        loss_probability=ls[0], loss_probability_ci95=ls[1:],
        arrived=int(rows[:, K.STAT_ARRIVED].sum()),
        delivered=int(rows[:, K.STAT_DELIVERED].sum()),
        dropped=int(rows[:, K.STAT_DROPPED].sum()),
        queued=int(rows[:, K.STAT_QUEUED].sum()),
        unstable=unstable, wall_seconds=wall,
        per_replication={"throughput": throughput.tolist(), "mean_wait": wait.tolist(),
                         "mean_latency": latency.tolist(),
                         "seeds": replication_seeds(settings.seed, settings.replications)},
        latency_per="burst" if switch.architecture == "cicq" else "packet" if multicast else "cell",
        output_utilization=utilization[0], output_utilization_ci95=utilization[1:],
        latency_by_priority=tuple((m, (lo, hi)) for m, lo, hi in by_prio),
        counters=_flow_control_counters(switch, rows),
    )


def _flow_control_counters(switch, rows) -> dict:
    """Flow-control counters of a buffered crossbar (summed, or the extreme over replications)."""
    from . import kernel as K

    if switch.flow_control is None:
        return {}
    out = {name: int(rows[:, idx].sum()) for name, idx in (
        ("speculative_transmissions", K.STAT_SPECULATIVE), ("retransmissions", K.STAT_RETRANSMISSIONS),
        ("naks", K.STAT_NAKS), ("duplicates", K.STAT_DUPLICATES), ("replacements", K.STAT_REPLACEMENTS),
        ("order_errors", K.STAT_ORDER_ERRORS), ("credited_drops", K.STAT_CREDITED_DROPS))}
    out["credit_min"] = int(rows[:, K.STAT_CREDIT_MIN].min())
    out["credit_max"] = int(rows[:, K.STAT_CREDIT_MAX].max())
    out["retransmission_max"] = int(rows[:, K.STAT_RTX_MAX].max())
    return out
