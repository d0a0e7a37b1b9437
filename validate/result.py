"""What every simulation returns: estimates with intervals, in one result type.

Single switches, networks, event-driven collectives and batch workloads all
return a :class:`Result`: the system and workload simulated, the run
settings, named metrics (each an :class:`Estimate`, the mean over
replications with what its Student-t interval at any level is made from),
counter totals, whether the run was unstable, notes on the intervals, and
what reproduces it (the replications' seeds). Metrics and counters read as
attributes (``r.throughput.ci95``, ``r.arrived``).

An estimate keeps its samples' mean, standard deviation, count and degrees
of freedom, and makes its interval at the level asked
(:meth:`Estimate.confidence_interval`, as ``scipy.stats``' results do), cut
at what the figure can be; ``low`` and ``high`` are the 95 % interval (or
the level the estimate is shown at: :meth:`Estimate.at`).

Examples
--------
>>> e = Estimate(0.75, 0.74, 0.76)
>>> e.ci95, e.half_width
((0.74, 0.76), 0.010000000000000009)
>>> e.covers(0.755)
True
>>> s = Estimate.from_samples([1.0, 1.1, 0.9, 1.0, 1.0])
>>> round(s.se, 6), s.dof, [round(x, 4) for x in s.confidence_interval(0.99)]
(0.031623, 4, [0.8544, 1.1456])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import NamedTuple

__all__ = ["ConfidenceInterval", "Estimate", "Result"]

# Methods whose interval is Student-t on the samples, named "clipped" at a level where it is cut at the domain.
_STUDENT = ("t", "clipped")


class ConfidenceInterval(NamedTuple):
    """An interval ``(low, high)`` (NaN: none)."""

    low: float
    high: float


@dataclass(frozen=True, init=False)
class Estimate:
    """A simulated figure: the mean over ``n`` replications (or batches) and its interval at any level.

    ``method`` says how the interval is made: ``t`` (Student-t on the samples), ``clipped`` (the Student-t
    interval, and a mean past the limit, cut at what the figure can be: a share in [0, 1], a latency at or
    above 0), ``paired`` (the interval of per-replication differences or ratios of two configurations run
    with common random numbers, cut at the domain too) or ``exact`` (no sampling error). ``t`` or
    ``clipped`` is the name at ``level``: :meth:`at` renames it for another. ``n`` 0: not counted.
    ``stable``: whether the run it comes from was shown to be a steady state (None: not judged; see
    :mod:`switchq.validate.stability`); ``domain``: what the figure can be, (low, high), None where unlimited.

    Made from samples (:meth:`from_samples`), it keeps ``sd``, the samples' standard deviation (ddof 1: the
    standard error :attr:`se` is ``sd / sqrt(n)``; ``sd`` is kept, not ``se``, because ``t * sd / sqrt(n)`` is
    the arithmetic every interval was made with, and gives the same floats), ``dof`` (``n - 1``) and ``mean``
    (the samples' mean, where ``value`` is cut at the domain), and :meth:`confidence_interval` makes the
    interval at any level. Made
    as ``Estimate(value, low, high, ...)``, its interval is given only at ``level`` (``given``: a figure
    quoted with its interval, one made from another figure's interval ends, a stored row without its samples),
    and asking it for another level is an error: no standard error is made up from a width. ``low``,
    ``high``, ``ci95`` and ``half_width`` are the interval at ``level``, 95 % unless :meth:`at` says otherwise.
    """

    value: float
    n: int = 0
    method: str = "t"
    stable: bool | None = None
    domain: tuple = (None, None)
    sd: float = math.nan
    dof: int | None = None
    mean: float | None = None
    given: tuple | None = None
    level: float = 0.95

    def __init__(self, value, low=math.nan, high=math.nan, n=0, method="t", stable=None, domain=(None, None), *,
                 sd=math.nan, dof=None, mean=None, given=None, level=0.95):
        # ``given`` is the field the pair (low, high) is kept in: dataclasses.replace passes it back as such.
        if given is None and not (math.isnan(low) and math.isnan(high)):
            given = (low, high)
        if dof is None and math.isfinite(sd):
            dof = n - 1
        for name, v in (("value", value), ("n", n), ("method", method), ("stable", stable),
                        ("domain", tuple(domain)), ("sd", sd), ("dof", dof), ("mean", mean),
                        ("given", None if given is None else tuple(given)), ("level", level)):
            object.__setattr__(self, name, v)

    @classmethod
    def from_samples(cls, samples, bounds=(None, None), method: str = "t", stable=None) -> "Estimate":
        """The mean of replication (or batch) ``samples`` (NaN ones left out) and its Student-t interval,
        cut at ``bounds``, what the figure can be, where it reaches past them.

        Cut, the interval keeps its coverage (the true value lies inside the bounds) and never widens; a mean
        past a bound is cut too, and a ``t`` interval cut at 95 % is named ``clipped``. (A log or logit
        transformation by the delta method was tried and rejected: near a bound it widens the interval by
        orders of magnitude, e.g. a carried share of 0.999992 ± 0.00008 becomes [0.845, 1].)

        Examples
        --------
        >>> e = Estimate.from_samples([0.99998, 1.00001, 0.99999, 1.00002, 1.0], bounds=(0.0, 1.0))
        >>> e.high, e.method, e.n, e.dof
        (1.0, 'clipped', 5, 4)
        >>> Estimate.from_samples([3.0, 4.0, 5.0], bounds=(0.0, None)).method
        't'
        """
        import numpy as np

        x = np.asarray(samples, dtype=float)
        x = x[~np.isnan(x)]
        n = int(x.size)
        mean = float(x.mean()) if n else math.nan
        if n < 2:
            return cls(mean, n=n, method=method, stable=stable, domain=bounds)
        e = cls(mean, n=n, method=method, stable=stable, domain=bounds, sd=float(x.std(ddof=1)), dof=n - 1,
                mean=mean)
        if not e._reaches_past(0.95):
            return e
        return replace(e, value=min(max(mean, e._bounds[0]), e._bounds[1])).at(0.95)

    @property
    def se(self) -> float:
        """The standard error of the mean, ``sd / sqrt(n)`` (NaN: none)."""
        return self.sd / math.sqrt(self.n) if self.n else math.nan

    @property
    def _bounds(self) -> tuple:
        lo, hi = self.domain
        return (-math.inf if lo is None else lo, math.inf if hi is None else hi)

    def _student(self, level: float) -> tuple:
        """The Student-t interval at ``level`` about the samples' mean, not yet cut."""
        from .student import t_quantile

        centre = self.value if self.mean is None else self.mean
        # t * sd / sqrt(n), in this order: the same floats as every interval made before estimates kept sd.
        half = t_quantile(1 - (1 - level) / 2, self.dof) * self.sd / math.sqrt(self.n)
        return centre - half, centre + half

    def _reaches_past(self, level: float) -> bool:
        if not math.isfinite(self.sd):
            return False
        low, high = self._student(level)
        return low < self._bounds[0] or high > self._bounds[1]

    def confidence_interval(self, level: float = 0.95) -> ConfidenceInterval:
        """The two-sided interval at confidence ``level``: Student-t with ``dof`` degrees of freedom about the
        samples' mean, cut at ``domain`` where it reaches past it; ``(value, value)`` for an ``exact`` figure;
        NaN where there is none (fewer than two samples). An interval given as is exists only at its
        ``level`` (ValueError for another).

        Examples
        --------
        >>> e = Estimate.from_samples([0.990, 0.995, 0.992, 0.994, 0.993], bounds=(0.0, 1.0))
        >>> [round(x, 4) for x in e.confidence_interval(0.95)], [round(x, 4) for x in e.confidence_interval(0.999)]
        ([0.9904, 0.9952], [0.9854, 1.0])
        >>> e.confidence_interval(0.95) == (e.low, e.high)
        True
        >>> Estimate(0.75, 0.74, 0.76).confidence_interval(0.99)
        Traceback (most recent call last):
        ...
        ValueError: level: got 0.99; allowed: 0.95 (0.75's interval is given only there, without its samples' spread)
        """
        if not 0 < level < 1:
            raise ValueError(f"level: got {level!r}; allowed: a confidence level in (0, 1)")
        if self.method == "exact":
            return ConfidenceInterval(self.value, self.value)
        if self.given is not None:
            if level != self.level:
                raise ValueError(f"level: got {level!r}; allowed: {self.level:g} ({self.value:g}'s interval is given "
                                 "only there, without its samples' spread)")
            return ConfidenceInterval(*self.given)
        if not math.isfinite(self.sd):
            return ConfidenceInterval(math.nan, math.nan)
        low, high = self._student(level)
        lo_b, hi_b = self._bounds
        if low < lo_b or high > hi_b:
            low, high = min(max(low, lo_b), hi_b), min(max(high, lo_b), hi_b)
        return ConfidenceInterval(low, high)

    def at(self, level: float) -> "Estimate":
        """The same estimate shown at ``level``: ``low``, ``high`` and ``half_width`` are its interval there,
        and a Student-t interval is named ``clipped`` where it is cut at the domain, ``t`` where not.

        Examples
        --------
        >>> e = Estimate.from_samples([0.990, 0.995, 0.992, 0.994, 0.993], bounds=(0.0, 1.0))
        >>> e.method, e.at(0.999).method, e.at(0.999).high, e.at(0.999).low == e.confidence_interval(0.999).low
        ('t', 'clipped', 1.0, True)
        """
        self.confidence_interval(level)         # refuses a level an interval given as is does not have
        method = self.method
        if method in _STUDENT and self.given is None and math.isfinite(self.sd):
            method = "clipped" if self._reaches_past(level) else "t"
        return replace(self, level=level, method=method)

    @property
    def low(self) -> float:
        return self.confidence_interval(self.level).low

    @property
    def high(self) -> float:
        return self.confidence_interval(self.level).high

    @property
    def ci95(self) -> tuple:
        """``(low, high)``: the interval at ``level`` (95 % unless shown at another, :meth:`at`)."""
        return tuple(self.confidence_interval(self.level))

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
        return cls(math.nan)


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
        each replication, or batch: what it is made from, so a row read back gives its interval at any level,
        :func:`switchq.validate.rows.estimate`); a per-class estimate a list and a list of intervals.
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
