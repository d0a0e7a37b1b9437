"""A report's claims: figures made ready for the verdict engine, and how verdicts are printed.

The class of every verdict is decided by :mod:`switchq.validate.verdict`
(re-exported here: :func:`within`, :func:`at_least`, :func:`at_most`,
:func:`exactly`, :class:`Exact`, :class:`Quote`, :class:`Derivation`); a
report passes figures and evidence, never a class. This module makes the
figures a report judges:

- :func:`paired`: the difference or ratio of two configurations run with common
  random numbers (the same seed and replications), the only figure a claim
  comparing two configurations may stand on;
- :func:`derived` and :func:`sampled`: figures made replication by replication
  from one or several runs;
- each of them, like :func:`switchq.validate.reports.est`, can take more
  replications (``more(n)``: the runs are made again with ``n``, replication r
  keeping its seed), which the engine asks for before it calls an interval that
  overlaps a band's edge inconclusive;

and prints them: :func:`fmt` (an interval cut at what its quantity can be is
printed as ``[low, high]`` with its method, never as ``± half-width``),
:func:`cell` (a verdict with its reason), :func:`printed` and :func:`shown`.

Examples
--------
>>> from switchq.validate.result import Estimate
>>> within(Estimate(3.36, 3.30, 3.42, n=8, stable=True), 4, 0.5), within(Exact(4.9), 5, 0.5)
('defect', 'agree')
>>> tally(["agree", "defect", "agree"])
'2 of 3'
>>> try:
...     within(0.5, 0.5, 0.1)
... except ClaimError as e:
...     print(e)
a bare number 0.5 cannot be judged: pass a simulated Estimate, or Exact(...) for an analytic or counted value
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ..result import Estimate
from ..rows import stable_of
from ..verdict import (AGREE, CLASSES, DISAGREEMENTS, INCONCLUSIVE, MIN_BUDGET, MIN_SAMPLES, RECORD, ClaimError,
                       Derivation, Exact, Measured, Quote, Verdict, agreeing, at_least, at_most, by_class, exactly,
                       extending, measured, reporting, tally, within)

__all__ = ["AGREE", "INCONCLUSIVE", "CLASSES", "DISAGREEMENTS", "MIN_SAMPLES", "MIN_BUDGET", "ClaimError", "Exact",
           "Quote", "Derivation", "Verdict", "RECORD", "reporting", "extending", "within", "at_least", "at_most", "exactly",
           "tally", "by_class", "agreeing", "Measured", "printed", "shown", "paired", "derived", "sampled", "listed",
           "fmt", "cell", "stable_of", "records"]


def shown(x, digits: int = 3) -> float:
    """A figure (a number or an estimate's value) as a report's table prints it, to ``digits`` places. Gaps,
    spreads, changes and ratios a report quotes are taken between such values, so a reader recomputing one
    from the table gets the number quoted (0.584 - 0.5815 is 0.0025, whatever the unrounded values give).

    Examples
    --------
    >>> round(shown(Estimate(0.58353, 0.57, 0.59), 4) - shown(0.58151, 4), 4)
    0.002
    """
    value = x.value if hasattr(x, "value") else x
    return round(value, digits) if math.isfinite(value) else value


def printed(text: str) -> tuple:
    """A number as the paper prints it and the tolerance its digits imply, half a unit in the last place:
    a value agrees with it when it rounds to it.

    Examples
    --------
    >>> printed("0.22"), printed("0.8"), printed("1.00")
    ((0.22, 0.005), (0.8, 0.05), (1.0, 0.005))
    """
    decimals = len(text.split(".")[1]) if "." in text else 0
    return float(text), 0.5 * 10.0 ** -decimals


def fmt(e, digits: int = 3, signed: bool = False) -> str:
    """An estimate as a table prints it: ``value ± half-width`` for a symmetric Student-t interval,
    ``value [low, high] (method)`` for one cut at what its quantity can be (or any other asymmetric one),
    the value alone for an exact figure; ``signed`` for a difference.

    Examples
    --------
    >>> fmt(Estimate(0.5, 0.49, 0.51, n=5)), fmt(Estimate(13.4, 0.0, 41.1, n=5, method="clipped"), 1)
    ('0.500 ± 0.010', '13.4 [0.0, 41.1] (clipped)')
    """
    sign = "+" if signed else ""
    value = f"{e.value:{sign}.{digits}f}"
    if getattr(e, "method", "t") == "exact" or not math.isfinite(getattr(e, "low", math.nan)):
        return value
    if e.method in ("t", "paired") and math.isclose(e.value - e.low, e.high - e.value, rel_tol=1e-6, abs_tol=1e-12):
        return f"{value} ± {e.half_width:.{digits}f}"
    return f"{value} [{e.low:{sign}.{digits}f}, {e.high:{sign}.{digits}f}] ({e.method})"


def cell(v: Verdict) -> str:
    """A verdict for a table's last column: its class, and why unless it agrees.

    Examples
    --------
    >>> cell(within(Exact(0.3), 0.5, 0.1))
    'defect: 0.3 outside 0.4 .. 0.6'
    """
    return str(v) if v == AGREE else f"{v}: {v.why}"


def records(report: str | None = None) -> list:
    """The JSON objects of the verdicts made (of ``report``, or all), in order."""
    return [v.record() for v in RECORD if report is None or v.report == report]


# ------------------------------------------------------------------ figures made from runs

def _samples(row, name: str) -> np.ndarray:
    x = row.get(name + "_samples") if hasattr(row, "get") else None
    if x is None:
        raise ClaimError(f"no per-replication values of {name} to pair (a stored row from before they were kept: "
                         "rebuild it)")
    return np.array([math.nan if v is None else v for v in x], dtype=float)


def _shared(rows, name: str) -> list:
    """Metric ``name``'s per-replication values in ``rows`` run with common random numbers, cut to the
    replications they all share: replication r has seed r of the root seed's SeedSequence whatever the count,
    so runs taken to different counts (a precision target) share their first ones."""
    if rows[0].get("seed") is None:
        raise ClaimError("a row without its seed cannot be paired: common random numbers cannot be checked")
    for key in ("seed", "batches"):
        if len({repr(r.get(key)) for r in rows}) > 1:
            raise ClaimError(f"rows run with different {key} ({', '.join(str(r.get(key)) for r in rows)}) share "
                             "no random numbers: run them with the same seed and replications")
    xs = [_samples(r, name) for r in rows]
    k = min(x.size for x in xs)
    return [x[:k] for x in xs]


def _remake(rows) -> Callable | None:
    """``n -> rows made again with n replications``, when every row can be (None otherwise)."""
    if not all(callable(getattr(r, "more", None)) for r in rows):
        return None
    return lambda n: [r.more(n) for r in rows]


def _estimate(values, method: str, domain=(None, None), stable=None) -> Estimate:
    """The Estimate (Student-t) of per-replication ``values``, those that could be measured, its interval cut at
    ``domain`` where it reaches past it."""
    d = np.asarray(values, dtype=float)
    return Estimate.from_samples(d[np.isfinite(d)], domain, method, stable)


def paired(a, b, name: str, ratio: bool = False) -> Measured:
    """The difference ``a - b`` (or the ratio ``a / b``) of metric ``name`` between two simulated rows run
    with common random numbers (the same seed and replications: replication r of each drew its arrivals
    from the same stream), as an estimate whose 95 % Student-t interval is that of the per-replication
    differences (ratios), so the noise the two share cancels instead of adding. A difference keeps its
    symmetric interval; a ratio of figures that cannot be negative is cut at 0 (and says so).

    Examples
    --------
    >>> a = {"x_samples": [1.0, 1.2, 0.9, 1.1, 1.0], "seed": 3, "replications": 5, "unstable": False}
    >>> b = {"x_samples": [0.9, 1.1, 0.8, 1.0, 0.95], "seed": 3, "replications": 5, "unstable": False}
    >>> e = paired(a, b, "x")
    >>> round(e.value, 3), e.method, e.n, e.low > 0, e.stable
    (0.09, 'paired', 5, True, True)
    """
    x, y = _shared([a, b], name)
    with np.errstate(divide="ignore", invalid="ignore"):
        # Named paired even where cut at 0: the engine judges a comparison only on a paired interval.
        e = _estimate(x / y if ratio else x - y, "paired", (0.0, None) if ratio and _nonnegative(a, b, name)
                      else (None, None), stable_of(a, b))
    again = _remake([a, b])
    return measured(e, None if again is None else lambda n: paired(*again(n), name, ratio), runs=x.size)


def _nonnegative(a, b, name) -> bool:
    """Whether metric ``name`` of both rows cannot be negative (their declarations say so)."""
    lows = [getattr(r, "domains", {}).get(name, (None, None))[0] for r in (a, b)]
    return all(low is not None and low >= 0 for low in lows)


def derived(rows, name: str, f, as_name: str = "derived") -> dict:
    """A row holding ``f`` of metric ``name`` replication by replication over ``rows`` run with common random
    numbers (the same seed and replications), for :func:`paired` on a figure made of several runs: a ratio
    of two configurations' latencies, or its change with a parameter (``f`` takes one array per row).

    Examples
    --------
    >>> a = {"x_samples": [2.0, 4.0, 3.0, 2.0, 2.0], "seed": 1, "replications": 5}
    >>> b = {"x_samples": [1.0, 2.0, 1.0, 1.0, 2.0], "seed": 1, "replications": 5}
    >>> d = derived([a, b], "x", lambda x, y: x / y, "cut")
    >>> d["cut_samples"], d["replications"]
    ([2.0, 2.0, 3.0, 2.0, 1.0], 5)
    """
    from . import Row

    rows = list(rows)
    xs = _shared(rows, name)
    k = xs[0].size
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.asarray(f(*xs), dtype=float)
    stable = stable_of(*rows)
    out = Row({as_name + "_samples": values.tolist(), "replications": k,
               "unstable": None if stable is None else not stable,
               **{key: rows[0].get(key) for key in ("seed", "batches")}})
    again = _remake(rows)
    if again is not None:
        out.more = lambda n: derived(again(n), name, f, as_name)
    return out


def sampled(row: dict, f, *names: str, domain=(None, None)) -> Measured:
    """The estimate (95 % Student-t over replications) of ``f`` of one run's metrics ``names``, taken
    replication by replication: a figure made of several metrics of the same run (connections dropped less
    those established, delivered over offered), or a :func:`derived` row's values; its interval cut at
    ``domain`` (what the figure can be: ``(0, None)`` for a latency). Not for comparing two configurations:
    that is :func:`paired`'s.

    Examples
    --------
    >>> r = {"a_samples": [3.0, 4.0, 5.0, 4.0, 4.0], "b_samples": [1.0, 1.0, 2.0, 2.0, 1.0], "replications": 5}
    >>> e = sampled(r, lambda a, b: a - b, "a", "b")
    >>> round(e.value, 2), e.n, e.method
    (2.6, 5, 't')
    """
    xs = [_samples(row, n) for n in names]
    if len({x.shape for x in xs}) > 1:
        raise ClaimError(f"{listed(names)}: different numbers of replications cannot be combined")
    with np.errstate(divide="ignore", invalid="ignore"):
        e = _estimate(f(*xs), "t", domain, stable_of(row))
    again = _remake([row])
    return measured(e, None if again is None else lambda n: sampled(again(n)[0], f, *names, domain=domain),
                    runs=xs[0].size)


def listed(items, empty: str = "none") -> str:
    """Items joined for a sentence: ``a, b and c``."""
    items = [str(i) for i in items]
    if not items:
        return empty
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
