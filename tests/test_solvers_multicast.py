"""Multicast saturation (paper 003 §2, §3.1): fanout laws, admissibility, exact HOL chains.

The lumped chains are checked against Karol's unicast values (fanout 1),
closed forms derived independently (broadcast, two inputs without splitting,
overlapping sets), an unlumped brute-force chain, and seeded plain-numpy
simulations of the saturated switch written from the model's prose, not
from the chain code.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from switchq.errors import InputError
from switchq.solvers import hol
from switchq.solvers import multicast as mc
from switchq.models.fanout import fanout_law as size_law
from switchq.solvers.markov import closed_class_rate
from switchq.solvers.multicast_approx import split_independence

KAROL = {2: 0.75, 3: 0.6825, 4: 0.6553}  # Karol, Hluchyj & Morgan 1987, Table I
IQ = ("iq-split", "iq-nosplit")


def load(arch, n, m, f, dist="fixed", q=None, cut_through=None):
    """Saturation load. ``q`` (1 unless given: the exact chains' range) and ``cut_through`` are oq-crosspoint's;
    given another switch, saturation_load refuses them."""
    own = {k: v for k, v in (("crosspoint_cells", q), ("cut_through", cut_through)) if v is not None}
    if arch == "oq-crosspoint":
        own.setdefault("crosspoint_cells", 1)
    return mc.saturation_load(arch, n, m, f, dist, **own).saturation_load


# ------------------------------------------------------------ fanout laws

@st.composite
def fanout_law(draw):
    n = draw(st.integers(1, 64))
    dist = draw(st.sampled_from(mc.DISTRIBUTIONS))
    if dist == "fixed":
        f = float(draw(st.integers(1, n)))
    elif dist == "uniform":
        f = float(draw(st.integers(1, (n + 1) // 2)))
    else:
        f = draw(st.floats(1.0, float(n)))
    return n, f, dist


@given(fanout_law())
def test_fanout_pmf_sums_to_one_and_has_mean_fanout(law):
    n, f, dist = law
    p = mc.fanout_pmf(n, f, dist)
    assert p.shape == (n + 1,) and p[0] == 0.0 and (p >= 0).all()
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    assert p @ np.arange(n + 1) == pytest.approx(f, rel=1e-9)
    cdf = mc.fanout_cdf(n, f, dist)
    assert cdf[-1] == 1.0 and (np.diff(cdf) >= -1e-15).all()


@given(st.integers(2, 64), st.floats(1.0, 1.0).map(float) | st.floats(1.001, 64.0))
def test_binomial_probability_solves_the_conditional_mean(n, f):
    f = min(f, n)
    q = mc.binomial_probability(n, f)
    if f == 1.0:
        assert q == 0.0
    else:
        assert n * q / (1 - (1 - q) ** n) == pytest.approx(f, rel=1e-10)
    # The binomial law conditioned on a non-empty set, written out directly.
    if 0 < q < 1:
        k = np.arange(n + 1)
        raw = np.array([math.comb(n, j) * q**j * (1 - q) ** (n - j) for j in k])
        raw[0] = 0.0
        assert np.allclose(mc.fanout_pmf(n, f, "binomial"), raw / raw.sum(), atol=1e-12)


def test_fanout_laws_at_their_ends():
    assert mc.fanout_pmf(8, 1, "binomial").tolist() == [0, 1] + [0] * 7
    assert mc.fanout_pmf(8, 8, "binomial").tolist() == [0] * 8 + [1]
    assert mc.binomial_probability(8, 8) == 1.0
    assert mc.fanout_pmf(5, 3, "uniform").tolist() == [0, 0.2, 0.2, 0.2, 0.2, 0.2]


# ------------------------------------------------------------ admissibility

def test_admissible_load_is_min_one_n_over_m_f():
    assert mc.admissible_load(8, 8, 4) == 0.25      # paper 003 §3.1: 8 x 8, fanout 4
    assert mc.admissible_load(8, 2, 4) == 1.0       # 2 x 8: the inputs bind, not the outputs
    assert mc.admissible_load(16, 8, 3) == pytest.approx(2 / 3)


@given(st.integers(1, 1024), st.data())
def test_output_utilization_at_the_admissible_load_is_at_most_one(n, data):
    m = data.draw(st.integers(1, n))
    f = data.draw(st.floats(1.0, float(n)))
    bound = mc.admissible_load(n, m, f)
    util = mc.output_utilization(n, m, f, bound)
    assert util <= 1 + 1e-12
    assert util == pytest.approx(1.0) or bound == 1.0


def test_no_architecture_exceeds_the_admissible_bound():
    for arch in mc.ARCHITECTURES:
        for n, m, f in [(3, 3, 2), (4, 2, 2), (8, 2, 4)]:
            r = mc.saturation_load(arch, n, m, f, **({"crosspoint_cells": 1} if arch == "oq-crosspoint" else {}))
            assert r.saturation_load <= r.admissible_bound == mc.admissible_load(n, m, f)
            assert r.output_utilization == pytest.approx(m * r.saturation_load * f / n)


# ------------------------------------------------------------ fanout 1 is Karol's switch

@pytest.mark.parametrize("arch", IQ)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_fanout_one_reduces_to_karols_hol_values(arch, n):
    r = mc.saturation_load(arch, n, n, 1)
    assert r.saturation_load == pytest.approx(KAROL[n], abs=1e-4)  # Table I rounds 325/496 up
    assert r.rational == hol.saturation_throughput(n).exact and r.exact


@pytest.mark.parametrize("arch", IQ)
def test_fanout_one_matches_hol_chain_inside_and_beyond_the_exact_range(arch):
    for n in (5, 8, 12):
        r = mc.saturation_load(arch, n, n, 1)
        karol = hol.saturation_throughput(n).saturation_throughput
        assert r.saturation_load == pytest.approx(karol, abs=1e-12)
        assert r.exact


# ------------------------------------------------------------ closed forms

@pytest.mark.parametrize("m,n", [(2, 2), (2, 8), (3, 3), (3, 6), (4, 4), (8, 8), (16, 64)])
def test_broadcast_without_splitting_sends_one_packet_per_slot(m, n):
    # Every packet needs every output, so exactly one HOL packet goes per slot: 1/M.
    r = mc.saturation_load("iq-nosplit", n, m, n)
    assert r.saturation_load == pytest.approx(1 / m, abs=1e-14) and r.exact
    assert r.rational == str(Fraction(1, m))


@pytest.mark.parametrize("m,n", [(2, 2), (2, 8), (2, 16), (3, 3), (3, 8), (4, 4), (4, 6)])
def test_broadcast_with_splitting_keeps_every_output_busy(m, n):
    assert load("iq-split", n, m, n) == pytest.approx(1 / m, abs=1e-12)


@pytest.mark.parametrize("m,n,q,cut", [(2, 4, 1, True), (2, 8, 1, True), (3, 3, 1, True),
                                       (2, 3, 2, True), (2, 4, 1, False), (3, 3, 1, False)])
def test_broadcast_through_crosspoints_keeps_every_output_busy(m, n, q, cut):
    r = mc.saturation_load("oq-crosspoint", n, m, n, crosspoint_cells=q, cut_through=cut)
    assert r.saturation_load == pytest.approx(1 / m, abs=1e-12) and r.exact


@pytest.mark.parametrize("n", range(2, 17))
def test_two_inputs_without_splitting_are_one_plus_disjointness_over_two(n):
    # The loser of a conflict meets a fresh uniform set, so each slot the two HOL sets
    # are disjoint with the same probability d and 1 + d packets go.
    for f in range(1, n + 1):
        d = math.comb(n - f, f) / math.comb(n, f)
        assert load("iq-nosplit", n, 2, f) == pytest.approx((1 + d) / 2, abs=1e-12)


def test_overlapping_sets_without_splitting_send_one_packet_per_slot():
    assert mc.saturation_load("iq-nosplit", 5, 5, 3).rational == "1/5"   # chain
    r = mc.saturation_load("iq-nosplit", 8, 8, 5)                        # beyond the chain
    assert r.saturation_load == 0.125 and r.exact and "closed form" in r.method


def test_one_input_is_never_blocked_with_cut_through():
    for arch in mc.ARCHITECTURES:
        for n, f, dist in [(8, 4, "fixed"), (64, 10.5, "binomial")]:
            assert load(arch, n, 1, f, dist) == 1.0


# ------------------------------------------------------------ lumping vs brute force

def _unlumped_split(m, n, f):
    """Fanout-splitting saturated chain on labelled residual sets (bitmasks), no lumping."""
    fresh = [sum(1 << o for o in c) for c in itertools.combinations(range(n), f)]
    space = list(itertools.product(range(1, 1 << n), repeat=m))
    index = {s: i for i, s in enumerate(space)}
    p = np.zeros((len(space), len(space)))
    done = np.zeros(len(space))
    for s, i in index.items():
        wanting = [[r for r in range(m) if s[r] >> o & 1] for o in range(n)]
        choices = [w if w else [None] for w in wanting]
        weight = 1.0 / math.prod(len(c) for c in choices)
        for pick in itertools.product(*choices):
            res = list(s)
            for o, r in enumerate(pick):
                if r is not None:
                    res[r] &= ~(1 << o)
            empty = [r for r in range(m) if res[r] == 0]
            done[i] += weight * len(empty)
            for new in itertools.product(fresh, repeat=len(empty)):
                t = list(res)
                for r, d in zip(empty, new):
                    t[r] = d
                p[i, index[tuple(t)]] += weight / len(fresh) ** len(empty)
    a = p.T - np.eye(len(p))
    a[-1] = 1.0
    b = np.zeros(len(p))
    b[-1] = 1.0
    return np.linalg.solve(a, b) @ done / m


@pytest.mark.parametrize("m,n,f", [(2, 3, 2), (3, 3, 2), (2, 4, 2)])
def test_lumped_split_chain_matches_unlumped_chain(m, n, f):
    assert load("iq-split", n, m, f) == pytest.approx(_unlumped_split(m, n, f), abs=1e-12)


# ------------------------------------------------------------ monotone in fanout

TRACTABLE = st.sampled_from([("iq-split", 2, 6), ("iq-nosplit", 2, 8), ("iq-split", 3, 4),
                             ("iq-nosplit", 3, 5), ("oq-crosspoint", 2, 4)])


@given(TRACTABLE, st.data())
def test_saturation_never_rises_with_mean_fanout(case, data):
    arch, m, n_max = case
    n = data.draw(st.integers(m, n_max))
    dist = data.draw(st.sampled_from(["fixed", "binomial"] if arch != "oq-crosspoint" or n <= 3
                                     else ["fixed"]))
    if dist == "fixed":
        f1, f2 = sorted(data.draw(st.lists(st.integers(1, n), min_size=2, max_size=2)))
    else:
        f1, f2 = sorted(data.draw(st.lists(st.floats(1.0, float(n)), min_size=2, max_size=2)))
    assert load(arch, n, m, f2, dist) <= load(arch, n, m, f1, dist) + 1e-12


# ------------------------------------------------------------ Monte Carlo (saturated switch)

def _draw(rng, n, cdf):
    k = int(np.searchsorted(cdf, rng.random(), side="right"))
    return sum(1 << int(o) for o in rng.choice(n, size=k, replace=False))


def _simulate(arch, m, n, f, dist, q=1, cut_through=True, slots=12_000, seed=1, warmup=500):
    """Packets finished per input per slot, every input always backlogged; batch-means SE."""
    rng = np.random.default_rng(seed)
    cdf = mc.fanout_cdf(n, f, dist)
    hol_sets = [_draw(rng, n, cdf) for _ in range(m)]
    used = [[0] * n for _ in range(m)]   # oq: credits held per (input, output)
    crossbar = []                        # oq: [input, destinations, waiting, crossing slot]
    finished = np.zeros(slots)
    for t in range(-warmup, slots):
        if arch == "iq-split":
            for o in range(n):
                want = [i for i in range(m) if hol_sets[i] >> o & 1]
                if want:
                    hol_sets[want[int(rng.integers(len(want)))]] &= ~(1 << o)
            gone = [i for i in range(m) if hol_sets[i] == 0]
        elif arch == "iq-nosplit":
            taken, gone = 0, []
            for i in rng.permutation(m):
                if not hol_sets[i] & taken:
                    taken |= hol_sets[i]
                    gone.append(int(i))
        else:
            for i in range(m):
                d = hol_sets[i]
                if all(used[i][o] < q for o in range(n) if d >> o & 1):
                    for o in range(n):
                        used[i][o] += d >> o & 1
                    crossbar.append([i, d, d, t])
                    hol_sets[i] = _draw(rng, n, cdf)
            for o in range(n):
                ready = [p for p in crossbar if p[2] >> o & 1 and (cut_through or p[3] < t)]
                if ready:
                    first = min(p[3] for p in ready)
                    tied = [p for p in ready if p[3] == first]
                    tied[int(rng.integers(len(tied)))][2] &= ~(1 << o)
            gone = [p for p in crossbar if p[2] == 0]
            for i, d, _, _ in gone:
                for o in range(n):
                    used[i][o] -= d >> o & 1
            crossbar = [p for p in crossbar if p[2]]
        if arch != "oq-crosspoint":
            for i in gone:
                hol_sets[i] = _draw(rng, n, cdf)
        if t >= 0:
            finished[t] = len(gone)
    batches = finished.reshape(40, -1).mean(axis=1) / m
    return batches.mean(), batches.std(ddof=1) / math.sqrt(len(batches))


@pytest.mark.parametrize("arch,m,n,f,dist,q,cut", [
    ("iq-split", 3, 4, 2, "fixed", None, None),          # no crosspoints: Q and cut-through are oq's
    ("iq-nosplit", 3, 5, 2.5, "binomial", None, None),
    ("oq-crosspoint", 2, 4, 2, "fixed", 1, True),
    ("oq-crosspoint", 2, 3, 1.5, "binomial", 1, False),
])
def test_chain_agrees_with_a_seeded_simulation_within_four_standard_errors(arch, m, n, f, dist, q,
                                                                           cut):
    exact = load(arch, n, m, f, dist, q, cut)
    mean, se = _simulate(arch, m, n, f, dist, q, cut)
    assert abs(mean - exact) < 4 * se, (mean, se, exact)


# ------------------------------------------------------------ paper 003 §3.1 sizes

def test_two_by_eight_fanout_four_exact_values():
    # Paper 003 simulates 2 x 8 saturating near 0.8 with 2 or 4 cells per crosspoint; the
    # exact chain covers Q = 1 only, where the coupled credits hold it to 0.603.
    oq = mc.saturation_load("oq-crosspoint", 8, 2, 4, crosspoint_cells=1)
    assert oq.exact and oq.states == 10_314
    assert oq.saturation_load == pytest.approx(0.6028949, abs=1e-6)
    assert load("iq-split", 8, 2, 4) == pytest.approx(0.5942530, abs=1e-6)
    assert load("iq-nosplit", 8, 2, 4) == pytest.approx(71 / 140, abs=1e-12)  # (1 + 1/70) / 2


def test_eight_by_eight_has_only_the_bound_or_a_labelled_approximation():
    for arch in ("iq-nosplit", "oq-crosspoint"):
        r = mc.saturation_load(arch, 8, 8, 4, crosspoint_cells=4)
        assert r.saturation_load is None and not r.exact and r.admissible_bound == 0.25
        assert "simulator" in r.method
    r = mc.saturation_load("iq-split", 8, 8, 4)
    assert not r.exact and r.method.startswith("independence approximation")
    assert 0 < r.saturation_load < 0.25


# ------------------------------------------------------------ large-N split approximation

def test_split_approximation_reduces_to_karols_limit_for_fanout_one():
    pmf = size_law(1000, 1.0, "fixed")
    assert split_independence(1000, 1000, pmf) == pytest.approx(2 - math.sqrt(2), abs=1e-12)


@pytest.mark.parametrize("m,n,f", [(4, 4, 2), (5, 5, 3), (4, 6, 3), (3, 8, 4)])
def test_split_approximation_is_below_the_exact_finite_switch(m, n, f):
    approx = split_independence(n, m, size_law(n, float(f), "fixed"))
    assert approx < load("iq-split", n, m, f)


def test_split_approximation_is_close_for_a_large_switch():
    # 64 x 64, fanout 4: vectorised saturated simulation; the N -> infinity approximation
    # is about 1 % low here (module docstring), so allow 2.5 %.
    rng = np.random.default_rng(5)
    m = n = 64

    def fresh(k):
        ranks = rng.random((k, n)).argsort(axis=1).argsort(axis=1)
        return ranks < 4

    res, done = fresh(m), 0
    for t in range(4000):
        keys = np.where(res, rng.random((m, n)), -1.0)
        wanted = res.any(axis=0)
        res[keys.argmax(axis=0)[wanted], np.nonzero(wanted)[0]] = False
        empty = ~res.any(axis=1)
        if empty.any():
            res[empty] = fresh(int(empty.sum()))
        if t >= 500:
            done += int(empty.sum())
    simulated = done / (3500 * m)
    approx = load("iq-split", n, m, 4)
    assert approx == pytest.approx(simulated, rel=0.025) and approx < simulated


# ------------------------------------------------------------ results, limits, inputs

def test_result_is_frozen_and_names_its_method_and_source():
    r = mc.saturation_load("iq-split", 4, 2, 2)
    with pytest.raises(AttributeError):
        r.saturation_load = 1.0
    assert "exact lumped Markov chain" in r.method and "paper 003" in r.source
    assert r.crosspoint_cells is None
    assert mc.saturation_load("oq-crosspoint", 4, 2, 2, crosspoint_cells=1).crosspoint_cells == 1


def test_exact_ranges():
    assert mc.is_exact("iq-split", 16, 2) and not mc.is_exact("iq-split", 17, 2)
    assert mc.is_exact("iq-nosplit", 5, 4, "binomial")
    assert not mc.is_exact("iq-nosplit", 6, 4, "binomial")
    assert mc.is_exact("oq-crosspoint", 8, 2, crosspoint_cells=1)
    assert not mc.is_exact("oq-crosspoint", 8, 2, crosspoint_cells=2)
    assert mc.is_exact("oq-crosspoint", 1000, 1, crosspoint_cells=4)


@pytest.mark.parametrize("call,parameter", [
    (lambda: mc.fanout_pmf(0, 1), "n_outputs"),
    (lambda: mc.fanout_pmf(8, 9), "fanout"),
    (lambda: mc.fanout_pmf(8, 2.5), "fanout"),
    (lambda: mc.fanout_pmf(8, 5, "uniform"), "fanout"),
    (lambda: mc.fanout_pmf(8, 2, "zipf"), "distribution"),
    (lambda: mc.binomial_probability(8, 0.5), "fanout"),
    (lambda: mc.admissible_load(8, 9, 2), "active_inputs"),
    (lambda: mc.output_utilization(8, 2, 2, 1.5), "load"),
    (lambda: mc.saturation_load("voq", 8, 2, 2), "architecture"),
    (lambda: mc.saturation_load("iq-split", 8, 0, 2), "active_inputs"),
    (lambda: mc.saturation_load("iq-split", 8, 2, float("nan")), "fanout"),
    (lambda: mc.saturation_load("oq-crosspoint", 8, 2, 2, crosspoint_cells=0), "crosspoint_cells"),
    (lambda: mc.saturation_load("oq-crosspoint", 8, 2, 2, cut_through="yes"), "cut_through"),
    (lambda: mc.saturation_load("iq-split", 8, 2, 2, crosspoint_cells=2), "crosspoint_cells"),   # no crosspoints
    (lambda: mc.saturation_load("iq-nosplit", 8, 2, 2, cut_through=False), "cut_through"),
    (lambda: mc.is_exact("iq-split", 4, 2, "geometric"), "distribution"),
])
def test_bad_inputs_raise_input_error_naming_the_parameter(call, parameter):
    with pytest.raises(InputError, match=rf"^{parameter}: got "):
        call()


def test_closed_classes_with_different_rates_are_weighted_by_absorption():
    # A start state falls into class {1} (rate 1) w.p. 1/4 and {2} (rate 3) w.p. 3/4.
    rows = [{1: 0.25, 2: 0.75}, {1: 1.0}, {2: 1.0}]
    rate, classes, same = closed_class_rate(rows, [0.0, 1.0, 3.0], {0: 1.0})
    assert (classes, same) == (2, False) and rate == pytest.approx(2.5, abs=1e-14)
