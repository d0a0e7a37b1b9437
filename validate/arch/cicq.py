"""Buffered crossbar (CICQ) with credit or speculative flow control (SFC).

Paper 002 (Minkenberg & Gusat) §2-§5. Each input's line card keeps one VOQ
per (output, priority) flow; an N x N crossbar holds a buffer of Q_R cells at
every crosspoint, shared by the priorities. A link carries one cell per slot
from line card i to crossbar row i, arriving ``data_delay_slots`` later; the
row returns flow-control messages ``credit_delay_slots`` later, at most one
NAK (or credit of a silently dropped duplicate) and one ACK per row per slot
(§6.1), ACKs queueing in the row.

Credit FC: a cell leaves its VOQ only with a credit for its crosspoint (one
per cell, returned by the ACK when the cell leaves the crosspoint).

SFC, rules R1-R7 (§3.1):

- R1 a cell goes credited when its crosspoint has a credit; a speculative
  transmission happens only in a slot where no cell of the input is eligible
  for credited transmission;
- R2 the crosspoint drops a cell that finds it full or arrives out of order
  (NAK), or is a duplicate (silently, returning its credit); every cell
  carries a per-flow sequence number;
- R3 the ACK leaves when the cell leaves the crosspoint;
- R4 the line card keeps every sent cell in its retransmission buffer of
  Q_RTX cells (all flows of the input together) until ACKed;
- R5 a cell is sent speculatively at most once (only unsent cells are
  speculated); every retransmission is credited;
- R6 conservative credits: every transmission takes a credit, so counts may
  go negative; every cell arriving at the crossbar returns one (ACK, NAK or
  duplicate credit);
- R7 with credits, cells due for a resend go before unsent cells (lowest
  sequence number first). Due: NAKed cells, and with ``resend="eager"`` (R7
  as written) also speculative cells not yet acknowledged either way; with
  ``resend="nak"`` (§6.2, "upon NAK") only NAKed ones
  (:mod:`switchq.models.flow_control`). Credited unacknowledged cells are
  never resent (no transmission errors are modelled, so they never expire);
- §6.2 after a NAK no cell of that flow is speculated until the NAKed cell
  has been resent credited (with one priority a flow is a crosspoint, the
  paper's "downstream buffer"; with several, the flows sharing a crosspoint
  keep separate sequence numbers, so a NAK says nothing about the others);
- §3.2 replacement: a cell arriving at a full crosspoint replaces the newest
  cell of the lowest priority present below its own, which is NAKed.

Arbitration: strict priority first; then longest queue first (``lqf``, ties
round robin) or round robin (``rr``), at the VOQs (queue = unsent cells of a
flow) and at the outputs (queue = cells of that priority at a crosspoint).
The arbiters visit only the VOQs and crosspoints that may hold a cell (bitmasks
kept as cells come and go), in the same round-robin order, so ties and results
are those of a scan over every port.

Latency is per burst, from the first cell's arrival at the line card to the
end of the slot in which the last cell leaves the crossbar (§5); a
Bernoulli cell is a burst of one. It is measured on the bursts that end in
the measured window, wherever they began (:func:`kernel.count_departure`).

Order of events in slot t: flow-control messages reach the line cards;
cells arrive; each line card sends at most one cell; cells reach the
crosspoints; each output takes at most one cell; each row emits its
messages. A cell can leave its crosspoint in the slot it arrives, and a
credit emitted in slot s is usable in slot s + delta_c, so one credit turns
around in exactly tau = delta_d + delta_c slots.

The slot is run as these named phases (:mod:`switchq.validate.arch.cicq_phases`) over the packed state
of :mod:`switchq.validate.arch.cicq_state`: ``receive_flow_control``, ``enqueue_arrivals``,
``serve_inputs``, ``accept_at_crosspoints``, ``serve_outputs``, ``emit_acks``.

Memory (issue 38): the state grows with the switch as N^2 P flow records and crosspoint rings and N ACK queues
(:func:`cicq_state.start_bytes`, checked against the memory available before it is allocated), and with the
cells the line cards hold (:mod:`switchq.validate.arch.cicq_cells`); 1024 ports at Q_R = 2 start at 0.21 GB.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import kernel as K
from . import memory
from .cicq_cells import grow_pool, short_of_reserve
from .cicq_phases import (accept_at_crosspoints, emit_acks, enqueue_arrivals, receive_flow_control, serve_inputs,
                          serve_outputs)
from .cicq_state import (CELL_FIELDS, CREDIT_MAX, CREDIT_MIN, CREDITS, CREDITS_OUT, DELIV_NEXT, EXT_CREDIT_MAX,
                         EXT_CREDIT_MIN, EXT_RTX_MAX, EXTREMES, H_NEED, H_TOP, LAYOUT, RTX_MAX, TAIL, CicqArgs,
                         CicqState, new_state, start_bytes)

__all__ = ["LAYOUT", "CicqArgs", "replicate", "replicate_measured"]


@njit(cache=True)
def _run_cicq(sw, run, tr, prio_cdf, stats, parts):
    """Run the slots of one replication of the crossbar ``sw`` (CicqArgs) into ``stats`` and ``parts``
    (modified in place), growing the line cards' pool between slots when its reserve runs short.

    Returns ``(rows used, rows needed, slot)``: the rows of the line cards' pool ever used, and 0 and the slots
    run, or the rows it would have needed beyond ``sw.pool_limit`` and the slot where the run stopped for want
    of them."""
    K.seed_rng(run.seed)
    st = new_state(sw)
    total = run.warmup + run.slots + run.drain
    t = _run_slots(sw, st, run, tr, prio_cdf, stats, parts, 0)
    while t < total:
        cells = grow_pool(sw, st.cells, st.heap)
        if st.heap[H_NEED] > 0:
            return st.heap[H_TOP], st.heap[H_NEED], t
        st = CicqState(cells=cells, flows=st.flows, ports=st.ports, masks=st.masks, xp=st.xp, links=st.links,
                       ackq=st.ackq, heap=st.heap, burst=st.burst, arrivals=st.arrivals)
        t = _run_slots(sw, st, run, tr, prio_cdf, stats, parts, t)
    _close(sw, st, stats, parts, tr)
    return st.heap[H_TOP], 0, t


@njit(cache=True)
def _run_slots(sw, st, run, tr, prio_cdf, stats, parts, start):
    """Run slots from ``start`` on: the phases of :mod:`switchq.validate.arch.cicq_phases`, in the slot's order.
    Returns the slot where it stopped: the end, or a slot whose arrivals the pool's reserve could not hold
    (:func:`cicq_cells.short_of_reserve`). The state is one record for the whole loop: rebuilt inside it as the
    pool grew, the kernel compiled to half as much code again, with twice the reference counting, and ran 2-3 %
    slower (measured)."""
    warmup = run.warmup
    end = warmup + run.slots
    for t in range(start, end + run.drain):
        if t < end and short_of_reserve(sw, st.cells, st.heap):
            return t
        K.mark_batch(stats, t, run)
        measured_from = warmup if t < end else K.NEVER
        lane = t % sw.credit_delay
        receive_flow_control(sw, st, lane)
        if t < end:
            enqueue_arrivals(sw, st, tr, prio_cdf, stats, parts, t, warmup)
        serve_inputs(sw, st, stats, t)
        accept_at_crosspoints(sw, st, stats, t, lane)
        serve_outputs(sw, st, stats, parts, t, measured_from)
        emit_acks(sw, st, lane)
    return end + run.drain


@njit(cache=True)
def _close(sw, st, stats, parts, tr):
    """After the last slot: the cells still in the switch, the credits not home, the extremes seen."""
    flows = st.flows
    X = sw.n_ports * sw.n_ports
    queued = 0
    for f in range(flows.shape[1]):
        queued += flows[TAIL, f] - flows[DELIV_NEXT, f]
    stats[CREDITS_OUT] = X * sw.q_r - flows[CREDITS, :X].sum()
    stats[CREDIT_MIN] = st.ports[EXTREMES, EXT_CREDIT_MIN]
    stats[CREDIT_MAX] = st.ports[EXTREMES, EXT_CREDIT_MAX]
    stats[RTX_MAX] = st.ports[EXTREMES, EXT_RTX_MAX]
    K.finish(stats, parts, queued, tr)


def replicate(switch, traffic, run, speculate=None):
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`); return its counters (``LAYOUT``).

    ``run.drain`` keeps running without arrivals after the measured slots
    (for conservation checks); ``speculate=False`` runs the SFC machinery with
    speculation switched off (for the credit-equivalence check).
    """
    return replicate_measured(switch, traffic, run, speculate)[0]


def replicate_measured(switch, traffic, run, speculate=None):
    """:func:`replicate`'s counters and the memory it used: ``(counters, {"start": bytes of the state at the
    start, "pool_rows": rows of the line cards' pool ever used, "bytes": the rest of the state and those rows})``.

    Memory: the state at the start (:func:`cicq_state.start_bytes`: N^2 P flows, the crosspoints' N^2 P rings of
    Q_R cells, N ACK queues of N Q_R) must fit in what the machine has free (:mod:`switchq.validate.arch.memory`),
    else InputError on ``n_ports`` names both figures before anything is allocated. The line cards' cells then
    take a pool that grows with the cells held (:mod:`switchq.validate.arch.cicq_cells`) into what is left; a run
    whose cells would not fit stops with the same error, naming the slot.
    """
    fc = switch.flow_control
    n = switch.n_ports
    sfc = fc.protocol == "sfc"
    if speculate is None:
        speculate = sfc
    q_rtx = fc.retransmission_cells if sfc else 1 << 62
    # Per-flow line-card storage: at least the retransmission window, and room for backlog.
    storage = K.ring_storage(max(1024, 2 * q_rtx if sfc else 0))
    prio_cdf = np.cumsum(np.asarray(traffic.priority_shares, dtype=np.float64))
    stats = LAYOUT.zeros(run)
    args = CicqArgs(n_ports=n, priorities=switch.priorities, q_r=fc.crosspoint_cells, data_delay=fc.data_delay_slots,
                    credit_delay=fc.credit_delay_slots, sfc=sfc, speculate=bool(speculate), eager=fc.resend == "eager",
                    rtx_limit=q_rtx, replacement=fc.replacement, lqf=switch.arbitration == "lqf", storage=storage,
                    pool_limit=0)
    start = start_bytes(args)
    available = memory.available_bytes()
    memory.check_fits("n_ports", n, start, "the crossbar's state at the start", available)
    # The pool may take all the memory the rest of the state leaves (its first rows are in ``start``).
    fixed = sum(start.values()) - start["line_card_pool"]
    row = 8 * CELL_FIELDS
    args = args._replace(pool_limit=int(min((available - fixed) // row, 1 << 60)))
    used, need, slot = _run_cicq(args, run, K.traffic_arrays(traffic, n), prio_cdf, stats, K.parts(n))
    if need:
        parts = {**start, "line_card_pool": need * row}
        what = f"the crossbar's state with the cells its line cards held at slot {slot}"
        memory.check_fits("n_ports", n, parts, what, available)
        raise RuntimeError("the line cards' pool stopped within its limit")   # unreachable: need passed it
    return stats, {"start": sum(start.values()), "pool_rows": int(used),
                   "bytes": fixed + int(used) * row}
