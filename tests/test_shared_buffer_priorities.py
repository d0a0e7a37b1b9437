"""Several priorities per port in the shared-memory switch (issue 37): per-priority alphas, strict priority at each
output, lossless priorities beside lossy ones in one memory.

The shares are derived here by hand from the dynamic threshold's fixed point (each queue at alpha_i times the
memory left free); the kernel is checked against those numbers and the admission rules, not against the solver.
"""

from __future__ import annotations

import json

import pytest

from switchq.cli import main
from switchq.errors import InputError
from switchq.models.shared_buffer import Incast, Overload, SharedBufferSwitch
from switchq.models.traffic import Traffic
from switchq.solvers.shared_buffer import buffer_for_incast, incast, overload
from switchq.validate import kernel as K
from switchq.validate.arch import shared_buffer as kern


def _run(sw, workload, slots=4000, warmup=1000, seed=5):
    return kern.LAYOUT.named(kern.replicate(sw, workload, K.Run(slots=slots, warmup=warmup, drain=0, seed=seed)))


def test_unequal_alphas_share_the_memory_in_proportion():
    # 4 congested queues of priorities 0, 1, 0, 1 with alphas 4 and 0.5: q_i = alpha_i F, F = B - sum q_i, so
    # F = 1000 / (1 + 4 + 0.5 + 4 + 0.5) = 100 and the queues hold 400 and 50 cells.
    a = overload(32, 1000, 256, "dt", None, 4, priorities=2, priority_alphas=(4.0, 0.5))
    assert a.priority_queue_cells == (400.0, 50.0)
    assert a.free_cells == 100.0 and a.queue_cells == 225.0


def test_kernel_holds_each_priority_near_its_share():
    # Slotted, the free memory a threshold sees runs from F* + S (the S departures not yet refilled) down to F*
    # within a slot, so F* is in [F - S, F] and each queue, sampled after its departure, in
    # [q - alpha S - 1, q + alpha S]; the free memory sampled after departures, F* + S, in [F, F + S].
    sw = SharedBufferSwitch(32, 1000, 256, "dt", priorities=2, priority_alphas=(4.0, 0.5))
    c = _run(sw, Overload(4))
    for p, q, alpha in ((0, 400.0, 4.0), (1, 50.0, 0.5)):
        occ = c[f"m_occupancy_p{p}"] / (2 * 4000)     # two congested queues of each priority
        assert q - alpha * 4 - 1 <= occ <= q + alpha * 4, (p, occ)
    assert 100 <= c["m_free_sum"] / 4000 <= 104
    assert c["arrived"] == c["delivered"] + c["queued"]


def test_strict_priority_serves_the_higher_queue_first():
    # One output, both priorities overloaded by 2 inputs each (S = 2 on outputs 0 and 1 would spread them, so
    # traffic instead: uniform at load 1 to 2 ports, each cell of priority 0 or 1 at random). The higher
    # priority is sent first: under overload the lower one loses more.
    sw = SharedBufferSwitch(2, 40, 256, "cs", priorities=2)
    c = _run(sw, Traffic(load=1.0), slots=20_000)
    lost = [c[f"m_dropped_p{p}"] / c[f"m_offered_p{p}"] for p in (0, 1)]
    # Load 1 on 2 ports: the outputs are busy every slot they hold a cell; priority 1 is never held behind 0,
    # so nearly all of the loss (a full memory) falls on priority 0 cells, which sit longest.
    assert lost[1] < lost[0]
    assert c["arrived"] == c["delivered"] + c["queued"]


def test_a_lossless_priority_beside_a_lossy_one_loses_nothing():
    # Priority 1 lossless (XOFF at 20 cells, 30 slots in flight, 30 cells of headroom: exactly the demand),
    # priority 0 lossy under dt; an 8:1 sustained incast on priority 1 and background on the other 24 inputs.
    sw = SharedBufferSwitch(32, 1000, 256, "dt", lossless=True, lossless_priorities=(1,), xoff_cells=20,
                            headroom_cells=30, pause_slots=30, priorities=2)
    c = _run(sw, Incast(8, 1 << 24, background_load=0.5, priority=1), slots=20_000)
    assert c["m_lossless_drops"] == 0 and c["m_dropped_p1"] == 0
    # 8 backlogged senders share one output: each is paused 1 - 1/8 of the time, within a pause cycle over the run.
    duty = c["m_paused_slots"] / (8 * 20_000)
    assert duty == pytest.approx(7 / 8, abs=0.01)
    # The background goes to the 31 other outputs, each offered 24 x 0.5 / 31 < 1: it is carried in full.
    assert c["m_background_delivered"] / c["m_background_offered"] == pytest.approx(1.0, abs=0.01)


def test_the_incast_burst_absorbed_uses_its_priority_alpha():
    # The incast's queue is of priority 1 (alpha 0.25): c = 0.25 x 1000 / 1.25 = 200, 8 senders: ceil(200/7) - 1 = 28.
    a = incast(32, 1000, 256, "dt", None, 8, priorities=2, priority_alphas=(4.0, 0.25), priority=1)
    assert a.cap_cells == pytest.approx(200.0) and a.burst_whole == 28 and a.alpha == 0.25
    sw = SharedBufferSwitch(32, 1000, 256, "dt", priorities=2, priority_alphas=(4.0, 0.25))
    c = _run(sw, Incast(8, 300, priority=1), slots=40 * 2401)
    assert c["m_absorbed_sum"] / c["m_events"] == 28


def test_partitions_and_reserves_count_every_queue():
    # cp with 2 priorities: floor(1000 / 64) = 15 cells a queue; sizing an 8:1 burst of 10 cells under cp needs
    # a part above 70 cells: 64 x 71 = 4544.
    assert overload(32, 1000, 256, "cp", None, 4, priorities=2).queue_cells == 15
    assert buffer_for_incast(32, 256, "cp", None, 8, 10, priorities=2).buffer_cells == 64 * 71
    with pytest.raises(InputError, match="reserved_cells: got 16; allowed: an integer in \\[0, 15\\], so the 64"):
        SharedBufferSwitch(32, 1000, 256, "cs", reserved_cells=16, priorities=2)


@pytest.mark.parametrize("args, option", [
    (["--priorities", "2", "--priority-alphas", "1,2,3", "--congested", "2"], "--priority-alphas"),
    (["--priorities", "2", "--priority-alphas", "1,2", "--alpha", "2", "--congested", "2"], "--alpha"),
    (["--priorities", "2", "--load", "0.5"], "--priorities"),
    (["--priorities", "9", "--congested", "2"], "--priorities"),
    (["--priorities", "2", "--lossless", "--lossless-priorities", "2", "--xoff", "20KB", "--incast", "4"],
     "--lossless-priorities"),
    (["--priorities", "2", "--incast", "4", "--incast-priority", "2"], "--incast-priority"),
    (["--priorities", "2", "--lossless", "--lossless-priorities", "1", "--policy", "pushout", "--xoff", "20KB",
      "--incast", "4"], "--policy"),
])
def test_bad_priority_input_is_one_line(args, option, capsys):
    with pytest.raises(SystemExit) as e:
        main(["solve", "shared-buffer", "--ports", "8", "--buffer", "256000B", *args])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and option in err, err


def test_solve_answers_per_priority_with_units(capsys):
    with pytest.raises(SystemExit) as e:
        main(["solve", "shared-buffer", "--ports", "8", "--buffer", "281600B", "--priorities", "2",
              "--priority-alphas", "4,1", "--congested", "4", "--json"])
    assert e.value.code == 0
    out = json.loads(capsys.readouterr().out)
    # F = 1100 / (1 + 4 + 1 + 4 + 1) = 100 cells free; 400 and 100 cells per queue.
    assert out["priority_queue_cells"] == [400.0, 100.0] and out["units"]["priority_queue_cells"] == "cells"
