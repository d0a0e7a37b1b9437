"""Multicast switches (paper 003 §2, §3.1): copies, credits and the saturation the laws predict."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from switchq.errors import InputError
from switchq.models import Traffic
from switchq.api import Switch, simulate
from switchq.validate import kernel as K
from switchq.validate.arch import multicast
from switchq.validate.harness import RunSettings

ARCHS = ("oq-crosspoint", "iq-split", "iq-nosplit")


@settings(max_examples=30)
@given(arch=st.sampled_from(ARCHS), n=st.integers(1, 12), m=st.integers(1, 12), f=st.integers(1, 6),
       dist=st.sampled_from(["fixed", "binomial", "uniform"]), load=st.floats(0.01, 1.0),
       q=st.integers(1, 4), seed=st.integers(0, 2**31))
def test_every_copy_delivered_exactly_once(arch, n, m, f, dist, load, q, seed):
    # Each option only where it applies (the models refuse it elsewhere): a law of the set's size above fanout 1,
    # crosspoint buffers with oq-crosspoint.
    m = min(m, n)
    top = n if dist != "uniform" else (n + 1) // 2
    f = min(f, top)
    tr = Traffic(load, fanout=f, fanout_distribution=dist if f > 1 else "fixed", active_inputs=m)
    run = K.Run(slots=200, warmup=0, drain=200 * n * 4 + 50, seed=seed)
    own = {"crosspoint_cells": q} if arch == "oq-crosspoint" else {}
    s = multicast.LAYOUT.named(multicast.replicate(Switch(n, arch, **own), tr, run))
    assert s["overflow"] == 0
    assert s["queued"] == 0 and s["arrived"] == s["delivered"]
    assert s["copies"] == s["copies_owed"]


@settings(max_examples=30)
@given(n=st.integers(1, 12), m=st.integers(1, 12), f=st.integers(1, 6),
       dist=st.sampled_from(["fixed", "binomial", "uniform"]), load=st.floats(0.01, 1.0),
       seed=st.integers(0, 2**31))
def test_wba_delivers_every_copy_exactly_once(n, m, f, dist, load, seed):
    # WBA grants by weight (HOL age minus residue); the ages and ties must not lose or repeat copies.
    m = min(m, n)
    f = min(f, n if dist != "uniform" else (n + 1) // 2)
    tr = Traffic(load, fanout=f, fanout_distribution=dist if f > 1 else "fixed", active_inputs=m)   # a law above 1
    s = multicast.LAYOUT.named(multicast.replicate(Switch(n, "iq-wba"), tr, K.Run(slots=200, warmup=0,
                                                                                  drain=200 * n * 4 + 50, seed=seed)))
    assert s["overflow"] == 0
    assert s["queued"] == 0 and s["arrived"] == s["delivered"]
    assert s["copies"] == s["copies_owed"]


@pytest.mark.parametrize("inputs, paper", [(2, 0.65), (8, 0.22)])
@pytest.mark.parametrize("dist", ["binomial", "uniform"])
def test_wba_saturation_matches_prabhakar_mckeown_ahuja(inputs, paper, dist):
    # Paper 003 §3.1 quotes its ref. [19] (Prabhakar, McKeown & Ahuja 1997): uncorrelated traffic,
    # mean fanout 4, saturates 2 x 8 at 0.65 and 8 x 8 at 0.22 (packets per active input per slot).
    # Measured (seed 1, 8 x 5e4 slots): binomial 0.6395 and 0.2223, uniform 0.6528 and 0.2257;
    # fixed fanout 4 gives 0.600 on 2 x 8, so the paper's law varies. Tolerance 0.015: the quoted
    # figures have two digits (+-0.005), and [19]'s fanout law and weight factors are unknown here
    # (the law alone moves 2 x 8 by 0.013). The 95 % CI half-widths of these runs are <= 0.003.
    tr = Traffic(1.0, fanout=4, fanout_distribution=dist, active_inputs=inputs)
    run = RunSettings(slots=20_000, replications=4, seed=1)
    wba = simulate(Switch(8, "iq-wba"), tr, run)
    assert wba.unstable and wba.throughput.value == pytest.approx(paper, abs=0.015)
    # Weighting should not lose to random selection (iq-split): not worse beyond the CI noise.
    rnd = simulate(Switch(8, "iq-split"), tr, run)
    noise = (wba.throughput.high - wba.throughput.low + rnd.throughput.high - rnd.throughput.low) / 2
    assert wba.throughput.value >= rnd.throughput.value - noise


@pytest.mark.parametrize("arch", ["iq-split", "iq-nosplit"])
def test_fanout_one_is_karols_hol_blocking(arch):
    # With one destination per packet both input-queued rules are FIFO input queuing:
    # Karol et al. 1987, N = 4: 325/496 = 0.65524.
    r = simulate(Switch(4, arch), Traffic(1.0, fanout=1), RunSettings(slots=40_000, replications=8, seed=2))
    assert r.throughput.covers(325 / 496)


def test_crosspoint_switch_saturates_at_the_output_bound_for_8x8_fanout_4():
    # Paper 003 §3.1: mean fanout 4 on 8 x 8 saturates near load 0.25, the admissible bound
    # N / (M F) = 8 / 32; credit coupling keeps it a little below.
    r = simulate(Switch(8, "oq-crosspoint", crosspoint_cells=4), Traffic(1.0, fanout=4),
                 RunSettings(slots=20_000, replications=4))
    assert 0.22 < r.throughput.value < 0.25 and r.output_utilization.value > 0.9


def test_no_split_broadcast_serves_one_packet_per_slot():
    # Fanout N: every packet needs every output, so exactly one packet leaves per slot: 1/M each.
    r = simulate(Switch(4, "iq-nosplit"), Traffic(1.0, fanout=4, active_inputs=3),
                 RunSettings(slots=10_000, replications=4))
    assert r.throughput.value == pytest.approx(1 / 3, abs=2e-3)
    assert r.output_utilization.value == pytest.approx(1.0, abs=1e-3)


def test_output_utilisation_is_copies_per_output():
    # Below saturation every packet leaves, so copies per output per slot = M load F / N.
    r = simulate(Switch(8, "oq-crosspoint"), Traffic(0.1, fanout=4, active_inputs=2),
                 RunSettings(slots=40_000, replications=6))
    expected = 2 * 0.1 * 4 / 8
    assert r.output_utilization.covers(expected, 1e-3)
    assert r.latency_per == "packet"


@pytest.mark.parametrize("kwargs, param", [
    ({"fanout": 9}, "fanout"), ({"fanout": 2, "active_inputs": 9}, "active_inputs"),
    ({"fanout": 2.5}, "fanout"), ({"fanout": 5, "fanout_distribution": "uniform"}, "fanout"),
    ({"fanout": 1, "fanout_distribution": "binomial"}, "fanout_distribution"),    # one destination whatever the law
])
def test_bad_multicast_traffic_rejected(kwargs, param):
    with pytest.raises(InputError) as e:
        simulate(Switch(8, "iq-split"), Traffic(0.1, **kwargs), RunSettings(slots=200, replications=2))
    assert e.value.parameter == param


def test_only_the_crosspoint_switch_takes_a_crosspoint_size():
    # Input-queued switches have no crosspoint buffers: a size given them is refused, the default taken.
    with pytest.raises(InputError, match=r"^crosspoint_cells: got 2; allowed: 4 unless architecture is "
                                         r"oq-crosspoint$"):
        Switch(8, "iq-split", crosspoint_cells=2)
    assert Switch(8, "iq-split", crosspoint_cells=4).describe() == {"architecture": "iq-split", "n_ports": 8}
    assert Switch(8, "oq-crosspoint", crosspoint_cells=2).crosspoint_cells == 2


def test_unicast_architectures_refuse_multicast_traffic():
    with pytest.raises(InputError, match="fanout"):
        simulate(Switch(8, "voq"), Traffic(0.1, fanout=2), RunSettings(slots=200, replications=2))


@settings(max_examples=15)
@given(arch=st.sampled_from(ARCHS + ("iq-wba",)), n=st.integers(2, 10), f=st.integers(1, 4),
       load=st.floats(0.01, 1.0), seed=st.integers(0, 2**31))
def test_poisson_arrivals_deliver_every_copy_exactly_once(arch, n, f, load, seed):
    # Several packets may arrive in one slot at an input; none may be lost or repeated.
    tr = Traffic(load, fanout=min(f, n), arrivals="poisson", active_inputs=2 if n >= 2 else None)
    s = multicast.LAYOUT.named(multicast.replicate(Switch(n, arch), tr, K.Run(slots=200, warmup=0,
                                                                              drain=200 * n * 8 + 50, seed=seed)))
    assert s["overflow"] == 0
    assert s["queued"] == 0 and s["arrived"] == s["delivered"]
    assert s["copies"] == s["copies_owed"]


def test_poisson_sources_offer_load_packets_per_slot():
    # Paper 003 §3.1's Poisson sources, slotted: mean arrivals per input per slot = load. Below
    # saturation throughput = load; 8 x 20000 slots x 2 inputs: SE ~ 0.002, the 95 % CI must cover it.
    r = simulate(Switch(8, "oq-crosspoint"), Traffic(0.5, fanout=4, arrivals="poisson", active_inputs=2),
                 RunSettings(slots=20_000, replications=8, seed=2))
    assert r.throughput.covers(0.5)
    with pytest.raises(InputError, match="arrivals"):
        simulate(Switch(8, "fifo"), Traffic(0.5, arrivals="poisson"), RunSettings(slots=1000, replications=2))
