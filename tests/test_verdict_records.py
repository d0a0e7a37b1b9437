"""Every committed verdict record (``reports/NAME.verdicts.json``) checked against the class rule (issue 33).

The engine (switchq.validate.verdict) decides each class; this test reads what a report's full build wrote and
checks it again from the recorded evidence alone, so a record edited by hand, or an engine that drifted from
the rule, fails here: no agreement whose interval is wider than its band or straddles its bound, none on an
unstable run, every not-reproducible with a quote and a derivation function that has a test, every ambiguity
naming an agreeing reading that was run, every interval inside what its quantity can be.
"""

from __future__ import annotations

import importlib
import json
import math
import re
from pathlib import Path

import pytest

from switchq.reports import report_names
from switchq.validate.verdict import CLASSES, MIN_BUDGET, MIN_SAMPLES, by_class

ROOT = Path(__file__).resolve().parents[1]
RECORDS = {p.name.split(".")[0]: p for p in sorted((ROOT / "reports").glob("*.verdicts.json"))}
# Tests that name a derivation function: each not-reproducible row rests on a function with a test of its own.
TEST_TEXT = "\n".join(p.read_text() for p in (ROOT / "tests").glob("test_*.py"))
EDGE = 1e-9


def _records(name):
    return json.loads(RECORDS[name].read_text())


def test_every_report_has_its_record():
    assert set(report_names()) <= set(RECORDS), sorted(set(report_names()) - set(RECORDS))


def _inf(x, sign):
    return sign * math.inf if x is None else x


def _position(v) -> str:
    e, b = v["estimate"], v["band"]
    low, high = e["low"], e["high"]
    lo, hi = _inf(b["low"], -1), _inf(b["high"], 1)
    edge = EDGE * max(1.0, *(abs(x) for x in (lo, hi) if math.isfinite(x)))
    if high < lo - edge or low > hi + edge:
        return "outside"
    if b["sense"] == "exactly":
        return "inside" if (high - low) / 2 <= b["precision"] + edge else "overlap"
    return "inside" if low >= lo - edge and high <= hi + edge else "overlap"


def _derivation_problem(v) -> str:
    """What is wrong with a record's derivation as evidence of "not reproducible", or ''."""
    d = v["evidence"]["derivation"]
    if not d or not d["quote"]["section"] or not d["quote"]["text"]:
        return "not reproducible without the paper's rules quoted"
    module, _, name = d["function"].rpartition(".")
    try:
        f = importlib.import_module(module)
        for part in name.split("."):
            f = getattr(f, part)
    except (ImportError, AttributeError):
        return f"derivation {d['function']} cannot be found"
    if not re.search(rf"\b{re.escape(name.split('.')[-1])}\(", TEST_TEXT):
        return f"derivation {d['function']} is called by no test"
    if not _contradicts(v):
        return "the derivation does not contradict the band"
    if not _follows(v):
        return "ours does not follow the derivation (switchq would be wrong too)"
    return ""


def _span(d):
    return {"equals": (d["value"], d["value"]), "at_most": (-math.inf, d["value"]),
            "at_least": (d["value"], math.inf)}[d["relation"]]


def _contradicts(v) -> bool:
    lo, hi = _span(v["evidence"]["derivation"])
    b = v["band"]
    return hi < _inf(b["low"], -1) or lo > _inf(b["high"], 1)


def _follows(v) -> bool:
    """Our interval reaches what the derivation gives, within the claim's own half-band, from a run not unstable."""
    lo, hi = _span(v["evidence"]["derivation"])
    b, e = v["band"], v["estimate"]
    width = _inf(b["high"], 1) - _inf(b["low"], -1)
    slack = width / 2 if math.isfinite(width) else (b["precision"] or 0.0)
    unstable = e["stable"] is False and not v["saturated"]
    return not unstable and e["low"] <= hi + slack and e["high"] >= lo - slack


def _agreeing(v, by_claim) -> list:
    """The readings a record names as agreeing that were run, agree, and are more than the same figure against a
    wider band."""
    ev, e, b = v["evidence"], v["estimate"], v["band"]
    out = []
    for r in ev["agreeing_readings"]:
        runs = [o for o in by_claim.get(v["claim"], []) if o["reading"] == r and o["class"] == "agree"]
        wider = [o for o in runs if (o["estimate"]["value"], o["estimate"]["low"], o["estimate"]["high"])
                 == (e["value"], e["low"], e["high"]) and _inf(o["band"]["low"], -1) <= _inf(b["low"], -1)
                 and _inf(o["band"]["high"], 1) >= _inf(b["high"], 1)]
        if runs and len(wider) < len(runs):
            out.append(r)
    return out


def _check(v, by_claim) -> str:
    """What is wrong with one verdict object, or ''."""
    e = v["estimate"]
    cls = v["class"]
    if cls not in CLASSES:
        return f"unknown class {cls}"
    if e.get("runs"):
        # Too few replications measured the figure: no decision either way.
        return "" if cls == "inconclusive" and e["runs"] >= MIN_SAMPLES else f"{cls} on a figure measured in " \
            f"{e['replications']} of {e['runs']} replications"
    if e["method"] != "exact" and e["replications"] < MIN_SAMPLES:
        return f"judged on {e['replications']} replications"
    if None in (e["low"], e["high"]):
        return "no interval"
    lo_d, hi_d = e["domain"]
    if e["method"] != "paired" and ((lo_d is not None and e["low"] < lo_d - EDGE)
                                    or (hi_d is not None and e["high"] > hi_d + EDGE)):
        return f"interval {e['low']} .. {e['high']} outside what the quantity can be {e['domain']}"
    where = _position(v)
    unstable = e["stable"] is False and not v["saturated"]
    not_judged = e["stable"] is None and not v["saturated"] and e["method"] != "exact"
    if cls == "agree":
        if where != "inside":
            return f"agrees with an interval {where} the band"
        if unstable:
            return "agrees on an unstable run"
        if not_judged:
            return "agrees on a run whose stability was not judged"
        return ""
    if cls == "inconclusive":
        if where == "outside" or unstable:
            return "inconclusive though the interval is wholly outside the band (a disagreement)"
        if where == "inside" and not not_judged:
            return "inconclusive though the interval is inside the band from a run that may agree"
        return ""
    # A disagreement: the interval wholly outside, or an unstable run against a finite figure.
    if where != "outside" and not unstable:
        return f"a disagreement ({cls}) with an interval {where} the band"
    ev = v["evidence"]
    quoted = ev["allows"] and ev["allows"]["section"] and ev["allows"]["text"]
    if cls == "not a claim":
        return "" if ev["not_about"] and ev["not_about"]["text"] else "not a claim without the quote"
    if ev["not_about"]:
        return f"{cls} though the record quotes that the figure is about another system"
    if cls == "ambiguity":
        if not quoted:
            return "ambiguity without the sentence that allows both readings"
        return "" if _agreeing(v, by_claim) else f"ambiguity naming no agreeing reading that was run " \
                                                  f"({ev['agreeing_readings']})"
    if quoted and _agreeing(v, by_claim):
        return f"{cls} though an agreeing reading was run and the sentence allowing it is quoted"
    if cls == "not reproducible":
        return _derivation_problem(v)
    # A defect needs no evidence (it counts against switchq), but evidence that would reclass it may not be ignored.
    if ev["derivation"] and not _derivation_problem(v):
        return "defect though its derivation shows the paper contradicting its own rules"
    return ""


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_every_committed_verdict_follows_the_class_rule(name):
    body = _records(name)
    assert not body["quick"], f"{name}: the committed record is of a quick build"
    verdicts = body["verdicts"]
    assert verdicts
    by_claim = {}
    for v in verdicts:
        by_claim.setdefault(v["claim"], []).append(v)
    wrong = [(v["claim"], v["reading"], v["class"], problem) for v in verdicts if (problem := _check(v, by_claim))]
    assert not wrong, wrong[:10]
    # Every simulated inconclusive verdict went to its budget (or could not be measured again), and says what
    # would decide it.
    # (One inside its band on a run whose stability was not judged is not: replications cannot judge it.)
    short = [v["claim"] for v in verdicts if v["class"] == "inconclusive" and v["estimate"]["method"] != "exact"
             and (v["estimate"].get("runs") or _position(v) == "overlap")
             and max(v["estimate"]["replications"], v["estimate"].get("runs") or 0) < v["estimate"]["budget"]
             and "cannot take more" not in v["why"]]
    assert not short, short[:10]
    assert all(v["estimate"]["budget"] >= MIN_BUDGET * v["estimate"]["base_replications"] for v in verdicts)


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_the_headline_counts_every_class_of_the_default_reading(name):
    body = _records(name)
    default = [v["class"] for v in body["verdicts"] if v["default"]]
    # Recounted from the record, by the engine's own wording.
    assert body["headline"] == by_class(default), (body["headline"], by_class(default))
    markdown = (ROOT / "reports" / f"{name}.md").read_text()
    assert f"**Verdicts** (default reading): {body['headline']}." in markdown, \
        f"{name}.md does not print its record's headline"


def test_the_checker_catches_what_the_issue_found():
    # mediaworm Table V 50:50 at 0.8 as it was: 128.9 [0.0, 415.1] against 25.5 +- 20 % agreed.
    v = {"class": "agree", "claim": "c", "reading": "default", "saturated": False,
         "estimate": {"value": 128.9, "low": 0.0, "high": 415.1, "method": "clipped", "replications": 5,
                      "stable": True, "domain": [0.0, None]},
         "band": {"sense": "within", "low": 20.4, "high": 30.6, "precision": None},
         "evidence": {}}
    assert "agrees with an interval overlap" in _check(v, {})
    # An unstable run taken as agreement.
    v["estimate"].update(low=24.0, high=26.0, stable=False)
    assert _check(v, {}) == "agrees on an unstable run"


# A figure printed as "value ± half-width": unsigned, so a quantity that cannot be negative (a difference is printed
# with its sign, "+0.77", and keeps its symmetric interval).
PLUS_MINUS = __import__("re").compile(r"(?<![\d.+\-−])(\d+(?:\.\d+)?(?:e[+-]?\d+)?) ± (\d+(?:\.\d+)?(?:e[+-]?\d+)?)")


@pytest.mark.parametrize("path", sorted((ROOT / "reports").glob("*.md")), ids=lambda p: p.name)
def test_no_report_prints_an_interval_of_a_non_negative_figure_reaching_below_zero(path):
    # Issue 33: such an interval is printed cut at 0, as [low, high] with its method (claims.fmt), never as
    # "13.4 ± 27.7".
    below = [m.group(0) for line in path.read_text().splitlines() for m in PLUS_MINUS.finditer(line)
             if float(m.group(1)) - float(m.group(2)) < 0]
    assert not below, below[:5]
