"""A validate row's verdict: the engine's class rule on the row's interval at the family level (issue 33)."""

import math

import pytest

from switchq.validate.compare import at_level, compare, family_level, judge_answer
from switchq.validate.harness import RunSettings
from switchq.validate.result import Estimate


def _row(analytic, estimate, **kw):
    return compare("s", "c", "throughput", "1", analytic, "exact", estimate, RunSettings(), **kw)


def test_a_point_target_agrees_when_the_interval_holds_it_within_the_precision():
    e = Estimate(1.001, 0.995, 1.007, n=8, stable=True)
    assert _row(1.0, e, precision=0.01).verdict == "agree"
    # Wider than the precision: not decided (and this estimate cannot take more replications).
    assert _row(1.0, e, precision=0.001).verdict == "inconclusive"
    # The interval misses the exact value: a defect.
    assert _row(1.02, e, precision=0.01).verdict == "defect"


def test_a_band_agrees_only_when_the_whole_interval_lies_inside_it():
    e = Estimate(1.3, 1.25, 1.35, n=8, stable=True)
    assert _row(1.0, e, tolerance=0.4).verdict == "agree"
    assert _row(1.0, e, tolerance=0.3).verdict == "inconclusive"      # reaches past 1.3
    assert _row(1.0, e, tolerance=0.2).verdict == "defect"            # wholly beyond 1.2


def test_an_unstable_run_agrees_only_as_a_saturation_row():
    e = Estimate(0.6, 0.599, 0.601, n=8, stable=False)
    assert _row(0.6, e, precision=0.01).verdict == "defect"
    assert _row(0.6, e, precision=0.01, saturated=True).verdict == "agree"


def test_a_zero_width_interval_agrees_only_on_the_exact_value():
    assert _row(0.0, Estimate(0.0, 0.0, 0.0, n=5, stable=True), precision=0.0).verdict == "agree"
    assert _row(1e-3, Estimate(0.0, 0.0, 0.0, n=5, stable=True), precision=0.0).verdict == "defect"


def test_the_family_level_keeps_the_chance_of_any_false_defect_at_five_percent():
    # Bonferroni over 68 rows: each at 1 - 0.05/68; its two-sided Student-t quantile with 7 degrees of freedom
    # is scipy.stats.t.ppf(1 - 0.05/136, 7) = 5.700 (computed once, independently of this code).
    level = family_level(68)
    assert level == pytest.approx(1 - 0.05 / 68)
    x = [1.0, 1.2, 0.9, 1.1, 1.0, 1.3, 0.8, 1.05]
    e = at_level(x, level)
    sd = math.sqrt(sum((v - sum(x) / 8) ** 2 for v in x) / 7)
    assert e.half_width == pytest.approx(5.700 * sd / math.sqrt(8), rel=1e-3)


def test_an_interval_at_a_level_is_cut_at_what_its_figure_can_be():
    e = at_level([0.999, 1.0, 1.0, 0.9995, 1.0], 0.999, bounds=(0.0, 1.0))
    assert e.high == 1.0 and e.method == "clipped"


# ------------------------------------------------------------------ the page's side by side (issue 34, item 1)

def _answer(name):
    from switchq.registry import answers

    return answers()[name][0]


def test_a_saturation_answer_is_judged_against_its_overloaded_twin():
    # hol at 8 ports: the exact chain gives 907829143692237066503143239/1468053011144896100563129664 = 0.618390; an
    # interval around it, narrower than the default precision (0.5 % of it), agrees; one 0.01 off is a defect.
    hol = _answer("hol")
    row = {"throughput": 0.6185, "throughput_ci95": [0.6180, 0.6190], "replications": 8, "unstable": True}
    (c,) = judge_answer(hol, {"ports": 8}, row, overloaded=True)
    assert c["verdict"] == "agree" and c["analytic"] == pytest.approx(0.6183899, abs=1e-6)
    assert c["difference"] == pytest.approx(0.6185 - c["analytic"])
    off = {**row, "throughput": 0.6285, "throughput_ci95": [0.6280, 0.6290]}
    assert judge_answer(hol, {"ports": 8}, off, overloaded=True)[0]["verdict"] == "defect"
    # Not overloaded (a twin at load 0.5 carries its load, not the saturation throughput): not compared, and why.
    (c,) = judge_answer(hol, {"ports": 8}, row, overloaded=False)
    assert c["verdict"] is None and "overloaded" in c["not_compared"]


def test_an_exact_answer_of_a_stable_twin_is_a_point_target_and_an_unjudged_run_cannot_agree():
    oq = _answer("oq")
    values = {"ports": 16, "load": 0.5, "buffer": None}
    wait = 0.46875          # Karol et al.: (N - 1)/N p / (2 (1 - p)) at N = 16, p = 0.5
    row = {"mean_wait": 0.4689, "mean_wait_ci95": [0.4680, 0.4698], "replications": 8, "unstable": False}
    by = {c["result"]: c for c in judge_answer(oq, values, row, overloaded=False)}
    assert by["mean_wait"]["analytic"] == pytest.approx(wait) and by["mean_wait"]["verdict"] == "agree"
    assert by["loss_probability"]["verdict"] is None          # no buffer: no analytic loss to compare
    short = {**row, "unstable": None}
    assert judge_answer(oq, values, short, overloaded=False)[0]["verdict"] == "inconclusive"


def test_a_comparison_that_does_not_hold_at_these_inputs_says_why():
    bmin = _answer("bmin")
    from switchq.registry import answers

    d = answers()["bmin"][1]
    values = {**{p.name: p.default for p in d.answers[0].params}, "nodes": 16, "load": 0.5}
    row = {"mean_latency": 90.0, "mean_latency_ci95": [89.0, 91.0], "replications": 8, "unstable": False}
    (c,) = judge_answer(bmin, values, row, overloaded=False)
    assert c["verdict"] is None and "rarely meet" in c["not_compared"]


def test_inputs_the_analytic_answer_refuses_are_not_compared():
    # oq at load 1 has no steady state: the answer refuses it, so the page's point there gets its reason, not an error.
    (wait, loss) = judge_answer(_answer("oq"), {"ports": 16, "load": 1.0, "buffer": None},
                                {"mean_wait": 90.0, "mean_wait_ci95": [80.0, 100.0], "replications": 5},
                                overloaded=False)
    assert wait["verdict"] is None and wait["not_compared"].startswith("no analytic answer here (load: got 1.0")


def test_a_figure_no_replication_measured_is_an_inconclusive_row_not_a_crash():
    # A validate row whose metric no replication measured (a loss-by-design switch whose overflow made the
    # figure none, a run in which nothing arrived) is judged like any figure too few replications measured:
    # inconclusive, with its why; before, the engine refused it and `switchq validate` ended in a traceback.
    from types import SimpleNamespace

    from switchq.validate.compare import remeasured

    def run_with(n):
        return SimpleNamespace(per_replication={"loss": [math.nan] * n},
                               metrics={"loss": Estimate(math.nan, n=0)})

    estimate = remeasured(run_with, "loss", 0.95, (0.0, 1.0))(5)
    row = compare("s", "c", "loss", "1", 0.07, "exact", estimate, RunSettings(replications=5), precision=0.001)
    assert row.verdict == "inconclusive" and "5" in row.why, row
