"""Paper 004's virtual-channel routers (MediaWorm): video and best effort through pipelined wormhole routers (§III).

The routers of :class:`~switchq.models.wormhole.WormholeNetwork` on the tables of :mod:`switchq.models.topology`
(one router, or the 2x2 fat mesh with parallel links). Per cycle:

V1. messages: each stream's regulator (message k of a frame at ``start + floor(k x spacing)``) and Poisson
    best effort per node join the NIC queue of their input VC;
V2. each router's crossbar. A header that has passed stages 1-3 takes its output VC (the message's
    destination VC on the route's output, the least loaded of the parallel links whose VC is free: the fat
    mesh) if no message holds it; a granted message's next flit may cross (the output VC buffer holds one
    message and is at least a message deep, so it always has room: see :func:`.arguments.vc_arguments`).
    ``multiplexed``: a matching, each free input offering its smallest-stamp flit for a free output (the
    rate scheduler at the input multiplexer A), each output taking the offer with the smallest stamp (B, §III-D;
    ``crossbar_output="fifo"``: the oldest offer), repeated while that adds a pair
    (``crossbar_iterations``); ``full``: every input VC at once. A flit crossing at t reaches the VC
    multiplexer at t + 2 (stages 4, 5);
V3. every link sends one flit: an output's VC multiplexer (C) or a node's NIC takes the VC with the smallest
    stamp whose next flit is ready and has a credit for its downstream VC buffer (a header also needs that VC
    free: a VC holds one message from header to tail). The flit enters the next buffer at once, ready
    ``link_cycles + body_stages - 2`` cycles later (a header ``header_stages - body_stages`` more), so a lone
    message takes ``hops x header_stages + (hops + 1) x link_cycles + M - 1`` cycles. An output to a node
    behind a multiplexed crossbar never queues (one flit a cycle crosses to it, one leaves, a node returns no
    credits): each flit leaves the cycle it reaches the multiplexer, so it goes through a delay line.

Best effort's VCs (``best_effort_vcs``): ``drawn``, a message's input and output VC are drawn when it is made
and it waits for them; ``free``, a node's NIC keeps one best-effort queue whose head takes a uniformly drawn
free best-effort VC (with its credit back) as its header leaves, and a header at a router output takes a
uniformly drawn free best-effort VC there.

Stamps (:mod:`.rules`) feeding A are the scheduler's, those feeding C the scheduler's with a full crossbar
and arrival order with a multiplexed one (§III-D). Where the paper is silent: credits return
``link_cycles`` after the flit leaves a buffer, the output VC buffers are read without a credit delay, a
message keeps its destination VC on every router output, and a node's NIC holds ``NIC_MESSAGES`` messages
(more flags the run unstable).

For speed, the crossbar and the links scan only the VC buffers whose next flit is ready, the crossbar keeps
its candidates as they change, and a header with no free output VC waits out of the scan until an output of
its route frees one (:mod:`.vc_state` says what each row holds); a NIC queue is linked through its packets'
rows, and the smallest-stamp choices are selects, not branches. None of this changes a result.

A cycle runs these named phases over the packed state of :mod:`.vc_state` (``S``, ``F``, ``T``, the flit
rings and message rows): ``inject_messages`` (V1, :mod:`.vc_inject`); ``turn_wheel``, then per router
``allocate_vcs``, ``allocate_switch`` and ``traverse_crossbar`` (V2, :mod:`.vc_crossbar`); per link
``multiplex``, then ``deliver_flit`` or ``enter_router``, and ``release_vc`` after a tail (V3, :mod:`.vc_links`).
The phases are inlined and :class:`~switchq.validate.arch.phase_pipeline.PhasePipeline` compiles the kernel,
so the arrays they are given are the kernel's own: no reference is counted in the cycle loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ... import kernel as K
from .records import H_LEN, STALL_CYCLES, TO_NODE
from .state import close_run, deadlock, packets, window
from ..phase_pipeline import PhasePipeline
from .vc_crossbar import allocate_switch, allocate_vcs, traverse_crossbar, turn_wheel
from .vc_inject import inject_messages
from .vc_links import deliver_flit, enter_router, multiplex, release_vc
from .vc_state import (C_MAX_HELD, C_OFFERED, C_RECEIVED, C_TRACE, COUNT, OUT_SWITCH, dims, hand_over, new_sources,
                       new_state)

__all__ = ["hand_over", "simulate"]


@njit(cache=True, pipeline_class=PhasePipeline)
def simulate(tab, vc, va, run, stats, trace):
    """One replication of a network of virtual-channel routers (steps V1-V3 of the module docstring); returns
    the rows of ``trace`` written (a row per flit reaching a node while it has room). ``stats`` (``LAYOUT``),
    ``trace`` and ``va.frame_done`` are modified in place."""
    route = tab.route
    groups = tab.groups
    K.seed_rng(run.seed)
    d = dims(vc, route.shape[0], route.shape[1])
    S, F, T, fr_t, fr_s, hd = new_state(d, vc, tab.out_switch, tab.out_input)
    pk, p_free = packets(d.pool)
    pkf = pk.view(np.float64)
    streams, frames, heap_t, heap_c, heap_size, be_first = new_sources(va, vc, d, F)
    spacing = va.f_spacing
    frame_done = va.frame_done
    end_measure = run.warmup + run.slots
    total = end_measure + run.drain
    stalled = 0
    # Stability by part: real time by destination, and best effort apart (it can starve behind video)
    parts = K.parts(2 * d.nodes)
    for t in range(total):
        if t == run.warmup or t == end_measure or run.batches > 1:
            window(stats, run, t, S[COUNT, C_OFFERED] - S[COUNT, C_RECEIVED])
        measuring = t >= run.warmup and t < end_measure
        if t < end_measure:         # V1
            be_first = inject_messages(t, measuring, run.warmup, d, vc, S, F, hd, pk, pkf, p_free, stats, parts,
                                       streams, frames, spacing, heap_t, heap_c, heap_size, be_first)
        turn_wheel(t, d, S)
        moved = 0
        for s in range(d.n_sw):         # V2, one router at a time
            nx, live = allocate_vcs(s, d, vc, S, F, hd, pk, route, groups)
            if not vc.full and live:
                nx = allocate_switch(s, live, d, vc, S, F)
            moved += traverse_crossbar(t, s, nx, d, vc, S, F, T, fr_t, fr_s, hd)
        for g in range(d.n_links):      # V3, every link
            q, c, sent, gi2, shared, shared_ok = multiplex(t, g, d, vc, S, F, T, fr_t, fr_s, hd)
            if q >= 0:
                moved += 1
                if T[OUT_SWITCH, g] == TO_NODE:
                    deliver_flit(t, t + vc.link, g, q, c, sent, measuring, run.warmup, d, S, T, hd, pk, p_free, stats,
                                 parts, trace, frames, frame_done)
                else:
                    enter_router(t + vc.link, g, q, c, sent, gi2, shared, shared_ok, d, vc, S, F, fr_t, fr_s, hd)
                if sent == hd[q, H_LEN]:
                    release_vc(g, q, c, d, vc, S, F, T, hd, pk, pkf)
        backlog = S[COUNT, C_OFFERED] - S[COUNT, C_RECEIVED]
        if moved == 0 and backlog > 0:
            stalled += 1
            if stalled >= STALL_CYCLES:
                deadlock(stats, backlog)
                break
        else:
            stalled = 0
    close_run(stats, run, parts, S[COUNT, C_OFFERED] - S[COUNT, C_RECEIVED], S[COUNT, C_MAX_HELD], vc.msg_flits)
    return S[COUNT, C_TRACE]
