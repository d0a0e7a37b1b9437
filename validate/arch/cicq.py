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
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .. import kernel as K

# Per-priority latencies (priority 0 first), then the flow-control counters, after the core ones.
LAYOUT = K.Layout((*(f"m_latency_sum_p{p}" for p in range(4)), *(f"m_latency_count_p{p}" for p in range(4)),
                   "transmissions",               # cells put on the links (all slots, as those below)
                   "speculative_transmissions",
                   "retransmissions",             # credited resends (after a NAK, or of a speculative cell)
                   "naks",                        # cells dropped at a crosspoint (full, out of order, replaced)
                   "duplicates",                  # duplicate copies dropped silently
                   "replacements",                # cells replaced by higher-priority arrivals
                   "order_errors",                # cells delivered out of order or twice (must stay 0)
                   "credit_min", "credit_max",    # smallest and largest credit count seen
                   "retransmission_max",          # largest retransmission-buffer occupancy seen
                   "credited_drops",              # credited cells dropped for lack of room (must stay 0)
                   "out_of_order_drops",          # cells dropped (NAKed) for arriving out of order
                   "credits_out"))                # credits not back at the end (0 once a run has drained)
(LAT_SUM_P, LAT_COUNT_P, TRANSMISSIONS, SPECULATIVE, RETRANSMISSIONS, NAKS, DUPLICATES, REPLACEMENTS, ORDER_ERRORS, CREDIT_MIN,
 CREDIT_MAX, RTX_MAX, CREDITED_DROPS, OUT_OF_ORDER, CREDITS_OUT) = (LAYOUT.index(name) for name in (
    "m_latency_sum_p0", "m_latency_count_p0", "transmissions", "speculative_transmissions", "retransmissions", "naks", "duplicates",
    "replacements", "order_errors", "credit_min", "credit_max", "retransmission_max", "credited_drops",
    "out_of_order_drops", "credits_out"))

# Cell states at the line card.
UNSENT = 0
SPEC = 1     # sent speculatively once, unacknowledged, no credited copy since
CRED = 2     # a credited copy is outstanding
NAKED = 3    # negatively acknowledged, waiting for a credited retransmission

# Message kinds on the NAK lane.
NO_MSG = 0
NAK = 1          # the cell was dropped on arrival (full or out of order)
DUP_CREDIT = 2   # a duplicate was dropped silently; only its credit comes back
REPLACED = 3     # the cell, once accepted, was replaced by a higher-priority one

# The crossbar as the kernel sees it.
CicqArgs = namedtuple("CicqArgs", "n_ports priorities q_r data_delay credit_delay sfc speculate eager rtx_limit "
                                  "replacement lqf storage")


@njit(cache=True)
def _run_cicq(sw, run, tr, prio_cdf, stats, parts):
    K.seed_rng(run.seed)
    n, P, q_r, dd, dc, sfc, speculate, eager, rtx_limit, replacement, lqf, storage = sw
    warmup = run.warmup
    X = n * n
    F = X * P
    mask = storage - 1
    # Line card: one ring per flow, indexed by sequence number.
    c_arr = np.zeros((F, storage), dtype=np.int64)
    c_first = np.zeros((F, storage), dtype=np.int64)
    c_last = np.zeros((F, storage), dtype=np.int8)
    c_state = np.zeros((F, storage), dtype=np.int8)
    c_copy = np.zeros((F, storage), dtype=np.int32)
    tail = np.zeros(F, dtype=np.int64)       # next sequence number to assign
    acked = np.zeros(F, dtype=np.int64)      # every seq below is acknowledged
    sent_hw = np.zeros(F, dtype=np.int64)    # every seq below has been sent at least once
    retx_ptr = np.zeros(F, dtype=np.int64)   # no seq below can need a credited resend
    rtx_count = np.zeros(n, dtype=np.int64)
    rr_in = np.zeros(n, dtype=np.int64)
    # Crossbar: credits per crosspoint, §6.2 speculation blocks per flow (-1: none), per-priority rings.
    credits = np.full(X, q_r, dtype=np.int64)
    block_seq = np.full(F, -1, dtype=np.int64)
    qc = K.pow2_at_least(q_r)
    xp_seq = np.zeros((F, qc), dtype=np.int64)
    xp_copy = np.zeros((F, qc), dtype=np.int32)
    xp_head = np.zeros(F, dtype=np.int64)
    xp_len = np.zeros(F, dtype=np.int64)
    xp_total = np.zeros(X, dtype=np.int64)
    expected = np.zeros(F, dtype=np.int64)   # next in-order seq the crosspoint accepts
    deliv_next = np.zeros(F, dtype=np.int64)  # next seq the output must see (order check)
    rr_out = np.zeros(n, dtype=np.int64)
    # Bitmasks, 64 ports a word, so the arbiters visit only what may have a cell: per input the outputs whose
    # flows (any priority) may have a cell unsent or due for a resend (a superset: a bit is set whenever that
    # becomes true and cleared when a scan finds it false), per output the inputs whose crosspoint holds a cell.
    nw = (n + 63) >> 6
    vm = np.zeros((n, nw), dtype=np.int64)
    cm = np.zeros((n, nw), dtype=np.int64)
    # Links: data delay line (one cell per slot) and per-row message lanes.
    L = dd + 1
    dl_flow = np.full((n, L), -1, dtype=np.int64)
    dl_seq = np.zeros((n, L), dtype=np.int64)
    dl_copy = np.zeros((n, L), dtype=np.int32)
    dl_cred = np.zeros((n, L), dtype=np.int8)
    ack_flow = np.full((n, dc), -1, dtype=np.int64)
    ack_seq = np.zeros((n, dc), dtype=np.int64)
    nak_kind = np.zeros((n, dc), dtype=np.int8)
    nak_flow = np.zeros((n, dc), dtype=np.int64)
    nak_seq = np.zeros((n, dc), dtype=np.int64)
    nak_copy = np.zeros((n, dc), dtype=np.int32)
    aq = K.pow2_at_least(n * q_r + 2)
    ackq_flow = np.zeros((n, aq), dtype=np.int64)
    ackq_seq = np.zeros((n, aq), dtype=np.int64)
    ackq_head = np.zeros(n, dtype=np.int64)
    ackq_len = np.zeros(n, dtype=np.int64)
    # Sources.
    burst, arrivals = K.sources(n)
    prev_burst = np.full(n, -1, dtype=np.int64)
    burst_first = np.zeros(n, dtype=np.int64)
    burst_prio = np.zeros(n, dtype=np.int64)
    credit_min = q_r
    credit_max = q_r
    rtx_max = 0
    end = warmup + run.slots
    for t in range(end + run.drain):
        K.mark_batch(stats, t, run)
        measured_from = warmup if t < end else K.NEVER
        lane = t % dc
        # 1. Flow-control messages emitted delta_c slots ago reach the line cards.
        for i in range(n):
            f = ack_flow[i, lane]
            if f >= 0:
                ack_flow[i, lane] = -1
                credits[f // P] += 1
                credit_max = max(credit_max, credits[f // P])
                acked[f] = ack_seq[i, lane] + 1
                if retx_ptr[f] < acked[f]:
                    retx_ptr[f] = acked[f]
                if sfc:
                    rtx_count[i] -= 1
            k = nak_kind[i, lane]
            if k != NO_MSG:
                nak_kind[i, lane] = NO_MSG
                f = nak_flow[i, lane]
                x = f // P
                credits[x] += 1
                credit_max = max(credit_max, credits[x])
                s = nak_seq[i, lane]
                # A NAK about an older copy is stale: a later copy is on its way, or one was
                # accepted (a later copy can only be dropped as a duplicate of an accepted one).
                # A replacement is never stale: the crosspoint no longer holds the cell at all.
                stale = k == NAK and nak_copy[i, lane] != c_copy[f, s & mask]
                if k != DUP_CREDIT and s >= acked[f] and not stale:
                    c_state[f, s & mask] = NAKED
                    if s < retx_ptr[f]:
                        retx_ptr[f] = s
                        j = x % n
                        vm[x // n, j >> 6] |= 1 << (j & 63)
                    block_seq[f] = s
        # 2. Cells arrive at the line cards.
        if t < end:
            prev_burst[:] = burst
            K.draw_arrivals(arrivals, burst, tr, n)
            for i in range(n):
                d = arrivals[i]
                if d < 0:
                    continue
                if prev_burst[i] < 0:  # a new burst starts with this cell
                    burst_first[i] = t
                    burst_prio[i] = K.draw_index(prio_cdf, P - 1) if P > 1 else 0
                f = (i * n + d) * P + burst_prio[i]
                admitted = K.admit(stats, t, warmup, tail[f] - acked[f] < storage, True)
                K.part_offered(parts, d, t, warmup, admitted)
                if admitted:
                    s = tail[f] & mask
                    c_arr[f, s] = t
                    c_first[f, s] = burst_first[i]
                    c_last[f, s] = 1 if burst[i] < 0 else 0
                    c_state[f, s] = UNSENT
                    c_copy[f, s] = 0
                    tail[f] += 1
                    vm[i, d >> 6] |= 1 << (d & 63)
        # 3. Each line card sends at most one cell: credited if it can (R1), else speculative.
        send_idx = t % L
        for i in range(n):
            best = -1
            best_key = 0
            for step in range(nw + 1):
                # the outputs from rr_in up, then those below it (the round-robin order of ties)
                w, bits = K.rotated_members(step, rr_in[i], vm, i)
                while bits:
                    j, bits = K.pop_member(w, bits)
                    x = i * n + j
                    if credits[x] < 1:
                        continue
                    active = False
                    for p in range(P):
                        f = x * P + p
                        if tail[f] == retx_ptr[f]:
                            continue  # nothing unsent and nothing to resend
                        active = True
                        # R7: a cell due for a resend (lowest seq) before an unsent one. Due: NAKed, or
                        # (eager) speculative and not yet acknowledged either way.
                        while retx_ptr[f] < sent_hw[f]:
                            state = c_state[f, retx_ptr[f] & mask]
                            if state != CRED and (eager or state != SPEC):
                                break
                            retx_ptr[f] += 1
                        backlog = tail[f] - sent_hw[f]
                        if retx_ptr[f] < sent_hw[f]:
                            cls = 0
                        elif backlog > 0 and rtx_count[i] < rtx_limit:
                            cls = 1
                        else:
                            continue
                        # Strict priority, then the R7 class, then the longest VOQ (ties: round robin).
                        key = (p * 2 + cls) * (1 << 40) - (backlog if lqf else 0)
                        if best < 0 or key < best_key:
                            best = f
                            best_key = key
                    if not active:
                        vm[i, w] &= ~(1 << (j & 63))
            credited = best >= 0
            if not credited and speculate and rtx_count[i] < rtx_limit:
                # a flow with unsent cells has its bit in vm (unsent: tail > sent_hw >= retx_ptr)
                for step in range(nw + 1):
                    w, bits = K.rotated_members(step, rr_in[i], vm, i)
                    while bits:
                        j, bits = K.pop_member(w, bits)
                        x = i * n + j
                        for p in range(P):
                            f = x * P + p
                            backlog = tail[f] - sent_hw[f]
                            if backlog <= 0 or block_seq[f] >= 0:
                                continue
                            key = p * (1 << 40) - (backlog if lqf else 0)
                            if best < 0 or key < best_key:
                                best = f
                                best_key = key
            if best < 0:
                continue
            f = best
            x = f // P
            stats[TRANSMISSIONS] += 1
            credits[x] -= 1  # R6: every transmission takes a credit
            if credits[x] < credit_min:
                credit_min = credits[x]
            if credited and retx_ptr[f] < sent_hw[f]:
                s = retx_ptr[f]
                retx_ptr[f] += 1
                stats[RETRANSMISSIONS] += 1
                if block_seq[f] == s:
                    block_seq[f] = -1
            else:
                s = sent_hw[f]
                sent_hw[f] += 1
                if sfc:
                    rtx_count[i] += 1
                    if rtx_count[i] > rtx_max:
                        rtx_max = rtx_count[i]
                if not credited:
                    stats[SPECULATIVE] += 1
                    if eager and s < retx_ptr[f]:
                        retx_ptr[f] = s
            c_state[f, s & mask] = CRED if credited else SPEC
            c_copy[f, s & mask] += 1
            dl_flow[i, send_idx] = f
            dl_seq[i, send_idx] = s
            dl_copy[i, send_idx] = c_copy[f, s & mask]
            dl_cred[i, send_idx] = 1 if credited else 0
            rr_in[i] = K.rr_next((f // P) % n, n)
        # 4. Cells sent delta_d slots ago reach the crosspoints (R2).
        arrive_idx = (t + 1) % L
        for i in range(n):
            f = dl_flow[i, arrive_idx]
            if f < 0:
                continue
            dl_flow[i, arrive_idx] = -1
            x = f // P
            p = f % P
            s = dl_seq[i, arrive_idx]
            copy = dl_copy[i, arrive_idx]
            msg = NO_MSG
            msg_f = f
            msg_s = s
            msg_c = copy
            if s < expected[f]:
                msg = DUP_CREDIT
                stats[DUPLICATES] += 1
            elif s > expected[f]:
                msg = NAK
                stats[NAKS] += 1
                stats[OUT_OF_ORDER] += 1
            else:
                room = xp_total[x] < q_r
                if not room and replacement:
                    victim = -1
                    for pp in range(P - 1, p, -1):
                        if xp_len[x * P + pp] > 0:
                            victim = x * P + pp
                            break
                    if victim >= 0:
                        # Replace the victim flow's newest cell; its flow must resend from there.
                        xp_len[victim] -= 1
                        slot_v = (xp_head[victim] + xp_len[victim]) & (qc - 1)
                        xp_total[x] -= 1
                        msg = REPLACED
                        msg_f = victim
                        msg_s = xp_seq[victim, slot_v]
                        msg_c = xp_copy[victim, slot_v]
                        expected[victim] = msg_s
                        stats[REPLACEMENTS] += 1
                        stats[NAKS] += 1
                        room = True
                if room:
                    slot_a = (xp_head[f] + xp_len[f]) & (qc - 1)
                    xp_seq[f, slot_a] = s
                    xp_copy[f, slot_a] = copy
                    xp_len[f] += 1
                    xp_total[x] += 1
                    expected[f] = s + 1
                    j = x - i * n
                    cm[j, i >> 6] |= 1 << (i & 63)
                else:
                    msg = NAK
                    stats[NAKS] += 1
                    if dl_cred[i, arrive_idx] == 1:
                        stats[CREDITED_DROPS] += 1
            if msg != NO_MSG:
                nak_kind[i, lane] = msg
                nak_flow[i, lane] = msg_f
                nak_seq[i, lane] = msg_s
                nak_copy[i, lane] = msg_c
        # 5. Each output takes one cell: strict priority, then LQF or round robin over its column.
        for j in range(n):
            chosen = -1
            for p in range(P):
                longest = 0
                for step in range(nw + 1):
                    # the crosspoints holding a cell, from rr_out up, then those below it
                    w, bits = K.rotated_members(step, rr_out[j], cm, j)
                    while bits:
                        i, bits = K.pop_member(w, bits)
                        q = xp_len[(i * n + j) * P + p]
                        if q > longest:
                            longest = q
                            chosen = (i * n + j) * P + p
                            if not lqf:
                                break
                    if chosen >= 0 and not lqf:
                        break
                if chosen >= 0:
                    break
            if chosen < 0:
                continue
            f = chosen
            p = f % P
            x = f // P
            i = x // n
            s = xp_seq[f, xp_head[f]]
            xp_head[f] = (xp_head[f] + 1) & (qc - 1)
            xp_len[f] -= 1
            xp_total[x] -= 1
            if xp_total[x] == 0:
                cm[j, i >> 6] &= ~(1 << (i & 63))
            if s != deliv_next[f]:
                stats[ORDER_ERRORS] += 1
            deliv_next[f] = s + 1
            c = s & mask
            stats[K.STAT_DELIVERED] += 1
            K.part_left(parts, j, t, measured_from)
            if t >= measured_from:
                stats[K.STAT_M_DELIVERED] += 1
                stats[K.STAT_M_WAIT_SUM] += t - c_arr[f, c]
                stats[K.STAT_M_WAIT_COUNT] += 1
                if c_last[f, c] == 1:
                    lat = t - c_first[f, c] + 1
                    stats[K.STAT_M_LATENCY_SUM] += lat
                    stats[K.STAT_M_LATENCY_COUNT] += 1
                    stats[LAT_SUM_P + p] += lat
                    stats[LAT_COUNT_P + p] += 1
            tail_q = (ackq_head[i] + ackq_len[i]) & (aq - 1)
            ackq_flow[i, tail_q] = f
            ackq_seq[i, tail_q] = s
            ackq_len[i] += 1
            rr_out[j] = K.rr_next(i, n)
        # 6. Each row returns at most one ACK this slot (R3; §6.1).
        for i in range(n):
            if ackq_len[i] > 0:
                h = ackq_head[i]
                ack_flow[i, lane] = ackq_flow[i, h]
                ack_seq[i, lane] = ackq_seq[i, h]
                ackq_head[i] = (h + 1) & (aq - 1)
                ackq_len[i] -= 1
    queued = 0
    for f in range(F):
        queued += tail[f] - deliv_next[f]
    stats[CREDITS_OUT] = X * q_r - credits.sum()
    stats[CREDIT_MIN] = credit_min
    stats[CREDIT_MAX] = credit_max
    stats[RTX_MAX] = rtx_max
    K.finish(stats, parts, queued, tr)


def replicate(switch, traffic, run, speculate=None):
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`); return its counters (``LAYOUT``).

    ``run.drain`` keeps running without arrivals after the measured slots
    (for conservation checks); ``speculate=False`` runs the SFC machinery with
    speculation switched off (for the credit-equivalence check).
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
                    rtx_limit=q_rtx, replacement=fc.replacement, lqf=switch.arbitration == "lqf", storage=storage)
    _run_cicq(args, run, K.traffic_arrays(traffic, n), prio_cdf, stats, K.parts(n))
    return stats
