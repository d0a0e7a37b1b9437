"""VOQ saturation: PIM's grant/accept recursion and iSLIP's desynchronisation (Anderson et al. 1993; McKeown 1999)."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from switchq.errors import InputError
from switchq.solvers import voq


def _stirling2(n, k):
    return sum((-1) ** j * math.comb(k, j) * (k - j) ** n for j in range(k + 1)) // math.factorial(k)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 9])
def test_occupancy_law_is_stirling_formula(n):
    # P(M = m) = C(n, m) S(n, m) m! / n^n: an independent closed form for the recursion.
    expected = [math.comb(n, m) * _stirling2(n, m) * math.factorial(m) / n**n for m in range(n + 1)]
    assert np.allclose(voq.occupancy_distribution(n), expected, atol=1e-14)


def test_pim_one_iteration_by_brute_force_enumeration():
    # N = 3: enumerate all 27 grant vectors; matches = distinct inputs granted.
    n = 3
    mean = np.mean([len(set(g)) for g in itertools.product(range(n), repeat=n)])
    assert voq.saturation_throughput(n, "pim", 1).saturation_throughput == pytest.approx(mean / n)


@pytest.mark.parametrize("n", [2, 4, 8, 16, 64, 1024])
def test_pim_one_iteration_is_one_minus_one_minus_one_over_n_to_the_n(n):
    assert voq.saturation_throughput(n, "pim", 1).saturation_throughput == pytest.approx(1 - (1 - 1 / n) ** n)


def test_pim_single_iteration_tends_to_one_minus_one_over_e():
    # Anderson et al. 1993: a single PIM iteration matches about 63 % of outputs in large switches.
    assert voq.saturation_throughput(1024, "pim", 1).saturation_throughput == pytest.approx(1 - 1 / math.e, abs=2e-4)


def test_pim_two_ports_two_iterations_is_a_perfect_match():
    # After one iteration either both inputs are matched or one is; the second always matches the rest.
    assert voq.saturation_throughput(2, "pim", 2).saturation_throughput == pytest.approx(1.0)


@given(n=st.integers(1, 40), k=st.integers(1, 6))
def test_more_pim_iterations_never_hurt(n, k):
    a = voq.saturation_throughput(n, "pim", k).saturation_throughput
    b = voq.saturation_throughput(n, "pim", k + 1).saturation_throughput
    assert 0 < a <= b + 1e-12 <= 1 + 1e-12


def test_islip_saturates_at_full_throughput():
    assert voq.saturation_throughput(32, "islip", 1).saturation_throughput == 1.0


@pytest.mark.parametrize("kwargs", [{"n_ports": 0}, {"n_ports": 4, "matching": "wfa"},
                                    {"n_ports": 4, "iterations": 0}])
def test_bad_input_rejected(kwargs):
    with pytest.raises(InputError):
        voq.saturation_throughput(**kwargs)
