"""Model descriptions: validation at the boundary and the traffic patterns' definitions."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from switchq.errors import InputError
from switchq.models import Traffic
from switchq.api import Switch


@pytest.mark.parametrize("kwargs, param", [
    ({"n_ports": 0}, "n_ports"),
    ({"n_ports": -3}, "n_ports"),
    ({"n_ports": 2.5}, "n_ports"),
    ({"n_ports": "8"}, "n_ports"),
    ({"n_ports": 4, "architecture": "crossbar"}, "architecture"),
    ({"n_ports": 4, "window": 0}, "window"),
    ({"n_ports": 4, "architecture": "voq", "iterations": 0}, "iterations"),
    ({"n_ports": 4, "architecture": "voq", "matching": "rr"}, "matching"),
    ({"n_ports": 4, "architecture": "fifo", "output_buffer_cells": 4}, "output_buffer_cells"),
    ({"n_ports": 4, "architecture": "oq", "output_buffer_cells": 0}, "output_buffer_cells"),
    ({"n_ports": 4, "architecture": "voq", "window": 2}, "window"),
])
def test_bad_switch_rejected_with_one_line_naming_parameter(kwargs, param):
    with pytest.raises(InputError) as e:
        Switch(**kwargs)
    assert e.value.parameter == param
    assert "\n" not in str(e.value) and str(e.value).startswith(param + ": got ")


@pytest.mark.parametrize("kwargs, param", [
    ({"load": -0.1}, "load"), ({"load": 1.01}, "load"), ({"load": float("nan")}, "load"),
    ({"load": 0.5, "pattern": "tornado"}, "pattern"),
    ({"load": 0.5, "arrivals": "pareto"}, "arrivals"),
    ({"load": 0.5, "arrivals": "onoff", "mean_burst": 0.5}, "mean_burst"),
    ({"load": 0.5, "mean_burst": 10}, "mean_burst"),  # bursts need onoff arrivals
    ({"load": 0.5, "unbalanced_w": 1.5}, "unbalanced_w"),
    # Set where its pattern does not read it (a silently ignored value): refused.
    ({"load": 0.5, "hotspot_port": 99, "hotspot_fraction": 0.5}, "hotspot_fraction"),
    ({"load": 0.5, "pattern": "unbalanced", "unbalanced_w": 0.5, "hotspot_port": 1}, "hotspot_port"),
    ({"load": 0.5, "pattern": "hotspot", "unbalanced_w": 0.5}, "unbalanced_w"),
])
def test_bad_traffic_rejected_with_one_line_naming_parameter(kwargs, param):
    with pytest.raises(InputError) as e:
        Traffic(**kwargs)
    assert e.value.parameter == param


def test_permutation_patterns_need_a_power_of_two():
    with pytest.raises(InputError, match="n_ports"):
        Traffic(0.5, pattern="bitrev").destination_matrix(6)
    with pytest.raises(InputError, match="even power of two"):
        Traffic(0.5, pattern="transpose").destination_matrix(8)


def test_permutations_follow_their_bit_definitions():
    # N = 16, 4-bit indices: 0b0001 -> complement 0b1110, bit reverse 0b1000, transpose (swap 2-bit halves) 0b0100.
    assert Traffic(1, pattern="complement").permutation(16)[1] == 0b1110
    assert Traffic(1, pattern="bitrev").permutation(16)[1] == 0b1000
    assert Traffic(1, pattern="transpose").permutation(16)[1] == 0b0100
    assert Traffic(1, pattern="transpose").permutation(16)[0b0110] == 0b1001


@given(n_bits=st.integers(1, 8), pattern=st.sampled_from(["complement", "bitrev"]))
def test_permutation_patterns_are_permutations(n_bits, pattern):
    n = 1 << n_bits
    assert sorted(Traffic(1, pattern=pattern).permutation(n)) == list(range(n))


@given(n=st.integers(1, 64), w=st.floats(0, 1), h=st.floats(0, 1),
       pattern=st.sampled_from(["uniform", "unbalanced", "hotspot"]))
def test_destination_rows_are_distributions(n, w, h, pattern):
    p = Traffic(0.5, pattern=pattern, unbalanced_w=w if pattern == "unbalanced" else 0.0,
                hotspot_fraction=h if pattern == "hotspot" else 0.0).destination_matrix(n)
    assert np.allclose(p.sum(axis=1), 1.0) and (p >= 0).all()


def test_unbalanced_model_of_rojas_cessa():
    # p_ii = w + (1 - w)/N, p_ij = (1 - w)/N.
    p = Traffic(0.8, pattern="unbalanced", unbalanced_w=0.5).destination_matrix(4)
    assert p[2, 2] == pytest.approx(0.5 + 0.5 / 4) and p[2, 1] == pytest.approx(0.5 / 4)
