"""Ideal output queuing (Karol, Hluchyj & Morgan 1987): closed-form wait, finite-buffer loss.

Every numeric claim is checked against something derived independently of the
solver: Karol's closed form, exact small-buffer formulas, the dominant-root
(geometric) tail of the discrete M/D/1 queue, Little's law and a pure-Python
Monte Carlo of the slot recursion the simulator implements.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from switchq.errors import InputError
from switchq.solvers import oq

PORTS = st.one_of(st.none(), st.integers(1, 1024))


# ------------------------------------------------------------ unbounded buffer

def test_mean_wait_is_karols_closed_form():
    # W = (N-1)/N * p / (2(1-p)): exact rationals, so only rounding error (1e-15).
    assert oq.mean_wait(8, 0.5).mean_wait == pytest.approx(7 / 16, rel=1e-15)
    assert oq.mean_wait(16, 0.8).mean_wait == pytest.approx(15 / 16 * 2.0, rel=1e-15)
    assert oq.mean_wait(None, 0.9).mean_wait == pytest.approx(4.5, rel=1e-14)
    r = oq.mean_wait(8, 0.5)
    assert r.mean_latency == r.mean_wait + 1
    assert "Karol" in r.source and r.formula


def test_single_input_per_output_never_waits():
    # N = 1: at most one cell per slot reaches an output, so no queue ever forms.
    assert oq.mean_wait(1, 0.99).mean_wait == 0.0
    fb = oq.finite_buffer(1, 0.9, 5)
    assert fb.loss_probability == 0.0 and fb.mean_wait == 0.0
    assert fb.throughput == pytest.approx(0.9, rel=1e-14)
    full = oq.finite_buffer(1, 1.0, 3)          # a cell every slot, sent at once
    assert full.loss_probability == 0.0 and full.mean_queue == pytest.approx(1.0)


def test_mean_wait_expression_is_the_closed_form():
    import sympy

    e = oq.mean_wait_expression()
    syms = {s.name: s for s in e.free_symbols}
    for n, p in [(2, 0.1), (8, 0.5), (64, 0.95)]:
        val = float(e.subs({syms["N"]: n, syms["p"]: sympy.Float(p)}))
        assert val == pytest.approx(oq.mean_wait(n, p).mean_wait, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(n=PORTS, p1=st.floats(0, 0.99), p2=st.floats(0, 0.99))
def test_mean_wait_increases_with_load(n, p1, p2):
    lo, hi = sorted((p1, p2))
    assert oq.mean_wait(n, lo).mean_wait <= oq.mean_wait(n, hi).mean_wait


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 1023), p=st.floats(0.01, 0.99))
def test_more_ports_means_longer_waits_up_to_the_poisson_limit(n, p):
    w = oq.mean_wait(n, p).mean_wait
    assert w <= oq.mean_wait(n + 1, p).mean_wait <= oq.mean_wait(None, p).mean_wait


# ------------------------------------------------------------ finite buffer

@pytest.mark.parametrize("n", [None, 2, 16])
@pytest.mark.parametrize("p", [0.3, 0.9])
def test_one_cell_buffer_accepts_one_cell_per_slot(n, p):
    # b = 1: the queue empties every slot, so exactly min(A, 1) cells get in:
    # loss = 1 - P(A >= 1)/p.  Exact; 1e-12 covers the summation order.
    a0 = math.exp(-p) if n is None else (1 - p / n) ** n
    fb = oq.finite_buffer(n, p, 1)
    assert fb.loss_probability == pytest.approx(1 - (1 - a0) / p, rel=1e-12)
    assert fb.mean_wait == 0.0 and fb.states == 2


@pytest.mark.parametrize("n", [8, 16, None])
@pytest.mark.parametrize("p", [0.5, 0.8, 0.9])
def test_large_buffer_recovers_infinite_buffer_wait(n, p):
    # At b = 400 the truncated mass is < 1e-40 even at p = 0.9 (decay rate
    # 1/z0 ~ 0.8 per cell), so only rounding error remains: rel 1e-10.
    fb = oq.finite_buffer(n, p, 400)
    assert fb.loss_probability < 1e-30
    assert fb.mean_wait == pytest.approx(oq.mean_wait(n, p).mean_wait, rel=1e-10)
    assert fb.throughput == pytest.approx(p, rel=1e-12)


@pytest.mark.parametrize("n,p,b", [(4, 0.8, 3), (16, 0.9, 10), (None, 0.95, 7), (None, 1.0, 12)])
def test_littles_law_links_queue_wait_and_throughput(n, p, b):
    # Each accepted cell is counted in Q_m for wait + 1 slots, so
    # E[Q] = throughput * (W + 1).  The two sides are computed by different
    # routes (stationary pi vs. conditioning on the arriving batch): rel 1e-11.
    fb = oq.finite_buffer(n, p, b)
    assert fb.mean_queue == pytest.approx(fb.throughput * (fb.mean_wait + 1), rel=1e-11)
    assert sum(fb.queue_distribution) == pytest.approx(1.0, abs=1e-14)
    assert len(fb.queue_distribution) == fb.states == b + 1


def _dominant_root(n, p):
    """z0 > 1 with z0 = A(z0), A the arrival PGF; found by bisection."""
    pgf = (lambda z: math.exp(p * (z - 1))) if n is None else (lambda z: (1 - p / n + p * z / n) ** n)
    lo, hi = 1.0 + 1e-9, 50.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if pgf(mid) < mid else (lo, mid)
    return lo


@pytest.mark.parametrize("n,p", [(16, 0.8), (16, 0.9), (None, 0.8), (None, 0.9)])
def test_loss_falls_geometrically_with_buffer_size(n, p):
    # Karol's loss-vs-b curves are straight lines on a log scale: the discrete
    # M/D/1 tail decays like z0^-b with z0 the root > 1 of z = A(z).  The ratio
    # converges as (z1/z0)^b for the next root, ~1e-6 off at b = 60: rel 1e-5.
    z0 = _dominant_root(n, p)
    l60 = oq.finite_buffer(n, p, 60).loss_probability
    l61 = oq.finite_buffer(n, p, 61).loss_probability
    assert l61 / l60 == pytest.approx(1 / z0, rel=1e-5)


def _monte_carlo(n, p, b, slots, batches, seed):
    """Pure-Python run of Q_m = min(max(0, Q_{m-1}-1) + A_m, b); per-batch loss and wait."""
    rng = np.random.default_rng(seed)
    arrivals = rng.poisson(p, slots) if n is None else rng.binomial(n, p / n, slots)
    size = slots // batches
    q, loss, wait = 0, [], []
    for k in range(batches):
        offered = lost = accepted = wsum = 0
        for a in arrivals[k * size:(k + 1) * size].tolist():
            r = q - 1 if q > 0 else 0
            c = min(a, b - r)                   # the first c of the batch get in
            offered += a
            lost += a - c
            accepted += c
            wsum += c * r + c * (c - 1) // 2    # waits r, r+1, ..., r+c-1
            q = r + c
        loss.append(lost / offered)
        wait.append(wsum / accepted)
    return np.array(loss), np.array(wait)


@pytest.mark.parametrize("n,p,b", [(4, 0.8, 3), (16, 0.9, 5), (None, 0.9, 8)])
def test_finite_buffer_matches_a_monte_carlo_of_the_slot_recursion(n, p, b):
    # 1M slots in 40 batches of 25k (the queue forgets its state within a few
    # tens of slots at b <= 8, so batches are ~independent).  Batch-means
    # standard errors come out ~0.5-1.3 % of loss and ~0.2-0.5 % of wait; a
    # 5-standard-error band (t with 39 d.o.f.: false-alarm odds ~1e-5) still
    # separates the exact answer from the usual slips: wait vs latency (one
    # slot) or a buffer of b vs b + 1 cells (loss 20-50 % apart here).  The
    # seed is fixed.
    loss, wait = _monte_carlo(n, p, b, slots=1_000_000, batches=40, seed=20240601)
    fb = oq.finite_buffer(n, p, b)
    se = lambda x: x.std(ddof=1) / math.sqrt(len(x))  # noqa: E731
    assert abs(loss.mean() - fb.loss_probability) < 5 * se(loss)
    assert abs(wait.mean() - fb.mean_wait) < 5 * se(wait)


@settings(max_examples=40, deadline=None)
@given(n=PORTS, p=st.floats(0.05, 1.0), b=st.integers(1, 60))
def test_loss_decreases_with_buffer_size(n, p, b):
    if n == 1:
        return                                   # N = 1 never loses anything
    small = oq.finite_buffer(n, p, b).loss_probability
    big = oq.finite_buffer(n, p, b + 1).loss_probability
    assert big < small or small == 0.0


@settings(max_examples=40, deadline=None)
@given(p=st.floats(0.05, 1.0), b=st.integers(1, 40), n=st.integers(2, 64))
def test_finite_switch_loses_less_than_the_poisson_limit(p, b, n):
    # Binomial(N, p/N) arrivals are less bursty than Poisson(p), as in Karol's
    # loss figure where the N = 16 curve lies below N = inf. 1e-15 slack for rounding.
    assert (oq.finite_buffer(n, p, b).loss_probability
            <= oq.finite_buffer(None, p, b).loss_probability * (1 + 1e-12) + 1e-300)


@settings(max_examples=40, deadline=None)
@given(n=PORTS, p1=st.floats(0.0, 1.0), p2=st.floats(0.0, 1.0), b=st.integers(2, 30))
def test_loss_and_wait_grow_with_load(n, p1, p2, b):
    lo, hi = sorted((p1, p2))
    a, c = oq.finite_buffer(n, lo, b), oq.finite_buffer(n, hi, b)
    assert a.loss_probability <= c.loss_probability + 1e-15
    assert a.mean_wait <= c.mean_wait + 1e-12


def test_zero_load_is_an_empty_queue():
    fb = oq.finite_buffer(16, 0.0, 4)
    assert (fb.loss_probability, fb.throughput, fb.mean_wait, fb.mean_queue) == (0, 0, 0, 0)


def test_arrival_pmf_is_binomial_or_poisson():
    a = oq.arrival_pmf(16, 0.8)
    k = np.arange(len(a))
    assert a.sum() == pytest.approx(1.0, abs=1e-14)
    assert np.dot(k, a) == pytest.approx(0.8, rel=1e-13)
    assert np.dot(k * (k - 1), a) == pytest.approx(15 / 16 * 0.64, rel=1e-12)
    poisson = oq.arrival_pmf(None, 0.8)
    assert np.dot(np.arange(len(poisson)), poisson) == pytest.approx(0.8, rel=1e-13)


# ------------------------------------------------------------ bad inputs

@pytest.mark.parametrize("call,name", [
    (lambda: oq.mean_wait(0, 0.5), "n_ports"),
    (lambda: oq.mean_wait(2.5, 0.5), "n_ports"),
    (lambda: oq.mean_wait("8", 0.5), "n_ports"),
    (lambda: oq.mean_wait(8, 1.0), "load"),
    (lambda: oq.mean_wait(8, -0.1), "load"),
    (lambda: oq.mean_wait(8, float("nan")), "load"),
    (lambda: oq.mean_wait(8, True), "load"),
    (lambda: oq.finite_buffer(8, 1.01, 4), "load"),
    (lambda: oq.finite_buffer(8, 0.5, 0), "buffer_cells"),
    (lambda: oq.finite_buffer(8, 0.5, 3.5), "buffer_cells"),
    (lambda: oq.finite_buffer(8, 0.5, None), "buffer_cells"),
    (lambda: oq.finite_buffer(-1, 0.5, 4), "n_ports"),
])
def test_bad_inputs_raise_input_error_naming_the_parameter(call, name):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.parameter == name
    msg = str(err.value)
    assert msg.startswith(f"{name}: got ") and "\n" not in msg
