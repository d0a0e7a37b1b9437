"""A validate row's verdict: the engine's class rule on the row's interval at the family level (issue 33)."""

import math

import pytest

from switchq.validate.compare import at_level, compare, family_level
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
