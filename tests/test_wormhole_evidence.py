"""solvers/wormhole_evidence.py: what MediaWorm's mechanism, as switchq models it, allows of Tables II and V, each
checked against an independent derivation (a closed form, the exact multinomial)."""

import math

import numpy as np

from switchq.models.wormhole import VideoStreams, WormholeNetwork, WormholeRouter, WormholeTraffic
from switchq.solvers.wormhole import fgvc_delay_bound
from switchq.solvers.wormhole_answers import answers
from switchq.solvers.wormhole_evidence import best_effort_saturation, frame_interval_limits


def test_frame_interval_limits_of_cbr_streams_follow_the_closed_form():
    # CBR frames are all alike, so every frame's last message has the same regulator offset: the smallest d-bar is
    # T - J / n (first frame J late, last on time), and delays alternating 0, J move the n intervals by +J, -J, ...,
    # whose spread is J sqrt(1 - (1/n)^2) for odd n (their mean is J / n).
    router, traffic = WormholeRouter(), WormholeTraffic(0.8, (80, 20), streams=VideoStreams("cbr"))
    n = 7
    f = frame_interval_limits(router, traffic, n, np.random.default_rng(1), runs=5)
    jitter = fgvc_delay_bound(router, traffic).jitter_bound_seconds * 1e3
    assert math.isclose(f.jitter_ms, jitter)
    assert math.isclose(f.period_ms, 1000 / 30)
    assert math.isclose(f.d_min_ms, 1000 / 30 - jitter / n, rel_tol=1e-12)
    assert math.isclose(f.sd_max_ms, jitter * math.sqrt(1 - 1 / n ** 2), rel_tol=1e-9)
    assert f.floor_ms == 0.0 and f.sd_bound_ms == f.floor_ms + f.jitter_ms
    assert f.streams == 512                          # round(0.8 x 0.8 / 4 Mbit/s x 400 Mbit/s x 8)


def test_frame_interval_limits_of_vbr_streams_stay_within_the_bound():
    f = frame_interval_limits(WormholeRouter(), WormholeTraffic(0.7, (80, 20)), 6, np.random.default_rng(2), runs=20)
    assert f.d_min_ms < f.period_ms and f.period_ms - f.d_min_ms < 0.1
    assert 0 < f.sd_max_ms <= f.sd_bound_ms


def test_best_effort_saturation_matches_the_exact_multinomial():
    # The simulator's placements against solve wormhole's exact P(some output's video on the wire plus best effort
    # above its link): 50:50 at 0.9 (0.717) and 20:80 at 0.96 (0.945); four binomial standard errors.
    router, k = WormholeRouter(), 600
    for mix, load in (((50, 50), 0.9), ((20, 80), 0.96)):
        traffic = WormholeTraffic(load, mix)
        share = best_effort_saturation(router, traffic, np.random.default_rng(3), k)
        p = answers(WormholeNetwork(), traffic)["p_best_effort_saturated"]
        assert abs(share - p) < 4 * math.sqrt(p * (1 - p) / k) + 1e-9, (mix, load, share, p)
    # Where no output can be over-committed, none is.
    assert best_effort_saturation(router, WormholeTraffic(0.6, (20, 80)), np.random.default_rng(4), 50) == 0.0
