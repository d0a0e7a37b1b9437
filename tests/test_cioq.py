"""CIOQ with speedup S: its two limits are switches we already simulate, slot for slot, and its saturation law."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from switchq.errors import InputError
from switchq.models import Traffic
from switchq.api import Switch, simulate
from switchq.solvers import cioq
from switchq.validate.harness import RunSettings

_SHORT = RunSettings(slots=6_000, replications=2, seed=5)


@settings(max_examples=12, deadline=None)
@given(n=st.integers(2, 6), load=st.floats(0.1, 0.95), seed=st.integers(0, 2**31))
def test_speedup_n_with_maximal_phases_is_output_queuing_slot_for_slot(n, load, seed):
    # S = N phases, each maximal (iSLIP with N iterations) and drawing no random numbers: every cell
    # reaches its output in its arrival slot, so with the same arrival draws the departures per slot are
    # those of the OQ kernel and every figure is identical, not just statistically equal.
    run = RunSettings(slots=3_000, replications=2, seed=seed)
    a = simulate(Switch(n, "cioq", speedup=n, matching="islip", iterations=n), Traffic(load), run)
    b = simulate(Switch(n, "oq"), Traffic(load), run)
    assert (a.throughput, a.mean_wait, a.arrived, a.delivered) == (b.throughput, b.mean_wait, b.arrived, b.delivered)


@pytest.mark.parametrize("matching, iterations", [("pim", 1), ("islip", 2)])
@pytest.mark.parametrize("load", [0.6, 1.0])
def test_speedup_one_is_the_voq_switch_slot_for_slot(matching, iterations, load):
    # One phase is the VOQ switch's one matching (same toolkit call, same random numbers).
    a = simulate(Switch(8, "cioq", speedup=1, matching=matching, iterations=iterations), Traffic(load), _SHORT)
    b = simulate(Switch(8, "voq", matching=matching, iterations=iterations), Traffic(load), _SHORT)
    assert (a.throughput, a.mean_wait) == (b.throughput, b.mean_wait)


@pytest.mark.parametrize("n", [4, 8, 16, 32])
def test_saturation_law_against_pims_one_iteration_closed_form(n):
    # Independent derivation: with every VOQ backlogged, one PIM iteration matches every input that
    # receives a grant; an input misses all N uniformly random grants with probability (1 - 1/N)^N.
    theta = 1 - (1 - 1 / n) ** n
    for s in (1, 2, 3):
        assert cioq.saturation_throughput(n, s, "pim", 1).saturation_throughput == pytest.approx(min(1.0, s * theta),
                                                                                                 rel=1e-12)


def test_simulated_saturation_with_speedup_one_meets_pims_closed_form():
    # N = 8: 1 - (7/8)^8 = 0.65639. 2 x 20 000 slots x 8 outputs give a half-width near 0.004;
    # 0.01 allows for the warm-up bias of the backlogged start.
    r = simulate(Switch(8, "cioq", speedup=1, matching="pim", iterations=1), Traffic(1.0),
                 RunSettings(slots=20_000, replications=2, seed=3))
    assert r.throughput.value == pytest.approx(1 - (7 / 8) ** 8, abs=0.01)


def test_speedup_two_carries_a_load_single_pim_cannot():
    # One PIM iteration saturates at 0.656 for N = 8; two phases carry 0.9 (min(1, 2 x 0.656) = 1).
    r = simulate(Switch(8, "cioq", speedup=2, matching="pim", iterations=1), Traffic(0.9), _SHORT)
    assert not r.unstable
    assert r.throughput.low <= 0.9 <= r.throughput.high


def test_mean_wait_is_refused_where_the_switch_is_not_output_queuing():
    with pytest.raises(InputError, match="speedup"):
        cioq.mean_wait(8, 2, "islip", 8, 0.8)
    with pytest.raises(InputError, match="speedup"):
        cioq.saturation_throughput(8, 9)
