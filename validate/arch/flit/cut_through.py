"""Paper 000's cut-through switches: multi-flit packets moved flit by flit through a network (§3-§5).

One kernel for every buffer organisation of :mod:`switchq.models.flit` and every topology (it reads the
wiring and routing tables only). The organisations differ in four pieces, chosen by ``org`` (a constant in the
kernel compiled for it, :func:`switchq.validate.arch.flit.spec`): where a flit is stored (one interface,
``fits``/``commit``/``release``, a module an organisation: :mod:`.cut_through_orgs`, :mod:`.org_fifo`,
:mod:`.org_safc`, :mod:`.org_hipiqs`), which packet an idle output may take (step 4's arbitration; DAMQ's read
port :mod:`.org_damq`) and, for the central buffer, the move from the input FIFO into the shared buffer (step 3).

Per cycle, in order, each step a phase over the packed state of :mod:`.cut_through_state` (1:
:func:`.cut_through_inject.inject`, 2: :func:`.cut_through_arrive.arrive`, 3:
:func:`.cut_through_central.admit_central`, 4: :func:`.cut_through_outputs.outputs`). The phases are inlined
and the cycle loop (:func:`cycles`) is compiled with
:class:`~switchq.validate.arch.phase_pipeline.PhasePipeline`, which forwards the phases' array copies: without
it each phase's arrays kept a reference count in the cycle loop and the kernel was 4-20 % slower than the
single function it replaces (measured); with it the loop keeps 3 increment/decrement pairs (that function: 21)
and runs as fast:

1. new messages join their node's injection queue (unbounded in the paper; here ``NIC_PACKETS`` packets,
   beyond which the run is flagged unstable); starts are drawn as gaps (geometric or exponential);
2. flits sent ``link_delay`` cycles ago arrive (a ring per link; with 1-cycle links a body flit is counted in
   its next buffer as it is sent, not readable there before the next cycle); a header becomes eligible to
   leave ``bypass_cycles`` later if nothing waits ahead of it in its queue, at most a packet already streaming
   out (Fig. 5, Pipe 1), ``buffered_cycles`` later if it must be stored behind another packet (Pipe 3,
   usually hidden behind that packet);
3. ``central`` only: each input FIFO's head moves one flit into the shared buffer, in k-flit chunks that never
   mix packets, once the chunks it needs are free (``central_admission``);
4. every output with no packet takes one (arbitration among the inputs holding an eligible header for it,
   round-robin or random) and every output with a packet sends its next flit if it is there and fits.

A link carries one packet from header to tail (no virtual channels). Flow control is flit by flit with the
downstream buffer's state known at once (credits with no return delay; the paper is silent), or with a
credit's return trip of ``credit_delay`` cycles (:mod:`.cut_through_view`, returned at the start of each cycle):
a blocked packet is spread over the buffers behind it (buffered wormhole / cut-through). Routing is one hop ahead: the sender
picks the packet's queue at the next switch when it sends the header, adaptively where the route offers a
choice (going up a BMIN): the candidate queue in that input's buffer holding the fewest flits, or the output
with the fewest flits queued at the switch (``up_select``), read as they are or ``routing_age`` cycles old
(:mod:`.cut_through_view`). FIFO switches route at the head of the queue (any free up port) or on arrival
(``fifo_routing``).

Storage per organisation (``held`` counts flits actually stored, independently, for the tests):

- ``fifo``, ``damq``: ``buffer_flits`` per input, any queue; FIFO reads only its head packet, DAMQ one packet
  per input at a time; one read port, so an input read this cycle starts no packet. SAFC and HIPIQS inputs
  have neither limit: "even if all output ports should happen to decide on the same input buffer,
  transmission can proceed without loss of bandwidth" (§3).
- ``safc``: ``buffer_flits / k`` per (input, output) partition.
- ``hipiqs``: per (input, output) pair a FIFO unit of ``crosspoint_flits`` filled first while the pair's queue
  in the shared buffer is empty; beyond it the queue takes k-flit chunks from the input's ``buffer_flits / k``,
  a queue's last chunk refilled by its next packet (the partially-filled-chunk rule), a chunk freed when its
  last flit is read or its queue empties.
- ``central``: input FIFOs of ``central_input_flits``, then ``central_flits`` in k-flit chunks (one packet a
  chunk, reserved at admission), queues for up ports holding at most ``up_share`` of them (deadlock
  avoidance, see :class:`~switchq.models.flit.FlitSwitch`).

For speed (each flit-hop is one arrival and one send), steps 2 and 4 walk only the links of a bitmask, an
output keeps a record of what it sends (``lk``), 1-cycle links count a body flit in as it is sent (``E_LT``),
an idle output of a pair-queue switch skips its arbitration until a header can be ready (``wake``; DAMQ: or
the input read port its ready headers wait for is free, ``rd_wait``), arbitration draws random numbers only
for eligible headers, and a cycle is entered in step 1 and in the window's bookkeeping only when a message
starts or a batch begins: none of this changes a result (the arbitrations skipped would find nothing and draw
nothing).

The entry, packet and message pools start small and grow with what the load puts in flight
(:mod:`.cut_through_pools`): at a cycle's start, and in step 1 before a message it has no rows for, the kernel
replaces them by larger copies. Reassigning them in the loop costs reference counts (42 increments in the
kernel against 17: :class:`PhasePipeline` forwards only arrays assigned once) but no time we could measure
(64 nodes, DAMQ, load 0.5), where handing the arrays to a cycle function entered again after each growth cost
12 %: arrays that are arguments may alias, so LLVM reloads them after every store; made here, they cannot.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ... import kernel as K
from ..phase_pipeline import PhasePipeline
from .cut_through_arrive import arrive
from .cut_through_central import admit_central
from .cut_through_inject import first_start, inject
from .cut_through_outputs import outputs
from .cut_through_pools import grown, rows_after
from .cut_through_state import ACTIVE, PART_GROW, PART_OFF, dims, new_state, stacks, tables
from .cut_through_view import remember_loads, return_credits
from .records import CENTRAL, FLITS_RECEIVED, M_FLITS_RECEIVED, STALL_CYCLES
from .state import close_run, deadlock, entries, packets, window


@njit(cache=True, pipeline_class=PhasePipeline)
def simulate(tab, sw, tr, run, stats, trace, spec):
    """One replication of a paper-000 network (steps 1-4 of the module docstring). Returns the rows of
    ``trace`` written (a row per flit reaching a node while it has room; a 1-row ``trace`` logs nothing), or -1
    if the pools would outgrow ``sw.mem_rows`` (the run stops there); the pools' rows at the end (or those
    wanted); and the growths made in step 1 (the tests' check that that path is taken). ``stats`` (``LAYOUT``)
    and ``trace`` are modified in place; ``spec`` (:func:`.spec`) makes the organisation and whether the view
    of the next switch is delayed constants of the compiled kernel."""
    org = len(spec[0]) - 1
    view = len(spec[1]) > 0        # the per-cycle phases of a delayed view (cut_through_view) compiled in
    K.seed_rng(run.seed)
    dm = dims(tab, sw)
    S = new_state(dm, sw)
    T = tables(tab, tr, dm)
    stk = stacks(dm.pool)
    ent, _ = entries(dm.pool)
    pk, _ = packets(dm.pool)
    e_top = p_top = m_top = dm.pool        # the free stacks' tops
    short = dm.pool < dm.pool_max          # the pools may still grow (cut_through_pools)
    wanted = 0                             # rows the memory could not hold: the run stops
    step1_growths = 0
    ppm = (tr.msg_flits + tr.pkt_flits - 1) // tr.pkt_flits
    end_measure = run.warmup + run.slots
    offered = 0
    received = 0                   # flits_received, kept here and written to stats where they are read
    m_received = 0                 # ... and m_flits_received
    stalled = 0
    n_trace = 0
    max_held = 0
    next_at = np.full(dm.nodes, np.inf)
    for v in range(dm.nodes):
        if T[ACTIVE, v] and tr.p_msg > 0.0:
            next_at[v] = K.start_gap(tr.p_msg, tr.poisson) - (0.0 if tr.poisson else 1.0)
    next_first = first_start(next_at)
    lazy_next = 0                  # body flits counted in at send: they move (arrive) next cycle
    # The cycles that start a batch: only they, the warm-up's end and the window's, change a counter in
    # window(); calling it every cycle with batch means (the harness's segments) cost a division a cycle.
    mark_len = run.slots // run.batches if run.batches > 1 else 0
    mark_next = run.warmup if mark_len > 0 else -1
    mark_end = run.warmup + run.batches * mark_len
    rot = 0                        # the output step 4 starts from: t % n_links
    for t in range(end_measure + run.drain):
        if t == run.warmup or t == end_measure or t == mark_next or (run.batches > 1 and mark_len == 0):
            stats[FLITS_RECEIVED] = received
            stats[M_FLITS_RECEIVED] = m_received
            window(stats, run, t, offered - received)
            if t == mark_next:
                mark_next += mark_len
                if mark_next >= mark_end:
                    mark_next = -1
        measuring = t >= run.warmup and t < end_measure
        moved = lazy_next
        if view:
            if sw.credit_delay:
                return_credits(t, org, sw, dm, S)
            if sw.routing_age:
                remember_loads(t, org, sw, dm, S)
        if short and e_top < dm.reserve:
            # steps 2-4 may take dm.reserve entries (one per output and central input)
            rows = rows_after(stk.shape[1], dm.reserve - e_top, dm.pool_max)
            if rows > sw.mem_rows:
                wanted = rows
                break
            stk, ent, pk, e_top, p_top, m_top = grown(stk, ent, pk, e_top, p_top, m_top, rows)
            short = rows < dm.pool_max
        if next_first < t + 1 and t < end_measure:
            v = 0
            while True:
                m_top, p_top, e_top, offered, next_first, v = inject(
                    t, tr, run, dm, stats, measuring, next_at, S, T, stk, ent, pk, m_top, p_top, e_top, offered,
                    v, short)
                if v == dm.nodes:
                    break
                # stopped at node v before a message the pools have no rows for: grown, then on from v
                rows = rows_after(stk.shape[1], max(1 - m_top, ppm - p_top, ppm + dm.reserve - e_top), dm.pool_max)
                if rows > sw.mem_rows:
                    wanted = rows
                    break
                stk, ent, pk, e_top, p_top, m_top = grown(stk, ent, pk, e_top, p_top, m_top, rows)
                short = rows < dm.pool_max
                step1_growths += 1
            if wanted:
                break
        p_top, m_top, moved, received, m_received, n_trace = arrive(
            t, org, run, sw, dm, S, T, stk, ent, pk, stats, trace, measuring, p_top, m_top, moved, received,
            m_received, n_trace)
        if org == CENTRAL:
            e_top, moved = admit_central(t, sw, dm, S, T, stk, ent, pk, e_top, moved)
        e_top, moved, max_held, lazy_next = outputs(t, org, sw, dm, S, T, stk, ent, rot, e_top, moved,
                                                    max_held)
        rot += 1
        if rot == dm.n_links:
            rot = 0
        if moved == 0 and offered > received:
            stalled += 1
            if stalled >= STALL_CYCLES:
                stats[FLITS_RECEIVED] = received
                stats[M_FLITS_RECEIVED] = m_received
                deadlock(stats, offered - received)
                break
        else:
            stalled = 0
    if wanted:
        return -1, wanted, step1_growths
    stats[FLITS_RECEIVED] = received
    stats[M_FLITS_RECEIVED] = m_received
    # Stability by part: flits to each destination node (as many parts as the VC kernel's; the rest stay empty)
    parts = K.parts(2 * dm.nodes)
    for j in range(2 * dm.nodes):
        parts[0, j] = S[PART_OFF, j]
        parts[1, j] = S[PART_GROW, j]
    close_run(stats, run, parts, offered - received, max_held, tr.msg_flits)
    return n_trace, stk.shape[1], step1_growths
