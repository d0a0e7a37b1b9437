"""A simulated point as ``--json`` and the result store give it (a row), read back as the estimates it holds.

Shared by the reports (:func:`switchq.validate.reports.est`) and the page's side-by-side verdicts
(:func:`switchq.validate.compare.judge_answer`): one reading of a row's interval, replications and stability.
"""

from __future__ import annotations

import math

from .result import Estimate

__all__ = ["estimate", "stable_of"]


def stable_of(*rows) -> bool | None:
    """Whether every run in ``rows`` was shown to be a steady state: False if one was unstable, None if one was
    not judged (or says nothing), True otherwise.

    Examples
    --------
    >>> stable_of({"unstable": False}, {"unstable": None}), stable_of({"unstable": False}, {"unstable": True})
    (None, False)
    """
    # A run of a simulator that needs no stability test (its queues bounded by flow control, or one collective run to
    # its end: the declaration's ``bounded``) is a whole measurement.
    flags = [(False if r.get("unstable") is None and str(r.get("stability", "")).startswith("no test needed")
              else r.get("unstable")) if hasattr(r, "get") else None for r in rows]
    if any(f is True for f in flags):
        return False
    if any(f is None for f in flags):
        return None
    return True


def estimate(row: dict, name: str, domain=(None, None)) -> Estimate:
    """The estimate ``name`` of a row (a value stored as none reads as NaN), with the stability of its run and
    ``domain``, what the metric can be; ``n`` counts the replications (or batches) that measured it.

    A row keeps its replications' values (``name_samples``), from which the estimate is made again as the run
    made it (:meth:`~switchq.validate.result.Estimate.from_samples`), its interval at any level, when they give
    the row's figure and 95 % interval to the last bit; otherwise (a row stored without them, a metric made from
    another's interval, or ``domain`` not the one the run cut the interval at) the row's 95 % interval is
    taken as it is, and only at 95 %.

    Examples
    --------
    >>> e = estimate({"throughput": 0.5, "throughput_ci95": [0.49, 0.51], "replications": 8}, "throughput")
    >>> e.half_width, e.n, e.stable
    (0.010000000000000009, 8, None)
    >>> row = {"x": 2.0, "x_ci95": [-0.48413771175033027, 4.48413771175033], "x_samples": [1.0, 2.0, 3.0]}
    >>> round(estimate(row, "x").se, 4), [round(v, 3) for v in estimate(row, "x").confidence_interval(0.99)]
    (0.5774, [-3.73, 7.73])
    """
    def num(v):
        return math.nan if v is None else float(v)

    low, high = row.get(name + "_ci95") or (None, None)
    samples = row.get(name + "_samples")
    reps = row.get("replications") or 0
    n = (sum(v is not None and math.isfinite(v) for v in samples) if samples is not None
         else reps if reps > 1 else row.get("batches") or reps)
    stable = True if name in (row.get("whole_measurements") or ()) else stable_of(row)
    stored = Estimate(num(row.get(name)), num(low), num(high), n=int(n), method=row.get(name + "_ci_method", "t"),
                      stable=stable, domain=tuple(domain))
    if samples is None:
        return stored
    made = Estimate.from_samples([num(v) for v in samples], domain, stable=stable)
    same = (made.value, made.ci95, made.method, made.n) == (stored.value, stored.ci95, stored.method, stored.n)
    return made if same else stored
