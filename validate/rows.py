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

    Examples
    --------
    >>> e = estimate({"throughput": 0.5, "throughput_ci95": [0.49, 0.51], "replications": 8}, "throughput")
    >>> e.half_width, e.n, e.stable
    (0.010000000000000009, 8, None)
    """
    def num(v):
        return math.nan if v is None else float(v)

    low, high = row.get(name + "_ci95") or (None, None)
    samples = row.get(name + "_samples")
    reps = row.get("replications") or 0
    n = (sum(v is not None and math.isfinite(v) for v in samples) if samples is not None
         else reps if reps > 1 else row.get("batches") or reps)
    stable = True if name in (row.get("whole_measurements") or ()) else stable_of(row)
    return Estimate(num(row.get(name)), num(low), num(high), n=int(n), method=row.get(name + "_ci_method", "t"),
                    stable=stable, domain=tuple(domain))
