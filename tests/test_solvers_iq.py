"""FIFO input queuing below saturation (Karol, Hluchyj & Morgan 1987), N -> infinity.

The closed-form head-of-line (HOL) moments are checked against a brute-force
numerical solution of the random-order virtual queue (a truncated linear
system that does not use the polynomial solution), the mean against the
order-free M/D/1 value, and the whole against Karol's limits: saturation at
2 - sqrt(2), light-load slope and W_input > W_output.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from switchq.errors import InputError
from switchq.solvers import iq, oq

SAT = 2 - math.sqrt(2)
BELOW_SAT = st.floats(1e-6, SAT - 1e-6)


def test_saturation_load_is_two_minus_root_two():
    assert iq.SATURATION_LOAD == pytest.approx(0.585786437626905, abs=1e-15)


def test_mean_wait_at_half_load_is_43_over_18():
    # E[S] = 3/2, E[S^2] = 61/18 at p = 1/2, so W = (1/2)(61/18 - 3/2)/(2 (1/4)) + 1/2
    # = 43/18 exactly; rel 1e-14 is rounding only.
    r = iq.mean_wait(0.5)
    assert (r.hol_mean, r.hol_second_moment) == pytest.approx((1.5, 61 / 18), rel=1e-14)
    assert r.mean_wait == pytest.approx(43 / 18, rel=1e-14)
    assert r.mean_latency == r.mean_wait + 1
    assert "Karol" in r.source and "N -> infinity" in r.note


@pytest.mark.parametrize("p", [0.05, 0.2, 0.4, 0.55, 0.58])
def test_karols_geo_g_1_formula_equals_the_reduced_rational_form(p):
    # W = p E[S(S-1)] / (2(1 - p E[S])) + E[S] - 1 simplified by hand/SymPy:
    # relative 1e-12 allows for cancellation near saturation (W ~ 50 at 0.58).
    closed = p * (12 - 18 * p + 10 * p**2 - p**3) / (
        6 * (2 - p) * (1 - p) * (p**2 - 4 * p + 2))
    assert iq.mean_wait(p).mean_wait == pytest.approx(closed, rel=1e-12)


def _virtual_queue_moments(p, m=400):
    """E[S], E[S^2] by brute force: truncated linear system of the ROS virtual queue.

    X = other HOL cells with the tagged one; sent w.p. 1/(X+1), else
    X -> X - 1 + Poisson(p).  X on arrival = R + Poisson(p), R the cells left
    over by the stationary discrete M/D/1 queue (taken from oq.finite_buffer
    with a buffer large enough to be infinite).
    """
    a = np.array([math.exp(-p) * p**k / math.factorial(k) for k in range(60)])
    P = np.zeros((m + 1, m + 1))
    for x in range(1, m + 1):
        for k, ak in enumerate(a):
            y = min(x - 1 + k, m)                  # mass beyond m parked at m
            P[x, y] += x / (x + 1) * ak
    I = np.eye(m + 1)
    s1 = np.linalg.solve(I - P, np.ones(m + 1))
    s2 = np.linalg.solve(I - P, np.ones(m + 1) + 2 * P @ s1)
    pi = np.array(oq.finite_buffer(None, p, m + 1).queue_distribution)
    r = np.concatenate(([pi[0] + pi[1]], pi[2:]))   # R = max(0, Q - 1) on 0..m
    x = np.convolve(r, a)[: m + 1]                  # X = R + Poisson(p)
    return float(x @ s1), float(x @ s2)


@pytest.mark.parametrize("p", [0.1, 0.3, 0.5, 0.55])
def test_hol_moments_solve_the_random_order_virtual_queue(p):
    # The truncation at 400 cells drops mass < 1e-60 even at p = 0.55 and the
    # linear solves are well conditioned (diagonal dominance 1 - x/(x+1)),
    # so the two routes agree to rounding: rel 1e-9.
    es, es2 = iq.hol_moments(p)
    bs, bs2 = _virtual_queue_moments(p)
    assert es == pytest.approx(bs, rel=1e-9)
    assert es2 == pytest.approx(bs2, rel=1e-9)


@settings(max_examples=50, deadline=None)
@given(p=BELOW_SAT)
def test_mean_hol_time_does_not_depend_on_service_order(p):
    # Random order changes E[S^2] only: E[S] - 1 is the FIFO discrete M/D/1
    # wait, i.e. output queuing's N -> inf wait p/(2(1-p)).
    es, es2 = iq.hol_moments(p)
    assert es - 1 == pytest.approx(oq.mean_wait(None, p).mean_wait, rel=1e-12, abs=1e-15)
    assert es2 >= es * es                      # a variance is non-negative


def test_light_load_slope_is_one_half():
    # A cell meets another new HOL cell for its output w.p. ~p and loses the
    # draw half the time: W = p/2 + p^2 + (23/12) p^3 + ...  At p = 1e-3 the
    # cubic term is 2e-9, so |W/p - 1/2 - p| < 3 p^2 is a safe bound.
    for p in (1e-2, 1e-3, 1e-4):
        w = iq.mean_wait(p).mean_wait
        assert abs(w / p - 0.5 - p) < 3 * p * p
    assert iq.mean_wait(0.0).mean_wait == 0.0


def test_wait_diverges_like_one_over_distance_to_saturation():
    # p E[S] -> 1 at 2 - sqrt(2), where p^2 - 4p + 2 = (p - SAT)(p - 2 - sqrt 2)
    # has a simple zero: W ~ C / (SAT - p).  At eps = 1e-7 the O(1) remainder is
    # a 1e-7 relative correction; rel 1e-5 leaves room for cancellation.
    num = SAT * (12 - 18 * SAT + 10 * SAT**2 - SAT**3)
    c = num / (6 * (2 - SAT) * (1 - SAT) * 2 * math.sqrt(2))
    eps = 1e-7
    assert eps * iq.mean_wait(SAT - eps).mean_wait == pytest.approx(c, rel=1e-5)
    es, _ = iq.hol_moments(SAT - 1e-12)
    assert (SAT - 1e-12) * es == pytest.approx(1.0, abs=1e-9)


@settings(max_examples=80, deadline=None)
@given(p=BELOW_SAT)
def test_input_queuing_waits_longer_than_output_queuing(p):
    # Karol et al.'s headline: at every load below saturation the HOL-blocked
    # FIFO switch waits longer than output queuing (W_in - W_out = p^2/2 + ...).
    w_in = iq.mean_wait(p).mean_wait
    assert w_in > oq.mean_wait(None, p).mean_wait
    assert w_in > oq.mean_wait(16, p).mean_wait


@settings(max_examples=60, deadline=None)
@given(p1=st.floats(0, SAT - 1e-6), p2=st.floats(0, SAT - 1e-6))
def test_mean_wait_increases_with_load(p1, p2):
    lo, hi = sorted((p1, p2))
    assert iq.mean_wait(lo).mean_wait <= iq.mean_wait(hi).mean_wait


def test_port_count_is_recorded_but_the_answer_is_the_large_n_limit():
    a, b = iq.mean_wait(0.4), iq.mean_wait(0.4, n_ports=32)
    assert a.mean_wait == b.mean_wait and (a.n_ports, b.n_ports) == (None, 32)


def test_sympy_expression_matches_the_numbers():
    e = iq.mean_wait_expression()
    (p,) = e.free_symbols
    for v in (0.1, 0.33, 0.57):
        assert float(e.subs(p, v)) == pytest.approx(iq.mean_wait(v).mean_wait, rel=1e-12)


def test_load_at_saturation_gets_the_documented_message():
    with pytest.raises(InputError) as err:
        iq.mean_wait(0.6)
    assert str(err.value) == ("load: got 0.6; allowed: a number in [0, 0.5858) (FIFO input "
                              "queuing saturates at 2 - sqrt(2) for large N)")


@pytest.mark.parametrize("call,name", [
    (lambda: iq.mean_wait(SAT), "load"),
    (lambda: iq.mean_wait(-0.01), "load"),
    (lambda: iq.mean_wait(float("inf")), "load"),
    (lambda: iq.mean_wait("0.3"), "load"),
    (lambda: iq.mean_wait(None), "load"),
    (lambda: iq.mean_wait(0.3, n_ports=0), "n_ports"),
    (lambda: iq.mean_wait(0.3, n_ports=7.5), "n_ports"),
    (lambda: iq.hol_moments(0.7), "load"),
])
def test_bad_inputs_raise_input_error_naming_the_parameter(call, name):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.parameter == name
    assert str(err.value).startswith(f"{name}: got ") and "\n" not in str(err.value)
