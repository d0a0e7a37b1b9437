"""What every simulation returns: estimates with intervals, in one result type.

Single switches, networks, event-driven collectives and batch workloads all
return a :class:`Result`: the system and workload simulated, the run
settings, named metrics (each an :class:`Estimate`, the mean over
replications with its 95 % Student-t interval), counter totals, whether the
run was unstable, notes on the intervals, and what reproduces it (the replications' seeds). Metrics
and counters read as attributes (``r.throughput.ci95``, ``r.arrived``).

Examples
--------
>>> e = Estimate(0.75, 0.74, 0.76)
>>> e.ci95, e.half_width
((0.74, 0.76), 0.010000000000000009)
>>> e.covers(0.755)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["Estimate", "Result"]


@dataclass(frozen=True)
class Estimate:
    """A simulated figure: the mean over ``n`` replications (or batches) and its 95 % interval (NaN: none).

    ``method`` says how the interval was made: ``t`` (Student-t on the samples), ``clipped`` (the
    Student-t interval, and a mean past the limit, cut at what the figure can be: a share in [0, 1], a
    latency at or above 0; see :func:`switchq.validate.harness.estimate`), ``paired`` (the interval of
    per-replication differences or ratios of two configurations run with common random numbers) or
    ``exact`` (no sampling error). ``n`` 0: not counted. ``stable``: whether the run it comes from was
    shown to be a steady state (None: not judged; see :mod:`switchq.validate.stability`); ``domain``: what
    the figure can be, (low, high), None where unlimited.
    """

    value: float
    low: float
    high: float
    n: int = 0
    method: str = "t"
    stable: bool | None = None
    domain: tuple = (None, None)

    @property
    def ci95(self) -> tuple:
        return (self.low, self.high)

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def covers(self, x: float, margin: float = 0.0) -> bool:
        """Whether ``x`` lies in the interval widened by ``margin`` on each side."""
        return self.low - margin <= x <= self.high + margin

    def __float__(self) -> float:
        return float(self.value)

    @classmethod
    def nan(cls) -> "Estimate":
        return cls(math.nan, math.nan, math.nan)


@dataclass(frozen=True)
class Result:
    """One simulated answer and what reproduces it.

    Attributes
    ----------
    architecture : str
        The declaration that ran it (``fifo``, ``fattree``, ``reduction``, ...).
    system, workload : objects
        The frozen configuration and its traffic (or start skew, or benchmark round).
    settings : RunSettings
    metrics : dict
        Name -> :class:`Estimate`, or a tuple of them (one per priority class).
    counters : dict
        Name -> total (or extreme) over replications.
    labels : dict
        Other figures: what a latency is measured on, analytic bounds, ...
    unstable : bool or None
        Offered more than it carries (None where it cannot be: a single collective).
    wall_seconds : float
    seeds : tuple
        Each replication's seed.
    per_replication : dict
        Name -> the replications' values of each scalar metric.
    units : dict
        Unit of every field :meth:`to_dict` gives.
    settings_shown : tuple
        The run settings that apply to this simulator (in ``to_dict``).
    notes : tuple of str
        What a reader must know to trust the figures: an interval reaching past what its figure can be,
        correlated batch means (:mod:`switchq.validate.harness`).
    """

    architecture: str
    system: object
    workload: object
    settings: object
    metrics: dict
    counters: dict
    labels: dict
    unstable: bool | None
    wall_seconds: float
    seeds: tuple
    per_replication: dict = field(repr=False)
    units: dict = field(repr=False, default_factory=dict)
    settings_shown: tuple = ("slots", "warmup_slots", "replications", "batches", "seed", "workers")
    notes: tuple = ()

    def __getattr__(self, name):
        # Only reached for names that are not fields: metrics, counters and labels read as attributes.
        for table in ("metrics", "counters", "labels"):
            values = self.__dict__.get(table) or {}
            if name in values:
                return values[name]
        raise AttributeError(f"{type(self).__name__} of {self.__dict__.get('architecture')} has no {name!r}")

    def to_dict(self) -> dict:
        """Flat JSON-ready dict: inputs first (system, workload, settings), then results.

        An estimate ``x`` is three fields, ``x``, ``x_ci95`` = [low, high] and ``x_samples`` (its value in
        each replication, or batch); a per-class estimate a list and a list of intervals.
        """
        out = dict(self.system.describe())
        if self.workload is not None:
            out.update(self.workload.describe())
        out.update({k: getattr(self.settings, k) for k in self.settings_shown})
        for name, m in self.metrics.items():
            if isinstance(m, tuple):
                out[name] = [e.value for e in m]
                out[name + "_ci95"] = [list(e.ci95) for e in m]
            else:
                out[name] = m.value
                out[name + "_ci95"] = list(m.ci95)
                if m.method != "t":
                    out[name + "_ci_method"] = m.method
                if name in self.per_replication:
                    # Per replication (or batch): what a paired comparison with another run of the same
                    # seeds is made from (switchq.validate.reports.claims.paired).
                    out[name + "_samples"] = list(self.per_replication[name])
        out.update(self.labels)
        out.update(self.counters)
        if self.unstable is not None or "stability_not_judged" in self.labels:
            # null: the run's stability was not judged (stability_not_judged says why)
            out["unstable"] = self.unstable
        out["wall_seconds"] = self.wall_seconds
        out["seeds"] = list(self.seeds)
        if self.notes:
            out["notes"] = list(self.notes)
        return out

    def inputs(self) -> list:
        """The keys of :meth:`to_dict` that are inputs."""
        keys = list(self.system.describe())
        if self.workload is not None:
            keys += list(self.workload.describe())
        return keys + list(self.settings_shown)
