"""The steps of one slot of the buffered crossbar (paper 002, Minkenberg & Gusat §3-§6), in the slot's order.

Each is an ``@njit`` phase over the packed state of :mod:`switchq.validate.arch.cicq_state` (``sw`` the
CicqArgs, ``st`` the CicqState, modified in place), entered once a slot by
:func:`switchq.validate.arch.cicq._run_cicq` and inlined there (``inline="always"``):

1. :func:`receive_flow_control` ACKs, NAKs and duplicate credits emitted delta_c slots ago reach the
   line cards (credits back, R4 buffer freed, R7 resends due, §6.2 blocks);
2. :func:`enqueue_arrivals` new cells join their VOQs (the only random draws);
3. :func:`serve_inputs` each line card picks one flow, credited if it can (R1, R7), else speculative (R5),
   and sends its cell on the link, taking a credit (R6);
4. :func:`accept_at_crosspoints` cells sent delta_d slots ago reach the crosspoints: accepted, dropped
   (R2) or replacing a lower priority (§3.2, :func:`replace_victim`), a message put on the row's NAK lane;
5. :func:`serve_outputs` each output takes one cell of its column (strict priority, then LQF or RR),
   counts it and queues its ACK at its row (R3);
6. :func:`emit_acks` each row puts at most one queued ACK on its lane (§6.1).

An input's pick and send (and an output's) stay one loop: split into two passes over the ports they
cost 3-10 % (measured).
"""

from __future__ import annotations

from numba import njit

from .. import kernel as K
from .cicq_cells import at, make_room, release
from .cicq_state import (ACK_FLOW, ACK_SEQ, ACKED, ACKQ_HEAD, ACKQ_LEN, AQ_FLOW, AQ_SEQ, BLOCK_SEQ, BURST_FIRST,
                         BURST_PRIO, C_ARRIVAL, C_COPY, C_FIRST, C_LAST, C_STATE, CRED, CREDITED_DROPS, CREDITS,
                         DATA_COPY, DATA_CREDITED, DATA_FLOW, DATA_SEQ, DELIV_NEXT, DUP_CREDIT, DUPLICATES, EXPECTED,
                         EXT_CREDIT_MAX, EXT_CREDIT_MIN, EXT_RTX_MAX, EXTREMES, LAT_COUNT_P, LAT_SUM_P, NAK,
                         NAK_COPY, NAK_FLOW, NAK_KIND, NAK_SEQ, NAKED, NAKS, NO_MSG, ORDER_ERRORS, OUT_OF_ORDER,
                         PREV_BURST, REPLACED, REPLACEMENTS, RETRANSMISSIONS, RETX_PTR, RING, RR_IN, RR_OUT,
                         RTX_COUNT, SENT_HW, SPEC, SPECULATIVE, TAIL, TRANSMISSIONS, UNSENT, XP_COPY, XP_HEAD,
                         XP_LEN, XP_SEQ, XP_TOTAL)


@njit(cache=True, inline="always")
def receive_flow_control(sw, st, lane):
    """Phase 1: the messages on lane ``lane`` (emitted delta_c slots ago) reach the line cards.

    An ACK returns its credit, acknowledges every seq up to its own and frees a retransmission-buffer
    place (SFC, R4); a flow left with nothing to acknowledge gives its block back to the line cards' pool.
    A NAK or a replacement returns its credit and, unless it is about an acknowledged cell or (NAK only) an
    older copy, marks the cell NAKED, due for a credited resend (R7) and blocks the flow's speculation until
    then (§6.2). A duplicate's message returns only its credit (R2, R6).
    """
    cells, flows, ports, masks, links = st.cells, st.flows, st.ports, st.masks, st.links
    P = sw.priorities
    n = sw.n_ports
    for i in range(n):
        f = links[ACK_FLOW, i, lane]
        if f >= 0:
            links[ACK_FLOW, i, lane] = -1
            flows[CREDITS, f // P] += 1
            ports[EXTREMES, EXT_CREDIT_MAX] = max(ports[EXTREMES, EXT_CREDIT_MAX], flows[CREDITS, f // P])
            flows[ACKED, f] = links[ACK_SEQ, i, lane] + 1
            if flows[RETX_PTR, f] < flows[ACKED, f]:
                flows[RETX_PTR, f] = flows[ACKED, f]
            if sw.sfc:
                ports[RTX_COUNT, i] -= 1
            if flows[ACKED, f] == flows[TAIL, f]:
                release(cells, flows, st.heap, f)
        k = links[NAK_KIND, i, lane]
        if k != NO_MSG:
            links[NAK_KIND, i, lane] = NO_MSG
            f = links[NAK_FLOW, i, lane]
            x = f // P
            flows[CREDITS, x] += 1
            ports[EXTREMES, EXT_CREDIT_MAX] = max(ports[EXTREMES, EXT_CREDIT_MAX], flows[CREDITS, x])
            s = links[NAK_SEQ, i, lane]
            if k == DUP_CREDIT or s < flows[ACKED, f]:
                continue    # only the credit: an acknowledged cell may no longer be held at all
            c = at(flows, f, s)
            # A NAK about an older copy is stale: a later copy is on its way, or one was
            # accepted (a later copy can only be dropped as a duplicate of an accepted one).
            # A replacement is never stale: the crosspoint no longer holds the cell at all.
            if k != NAK or links[NAK_COPY, i, lane] == cells[c, C_COPY]:
                cells[c, C_STATE] = NAKED
                if s < flows[RETX_PTR, f]:
                    flows[RETX_PTR, f] = s
                    j = x % n
                    masks[x // n, j >> 6] |= 1 << (j & 63)
                flows[BLOCK_SEQ, f] = s


@njit(cache=True, inline="always")
def enqueue_arrivals(sw, st, tr, prio_cdf, stats, parts, t, warmup):
    """Phase 2: this slot's cells arrive at the line cards and join their flows' VOQs as UNSENT.

    A burst draws its priority when it starts (from ``prio_cdf``); a cell finding its flow's storage full
    is refused (:func:`kernel.admit`). The only random draws of the slot. A cell finding its flow's block
    full (or none) gets the flow a larger one (:func:`cicq_cells.make_room`), from the pool's free lists or its
    reserve (:func:`cicq_cells.short_of_reserve`, checked before this phase).
    """
    cells, flows, ports, masks, burst, arrivals = st.cells, st.flows, st.ports, st.masks, st.burst, st.arrivals
    n = sw.n_ports
    P = sw.priorities
    ports[PREV_BURST, :n] = burst
    K.draw_arrivals(arrivals, burst, tr, n)
    for i in range(n):
        d = arrivals[i]
        if d < 0:
            continue
        if ports[PREV_BURST, i] < 0:  # a new burst starts with this cell
            ports[BURST_FIRST, i] = t
            ports[BURST_PRIO, i] = K.draw_index(prio_cdf, P - 1) if P > 1 else 0
        f = (i * n + d) * P + ports[BURST_PRIO, i]
        admitted = K.admit(stats, t, warmup, flows[TAIL, f] - flows[ACKED, f] < sw.storage, True)
        K.part_offered(parts, d, t, warmup, admitted)
        if admitted:
            if flows[TAIL, f] - flows[ACKED, f] > flows[RING, f]:   # its block is full, or it has none
                make_room(sw, cells, flows, st.heap, f)
            c = at(flows, f, flows[TAIL, f])
            cells[c, C_ARRIVAL] = t
            cells[c, C_FIRST] = ports[BURST_FIRST, i]
            cells[c, C_LAST] = 1 if burst[i] < 0 else 0
            cells[c, C_STATE] = UNSENT
            cells[c, C_COPY] = 0
            flows[TAIL, f] += 1
            masks[i, d >> 6] |= 1 << (d & 63)


@njit(cache=True, inline="always")
def serve_inputs(sw, st, stats, t):
    """Phase 3: each line card picks one flow and sends its cell on its link (slot ``t``'s place of the data
    delay line): credited if any flow can go credited (R1), else speculatively if speculation is on and the
    retransmission buffer has room (R4).

    Credited: over the outputs whose crosspoint has a credit, from the round-robin pointer up, strict
    priority, then a cell due for a resend before an unsent one (R7; due: NAKed, or with ``eager``
    speculative and not yet acknowledged), then the longest VOQ (``lqf``); an unsent cell only while the
    retransmission buffer has room. The scan moves each flow's ``RETX_PTR`` past cells not due and clears
    the mask bit of an output with nothing unsent or due. Speculative: a flow with an unsent cell (R5:
    only unsent cells are speculated) and no §6.2 block; strict priority, then the longest VOQ.

    Every transmission takes a credit (R6). A credited pick resends the flow's lowest due cell if it has
    one (lifting a §6.2 block on it), else sends the next unsent cell; a speculative pick sends the next
    unsent cell. A first transmission takes a retransmission-buffer place (SFC, R4); with ``eager`` a
    speculative cell is due for a credited resend at once (R7). The round-robin pointer moves past the output.
    """
    cells, flows, ports, masks, links = st.cells, st.flows, st.ports, st.masks, st.links
    n = sw.n_ports
    P = sw.priorities
    nw = masks.shape[1]
    send_idx = t % (sw.data_delay + 1)
    for i in range(n):
        best = -1
        best_key = 0
        for step in range(nw + 1):
            # the outputs from rr up, then those below it (the round-robin order of ties)
            w, bits = K.rotated_members(step, ports[RR_IN, i], masks, i)
            while bits:
                j, bits = K.pop_member(w, bits)
                x = i * n + j
                if flows[CREDITS, x] < 1:
                    continue
                active = False
                for p in range(P):
                    f = x * P + p
                    if flows[TAIL, f] == flows[RETX_PTR, f]:
                        continue  # nothing unsent and nothing to resend
                    active = True
                    # R7: a cell due for a resend (lowest seq) before an unsent one. Due: NAKed, or
                    # (eager) speculative and not yet acknowledged either way.
                    while flows[RETX_PTR, f] < flows[SENT_HW, f]:
                        state = cells[at(flows, f, flows[RETX_PTR, f]), C_STATE]
                        if state != CRED and (sw.eager or state != SPEC):
                            break
                        flows[RETX_PTR, f] += 1
                    backlog = flows[TAIL, f] - flows[SENT_HW, f]
                    if flows[RETX_PTR, f] < flows[SENT_HW, f]:
                        cls = 0
                    elif backlog > 0 and ports[RTX_COUNT, i] < sw.rtx_limit:
                        cls = 1
                    else:
                        continue
                    # Strict priority, then the R7 class, then the longest VOQ (ties: round robin).
                    key = (p * 2 + cls) * (1 << 40) - (backlog if sw.lqf else 0)
                    if best < 0 or key < best_key:
                        best = f
                        best_key = key
                if not active:
                    masks[i, w] &= ~(1 << (j & 63))
        credited = best >= 0
        if not credited and sw.speculate and ports[RTX_COUNT, i] < sw.rtx_limit:
            # a flow with unsent cells has its bit in the mask (unsent: tail > sent_hw >= retx_ptr)
            for step in range(nw + 1):
                w, bits = K.rotated_members(step, ports[RR_IN, i], masks, i)
                while bits:
                    j, bits = K.pop_member(w, bits)
                    x = i * n + j
                    for p in range(P):
                        f = x * P + p
                        backlog = flows[TAIL, f] - flows[SENT_HW, f]
                        if backlog <= 0 or flows[BLOCK_SEQ, f] >= 0:
                            continue
                        key = p * (1 << 40) - (backlog if sw.lqf else 0)
                        if best < 0 or key < best_key:
                            best = f
                            best_key = key
        if best < 0:
            continue
        f = best
        x = f // P
        stats[TRANSMISSIONS] += 1
        flows[CREDITS, x] -= 1  # R6: every transmission takes a credit
        if flows[CREDITS, x] < ports[EXTREMES, EXT_CREDIT_MIN]:
            ports[EXTREMES, EXT_CREDIT_MIN] = flows[CREDITS, x]
        if credited and flows[RETX_PTR, f] < flows[SENT_HW, f]:
            s = flows[RETX_PTR, f]
            flows[RETX_PTR, f] += 1
            stats[RETRANSMISSIONS] += 1
            if flows[BLOCK_SEQ, f] == s:
                flows[BLOCK_SEQ, f] = -1
        else:
            s = flows[SENT_HW, f]
            flows[SENT_HW, f] += 1
            if sw.sfc:
                ports[RTX_COUNT, i] += 1
                if ports[RTX_COUNT, i] > ports[EXTREMES, EXT_RTX_MAX]:
                    ports[EXTREMES, EXT_RTX_MAX] = ports[RTX_COUNT, i]
            if not credited:
                stats[SPECULATIVE] += 1
                if sw.eager and s < flows[RETX_PTR, f]:
                    flows[RETX_PTR, f] = s
        c = at(flows, f, s)
        cells[c, C_STATE] = CRED if credited else SPEC
        cells[c, C_COPY] += 1
        links[DATA_FLOW, i, send_idx] = f
        links[DATA_SEQ, i, send_idx] = s
        links[DATA_COPY, i, send_idx] = cells[c, C_COPY]
        links[DATA_CREDITED, i, send_idx] = 1 if credited else 0
        ports[RR_IN, i] = K.rr_next((f // P) % n, n)


@njit(cache=True, inline="always")
def replace_victim(sw, flows, xp, x, p):
    """§3.2: at full crosspoint ``x``, remove the newest cell of the lowest priority below ``p`` present;
    its flow's next expected seq goes back to it. Return the victim flow (-1: none), its seq and copy."""
    P = sw.priorities
    for pp in range(P - 1, p, -1):
        victim = x * P + pp
        if flows[XP_LEN, victim] > 0:
            flows[XP_LEN, victim] -= 1
            slot_v = (flows[XP_HEAD, victim] + flows[XP_LEN, victim]) & (xp.shape[2] - 1)
            flows[XP_TOTAL, x] -= 1
            s = xp[XP_SEQ, victim, slot_v]
            flows[EXPECTED, victim] = s
            return victim, s, xp[XP_COPY, victim, slot_v]
    return -1, 0, 0


@njit(cache=True, inline="always")
def accept_at_crosspoints(sw, st, stats, t, lane):
    """Phase 4: the cells sent delta_d slots ago reach the crosspoints of their rows (R2).

    A duplicate (seq below the flow's expected one) is dropped silently, its credit returned; a cell out
    of order is dropped and NAKed; the expected cell is stored if the crosspoint has room, or (with
    ``replacement``) by replacing a lower priority's newest cell, which is NAKed instead (§3.2), else it
    is dropped and NAKed. The row's message goes on its NAK lane ``lane``.
    """
    flows, masks, xp, links = st.flows, st.masks, st.xp, st.links
    n = sw.n_ports
    P = sw.priorities
    arrive_idx = (t + 1) % (sw.data_delay + 1)
    for i in range(n):
        f = links[DATA_FLOW, i, arrive_idx]
        if f < 0:
            continue
        links[DATA_FLOW, i, arrive_idx] = -1
        x = f // P
        p = f % P
        s = links[DATA_SEQ, i, arrive_idx]
        copy = links[DATA_COPY, i, arrive_idx]
        msg = NO_MSG
        msg_f = f
        msg_s = s
        msg_c = copy
        if s < flows[EXPECTED, f]:
            msg = DUP_CREDIT
            stats[DUPLICATES] += 1
        elif s > flows[EXPECTED, f]:
            msg = NAK
            stats[NAKS] += 1
            stats[OUT_OF_ORDER] += 1
        else:
            room = flows[XP_TOTAL, x] < sw.q_r
            if not room and sw.replacement:
                victim, v_seq, v_copy = replace_victim(sw, flows, xp, x, p)
                if victim >= 0:
                    # The victim flow's newest cell is gone; its flow must resend from there.
                    msg = REPLACED
                    msg_f = victim
                    msg_s = v_seq
                    msg_c = v_copy
                    stats[REPLACEMENTS] += 1
                    stats[NAKS] += 1
                    room = True
            if room:
                slot_a = (flows[XP_HEAD, f] + flows[XP_LEN, f]) & (xp.shape[2] - 1)
                xp[XP_SEQ, f, slot_a] = s
                xp[XP_COPY, f, slot_a] = copy
                flows[XP_LEN, f] += 1
                flows[XP_TOTAL, x] += 1
                flows[EXPECTED, f] = s + 1
                j = x - i * n
                masks[n + j, i >> 6] |= 1 << (i & 63)
            else:
                msg = NAK
                stats[NAKS] += 1
                if links[DATA_CREDITED, i, arrive_idx] == 1:
                    stats[CREDITED_DROPS] += 1
        if msg != NO_MSG:
            links[NAK_KIND, i, lane] = msg
            links[NAK_FLOW, i, lane] = msg_f
            links[NAK_SEQ, i, lane] = msg_s
            links[NAK_COPY, i, lane] = msg_c


@njit(cache=True, inline="always")
def serve_outputs(sw, st, stats, parts, t, measured_from):
    """Phase 5: each output j takes one cell from a crosspoint of its column: the highest priority present,
    then the longest queue of it (``lqf``, ties round robin) or the first holding one from the round-robin
    pointer (``rr``), visiting only crosspoints that hold a cell. The cell is delivered (checked for order),
    counted (wait, and latency per burst on its last cell, §5, from ``measured_from`` on) and its ACK queued
    at its row (R3); the output's round-robin pointer moves past the input."""
    cells, flows, ports, masks, xp, ackq = st.cells, st.flows, st.ports, st.masks, st.xp, st.ackq
    n = sw.n_ports
    P = sw.priorities
    nw = masks.shape[1]
    qc = xp.shape[2]
    aq = ackq.shape[2]
    for j in range(n):
        chosen = -1
        for p in range(P):
            longest = 0
            for step in range(nw + 1):
                # the crosspoints holding a cell, from rr up, then those below it
                w, bits = K.rotated_members(step, ports[RR_OUT, j], masks, n + j)
                while bits:
                    i, bits = K.pop_member(w, bits)
                    q = flows[XP_LEN, (i * n + j) * P + p]
                    if q > longest:
                        longest = q
                        chosen = (i * n + j) * P + p
                        if not sw.lqf:
                            break
                if chosen >= 0 and not sw.lqf:
                    break
            if chosen >= 0:
                break
        if chosen < 0:
            continue
        f = chosen
        p = f % P
        x = f // P
        i = x // n
        s = xp[XP_SEQ, f, flows[XP_HEAD, f]]
        flows[XP_HEAD, f] = (flows[XP_HEAD, f] + 1) & (qc - 1)
        flows[XP_LEN, f] -= 1
        flows[XP_TOTAL, x] -= 1
        if flows[XP_TOTAL, x] == 0:
            masks[n + j, i >> 6] &= ~(1 << (i & 63))
        if s != flows[DELIV_NEXT, f]:
            stats[ORDER_ERRORS] += 1
        flows[DELIV_NEXT, f] = s + 1
        c = at(flows, f, s)
        stats[K.STAT_DELIVERED] += 1
        K.part_left(parts, j, t, measured_from)
        if t >= measured_from:
            stats[K.STAT_M_DELIVERED] += 1
            stats[K.STAT_M_WAIT_SUM] += t - cells[c, C_ARRIVAL]
            stats[K.STAT_M_WAIT_COUNT] += 1
            if cells[c, C_LAST] == 1:
                lat = t - cells[c, C_FIRST] + 1
                stats[K.STAT_M_LATENCY_SUM] += lat
                stats[K.STAT_M_LATENCY_COUNT] += 1
                stats[LAT_SUM_P + p] += lat
                stats[LAT_COUNT_P + p] += 1
        tail_q = (ports[ACKQ_HEAD, i] + ports[ACKQ_LEN, i]) & (aq - 1)
        ackq[AQ_FLOW, i, tail_q] = f
        ackq[AQ_SEQ, i, tail_q] = s
        ports[ACKQ_LEN, i] += 1
        ports[RR_OUT, j] = K.rr_next(i, n)


@njit(cache=True, inline="always")
def emit_acks(sw, st, lane):
    """Phase 6: each row puts the oldest ACK of its queue on lane ``lane`` (at most one a row a slot, §6.1)."""
    ports, links, ackq = st.ports, st.links, st.ackq
    aq = ackq.shape[2]
    for i in range(sw.n_ports):
        if ports[ACKQ_LEN, i] > 0:
            h = ports[ACKQ_HEAD, i]
            links[ACK_FLOW, i, lane] = ackq[AQ_FLOW, i, h]
            links[ACK_SEQ, i, lane] = ackq[AQ_SEQ, i, h]
            ports[ACKQ_HEAD, i] = (h + 1) & (aq - 1)
            ports[ACKQ_LEN, i] -= 1
