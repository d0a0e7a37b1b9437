"""Verdicts on a paper's claims: every report sentence that compares is made from these, by one rule.

A claim is a target (a number the paper prints, or the value its words
imply: "no observable difference" is a ratio of 1) and a tolerance (the
paper's stated precision, or how finely its figure can be read). A simulated
estimate agrees when its 95 % interval reaches the band target ± tolerance;
an exact value (an analytic answer, a count, a sizing formula: :class:`Exact`)
when it lies in the band. One-sided claims ("at least", "above") use
:func:`at_least` and :func:`at_most` with the same rule.

The rule is enforced, not a convention:

- a bare number is refused: a simulated figure comes as an
  :class:`~switchq.validate.result.Estimate`, an exact one as :class:`Exact`;
- an estimate from fewer than :data:`MIN_SAMPLES` replications (or batches)
  is refused: a Student-t interval from two is 12.7 standard errors wide and
  decides nothing;
- a claim that compares two configurations (an ordering, a gain, "no adverse
  effect") says so (``compares=True``) and must be judged on the interval of
  the paired difference or ratio of runs with common random numbers
  (:func:`paired`); any other estimate is refused.

Each verdict is a :class:`Verdict`: the word (``agree`` or ``DISAGREE``, a
``str``, so a report prints and counts it as before) and, for a
disagreement, its class (``kind``): ``defect`` (switchq is wrong), ``ambiguity`` (the
paper reads two ways; ``evidence`` names the reading that agrees, if any),
``not reproducible`` (the paper's number contradicts its own set-up;
``evidence`` holds the derivation) or ``not a claim`` (about another model,
e.g. a figure quoted from another paper's network). A verdict also names its
``reading``: the default reading's verdicts are the headline (:func:`tally`,
:func:`by_class`); other readings are rows of their own and never counted
there. Every verdict made in a process is kept in :data:`RECORD` (tests read
it from every report's quick build).

Examples
--------
>>> from switchq.validate.result import Estimate
>>> within(Estimate(3.36, 3.30, 3.42, n=8), 4, 0.5), within(Exact(4.9), 5, 0.5)
('DISAGREE', 'agree')
>>> tally(["agree", "DISAGREE", "agree"])
'2 of 3'
>>> try:
...     within(0.5, 0.5, 0.1)
... except ClaimError as e:
...     print(e)
a bare number 0.5 cannot be judged: pass a simulated Estimate, or Exact(...) for an analytic or counted value
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["AGREE", "DISAGREE", "CLASSES", "MIN_SAMPLES", "ClaimError", "Exact", "Verdict", "RECORD", "printed",
           "shown", "within", "at_least", "at_most", "paired", "tally", "by_class", "agreeing", "listed",
           "reporting"]

AGREE, DISAGREE = "agree", "DISAGREE"
# A disagreement's classes, in the order a headline lists them.
CLASSES = ("defect", "ambiguity", "not reproducible", "not a claim")
# The fewest replications (or batches) a simulated verdict may stand on.
MIN_SAMPLES = 5

# Every verdict made in this process, in order (see reporting() for the report each belongs to).
RECORD: list = []
_current = {"report": ""}


class ClaimError(ValueError):
    """A verdict built against the rule (a bare number, too few replications, an unpaired comparison)."""


@dataclass(frozen=True)
class Exact:
    """A value with no sampling error: an analytic answer, a count, a figure of a formula (``source`` says
    which)."""

    value: float
    source: str = ""

    def __post_init__(self):
        if hasattr(self.value, "low"):
            raise ClaimError("a simulated estimate is not exact: judge the Estimate itself")
        if math.isnan(float(self.value)):
            raise ClaimError("an exact value must be a number, not NaN")


class Verdict(str):
    """``agree`` or ``DISAGREE`` (a ``str``), with the claim's class, reading and the figures it was judged on."""

    kind: str
    reading: str
    default: bool
    evidence: str
    claim: str
    report: str
    target: float
    tolerance: float
    low: float
    high: float
    n: int
    method: str
    value: float

    def __new__(cls, word, **fields):
        v = super().__new__(cls, word)
        for k, x in fields.items():
            setattr(v, k, x)
        return v


def reporting(name: str) -> None:
    """Name the report whose verdicts follow (each verdict in :data:`RECORD` carries it)."""
    _current["report"] = name


def shown(x, digits: int = 3) -> float:
    """A figure (a number or an estimate's value) as a report's table prints it, to ``digits`` places. Gaps,
    spreads, changes and ratios a report quotes are taken between such values, so a reader recomputing one
    from the table gets the number quoted (0.584 - 0.5815 is 0.0025, whatever the unrounded values give).

    Examples
    --------
    >>> from switchq.validate.result import Estimate
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


def _interval(value, compares: bool) -> tuple:
    """(low, high, n, method) of what a verdict is judged on, or ClaimError."""
    if isinstance(value, Exact):
        if compares:
            raise ClaimError(f"a comparison of two configurations judged on an exact value {value.value:g}: "
                             "judge the paired difference of their runs (paired())")
        return float(value.value), float(value.value), 0, "exact"
    if not hasattr(value, "low"):
        raise ClaimError(f"a bare number {value!r} cannot be judged: pass a simulated Estimate, or Exact(...) "
                         "for an analytic or counted value")
    n, method = getattr(value, "n", 0), getattr(value, "method", "t")
    if n < MIN_SAMPLES:
        raise ClaimError(f"an estimate from {n} replications or batches cannot be judged: at least "
                         f"{MIN_SAMPLES} are needed")
    if compares and method != "paired":
        raise ClaimError("a comparison of two configurations must be judged on the interval of their paired "
                         f"difference or ratio (paired()), not on a {method!r} interval")
    low, high = value.low, value.high
    if math.isnan(low) or math.isnan(high):
        raise ClaimError(f"an estimate with no interval ({value.value:g}) cannot be judged")
    return low, high, n, method


def _record(word, value, target, tolerance, low, high, n, method, claim, reading, otherwise, evidence) -> Verdict:
    if otherwise not in CLASSES:
        raise ClaimError(f"a disagreement's class {otherwise!r} is not one of {CLASSES}")
    v = Verdict(word, kind="agree" if word == AGREE else otherwise, reading=reading, default=reading == "default",
                evidence=evidence, claim=claim, report=_current["report"], target=float(target),
                tolerance=float(tolerance), low=low, high=high, n=n, method=method,
                value=float(value.value))
    RECORD.append(v)
    return v


def _judge(value, target, tolerance, agrees, *, claim: str = "", reading: str = "default",
           otherwise: str = "defect", evidence: str = "", compares: bool = False) -> Verdict:
    """The one rule: ``agrees(low, high, edge)`` on the interval ``value`` may be judged on, recorded."""
    low, high, n, method = _interval(value, compares)
    edge = 1e-9 * max(1.0, abs(target))      # a value exactly on the edge agrees, whatever the rounding of 0.8 - 0.75
    word = AGREE if agrees(low, high, edge) else DISAGREE
    return _record(word, value, target, tolerance, low, high, n, method, claim, reading, otherwise, evidence)


def within(value, target: float, tolerance: float, *, claim: str = "", reading: str = "default",
           otherwise: str = "defect", evidence: str = "", compares: bool = False) -> Verdict:
    """``agree`` if ``value`` (an Estimate, or :class:`Exact`) reaches ``target`` ± ``tolerance``.

    ``otherwise``: the class of a disagreement (:data:`CLASSES`), with its ``evidence``; ``reading``: the
    reading of the paper it was run under (``default``: counted in the headline); ``compares``: the claim
    compares two configurations, so ``value`` must come from :func:`paired`.
    """
    return _judge(value, target, tolerance,
                  lambda low, high, edge: low <= target + tolerance + edge and high >= target - tolerance - edge,
                  claim=claim, reading=reading, otherwise=otherwise, evidence=evidence, compares=compares)


def at_least(value, bound: float, tolerance: float = 0.0, **kw) -> Verdict:
    """``agree`` if ``value``'s interval reaches ``bound`` - ``tolerance`` or above (the claim "at least
    ``bound``"); keywords as :func:`within`.

    Examples
    --------
    >>> from switchq.validate.result import Estimate
    >>> at_least(Estimate(0.02, -0.01, 0.05, n=8, method="paired"), 0.0, compares=True)
    'agree'
    """
    return _judge(value, bound, tolerance, lambda low, high, edge: high >= bound - tolerance - edge, **kw)


def at_most(value, bound: float, tolerance: float = 0.0, **kw) -> Verdict:
    """``agree`` if ``value``'s interval reaches ``bound`` + ``tolerance`` or below (the claim "at most
    ``bound``"); keywords as :func:`within`."""
    return _judge(value, bound, tolerance, lambda low, high, edge: low <= bound + tolerance + edge, **kw)


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


def _estimate(values, method: str):
    """The Estimate (95 % Student-t) of per-replication ``values``, those that could be measured."""
    from switchq.validate.harness import confidence_interval
    from switchq.validate.result import Estimate

    d = np.asarray(values, dtype=float)
    d = d[np.isfinite(d)]
    m, low, high = confidence_interval(d)
    return Estimate(m, low, high, n=int(d.size), method=method)


def paired(a, b, name: str, ratio: bool = False):
    """The difference ``a - b`` (or the ratio ``a / b``) of metric ``name`` between two simulated rows run
    with common random numbers (the same seed and replications: replication r of each drew its arrivals
    from the same stream), as an Estimate whose 95 % Student-t interval is that of the per-replication
    differences (ratios), so the noise the two share cancels instead of adding.

    Examples
    --------
    >>> a = {"x_samples": [1.0, 1.2, 0.9, 1.1, 1.0], "seed": 3, "replications": 5}
    >>> b = {"x_samples": [0.9, 1.1, 0.8, 1.0, 0.95], "seed": 3, "replications": 5}
    >>> e = paired(a, b, "x")
    >>> round(e.value, 3), e.method, e.n, e.low > 0
    (0.09, 'paired', 5, True)
    """
    x, y = _shared([a, b], name)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _estimate(x / y if ratio else x - y, "paired")


def agreeing(verdicts) -> int:
    return sum(v == AGREE for v in verdicts)


def _default(verdicts) -> list:
    return [v for v in verdicts if getattr(v, "default", True)]


def tally(verdicts) -> str:
    """``"k of n"``: how many of the default reading's verdicts agree (another reading's are left out)."""
    verdicts = _default(verdicts)
    return f"{agreeing(verdicts)} of {len(verdicts)}"


def by_class(verdicts) -> str:
    """The default reading's verdicts counted by class: ``12 agree, 0 defects, 2 ambiguities, 1 not
    reproducible, 0 not a claim about this model``.

    Examples
    --------
    >>> from switchq.validate.result import Estimate
    >>> v = [within(Exact(1.0), 1.0, 0.1), within(Exact(2.0), 1.0, 0.1, otherwise="ambiguity"),
    ...      within(Exact(2.0), 1.0, 0.1, reading="other")]
    >>> by_class(v)
    '1 agree, 0 defects, 1 ambiguity, 0 not reproducible, 0 not a claim about this model'
    """
    verdicts = _default(verdicts)
    count = {c: sum(getattr(v, "kind", "agree" if v == AGREE else "defect") == c for v in verdicts)
             for c in ("agree", *CLASSES)}
    words = {"defect": ("defect", "defects"), "ambiguity": ("ambiguity", "ambiguities"),
             "not reproducible": ("not reproducible",) * 2,
             "not a claim": ("not a claim about this model",) * 2}
    return ", ".join([f"{count['agree']} agree"] + [f"{count[c]} {words[c][count[c] != 1]}" for c in CLASSES])


def listed(items, empty: str = "none") -> str:
    """Items joined for a sentence: ``a, b and c``."""
    items = [str(i) for i in items]
    if not items:
        return empty
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


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
    rows = list(rows)
    xs = _shared(rows, name)
    k = xs[0].size
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.asarray(f(*xs), dtype=float)
    return {as_name + "_samples": values.tolist(), "replications": k,
            **{key: rows[0].get(key) for key in ("seed", "batches")}}


def sampled(row: dict, f, *names: str):
    """The estimate (95 % Student-t over replications) of ``f`` of one run's metrics ``names``, taken
    replication by replication: a figure made of several metrics of the same run (connections dropped less
    those established, delivered over offered), or a :func:`derived` row's values. Not for comparing two
    configurations: that is :func:`paired`'s.

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
        return _estimate(f(*xs), "t")
