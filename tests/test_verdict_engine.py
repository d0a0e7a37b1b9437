"""The verdict engine's one class rule (issue 33): each class from the evidence that allows it, and nothing else.

Every figure here is built by hand so that the rule, not a simulation, is what is tested; the last tests run a
small simulation to check that replications are added before an interval is called inconclusive.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest

from switchq.validate import verdict as V
from switchq.validate.result import Estimate
from switchq.validate.verdict import (ClaimError, Derivation, Exact, Quote, at_least, at_most, exactly, measured,
                                      within)

QUOTE = Quote("§4", "each output accepts one cell per slot")


def _e(value, low, high, n=8, stable=True, method="t"):
    return Estimate(value, low, high, n=n, method=method, stable=stable)


def test_agree_only_when_the_interval_lies_inside_the_band():
    assert within(_e(0.62, 0.615, 0.625), 0.62, 0.01) == "agree"
    # Reaching the band is not enough: the MediaWorm Table V case, 128.9 [0.0, 415.1] against 25.5 +- 20 %.
    assert within(_e(128.9, 0.0, 415.1, n=5), 25.5, 0.2 * 25.5) == "inconclusive"
    # Wholly outside: a disagreement with no evidence is a defect.
    assert within(_e(3.36, 3.30, 3.42), 4.0, 0.5) == "defect"


def test_a_one_sided_claim_agrees_only_wholly_on_its_side():
    # hipiqs §5.5 "HIPIQS receives more than central": -0.003 .. +0.050 straddles 0, so it cannot agree.
    d = _e(0.023, -0.003, 0.050, method="paired")
    assert at_least(d, 0.0, compares=True) == "inconclusive"
    assert at_least(_e(0.02, 0.01, 0.03, method="paired"), 0.0, compares=True) == "agree"
    assert at_most(_e(0.5, 0.4, 0.6), 0.3) == "defect"


def test_a_point_target_needs_the_value_inside_and_a_half_width_within_the_precision():
    assert exactly(_e(0.7501, 0.7496, 0.7506), 0.75, 0.001) == "agree"
    assert exactly(_e(0.7501, 0.7400, 0.7602), 0.75, 0.001) == "inconclusive"
    assert exactly(_e(0.7601, 0.7596, 0.7606), 0.75, 0.001) == "defect"


def test_an_unstable_run_never_agrees_with_a_finite_figure_unless_the_claim_is_about_saturation():
    unstable = _e(0.99, 0.985, 0.995, stable=False)
    v = within(unstable, 0.99, 0.05)
    assert v == "defect" and "unstable" in v.why
    assert within(unstable, 0.99, 0.05, saturated=True) == "agree"


def test_a_run_whose_stability_was_not_judged_is_not_shown_to_agree():
    v = within(_e(0.5, 0.49, 0.51, stable=None), 0.5, 0.05)
    assert v == "inconclusive" and "stability was not judged" in v.why


def test_an_ambiguity_needs_another_reading_that_agrees_and_the_sentence_that_allows_both():
    other = within(_e(0.5, 0.49, 0.51), 0.5, 0.05, claim="c", reading="rounds")
    miss = _e(0.3, 0.29, 0.31)
    assert within(miss, 0.5, 0.05, claim="c", readings=[other], allows=QUOTE) == "ambiguity"
    # Without the quote, or with no agreeing reading, it stays a defect, and says why.
    v = within(miss, 0.5, 0.05, claim="c", readings=[other])
    assert v == "defect" and "no sentence" in v.why
    failing = within(miss, 0.5, 0.05, claim="c", reading="rounds")
    v = within(miss, 0.5, 0.05, claim="c", readings=[failing], allows=QUOTE)
    assert v == "defect" and "no other reading run agrees" in v.why
    # The same figure against a wider band is a looser tolerance, not another reading.
    looser = within(miss, 0.45, 0.2, claim="c", reading="close to")
    v = within(miss, 0.5, 0.05, claim="c", readings=[looser], allows=QUOTE)
    assert looser == "agree" and v == "defect" and "wider band" in v.why
    # ... and it does not hide another reading that agrees on a figure of its own (a verdict equals its class as a
    # string: the looser one must not be taken for every other agreeing verdict).
    v = within(miss, 0.5, 0.05, claim="c", readings=[looser, other], allows=QUOTE)
    assert v == "ambiguity" and "'rounds' agrees" in v.why and "'close to'" not in v.why
    with pytest.raises(ClaimError):       # a reading of another claim is no evidence for this one
        within(miss, 0.5, 0.05, claim="d", readings=[other], allows=QUOTE)


def _one_slot(n):
    return 1.0 / n


def test_not_reproducible_only_when_a_derivation_contradicts_the_band():
    miss = _e(0.3, 0.29, 0.31)
    v = within(miss, 0.5, 0.05, derivation=Derivation(_one_slot, QUOTE, (4,)))
    assert v == "not reproducible" and "_one_slot" in v.record()["evidence"]["derivation"]["function"]
    # A derivation whose value lies inside the paper's band shows no contradiction: still a defect.
    v = within(miss, 0.5, 0.05, derivation=Derivation(_one_slot, QUOTE, (2,)))
    assert v == "defect" and "does not contradict" in v.why
    # A bound: the rules allow at most 0.25; the paper's 0.5 +- 0.05 is above it.
    assert within(miss, 0.5, 0.05, derivation=Derivation(_one_slot, QUOTE, (4,), relation="at_most")) \
        == "not reproducible"
    # The paper's rules contradict its number, but ours does not follow them either (0.9 against 0.25): switchq is
    # wrong too, so it is a defect, not the paper's contradiction.
    v = within(_e(0.9, 0.89, 0.91), 0.5, 0.05, derivation=Derivation(_one_slot, QUOTE, (4,)))
    assert v == "defect" and "ours does not follow" in v.why
    # Nor on an unstable run.
    assert within(_e(0.26, 0.25, 0.27, stable=False), 0.5, 0.05, derivation=Derivation(_one_slot, QUOTE, (4,))) \
        == "defect"
    with pytest.raises(ClaimError):
        Derivation(_one_slot, "a sentence without its section", (4,))


def test_not_a_claim_needs_the_quote_and_only_classes_a_disagreement():
    about = Quote("§3.1", "WBA [19] saturates at 0.22")
    assert within(_e(0.3, 0.29, 0.31), 0.22, 0.005, not_about=about) == "not a claim"
    assert within(_e(0.22, 0.219, 0.221), 0.22, 0.005, not_about=about) == "agree"
    with pytest.raises(ClaimError):
        Quote("", "text")


def test_bare_numbers_few_replications_and_unpaired_comparisons_are_refused():
    with pytest.raises(ClaimError, match="bare number"):
        within(0.5, 0.5, 0.1)
    with pytest.raises(ClaimError, match="at least 5"):
        within(_e(0.5, 0.4, 0.6, n=4), 0.5, 0.1)
    with pytest.raises(ClaimError, match="paired"):
        at_least(_e(0.1, 0.05, 0.15), 0.0, compares=True)
    with pytest.raises(ClaimError):
        V.judge(_e(0.5, 0.4, 0.6), (0.4, 0.6), sense="within", target=0.5, budget=2)


def test_replications_are_added_up_to_the_budget_before_a_verdict_is_inconclusive():
    # A figure whose half-width falls like 1/sqrt(n): the engine asks for more while the interval reaches past the
    # band's edge, up to 4x its own replications.
    asked = []

    def make(n):
        asked.append(n)
        half = 0.04 * math.sqrt(5 / n)
        return measured(Estimate(0.53, 0.53 - half, 0.53 + half, n=n, stable=True), make)

    v = within(make(5), 0.5, 0.05, budget=4)
    # 0.02 of room to the upper edge needs n >= 5 x (0.04 / 0.02)^2 = 20: the budget exactly.
    assert v == "agree" and v.n == 20 and v.base_n == 5 and asked[-1] == 20
    asked.clear()
    v = within(make(5), 0.545, 0.005, budget=4)
    assert v == "inconclusive" and max(asked) == 20 and v.needed > 20 and "would decide it" in v.why


def test_the_record_holds_what_the_rule_needs():
    other = within(_e(0.5, 0.49, 0.51), 0.5, 0.05, claim="Fig. 1: x", reading="rounds", section="Fig. 1")
    v = within(_e(0.3, 0.29, 0.31), 0.5, 0.05, claim="Fig. 1: x", section="Fig. 1", readings=[other], allows=QUOTE)
    r = v.record()
    assert r["class"] == "ambiguity" and r["default"] and r["section"] == "Fig. 1"
    assert r["estimate"]["low"] == 0.29 and r["estimate"]["replications"] == 8 and r["estimate"]["stable"]
    assert r["band"]["low"] == pytest.approx(0.45) and r["evidence"]["agreeing_readings"] == ["rounds"]
    assert r["evidence"]["allows"] == {"section": "§4", "text": QUOTE.text}


def test_exact_values_agree_or_disagree_and_are_never_inconclusive():
    assert within(Exact(0.6184), 0.6184, 0.00005) == "agree"
    assert within(Exact(0.6190), 0.6184, 0.00005) == "defect"


# ------------------------------------------------------------------ no report chooses a class

CLASS_WORDS = {"agree", "inconclusive", "defect", "ambiguity", "not reproducible", "not a claim", "DISAGREE"}
REPORTS = Path(__file__).resolve().parents[1] / "validate" / "reports"


def _passes_a_class(tree) -> list:
    """Places in a module where a class word is passed or assigned, not compared: a keyword argument, a call's
    argument or an assignment whose value is exactly a class word, or a keyword ``otherwise``/``kind``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in ("otherwise", "kind", "cls"):
            found.append((node.value.lineno, f"{node.arg}="))
        # A verdict made by hand (Verdict(AGREE, ...)) would bypass the rule whatever its word.
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "Verdict":
            found.append((node.lineno, "Verdict("))
        values = []
        if isinstance(node, ast.Call):
            values += list(node.args) + [k.value for k in node.keywords]
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.Return)) and node.value is not None:
            values.append(node.value)
        for x in values:
            for y in (x.elts if isinstance(x, (ast.Tuple, ast.List)) else [x]):
                if isinstance(y, ast.Constant) and y.value in CLASS_WORDS:
                    found.append((y.lineno, repr(y.value)))
    return found


@pytest.mark.parametrize("path", sorted(REPORTS.rglob("*.py")), ids=lambda p: str(p.relative_to(REPORTS)))
def test_no_report_passes_a_class(path):
    # The engine decides every class from evidence; a report that passed one (otherwise="defect", a row labelled
    # "ambiguity" by hand) would be deciding its own verdict.
    assert not _passes_a_class(ast.parse(path.read_text())), path


def test_the_scan_sees_a_class_passed():
    assert _passes_a_class(ast.parse('within(e, 1, 0.1, otherwise="ambiguity")'))
    assert _passes_a_class(ast.parse('row = ("Fig. 11", "ambiguity")\nf(x, "defect")'))
    assert not _passes_a_class(ast.parse('ok = v == "ambiguity"'))
    assert _passes_a_class(ast.parse('v = claims.Verdict(AGREE, claim="x")'))
