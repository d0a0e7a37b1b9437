"""Shared-memory switches as built today: one memory, a dynamic (or static) threshold per queue (issue 37).

Answered as ``shared-buffer``: the overloaded queues' equilibrium under the dynamic threshold (Choudhury &
Hahne 1998) and the largest N:1 incast burst a queue absorbs; ``size shared-buffer``: the memory an incast
needs. Simulated as ``shared-buffer``: a linked-list shared memory, cell by cell
(:mod:`switchq.validate.arch.shared_buffer`), under overload, incast or any unicast traffic.
"""

from __future__ import annotations

from dataclasses import replace

from switchq.declaration import Answer, Architecture, BenchCase, Case, Compare, Counter, Metric
from switchq.errors import InputError
from switchq.models.shared_buffer import MAX_BUFFER_CELLS, Incast, Overload, SharedBufferSwitch, overflowing_burst
from switchq.models.traffic import Traffic
from switchq.params import REQUIRED, check_applies, sim_only
from switchq.solved import Solver, solved

from ._shared import PORTS, latency_per, switch_counters, switch_metrics
from ._shared_buffer_params import (ALPHA, BACKGROUND, BACKGROUND_CELLS, BUFFER, BURST, CELL, CHAIN_TRAFFIC, CONGESTED,
                                    DYNAMIC_TH, FEEDERS, INCAST, INCAST_PRIORITY, LINK_RATE, LOSSLESS_PARAMS, PERIOD,
                                    LOSSLESS, POLICY, PRIORITIES, PRIORITY_ALPHAS, RESERVED, SIM_TRAFFIC,
                                    SIZE_LOSSLESS, SONIC_PROFILE, SONIC_QUEUES, THRESHOLD, TRAFFIC, _cells, _one_workload, alpha_of, incast_priority,
                                    switch, workload)
from .pfc import _bytes

def build(p):
    check_applies(DECLARATION.all_params(), p, p)   # Python callers refused as the CLI refuses them
    sw = switch(p)
    return sw, workload(p, sw)


_OVERLOAD, _INCAST, _SIZE, _CHAIN, _PFC = (Solver("shared_buffer.overload"), Solver("shared_buffer.incast"),
                                           Solver("shared_buffer.buffer_for_incast"),
                                           Solver("shared_buffer_chain.chain"), Solver("shared_buffer.pfc_incast"))
_SIZE_LOSSLESS = Solver("shared_buffer.lossless_buffer_for_incast")


def _solve(p):
    """The overloaded queues' equilibrium (--congested), the burst an incast queue absorbs (--incast), or the
    exact chain's loss and occupancy under Bernoulli traffic (--load)."""
    sw = switch(p)
    given = _one_workload(p, missing="congested")
    priority = incast_priority(p, sw) if given == "incast" else 0
    if sw.lossless and (given != "incast" or sw.is_lossless(priority)):
        if p.get("background_cells"):
            raise InputError("background_cells", p["background_cells"], "0 with --lossless (the PFC answer is the "
                                                                        "incast's alone)")
        if p.get("link_rate") is not None:
            raise InputError("link_rate", f"{p['link_rate']:g}b/s", "unset with --lossless (the PFC answer is in "
                                                                    "slots; --pause-slots counts them)")
        if given != "incast":
            raise InputError(given, p[given], "unset with --lossless: the lossless answer is a sustained "
                                                    "--incast's (simulate the others)")
        return _PFC(sw.n_ports, p["incast"], sw.xoff_cells, sw.pause_slots, sw.headroom_cells,
                    sw.headroom_pool_cells, sw.xoff_alpha, sw.buffer_cells,
                    sw.n_ports * len(sw.lossless_priorities))
    one_alpha = sw.policy == "dt" and sw.priority_alphas is None
    args = (sw.n_ports, sw.buffer_cells, sw.cell_bytes, sw.policy, sw.alpha if one_alpha else None)
    by_priority = {"priorities": sw.priorities, "priority_alphas": sw.priority_alphas}
    if given == "congested":
        return _OVERLOAD(*args, p["congested"], sw.threshold_cells, sw.reserved_cells, **by_priority)
    if given == "incast":
        return _INCAST(*args, p["incast"], p["background_cells"], sw.threshold_cells, sw.reserved_cells,
                       p.get("link_rate"), **by_priority, priority=priority)
    if sw.priorities > 1:
        raise InputError("priorities", sw.priorities, "1 for the exact chain (one queue per output; simulate "
                                                      "several priorities)")
    pattern = p.get("pattern") or "uniform"
    if pattern not in ("uniform", "hotspot"):
        raise InputError("pattern", pattern, "uniform or hotspot for the exact chain (simulate the others)")
    return _CHAIN(*args, p["load"], sw.threshold_cells, sw.reserved_cells, pattern, p.get("hotspot_fraction", 0.0),
                  p.get("hotspot_port", 0))


def _size(p):
    cell = p["cell"]
    _bytes("cell", cell)
    burst = _cells("burst", p["burst"], cell, 1)
    if p.get("lossless"):
        return _size_lossless(p, cell, burst)
    policy = p.get("policy") or "dt"
    reserved = _cells("reserved", p.get("reserved") or 0, cell)
    try:
        return _SIZE(p["ports"], cell // 8, policy, alpha_of(p) if policy == "dt" else None, p["incast"], burst,
                     p["background_cells"], reserved)
    except InputError as e:
        if e.parameter != "buffer_cells":
            raise
        raise InputError("burst", f"{p['burst'] // 8}B", f"a burst whose memory fits in {MAX_BUFFER_CELLS} cells "
                                                         f"({e.value} needed)") from None


def _size_lossless(p, cell, burst):
    """The memory and least static XOFF (or the memory under --xoff-alpha) an incast of a lossless class needs to
    land without XOFF, and the headroom pool its groups need should XOFF fire."""
    if p.get("policy") not in (None, "cs"):
        raise InputError("policy", p["policy"], "cs with --lossless (a lossless class's egress admits while the "
                                                "memory has room)")
    for name in ("reserved", "background_cells"):
        if p.get(name):
            shown = p[name] if name == "background_cells" else f"{p[name] // 8}B"
            raise InputError(name, shown, "0 with --lossless (the lossless answer is the incast's alone)")
    for name in ("alpha", "dynamic_th"):
        if p.get(name) is not None:
            raise InputError(name, p[name], "unset with --lossless (its egress admits while the memory has room; "
                                            "--xoff-alpha is its dynamic threshold)")
    headroom = None if p.get("headroom") is None else p["headroom"] // cell
    try:
        return _SIZE_LOSSLESS(p["ports"], cell // 8, p["incast"], burst, p.get("pause_slots") or 0,
                              p.get("xoff_alpha"), headroom)
    except InputError as e:
        if e.parameter != "burst_cells":
            raise
        raise InputError("burst", f"{p['burst'] // 8}B", f"a burst whose memory fits in {MAX_BUFFER_CELLS} cells"
                         ) from None


def _twin(p):
    """The simulated point of a solve: the overload as asked; an incast with the --burst given, or else, lossy,
    overflowing bursts, and lossless, sustained (every sender always has a cell to send, up to 2^24 of them)."""
    if p.get("incast") is None:
        return p
    sw = switch(p)
    p = {**p, "background_cells": 0.0}        # the analytic side's; the twin's background is --background
    if p.get("burst") is not None:
        return p
    if sw.lossless:
        return {**p, "burst": MAX_BUFFER_CELLS * sw.cell_bytes * 8}
    return {**p, "burst": overflowing_burst(sw.buffer_cells, p["incast"]) * sw.cell_bytes * 8}


def _watched(c):
    w = c.workload
    return w.congested if isinstance(w, Overload) else 1 if isinstance(w, Incast) else c.system.n_ports


def _per_event(counter, events="m_events"):
    return lambda c: c[counter] / c[events] if isinstance(c.workload, Incast) else None


def _victims(c):
    w = c.workload
    if not isinstance(w, Incast) or w.background_load == 0:
        return None
    return c["m_background_delivered"] / ((c.system.n_ports - w.degree) * c.slots)


def _senders(c):
    w = c.workload
    return w.congested * w.feeders if isinstance(w, Overload) else w.degree if isinstance(w, Incast) else \
        c.system.n_ports


def _lossless_only(f):
    return lambda c: f(c) if c.system.lossless else None


def _watched_of(c, priority):
    """Watched queues of ``priority``: the congested ones of it (the k-th is of priority k mod P), the incast's,
    or one per output."""
    w, npri = c.workload, c.system.priorities
    if isinstance(w, Overload):
        return len(range(priority, w.congested, npri))
    if isinstance(w, Incast):
        return int(w.priority == priority)
    return c.system.n_ports


def _by_priority(f):
    """A figure per priority (a column each), with several priorities only."""
    def samples(c):
        import numpy as np

        if c.system.priorities < 2:
            return None
        return np.column_stack([f(c, k) for k in range(c.system.priorities)])
    return samples


def _offering(c):
    """Inputs offering cells: a congested queue's feeders, the incast's senders (and background inputs), else all."""
    w, n = c.workload, c.system.n_ports
    if isinstance(w, Overload):
        return w.congested * w.feeders
    if isinstance(w, Incast):
        return n if w.background_load > 0 else w.degree
    return n


METRICS = (
    Metric("throughput", "cells/slot/input", lambda c: c["m_delivered"] / (_offering(c) * c.slots),
           "cells delivered per offering input per slot", bounds=(0.0, 1.0)),
    Metric("queue_occupancy", "cells", lambda c: c["m_occupancy_sum"] / (_watched(c) * c.slots),
           "cells per watched queue (the congested ones, the incast's, else all) at slot end, after departures"),
    Metric("queue_p99", "cells", lambda c: None if c.settings.batches > 1 else c["occupancy_p99"],
           "the 99th percentile of the watched queues' lengths at slot end (one run's, so not with --batches)"),
    Metric("free_cells", "cells", lambda c: c["m_free_sum"] / c.slots, "cells free in the memory at slot end"),
    Metric("burst_absorbed", "cells/sender", _per_event("m_absorbed_sum"),
           "cells per sender of an incast burst admitted before its first drop (the whole burst if none)"),
    Metric("dropping_share", "1", _per_event("m_dropping_events"), "share of incast bursts that lost a cell",
           bounds=(0.0, 1.0)),
    Metric("completion_slots", "slots", _per_event("m_completion_sum", "m_completed"),
           "slots from an incast burst's start until its queue emptied"),
    Metric("victim_throughput", "cells/slot/input", _victims,
           "background cells delivered per background input per slot", bounds=(0.0, 1.0)),
    Metric("pause_duty", "1", _lossless_only(lambda c: c["m_paused_slots"] / (_senders(c) * c.slots)),
           "share of the slots a sender (an incast's, a congested queue's feeder, else any) was paused by PFC",
           bounds=(0.0, 1.0)),
    Metric("headroom_used", "cells", _lossless_only(lambda c: c["headroom_peak"]),
           "most cells one input group held in headroom (private and pool) in the run"),
    Metric("xoffs_per_burst", "pauses/burst",
           lambda c: c["m_xoffs"] * c.workload.period / c.slots
           if c.system.lossless and isinstance(c.workload, Incast) else None,
           "PFC XOFFs sent per incast period while measuring (a lossless incast)"),
    Metric("lost_per_pause", "cells/pause", _lossless_only(lambda c: c["m_lossless_drops"] / c["m_xoffs"]),
           "lossless cells lost (headroom and pool full) per XOFF, while measuring"),
    Metric("priority_occupancy", "cells",
           _by_priority(lambda c, k: c[f"m_occupancy_p{k}"] / (_watched_of(c, k) * c.slots)),
           "cells per watched queue of each priority at slot end (none where no queue of it is watched)"),
    Metric("priority_loss", "1", _by_priority(lambda c, k: c[f"m_dropped_p{k}"] / c[f"m_offered_p{k}"]),
           "share of each priority's cells lost", bounds=(0.0, 1.0)),
    *(m for m in switch_metrics() if m.name not in ("throughput",)),
)
COUNTERS = (*switch_counters(), Counter("pushed_out", "cells"), Counter("occupancy_max", "cells", "max"),
            Counter("xoffs", "pauses", counter="m_xoffs"), Counter("pool_peak", "cells", "max"),
            Counter("lossless_drops", "cells", counter="m_lossless_drops"))
UNITS = {"buffer_cells": "cells", "cell_bytes": "B", "threshold_cells": "cells", "reserved_cells": "cells",
         "alpha": "1", "congested": "queues", "feeders": "inputs/queue", "incast": "senders",
         "burst_cells": "cells/sender", "period_slots": "slots", "background_load": "cells/slot/input",
         "xoff_cells": "cells", "xoff_alpha": "1", "xon_offset_cells": "cells", "xon_cells": "cells", "headroom_cells": "cells", "headroom_pool_cells": "cells",
         "pause_slots": "slots", "priorities": "queues/port", "priority_alphas": "1", "lossless_priorities": "priority",
         "incast_priority": "priority"}

_EXAMPLE = {"ports": 32, "buffer": 256000 * 8, "cell": 256 * 8}


def _under_a_cell(ports, alpha, congested):
    """The band (q - 1, q] as a centre and half a cell: the slotted queue, refilled to its threshold every slot and
    sampled after a departure, sits under the fluid q by less than a cell, never over it."""
    from switchq.solvers.shared_buffer import overload

    q = overload(ports, 1000, 256, "dt", alpha, congested).queue_cells
    return q - 0.5, f"alpha B / (1 + alpha S) = {q:.3f} less half a cell: the band (q - 1, q]"


def _overload_case(alpha, congested, ports=32):
    params = {**_EXAMPLE, "ports": ports, "alpha": alpha, "congested": congested}
    return Case("shared-buffer", f"N={ports}, B=1000 cells, alpha {alpha:g}, S={congested}: per-queue occupancy",
                params, "queue_occupancy", lambda: _under_a_cell(ports, alpha, congested),
                slots=20_000, replications=5, tolerance=0.5,
                why="The fluid fixed point q = alpha B / (1 + alpha S). Sampled at slot end after departures, a "
                    "queue that refills to its threshold in every slot sits under it by less than a cell: the "
                    "band is [q - 1, q], so a queue over the fluid value by any amount fails.")


def _priority_case():
    # Two priorities, alphas 4 and 0.5, 4 congested queues (priorities 0, 1, 0, 1), 1000 cells: F = 1000 / 10.
    params = {**_EXAMPLE, "priorities": 2, "priority_alphas": (4.0, 0.5), "congested": 4}

    def band():
        from switchq.solvers.shared_buffer import overload

        q = overload(32, 1000, 256, "dt", None, 4, priorities=2, priority_alphas=(4.0, 0.5)).queue_cells
        return q - 0.5, f"the mean of alpha_i B / (1 + sum alpha) = {q:.3f}, in [q - 9 - 1, q + 9]"
    # The band [q - mean(alpha) S - 1, q + mean(alpha) S]: mean alpha 2.25, S = 4.
    return Case("shared-buffer", "N=32, B=1000 cells, 2 priorities of alpha 4 and 0.5, S=4: mean per-queue occupancy",
                params, "queue_occupancy", band, slots=20_000, replications=5, tolerance=2.25 * 4 + 0.5,
                why="Each queue at its own alpha times the memory left free (400 and 50 cells, F = 100). Slotted, the "
                    "free memory a threshold sees runs from F* + S down to F* within a slot, so each queue settles "
                    "within alpha_i S of its share (and a cell under, sampled after its departure): the mean within "
                    "mean(alpha) S = 9 cells.")


def _incast_case(alpha, degree):
    burst = overflowing_burst(1000, degree)
    params = {**_EXAMPLE, "alpha": alpha, "incast": degree, "burst": burst * 256 * 8}
    return Case("shared-buffer", f"N=32, B=1000 cells, alpha {alpha:g}, {degree}:1 incast: burst absorbed",
                params, "burst_absorbed",
                solved("shared_buffer.incast", 32, 1000, 256, "dt", alpha, degree, figure="burst_whole"),
                slots=30 * (degree * burst + 1), replications=5, tolerance=0.5,
                why="The slotted queue admits a whole slot's N cells only while (N - 1) k < c, c = alpha B / "
                    "(1 + alpha), so it absorbs the integer ceil(c / (N - 1)) - 1 (a cell under the fluid c / "
                    "(N - 1) at most); judged within half a cell of that integer, so an answer off by one fails.")


def _on(workload):
    return lambda p, r: "" if p.get(workload) is not None else f"not --{workload}"


_CHAIN_COMPARES = (
    Compare("loss_probability", "loss_probability", precision=5e-4, precision_share=0.0, applies=_on("load"),
            why="exact chain: a point target, 5e-4 in absolute terms as a loss may be near 0"),
    Compare("mean_queue", "queue_occupancy", precision=0.01, precision_share=0.0, applies=_on("load"),
            why="exact chain: a point target, 0.01 cell"))


def _chain_case(label, params, quantity, figure, **chain):
    return Case("shared-buffer", label, params, quantity,
                solved("shared_buffer_chain.chain", params["ports"], params["buffer"] // 2048, 256,
                       params.get("policy", "dt"), params.get("alpha"), params["load"], figure=figure, **chain),
                slots=200_000, replications=8, precision=5e-4 if figure == "loss_probability" else 0.01,
                precision_share=0.0,
                why="The exact chain of the queue lengths (solvers.shared_buffer_chain), its own admission code; "
                    "a point target within 5e-4 (loss) or 0.01 cell (occupancy).")


_SMALL = {"ports": 4, "cell": 2048, "load": 0.9}
CHAIN_CASES = (
    _chain_case("4 ports, 20 cells, dt alpha 1, uniform 0.9: loss", {**_SMALL, "buffer": 20 * 2048, "alpha": 1.0},
                "loss_probability", "loss_probability"),
    _chain_case("4 ports, 20 cells, dt alpha 1, uniform 0.9: occupancy", {**_SMALL, "buffer": 20 * 2048,
                                                                         "alpha": 1.0},
                "queue_occupancy", "mean_queue"),
    _chain_case("4 ports, 16 cells, cp, uniform 0.9: loss", {**_SMALL, "buffer": 16 * 2048, "policy": "cp"},
                "loss_probability", "loss_probability"),
    _chain_case("4 ports, 12 cells, pushout, hotspot 0.3 at 0.95: loss",
                {**_SMALL, "buffer": 12 * 2048, "policy": "pushout", "load": 0.95, "pattern": "hotspot",
                 "hotspot_fraction": 0.3}, "loss_probability", "loss_probability", pattern="hotspot",
                hotspot_fraction=0.3),
)

def _on_lossless(p, r):
    return "" if p.get("lossless") and p.get("incast") is not None else "not a lossless incast"


def _sustained(p) -> bool:
    """The senders always have a cell: no --burst (the twin's own), or one of the most cells a sender may send."""
    return p.get("burst") is None or -(-p["burst"] // p["cell"]) >= MAX_BUFFER_CELLS


def _nothing_lost(p, r):
    """1 - 1/N rests on a sustained incast and on no cell being lost: every paused group's demand fits its
    headroom and the pool. (It also needs the output never to run dry, which the twin shows rather than this.)"""
    why = _on_lossless(p, r)
    if why:
        return why
    if not _sustained(p):
        return "a finite --burst: the senders run out, so 1 - 1/N (a sustained incast's) does not apply"
    if r["headroom_short_cells"] == 0 or r["groups_in_pool"] >= p["incast"]:
        return ""
    return "the headroom and pool cannot hold every paused group's cells in flight: cells are lost"


def _room_above_demand(p, r):
    """The headroom used can show a demand above D only where the headroom (and pool) hold more than D."""
    why = _on_lossless(p, r)
    if why:
        return why
    sw = switch(p)
    if sw.headroom_cells + sw.headroom_pool_cells > r["headroom_demand_cells"]:
        return ""
    return "the headroom holds no more than the demand, so its use cannot show more"


_PFC_COMPARES = (
    Compare("pause_duty", "pause_duty", tolerance=0.01, applies=_nothing_lost,
            why="1 - 1/N in the long run; a run's window ends mid-cycle, off by at most a cycle's pause over the run"),
    Compare("headroom_demand_cells", "headroom_used", tolerance=0.5, applies=_room_above_demand,
            why="the cells in flight after an XOFF, exactly"))


def _pfc_case(degree, quantity, figure, headroom=None):
    # XOFF at 20 cells: the 32 groups' shared cells (640) stay under the memory's 1000, so only PFC bounds them.
    params = {**_EXAMPLE, "policy": "cs", "lossless": True, "xoff": 20 * 2048, "xon_offset": 5 * 2048,
              "pause_slots": 30, "incast": degree, "burst": MAX_BUFFER_CELLS * 2048}
    if headroom is not None:
        params["headroom"] = headroom * 2048
    short = "" if headroom is None else f", headroom {headroom} cells"
    return Case("shared-buffer", f"lossless {degree}:1 sustained incast, XOFF 20 cells, 30 slots in flight{short}: "
                f"{quantity}", params, quantity,
                solved("shared_buffer.pfc_incast", 32, degree, 20, 30, 30 if headroom is None else headroom,
                       figure=figure), slots=40_000, replications=5, tolerance=0.01 if quantity == "pause_duty" else 0.5,
                why="Derived: backlogged senders share the output equally, so each is paused 1 - 1/N; an XOFF leaves "
                    "the pause's 30 cells in flight, one lost at every pause with a headroom one short.")


PFC_CASES = (_pfc_case(8, "pause_duty", "pause_duty"), _pfc_case(32, "pause_duty", "pause_duty"),
             _pfc_case(8, "headroom_used", "headroom_demand_cells", headroom=60),
             _pfc_case(8, "lost_per_pause", "headroom_short_cells", headroom=29))

CASES = (*CHAIN_CASES, *PFC_CASES, _overload_case(2.0, 4), _overload_case(0.125, 8), _overload_case(8.0, 1),
         _overload_case(1.0, 16, 64), _priority_case(),
         *(_incast_case(alpha, degree) for degree in (8, 32) for alpha in (0.25, 1.0, 4.0)))

# Side by side on the page a cell either way (a comparison's band is centred on its value); the validate rows and
# the report judge the tighter [q - 1, q].
_OVERLOAD_COMPARE = Compare("queue_cells", "queue_occupancy", tolerance=1.0,
                            applies=lambda p, r: "" if p.get("congested") is not None else "an incast, not overload",
                            why="slot-end sampling sits up to a cell under the fluid threshold")
def _lossy_incast_alone(p, r):
    """The twin of an incast answer runs its bursts alone: no background held (G = 0) or offered, no PFC."""
    if p.get("incast") is None or p.get("lossless"):
        return "not a lossy incast"
    if p.get("background_cells") or p.get("background"):
        return "the twin's queues hold no background: the answer at G > 0 has no twin"
    if p.get("burst") is not None and -(-p["burst"] // p["cell"]) <= r["burst_whole"]:
        return "the burst fits the queue: the twin's bursts never drop, so there is no largest burst to find"
    return ""


_INCAST_COMPARE = Compare("burst_whole", "burst_absorbed", tolerance=0.5, applies=_lossy_incast_alone,
                          why="the slotted switch absorbs ceil(c/(N-1)) - 1 cells per sender, under a cell below "
                              "the fluid c/(N-1)")

DECLARATION = Architecture(
    name="shared-buffer", order=95, family="switch", accepts=(Overload, Incast, Traffic),
    workload=(CONGESTED, FEEDERS, INCAST, BURST, PERIOD, BACKGROUND, INCAST_PRIORITY, *TRAFFIC),
    metrics=METRICS, counters=COUNTERS, labels=latency_per("cell"), units=UNITS,
    bounded="a finite shared memory: every queue is bounded by it, and a cell it has no room for is dropped",
    title="Shared-memory switch",
    summary="shared-memory switch with dynamic/static thresholds: overload shares, incast absorption "
            "(Choudhury & Hahne 1998)",
    description="N output queues in one shared memory, admitted by a dynamic threshold (alpha x the free "
                "memory), a static one, complete sharing or partitioning, or pushout; offered an overload "
                "(--congested S), a synchronized N:1 incast (--incast N --burst SIZE) or unicast traffic.",
    config=(SharedBufferSwitch,), architectures=("shared-buffer",),
    params=(PORTS, BUFFER, CELL, POLICY, ALPHA, DYNAMIC_TH, PRIORITIES, PRIORITY_ALPHAS, THRESHOLD, RESERVED,
            SONIC_QUEUES, SONIC_PROFILE, *LOSSLESS_PARAMS),
    build=build,
    kernel="switchq.validate.arch.shared_buffer",
    main="queue_occupancy", table=("queue_occupancy", "free_cells", "burst_absorbed", "loss_probability"),
    sample={"ports": 4, "buffer": "2560B", "congested": 2},
    examples=("switchq simulate shared-buffer --ports 32 --buffer 256000B --alpha 2 --congested 4 --json",
              "switchq simulate shared-buffer --ports 32 --buffer 256000B --incast 8 --burst 40KB --background 0.5"),
    answers=(
        Answer("shared-buffer", "Shared-memory switch",
               "shared-memory switch: overloaded queues' shares (--congested) or the incast burst a queue "
               "absorbs (--incast)",
               params=(PORTS, BUFFER, CELL, POLICY, ALPHA, DYNAMIC_TH, PRIORITIES, PRIORITY_ALPHAS, THRESHOLD,
                       RESERVED, SONIC_QUEUES, SONIC_PROFILE, *LOSSLESS_PARAMS, CONGESTED, INCAST, INCAST_PRIORITY,
                       BACKGROUND_CELLS, LINK_RATE,
                       *CHAIN_TRAFFIC,
                       *sim_only(FEEDERS, BURST, PERIOD, BACKGROUND, *SIM_TRAFFIC)),
               solve=_solve, returns=(_OVERLOAD, _INCAST, _CHAIN, _PFC), twin=_twin,
               table=("queue_cells", "free_cells", "burst_cells", "burst_whole", "fill_slots", "fill_seconds"),
               sim_main="queue_occupancy", sim_table=("queue_occupancy", "free_cells", "burst_absorbed",
                                                      "loss_probability"),
               description="Under overload (--congested S) each queue of the dynamic threshold settles at alpha B "
                           "/ (1 + alpha S) and B / (1 + alpha S) stays free (Choudhury & Hahne, IEEE/ACM ToN "
                           "6(2), 1998); other policies by the same fluid balance. With --incast N, the largest "
                           "burst per sender one empty queue absorbs without a drop: b (N - 1) below the queue's "
                           "cap c, c = alpha (B - G) / (1 + alpha) under dt (derived in "
                           "switchq.solvers.shared_buffer), and the slots to fill it.",
               examples=("switchq solve shared-buffer --ports 32 --buffer 256000B --cell 256B --alpha 2 "
                         "--congested 4 --json",
                         "switchq solve shared-buffer --ports 32 --buffer 256000B --dynamic-th -2 --incast 8"),
               vary_example="alpha=0.0625,0.25,1,4,8 --ports 32 --buffer 256000B --congested 4",
               compares=(_OVERLOAD_COMPARE, _INCAST_COMPARE, *_CHAIN_COMPARES, *_PFC_COMPARES)),
        Answer("size-shared-buffer", "Shared memory for an incast",
               "shared memory an N:1 incast burst needs to land in one queue without a drop",
               params=(PORTS, CELL, replace(POLICY, choices=("dt", "cs", "cp", "pushout")), ALPHA, DYNAMIC_TH,
                       replace(RESERVED, applies=("policy", ("dt", "cs", None))),
                       replace(INCAST, default=REQUIRED), replace(BURST, applies=(), default=REQUIRED),
                       BACKGROUND_CELLS, LOSSLESS, *SIZE_LOSSLESS),
               solve=_size, returns=(_SIZE, _SIZE_LOSSLESS), verb="size",
               description="The least shared memory (whole cells) in which N senders' bursts of b cells each land "
                           "in one empty queue without a drop, the other queues holding --background-cells: the "
                           "least B with b (N - 1) below the queue's cap. With --lossless, the memory in which it "
                           "lands without XOFF: a group holds at most b - floor((b - 1) / N) cells, so the least "
                           "static XOFF is one more, and the queue's b (N - 1) + 1 cells fit (with --xoff-alpha, "
                           "the memory whose free part keeps the group under alpha times it); and the headroom "
                           "pool the N groups need should XOFF fire (switchq.solvers.shared_buffer).",
               examples=("switchq size shared-buffer --ports 32 --alpha 1 --incast 8 --burst 18KB --json",
                         "switchq size shared-buffer --ports 32 --lossless --incast 8 --burst 18KB --pause-slots 30 "
                         "--headroom 0B")),
    ),
    cases=CASES, report=(("shared-buffer", "switchq.validate.reports.shared_buffer"),),
    # The speed: at least 1e7 port-slots/s at 32 ports (measured 2.7e7 uniform at 0.9, 2.7e8 overloaded,
    # 1.2e7 pushout under a hotspot: its longest-queue scan is N per drop).
    bench=(BenchCase("shared buffer 32 ports, dt, uniform load 0.9", {**_EXAMPLE, "load": 0.9}, target=1e7),
           BenchCase("shared buffer 32 ports, dt alpha 2, overload S=4", {**_EXAMPLE, "alpha": 2.0, "congested": 4},
                     target=1e7),
           BenchCase("shared buffer 32:1 incast of 10^6 cells, 64 MiB", {**_EXAMPLE, "buffer": 64 * 2 ** 20 * 8,
                                                                        "incast": 32, "burst": 8_000_000 * 8},
                     target=1e7)),
)
