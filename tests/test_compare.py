"""Verdicts: how far an analytic answer may sit from a simulated one."""

import math

import pytest

from switchq.validate.compare import verdict

# With 8 replications, t_{0.975,7} = 2.3646 and t_{0.9995,7} = 5.4079.
CI = (0.99, 1.01)          # half-width 0.01, so one standard error is 0.01 / 2.3646
SE = 0.01 / 2.364624251592785


@pytest.mark.parametrize("gap_in_se, expected", [(0.0, "agree"), (2.3, "agree"), (2.5, "marginal"),
                                                 (5.3, "marginal"), (5.6, "DISAGREE")])
def test_verdict_bands_follow_student_t_quantiles(gap_in_se, expected):
    z, word = verdict(1.0 + gap_in_se * SE, 1.0, CI, 8)
    assert word == expected and z == pytest.approx(gap_in_se)


def test_tolerance_is_subtracted_before_counting_standard_errors():
    assert verdict(1.5, 1.0, CI, 8, tolerance=0.5)[1] == "agree"
    assert verdict(1.5, 1.0, CI, 8, tolerance=0.4)[1] == "DISAGREE"


def test_zero_width_interval_agrees_only_on_exact_match():
    assert verdict(0.0, 0.0, (0.0, 0.0), 4)[1] == "agree"
    assert verdict(1e-3, 0.0, (0.0, 0.0), 4)[1] == "DISAGREE"


def test_missing_interval_is_reported_not_judged():
    assert verdict(1.0, math.nan, (math.nan, math.nan), 4)[1] == "no interval"
