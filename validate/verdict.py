"""The verdict engine: one class rule over recorded evidence, for every report claim and every validate row.

A claim is a band the paper (or an exact analytic answer) puts a quantity in:
``within`` a target ± tolerance, ``at_least`` or ``at_most`` a bound (less or
more its tolerance), or ``exactly`` a point target with a stated precision.
A figure is judged by the interval it comes with: a simulated
:class:`~switchq.validate.result.Estimate` (at least :data:`MIN_SAMPLES`
replications or batches), or :class:`Exact` (an analytic answer, a count).
The class is decided here and nowhere else, from that interval and the
evidence passed in; no caller names a class.

- ``agree``: the interval lies inside the band (or wholly on the claim's
  side of a bound) from a stable run. For a point target: the interval holds
  the target and its half-width is at most the stated precision.
- ``inconclusive``: the interval overlaps the band's edge, is wider than the
  band or straddles the bound, after replications were added up to the
  budget (:data:`MIN_BUDGET` times the base replications or more; the figure
  must know how to take more, its ``more(n)``); or it lies inside the band
  from a run whose stability was not judged. Never counted as agreement.
- a disagreement (the interval wholly outside the band, or an unstable run
  against a finite figure) is classed by its evidence, in this order:

  - ``not a claim`` with ``not_about``: the paper's words (a :class:`Quote`)
    showing the number is about another system;
  - ``ambiguity`` with ``readings`` (verdicts of the same claim under other
    readings, judged first) of which one agrees, and ``allows``: the
    paper's sentence that allows both readings;
  - ``not reproducible`` with a :class:`Derivation`: a tested function over
    rules the paper states (quoted) whose value contradicts the band;
  - ``defect`` otherwise: it counts against switchq until one of the above is
    shown. Evidence that does not hold (no other reading agrees, a derivation
    that does not contradict the band) leaves a defect, and its ``why`` says so.

An unstable run never agrees with a finite figure, unless the claim is about
the system under overload (``saturated=True``: a saturation throughput, whose
run is overloaded by design). Every verdict is kept in :data:`RECORD` with the
report it belongs to (:func:`reporting`); :meth:`Verdict.record` is its
JSON object (``switchq report`` writes them to ``reports/NAME.verdicts.json``).

Examples
--------
>>> from switchq.validate.result import Estimate
>>> ok = Estimate(0.618, 0.616, 0.620, n=8, stable=True)
>>> within(ok, 0.62, 0.005), within(Estimate(0.618, 0.60, 0.64, n=8, stable=True), 0.62, 0.005)
('agree', 'inconclusive')
>>> within(Estimate(3.36, 3.30, 3.42, n=8, stable=True), 4, 0.5)
'defect'
>>> v = within(Exact(0.2259), 0.22, 0.005, claim="Table 1",
...            derivation=Derivation(lambda: 0.2259, Quote("§2", "each cell waits one slot")))
>>> v, v.why
('not reproducible', "the paper's rules (§2) give 0.2259, outside 0.215 .. 0.225, and ours follows them: <lambda>")
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Callable

from .result import Estimate

__all__ = ["AGREE", "INCONCLUSIVE", "DEFECT", "AMBIGUITY", "NOT_REPRODUCIBLE", "NOT_A_CLAIM", "CLASSES",
           "DISAGREEMENTS", "MIN_SAMPLES", "MIN_BUDGET", "ClaimError", "Exact", "Quote", "Derivation", "Verdict",
           "RECORD", "reporting", "extending", "within", "at_least", "at_most", "exactly", "judge", "tally", "by_class",
           "agreeing", "needed", "Measured", "measured"]

AGREE, INCONCLUSIVE = "agree", "inconclusive"
DEFECT, AMBIGUITY, NOT_REPRODUCIBLE, NOT_A_CLAIM = "defect", "ambiguity", "not reproducible", "not a claim"
# Every class, in the order a headline counts them; the disagreements among them.
CLASSES = (AGREE, INCONCLUSIVE, DEFECT, AMBIGUITY, NOT_REPRODUCIBLE, NOT_A_CLAIM)
DISAGREEMENTS = (DEFECT, AMBIGUITY, NOT_REPRODUCIBLE, NOT_A_CLAIM)
# The fewest replications (or batches) a simulated verdict may stand on: a Student-t interval from two is 12.7
# standard errors wide and decides nothing.
MIN_SAMPLES = 5
# The smallest replication budget, as a multiple of a figure's base replications, before an interval that
# overlaps its band's edge is called inconclusive: four times the replications halve the half-width.
MIN_BUDGET = 4

# Every verdict made in this process, in order, and the report (and its budget) the next ones belong to.
RECORD: list = []
_current = {"report": "", "budget": MIN_BUDGET, "extend": True}


class ClaimError(ValueError):
    """A verdict asked for against the rule: a bare number, too few replications, an unpaired comparison,
    evidence of the wrong kind."""


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


@dataclass(frozen=True)
class Quote:
    """The paper's words: where (``section``: "§5.2", "Table V", "Fig. 11") and what (``text``, verbatim)."""

    section: str
    text: str

    def __post_init__(self):
        if not str(self.section).strip() or not str(self.text).strip():
            raise ClaimError(f"a quote needs the paper's section and its words, not {self.section!r}: {self.text!r}")

    def record(self) -> dict:
        return {"section": self.section, "text": self.text}


@dataclass(frozen=True)
class Derivation:
    """What rules the paper states (``quote``) imply for the claimed quantity, computed by ``function(*args)``
    (a function with a test of its own): the quantity equals its value (``relation`` ``equals``), is at most
    it (``at_most``) or at least it (``at_least``). The function returns a number, or an object with
    ``value`` (and ``why``, one line, if it has one)."""

    function: Callable
    quote: Quote
    args: tuple = ()
    relation: str = "equals"
    value: float = field(init=False)
    note: str = field(init=False)

    def __post_init__(self):
        if not isinstance(self.quote, Quote):
            raise ClaimError("a derivation quotes the paper's rules it rests on: pass a Quote")
        if self.relation not in ("equals", "at_most", "at_least"):
            raise ClaimError(f"a derivation's relation is equals, at_most or at_least, not {self.relation!r}")
        out = self.function(*self.args)
        object.__setattr__(self, "value", float(getattr(out, "value", out)))
        object.__setattr__(self, "note", str(getattr(out, "why", "")))

    @property
    def name(self) -> str:
        f = self.function
        return f"{getattr(f, '__module__', '')}.{getattr(f, '__qualname__', repr(f))}".lstrip(".")

    def span(self) -> tuple:
        """What the paper's rules allow the quantity to be, as an interval."""
        return {"equals": (self.value, self.value), "at_most": (-math.inf, self.value),
                "at_least": (self.value, math.inf)}[self.relation]

    def record(self) -> dict:
        return {"function": self.name, "args": [repr(a) for a in self.args], "relation": self.relation,
                "value": self.value, "note": self.note, "quote": self.quote.record()}


class Verdict(str):
    """A verdict: its class (the ``str``: ``agree``, ``inconclusive``, ``defect``...), the claim, the
    interval it was judged on, the band, the evidence and ``why`` (one sentence)."""

    def __new__(cls, word, **fields):
        v = super().__new__(cls, word)
        v.__dict__.update(fields)
        return v

    @property
    def kind(self) -> str:
        return str(self)

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def record(self) -> dict:
        """The verdict as one JSON object (what ``reports/NAME.verdicts.json`` holds)."""
        def num(x):
            return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x

        ev = {"quote": self.quote.record() if self.quote else None,
              "allows": self.allows.record() if self.allows else None,
              "not_about": self.not_about.record() if self.not_about else None,
              "derivation": self.derivation.record() if self.derivation else None,
              "readings": [{"reading": r.reading, "class": str(r), "value": num(r.value), "low": num(r.low),
                            "high": num(r.high), "replications": r.n,
                            "band": [num(r.band[0]), num(r.band[1])]} for r in self.readings],
              "agreeing_readings": list(self.agreeing)}
        return {"report": self.report, "claim": self.claim, "section": self.section, "reading": self.reading,
                "default": self.default, "class": str(self), "why": self.why,
                "estimate": {"value": num(self.value), "low": num(self.low), "high": num(self.high),
                             "method": self.method, "replications": self.n, "stable": self.stable,
                             "runs": self.unmeasured or None,
                             "domain": [num(b) for b in self.domain], "base_replications": self.base_n,
                             "budget": self.budget, "needed": num(self.needed)},
                "band": {"sense": self.sense, "target": num(self.target), "tolerance": self.tolerance,
                         "low": num(self.band[0]), "high": num(self.band[1]), "precision": num(self.precision)},
                "saturated": self.saturated, "compares": self.compares, "evidence": ev}


def extending(on: bool) -> None:
    """Whether replications are added to an interval that does not decide (on by default; a report's quick
    build, a smoke test never committed, turns it off, and its inconclusive rows say so)."""
    _current["extend"] = bool(on)


def reporting(name: str, budget: int = MIN_BUDGET) -> None:
    """Name the report whose verdicts follow and its replication budget (a multiple of each figure's base
    replications, at least :data:`MIN_BUDGET`)."""
    if budget < MIN_BUDGET:
        raise ClaimError(f"a replication budget of {budget}x is under the {MIN_BUDGET}x every report must allow")
    _current.update(report=name, budget=budget)


@dataclass(frozen=True)
class Measured(Estimate):
    """A simulated figure that can be measured again on more replications: ``more(n)`` makes its runs again
    with ``n`` replications (replication r keeps its seed, so the first ones are the same) and returns the
    figure they give."""

    remake: Callable | None = field(default=None, repr=False, compare=False)
    # Replications run (``n`` counts those that measured the figure: a run with nothing to measure gives none).
    runs: int = 0

    def more(self, n: int) -> "Measured":
        if self.remake is None:
            raise ClaimError("this figure cannot be measured on more replications")
        return self.remake(n)


def measured(e, remake: Callable | None, runs: int = 0) -> Measured:
    """``e`` as a :class:`Measured` that ``remake(n)`` measures again on ``n`` replications (``runs``: how many
    were run, when some may not have measured it)."""
    # Every field of the estimate (its samples' spread too), so the engine reads it at any level.
    return Measured(**{f.name: getattr(e, f.name) for f in fields(Estimate)}, remake=remake,
                    runs=max(runs, getattr(e, "runs", 0)))


# ------------------------------------------------------------------ the interval a verdict stands on

def _interval(value, compares: bool) -> dict:
    """What a verdict is judged on: low, high, n, method, stable, domain; or ClaimError."""
    if isinstance(value, Exact):
        if compares:
            raise ClaimError(f"a comparison of two configurations judged on an exact value {value.value:g}: "
                             "judge the paired difference of their runs (paired())")
        v = float(value.value)
        return dict(value=v, low=v, high=v, n=0, method="exact", stable=True, domain=(None, None), unmeasured=0)
    if not hasattr(value, "low"):
        raise ClaimError(f"a bare number {value!r} cannot be judged: pass a simulated Estimate, or Exact(...) "
                         "for an analytic or counted value")
    n, method = getattr(value, "n", 0), getattr(value, "method", "t")
    runs = getattr(value, "runs", 0)
    gap = not (math.isfinite(value.low) and math.isfinite(value.high))
    if (n < MIN_SAMPLES or gap) and runs >= MIN_SAMPLES:
        # Enough replications were run, but too few of them measured the figure (no frame, no message delivered):
        # no verdict either way, and the record says so.
        return dict(value=float(value.value), low=float(value.low), high=float(value.high), n=int(n), method=method,
                    stable=getattr(value, "stable", None), domain=tuple(getattr(value, "domain", (None, None))),
                    unmeasured=runs)
    if n < MIN_SAMPLES:
        raise ClaimError(f"an estimate from {n} replications or batches cannot be judged: at least "
                         f"{MIN_SAMPLES} are needed")
    if compares and method != "paired":
        raise ClaimError("a comparison of two configurations must be judged on the interval of their paired "
                         f"difference or ratio (paired()), not on a {method!r} interval")
    if gap:
        raise ClaimError(f"an estimate with no interval ({value.value:g}) cannot be judged")
    return dict(value=float(value.value), low=float(value.low), high=float(value.high), n=int(n), method=method,
                stable=getattr(value, "stable", None), domain=tuple(getattr(value, "domain", (None, None))),
                unmeasured=0)


def _position(low, high, band, point, precision) -> str:
    """``inside``, ``outside`` or ``overlap``: where the interval [low, high] lies against the band."""
    lo, hi = band
    edge = 1e-9 * max(1.0, *(abs(x) for x in band if math.isfinite(x)))   # 0.8 - 0.75 on the edge agrees
    if high < lo - edge or low > hi + edge:
        return "outside"
    if point:
        return "inside" if (high - low) / 2 <= precision + edge else "overlap"
    return "inside" if low >= lo - edge and high <= hi + edge else "overlap"


def needed(n: int, value: float, low: float, high: float, band: tuple, point: bool, precision: float) -> float:
    """Replications the interval's half-width projects would decide the verdict: the half-width falls like
    1/sqrt(n), and the verdict is decided when it no longer reaches an edge of the band (for a point target,
    when it is within the precision). Infinite when the mean sits on an edge.

    Examples
    --------
    >>> needed(5, 1.0, 0.9, 1.1, (0.95, 1.2), False, 0.0)      # half-width 0.1, nearest edge 0.05 away
    20
    """
    # A clipped interval keeps its Student-t half-width on the side away from the limit.
    half = max(value - low, high - value)
    if point:
        room = precision
    else:
        room = min((abs(value - e) for e in band if math.isfinite(e)), default=math.inf)
    if room <= 0:
        return math.inf
    return max(n, math.ceil(n * (half / room) ** 2 - 1e-9))


# ------------------------------------------------------------------ the rule

def judge(value, band: tuple, *, sense: str, target: float, tolerance: float = 0.0, precision: float | None = None,
          claim: str = "", section: str = "", reading: str = "default", quote: Quote | None = None,
          readings=(), allows: Quote | None = None, derivation: Derivation | None = None,
          not_about: Quote | None = None, compares: bool = False, saturated: bool = False,
          budget: int | None = None, report: str | None = None) -> Verdict:
    """The one rule (see the module docstring): judge ``value`` against ``band`` (low, high), adding
    replications up to the budget while its interval overlaps the band's edge, and class it from the
    evidence. :func:`within`, :func:`at_least`, :func:`at_most` and :func:`exactly` build the band."""
    point = sense == "exactly"
    if point and not (precision is not None and precision >= 0):
        raise ClaimError("a point target is judged with a stated precision (the largest half-width that decides)")
    factor = _current["budget"] if budget is None else budget
    if factor < MIN_BUDGET:
        raise ClaimError(f"a replication budget of {factor}x is under {MIN_BUDGET}x")
    iv = _interval(value, compares)
    base = max(iv["n"], iv["unmeasured"])
    # Two looks, not rounds: an interval that overlaps an edge is measured once more, straight at the budget (each
    # look could agree by chance, so every further look would add to the chance of a false agreement; two keep it
    # within the interval's own 5 %). A figure that cannot take more is judged as it is, and an unstable run is
    # a disagreement however many replications it has.
    limit = factor * base
    undecided = iv["unmeasured"] or _position(iv["low"], iv["high"], band, point, precision) == "overlap"
    if (undecided and max(iv["n"], iv["unmeasured"]) < limit and _extendable(value) and _current["extend"]
            and (iv["stable"] is not False or saturated)):
        value = value.more(limit)
        iv = _interval(value, compares)
    where = "unmeasured" if iv["unmeasured"] else _position(iv["low"], iv["high"], band, point, precision)
    need = (needed(iv["n"], iv["value"], iv["low"], iv["high"], band, point, precision or 0.0)
            if iv["n"] and not iv["unmeasured"] else math.nan)
    word, why = _classify(where, iv, band, point, precision, saturated, readings, allows, derivation, not_about,
                          claim, reading, base, limit, need, _extendable(value))
    v = Verdict(word, report=_current["report"] if report is None else report, claim=claim, section=section, reading=reading,
                default=reading == "default", quote=quote, readings=tuple(readings), allows=allows,
                derivation=derivation, not_about=not_about, why=why, sense=sense, target=float(target),
                tolerance=float(tolerance), band=tuple(band), precision=precision, compares=compares,
                saturated=saturated, base_n=base, budget=limit, needed=need,
                agreeing=tuple(r.reading for r in readings if r == AGREE and r.reading != reading), **iv)
    RECORD.append(v)
    return v


def _extendable(value) -> bool:
    """Whether ``value`` can be measured again on more replications (a :class:`Measured` that knows how)."""
    return callable(getattr(value, "more", None)) and getattr(value, "remake", True) is not None


def _span(band) -> str:
    lo, hi = band
    if math.isinf(lo):
        return f"at most {hi:.6g}"
    if math.isinf(hi):
        return f"at least {lo:.6g}"
    return f"{lo:.6g}" if lo == hi else f"{lo:.6g} .. {hi:.6g}"


def _classify(where, iv, band, point, precision, saturated, readings, allows, derivation, not_about, claim,
              reading, base, limit, need, extendable) -> tuple:
    """(class, why) from where the interval lies, the run's stability and the evidence."""
    if where == "unmeasured":
        return INCONCLUSIVE, (f"measured in only {iv['n']} of {iv['unmeasured']} replications (the others had "
                              f"nothing to measure): no interval from {MIN_SAMPLES} to judge")
    shown = (f"{iv['value']:.6g}" if iv["method"] == "exact"
             else f"{iv['low']:.6g} .. {iv['high']:.6g} ({iv['method']}, {iv['n']} replications)")
    unstable = iv["stable"] is False and not saturated
    if where == "inside" and not unstable:
        if iv["stable"] is None and not saturated and iv["method"] != "exact":
            return INCONCLUSIVE, (f"{shown} inside {_span(band)}, but the run's stability was not judged (no test "
                                  "able to see a critically loaded queue ran): not shown to be a steady state")
        return AGREE, f"{shown} inside {_span(band)}" + (", half-width within the precision" if point else "")
    if where == "overlap" and not unstable:
        if iv["n"] >= limit or (extendable and _current["extend"]):
            more = f"after {iv['n']} replications (budget {limit})"
        elif not extendable:
            more = f"on {iv['n']} replications (this figure cannot take more)"
        else:
            more = f"on {iv['n']} replications (a quick build adds none)"
        what = ("wider than the precision " + f"{precision:.3g}" if point else
                "reaches past an edge of " + _span(band))
        return INCONCLUSIVE, (f"{shown} {what} {more}; about "
                              + (f"{need:,.0f}" if math.isfinite(need) else "unboundedly many")
                              + " replications would decide it")
    missed = ("the run is unstable (no steady state): it cannot agree with a finite figure" if unstable
              else f"{shown} outside {_span(band)}")
    if not_about is not None:
        return NOT_A_CLAIM, f"{missed}; the figure is about another system ({not_about.section})"
    notes = []
    for r in readings:
        if r.claim != claim:
            raise ClaimError(f"reading {r.reading!r} was judged on claim {r.claim!r}, not {claim!r}")
    # A reading is another model or another reading of the paper's words; the same figure against a wider band is
    # only a looser tolerance, no evidence that the paper reads two ways.
    wider = [r for r in readings if r == AGREE and _only_wider(r, iv, band)]
    if wider:
        notes.append("the reading" + ("s " if len(wider) > 1 else " ") + ", ".join(repr(r.reading) for r in wider)
                     + " judge the same figure against a wider band: no evidence of another reading")
    # by identity: a verdict equals its class as a string, so ``in`` would take every agreeing reading for a wider one
    agreeing = [r for r in readings if r == AGREE and r.reading != reading and not any(r is w for w in wider)]
    if agreeing and allows is not None:
        return AMBIGUITY, (f"{missed}; the reading{'s' if len(agreeing) > 1 else ''} "
                           + ", ".join(repr(r.reading) for r in agreeing) + f" agree{'' if len(agreeing) > 1 else 's'}"
                           f" and the paper allows both ({allows.section})")
    if agreeing:
        notes.append("another reading agrees, but no sentence of the paper allowing both was quoted")
    elif readings:
        notes.append("no other reading run agrees (" + ", ".join(f"{r.reading}: {r}" for r in readings) + ")")
    if derivation is not None:
        lo, hi = derivation.span()
        name = derivation.name.rsplit(".", 1)[-1]
        # The paper contradicts its own rules only if switchq follows them: our figure must agree with what they give
        # (to the claim's own precision, from a run that is not unstable), else switchq is wrong as well.
        slack = (band[1] - band[0]) / 2 if math.isfinite(band[1] - band[0]) else (precision or 0.0)
        follows = not unstable and iv["low"] <= hi + slack and iv["high"] >= lo - slack
        if (hi < band[0] or lo > band[1]) and follows:
            return NOT_REPRODUCIBLE, (f"the paper's rules ({derivation.quote.section}) give {_span((lo, hi))}, "
                                      f"outside {_span(band)}, and ours follows them: {name}")
        notes.append(f"the derivation {name} gives {_span((lo, hi))}, which "
                     + ("does not contradict " + _span(band) if not (hi < band[0] or lo > band[1]) else
                        "ours does not follow (" + ("an unstable run" if unstable else shown) + ")"))
    return DEFECT, missed + "".join("; " + n for n in notes)


def _only_wider(r, iv, band) -> bool:
    """Whether reading verdict ``r`` judged the very interval ``iv`` against a band holding ``band``."""
    same = (r.value, r.low, r.high, r.n) == (iv["value"], iv["low"], iv["high"], iv["n"])
    return same and r.band[0] <= band[0] and r.band[1] >= band[1]


def _band(sense, target, tolerance) -> tuple:
    if tolerance < 0:
        raise ClaimError(f"a tolerance is at least 0, not {tolerance}")
    return {"within": (target - tolerance, target + tolerance), "at_least": (target - tolerance, math.inf),
            "at_most": (-math.inf, target + tolerance)}[sense]


def within(value, target: float, tolerance: float, **kw) -> Verdict:
    """Judge ``value`` (an Estimate, or :class:`Exact`) against ``target`` ± ``tolerance``; keywords as
    :func:`judge` (``claim``, ``section``, ``reading``, evidence, ``compares``, ``saturated``)."""
    return judge(value, _band("within", target, tolerance), sense="within", target=target, tolerance=tolerance,
                 **kw)


def at_least(value, bound: float, tolerance: float = 0.0, **kw) -> Verdict:
    """Judge the claim "at least ``bound``" (less ``tolerance``): agree when the whole interval lies there.

    Examples
    --------
    >>> from switchq.validate.result import Estimate
    >>> at_least(Estimate(0.02, -0.01, 0.05, n=8, method="paired", stable=True), 0.0, compares=True)
    'inconclusive'
    """
    return judge(value, _band("at_least", bound, tolerance), sense="at_least", target=bound, tolerance=tolerance,
                 **kw)


def at_most(value, bound: float, tolerance: float = 0.0, **kw) -> Verdict:
    """Judge the claim "at most ``bound``" (plus ``tolerance``); keywords as :func:`within`."""
    return judge(value, _band("at_most", bound, tolerance), sense="at_most", target=bound, tolerance=tolerance,
                 **kw)


def exactly(value, target: float, precision: float, **kw) -> Verdict:
    """Judge ``value`` against a point target (an exact analytic answer): agree when the interval holds it and
    its half-width is at most ``precision``; keywords as :func:`within`.

    Examples
    --------
    >>> from switchq.validate.result import Estimate
    >>> exactly(Estimate(0.7501, 0.7496, 0.7506, n=8, stable=True), 0.75, 0.001)
    'agree'
    """
    return judge(value, (target, target), sense="exactly", target=target, precision=precision, **kw)


# ------------------------------------------------------------------ counting

def agreeing(verdicts) -> int:
    return sum(v == AGREE for v in verdicts)


def _default(verdicts) -> list:
    return [v for v in verdicts if getattr(v, "default", True)]


def tally(verdicts) -> str:
    """``"k of n"``: how many of the default reading's verdicts agree (another reading's are left out)."""
    verdicts = _default(verdicts)
    return f"{agreeing(verdicts)} of {len(verdicts)}"


_WORDS = {AGREE: ("agree", "agree"), INCONCLUSIVE: ("inconclusive", "inconclusive"),
          DEFECT: ("defect", "defects"), AMBIGUITY: ("ambiguity", "ambiguities"),
          NOT_REPRODUCIBLE: ("not reproducible", "not reproducible"),
          NOT_A_CLAIM: ("not a claim about this model", "not a claim about this model")}


def by_class(verdicts) -> str:
    """The default reading's verdicts counted by class, every class named.

    Examples
    --------
    >>> v = [within(Exact(1.0), 1.0, 0.1), within(Exact(2.0), 1.0, 0.1), within(Exact(2.0), 1.0, 0.1, reading="b")]
    >>> by_class(v)
    '1 agree, 0 inconclusive, 1 defect, 0 ambiguities, 0 not reproducible, 0 not a claim about this model'
    """
    verdicts = _default(verdicts)
    count = {c: sum(str(v) == c for v in verdicts) for c in CLASSES}
    return ", ".join(f"{count[c]} {_WORDS[c][count[c] != 1]}" for c in CLASSES)
