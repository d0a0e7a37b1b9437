"""The leaf-spine fabric with PFC (issue 37): conservation, the headroom a port needs, the pause spreading.

Figures are derived here: the cells in flight after an XOFF (2 D - 1 on a link of D slots), an incast's host
link carrying a cell a slot, victims carrying their load when nothing pauses them.
"""

from __future__ import annotations

import pytest

from switchq.models.leaf_spine import FabricIncast, LeafSpineFabric
from switchq.validate import kernel as K
from switchq.validate.arch import leaf_spine as kern


def _run(fabric, workload, slots=20_000, warmup=2_000, seed=5):
    return kern.LAYOUT.named(kern.replicate(fabric, workload, K.Run(slots=slots, warmup=warmup, drain=0, seed=seed)))


def test_routes_by_hand():
    f = kern.Fabric(leaves=4, spines=2, hosts_per_leaf=4, hosts=16, buffer=100, xoff=10, xon=5, headroom=19, delay=10)
    # Host 5 (leaf 1) to host 0 (leaf 0): up to spine (5 + 0) mod 2 = 1, link 32 + 1 x 2 + 1 = 35; the spine
    # sends it down to leaf 0 on link 32 + 8 + 1 x 4 + 0 = 44; leaf 0 to host 0 on link 16.
    assert kern.route(f, 1, 5, 0) == 35 and kern.receiver(f, 35) == 4 + 1
    assert kern.route(f, 5, 5, 0) == 44 and kern.receiver(f, 44) == 0
    assert kern.route(f, 0, 5, 0) == 16 and kern.receiver(f, 16) == -1


def test_victims_alone_carry_their_load():
    # No incast: nothing congests, so no pause, and each victim delivers its Bernoulli 0.5 (20,000 slots:
    # 4 sigma of the mean is 4 x sqrt(0.25 / 40,000) = 0.01 over the two flows).
    c = _run(LeafSpineFabric(4, 2, 4), FabricIncast(0, 2, 0.5))
    assert c["m_xoffs"] == 0
    assert c["m_victim_delivered"] / (2 * 20_000) == pytest.approx(0.5, abs=0.01)
    assert c["arrived"] == c["delivered"] + c["queued"]


def test_incast_saturates_its_host_and_pauses_upstream_without_loss():
    # 8 backlogged senders to one host: its link carries a cell a slot; PFC pauses the spines' links to leaf 0
    # and, as the spines fill, the leaves' uplinks and the senders; the sized headroom (2 D - 1) loses nothing.
    c = _run(LeafSpineFabric(4, 2, 4), FabricIncast(8, 2, 0.5))
    assert c["m_incast_delivered"] / 20_000 == pytest.approx(1.0, abs=0.002)
    assert c["m_paused_tier1"] > 0 and c["m_paused_tier2"] > 0 and c["m_paused_tier3"] > 0
    assert c["m_lossless_drops"] == 0 and c["headroom_peak"] <= 19


def test_a_headroom_one_short_of_the_cells_in_flight_loses():
    # D = 10: after an XOFF the wire holds 9 cells and the sender sends 10 more before the frame lands: 19.
    sized = _run(LeafSpineFabric(4, 2, 4, headroom_cells=19), FabricIncast(8, 0, 0.0))
    short = _run(LeafSpineFabric(4, 2, 4, headroom_cells=18), FabricIncast(8, 0, 0.0))
    assert sized["m_lossless_drops"] == 0 and sized["headroom_peak"] == 19
    assert short["m_lossless_drops"] > 0


def test_bad_workload_is_refused():
    with pytest.raises(Exception, match="incast"):
        LeafSpineFabric(4, 2, 4).check_traffic(FabricIncast(11, 2, 0.5))
