"""Paper 000's cut-through switches: multi-flit packets moved flit by flit through a network (§3-§5).

One kernel for every buffer organisation of :mod:`switchq.models.flit` and every topology (it reads the
wiring and routing tables only). The organisations differ in four pieces, each a branch on ``org`` (a constant
in the kernel compiled for it, :func:`switchq.validate.arch.flit.spec`): where a flit is stored
(:func:`.rules.fits`, and step 4's commit and release), which packet an idle output may take (step 4's
arbitration) and, for the central buffer, the move from the input FIFO into the shared buffer (step 3).

Per cycle, in order (step 1 is :mod:`.cut_through_inject`, step 3 :mod:`.cut_through_central`):

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
downstream buffer's state known at once (credits with no return delay; the paper is silent): a blocked packet
is spread over the buffers behind it (buffered wormhole / cut-through). Routing is one hop ahead: the sender
picks the packet's queue at the next switch when it sends the header, adaptively where the route offers a
choice (going up a BMIN): the candidate queue in that input's buffer holding the fewest flits, or the output
with the fewest flits queued at the switch (``up_select``). FIFO switches route at the head of the queue (any
free up port) or on arrival (``fifo_routing``).

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
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ... import kernel as K
from . import arrays
from .records import (CENTRAL, DAMQ, E_ARR, E_CLAIM, E_DOWN, E_GI, E_LEN, E_LT, E_NEXT, E_OI, E_PKT, E_PORT, E_Q,
                      E_READY, FIFO, FLITS_RECEIVED, HIPIQS, I_CHUNKS, I_HELD, I_LAST, I_USED, IW, LK_D, LK_E, LK_GI,
                      LK_GI2, LK_LEN, LK_OID, LK_OIE, LK_PKT, LK_Q, LK_Q2, LK_RPOS, LK_SENT, LKW, M_FLITS_RECEIVED,
                      M_PACKET_LATENCY_SUM, M_PACKETS, NIC_PACKETS, P_DEST, P_GEN, P_MSG, P_RCV, Q_FIFO, Q_RP, Q_SH,
                      Q_WP, QW, SAFC, STALL_CYCLES, TO_NODE, UNWIRED)
from .cut_through_central import central_step
from .cut_through_inject import first_start, new_messages
from .rules import fits, least_loaded
from .state import close_run, deadlock, entries, new_entry, packets, window


@njit(cache=True)
def simulate(tab, sw, tr, run, stats, trace, spec):
    """One replication of a paper-000 network (steps 1-4 of the module docstring); returns the rows of
    ``trace`` written (a row per flit reaching a node while it has room; a 1-row ``trace`` logs nothing).
    ``stats`` (``LAYOUT``) and ``trace`` are modified in place; ``spec``'s length is the organisation + 1."""
    # Arrays are taken out of the records once: reading one from a tuple in the loop costs reference counting.
    out_switch = tab.out_switch
    out_input = tab.out_input
    route = tab.route
    groups = tab.groups
    up_link = tab.up
    active = tr.active
    org = len(spec) - 1
    cap = sw.cap
    part_cap = sw.part_cap
    n_chunks = sw.n_chunks
    xp_cap = sw.xp_cap
    K.seed_rng(run.seed)
    k = sw.k
    n_sw = route.shape[0]
    nodes = route.shape[1]
    n_in = n_sw * k
    n_links = n_in + nodes
    g_sw = np.arange(n_links) // k     # a switch output's (or input's) switch, looked up rather than divided
    qp = n_in * k                      # pair (or input) queues: (input gi, output o) -> gi * k + o
    qc = qp + n_in                     # central queues: (switch s, output o) -> qp + s * k + o
    nq = qc + nodes                    # injection queues: node v -> qc + v
    net_flits = n_in * (sw.cap + k * sw.xp_cap + 2) + n_sw * sw.c_chunks * k
    pool = nodes * NIC_PACKETS + net_flits + 4 * n_links + 64
    ent, e_free = entries(pool)
    e_top = pool
    pk, p_free = packets(pool)
    p_top = pool
    m_gen = np.zeros(pool, dtype=np.int64)         # a message's creation cycle
    m_left = np.zeros(pool, dtype=np.int64)        # ... and its packets not yet delivered
    m_free = np.arange(pool - 1, -1, -1, dtype=np.int64)
    m_top = pool
    (q_head, q_tail, qflits, qst, inb, rd_busy, c_used, c_up, waiting, cand, out_load, nic_count, rr, ring,
     arr_bits, act, lk, wake) = arrays.switch_arrays(n_sw, nodes, sw)
    rd_wait = np.zeros(n_in, dtype=np.int64)   # DAMQ: per input, its switch's outputs waiting for its read port
    ring_mask = arr_bits.shape[0] - 1
    n_w = act.shape[0]
    pairs = org != FIFO and org != CENTRAL

    end_measure = run.warmup + run.slots
    total = end_measure + run.drain
    offered_flits = 0
    received_flits = 0             # flits_received, kept here and written to stats where they are read
    m_received = 0                 # ... and m_flits_received
    stalled = 0
    n_trace = 0
    max_held = 0
    # Stability by part: flits to each destination node (as many parts as the VC kernel's; the rest stay empty)
    parts = K.parts(2 * nodes)
    next_at = np.full(nodes, np.inf)
    for v in range(nodes):
        if active[v] and tr.p_msg > 0.0:
            next_at[v] = K.start_gap(tr.p_msg, tr.poisson) - (0.0 if tr.poisson else 1.0)
    next_first = first_start(next_at)
    lazy = sw.link_delay == 1
    lazy_next = 0                  # body flits counted in at send: they move (arrive) next cycle
    # The cycles that start a batch: only they, the warm-up's end and the window's, change a counter in
    # window(); calling it every cycle with batch means (the harness's segments) cost a division a cycle.
    mark_len = run.slots // run.batches if run.batches > 1 else 0
    mark_next = run.warmup if mark_len > 0 else -1
    mark_end = run.warmup + run.batches * mark_len
    rot = 0
    for t in range(total):
        if t == run.warmup or t == end_measure or t == mark_next or (run.batches > 1 and mark_len == 0):
            stats[FLITS_RECEIVED] = received_flits
            stats[M_FLITS_RECEIVED] = m_received
            window(stats, run, t, offered_flits - received_flits)
            if t == mark_next:
                mark_next += mark_len
                if mark_next >= mark_end:
                    mark_next = -1
        measuring = t >= run.warmup and t < end_measure
        moved = lazy_next
        lazy_next = 0
        # 1. new messages, in the cycles with a start (cut_through_inject)
        if next_first < t + 1 and t < end_measure:
            m_top, p_top, e_top, offered_flits, next_first = new_messages(
                t, tr, run, stats, parts, measuring, next_at, nic_count, m_free, m_top, m_gen, m_left, pk, p_free,
                p_top, ent, e_free, e_top, q_head, q_tail, act, qc, n_in, offered_flits)

        # 2. flits arriving
        slot = t & ring_mask
        in_base = slot * n_links
        for w in range(n_w):
            bits = arr_bits[slot, w]
            if bits == 0:
                continue
            arr_bits[slot, w] = 0
            while bits:
                g = (w << 6) + trailing_zeros(bits)
                bits &= bits - 1
                x = ring[in_base + g]
                moved += 1
                if out_switch[g] == TO_NODE:
                    # a packet's flits reach its node in order over one link; its tail comes as ~packet
                    tail = x < 0
                    pkt = ~x if tail else x
                    received_flits += 1
                    if measuring:
                        m_received += 1
                        parts[1, out_input[g]] -= 1     # the node this link delivers to: its destination
                    if trace.shape[0] > 1 and n_trace < trace.shape[0]:
                        pk[pkt, P_RCV] += 1
                        trace[n_trace, 0] = t
                        trace[n_trace, 1] = out_input[g]
                        trace[n_trace, 2] = pkt
                        trace[n_trace, 3] = pk[pkt, P_RCV]
                        n_trace += 1
                    if tail:
                        m = pk[pkt, P_MSG]
                        if measuring:
                            stats[M_PACKETS] += 1
                            stats[M_PACKET_LATENCY_SUM] += t - pk[pkt, P_GEN]
                        p_free[p_top] = pkt
                        p_top += 1
                        m_left[m] -= 1
                        if m_left[m] == 0:
                            # Latency: cycles from the message's creation to its last flit's arrival.
                            stats[K.STAT_DELIVERED] += 1
                            if t >= run.warmup:
                                stats[K.STAT_M_DELIVERED] += 1
                                stats[K.STAT_M_LATENCY_SUM] += t - m_gen[m]
                                stats[K.STAT_M_LATENCY_COUNT] += 1
                            m_free[m_top] = m
                            m_top += 1
                else:
                    e = x
                    ent[e, E_ARR] += 1
                    if ent[e, E_ARR] == 1:
                        # Pipe 1 when nothing waits ahead of it in its queue (at most a packet already
                        # streaming out), Pipe 3 when it must be stored behind another packet.
                        h = q_head[ent[e, E_Q]]
                        clear = h == e or (ent[h, E_CLAIM] >= 0 and ent[h, E_NEXT] == e)
                        ent[e, E_READY] = t + (sw.bypass if clear else sw.buffered)
                        if pairs and ent[e, E_READY] < wake[ent[e, E_OI]]:
                            wake[ent[e, E_OI]] = ent[e, E_READY]

        # 3. central buffer: each input FIFO's head moves a flit into the shared buffer (cut_through_central)
        if org == CENTRAL:
            e_top, moved = central_step(t, sw, n_in, qp, g_sw, groups, route, up_link, pk, ent, e_free, e_top,
                                        q_head, q_tail, qflits, inb, c_used, c_up, cand, act, moved)

        # 4. outputs: take a packet if idle, then send a flit. The scan starts one output later each cycle:
        # a FIFO head that may take any free up port would otherwise always find the lowest one first.
        w0 = rot >> 6
        out_slot = (t + sw.link_delay) & ring_mask
        out_base = out_slot * n_links
        for step in range(n_w + 1):
            # the set bits from rot up, then those below it (kernel.rotated_word's walk, written out: the
            # call measured 2-4 % slower in this loop)
            if step == 0:
                w = w0
                bits = act[w] & (-1 << (rot & 63))
            elif step < n_w:
                w = w0 + step
                if w >= n_w:
                    w -= n_w
                bits = act[w]
            else:
                w = w0
                bits = act[w] & ((1 << (rot & 63)) - 1)
            sending = 0                 # the links of word w sending a flit this cycle
            while bits:
                g = (w << 6) + trailing_zeros(bits)
                bits &= bits - 1
                target = out_switch[g]
                if target == UNWIRED:
                    continue
                gb = g * LKW
                e = lk[gb + LK_E]
                if e < 0:
                    # --- arbitration: an eligible header for this output whose next buffer has room
                    if g < n_in:
                        s = g_sw[g]
                        if (waiting[s] == 0) if org == FIFO else (cand[g] == 0):
                            act[w] &= ~(1 << (g & 63))
                            continue
                        if pairs and wake[g] > t:
                            continue
                        o = g - s * k
                        if org == CENTRAL:
                            first, count = 0, 1
                        else:
                            first = 0 if sw.rnd else rr[g]
                            count = k
                    else:
                        if q_head[qc + (g - n_in)] < 0:
                            act[w] &= ~(1 << (g & 63))
                            continue
                        s = -1
                        o = 0
                        first, count = 0, 1
                    # Pass 1: the eligible header (first in round-robin order, or uniformly at random among
                    # all eligible, Karol's rule) and its queue at the next switch; pass 2 takes it.
                    chosen = -1
                    chosen_q2 = -1
                    chosen_i = 0
                    eligible = 0
                    nxt = 1 << 62
                    for j in range(count):
                        i = first + j
                        if i >= k:
                            i -= k
                        if g >= n_in:
                            q = qc + (g - n_in)
                        elif org == CENTRAL:
                            q = qp + s * k + o
                        elif org == FIFO:
                            q = (s * k + i) * k
                        else:
                            q = (s * k + i) * k + o
                        c = q_head[q]
                        if c < 0:
                            continue
                        if ent[c, E_CLAIM] >= 0 or ent[c, E_ARR] == 0 or ent[c, E_READY] > t:
                            if ent[c, E_CLAIM] >= 0:
                                nxt = t + 1
                            elif ent[c, E_ARR] > 0 and ent[c, E_READY] < nxt:
                                nxt = ent[c, E_READY]
                            continue
                        if org == DAMQ and g < n_in and rd_busy[s * k + i]:
                            # its input is being read: nothing to try until that packet's tail leaves, which
                            # wakes this output (rd_wait), rather than an arbitration every cycle until then
                            rd_wait[s * k + i] |= 1 << o
                            continue
                        nxt = t + 1
                        if g < n_in and (org == FIFO or org == DAMQ):
                            # one read port: an input read this cycle starts no packet (HIPIQS's banks
                            # and SAFC's partitions serve every output at once, §3)
                            gi = s * k + i
                            if inb[gi * IW + I_LAST] == t:
                                continue
                            if org == FIFO:
                                if sw.fifo_arrival:
                                    if ent[c, E_PORT] != o:
                                        continue
                                elif not (groups[s, route[s, pk[ent[c, E_PKT], P_DEST]]] >> o) & 1:
                                    continue
                        q2 = -1
                        if target >= 0:
                            gi2 = target * k + out_input[g]
                            if org == FIFO or org == CENTRAL:
                                q2 = gi2 * k
                            else:
                                mask = groups[target, route[target, pk[ent[c, E_PKT], P_DEST]]]
                                if sw.up_output:
                                    q2 = gi2 * k + least_loaded(mask, target * k, out_load, k, 1, 0)
                                elif org == HIPIQS:
                                    q2 = gi2 * k + least_loaded(mask, gi2 * k, qst, k, QW, Q_SH)
                                else:
                                    q2 = gi2 * k + least_loaded(mask, gi2 * k, qflits, k, 1, 0)
                            if not fits(org, qflits[q2], part_cap, qst[q2 * QW + Q_SH], qst[q2 * QW + Q_FIFO],
                                        xp_cap, qst[q2 * QW + Q_WP], inb[gi2 * IW + I_CHUNKS], n_chunks,
                                        inb[gi2 * IW + I_USED], cap):
                                continue
                        eligible += 1
                        if eligible == 1 or np.random.random() * eligible < 1.0:
                            chosen, chosen_q2, chosen_i = c, q2, i
                        if not sw.rnd:
                            break
                    if chosen < 0:
                        if pairs and g < n_in:
                            wake[g] = nxt
                        continue
                    c = chosen
                    d = -1
                    if chosen_q2 >= 0:
                        q2 = chosen_q2
                        e_top -= 1
                        d = e_free[e_top]
                        new_entry(ent, d, ent[c, E_PKT], q2, ent[c, E_LEN], q2 // k,
                                  target * k + q2 % k if org != FIFO and org != CENTRAL else -1, 0, 1 << 62)
                        ent[d, E_LT] = -1
                        ent[d, E_NEXT] = -1
                        if q_tail[q2] >= 0:
                            ent[q_tail[q2], E_NEXT] = d
                        else:
                            q_head[q2] = d
                        q_tail[q2] = d
                        if org == FIFO:
                            waiting[target] += 1
                            for g2 in range(target * k, target * k + k):
                                act[g2 >> 6] |= 1 << (g2 & 63)
                            if sw.fifo_arrival:
                                # routed on arrival: the port with the fewest headers waiting for it
                                mask = groups[target, route[target, pk[ent[c, E_PKT], P_DEST]]]
                                ent[d, E_PORT] = least_loaded(mask, target * k, cand, k, 1, 0)
                                cand[target * k + ent[d, E_PORT]] += 1
                        elif org != CENTRAL:
                            cand[target * k + q2 % k] += 1
                            act[(target * k + q2 % k) >> 6] |= 1 << ((target * k + q2 % k) & 63)
                    ent[c, E_DOWN] = d
                    ent[c, E_CLAIM] = g
                    # the output's record of what it sends: read each flit without going through the entries
                    lk[gb + LK_E] = c
                    lk[gb + LK_D] = d
                    lk[gb + LK_Q] = ent[c, E_Q]
                    lk[gb + LK_GI] = ent[c, E_GI]
                    lk[gb + LK_OIE] = ent[c, E_OI]
                    lk[gb + LK_LEN] = ent[c, E_LEN]
                    lk[gb + LK_SENT] = 0
                    lk[gb + LK_RPOS] = 0
                    if d >= 0:
                        lk[gb + LK_Q2] = ent[d, E_Q]
                        lk[gb + LK_GI2] = ent[d, E_GI]
                        lk[gb + LK_OID] = ent[d, E_OI]
                    else:
                        lk[gb + LK_PKT] = ent[c, E_PKT]
                    if s >= 0:
                        if org == FIFO:
                            waiting[s] -= 1
                            if sw.fifo_arrival:
                                cand[g] -= 1
                        else:
                            cand[g] -= 1
                        rr[g] = chosen_i + 1 if chosen_i + 1 < k else 0
                        if org == DAMQ:
                            rd_busy[s * k + chosen_i] = 1
                    e = c
                # --- send one flit of entry e
                sent = lk[gb + LK_SENT]
                # (a packet at its node's injection queue has all its flits there)
                if g < n_in and ent[e, E_ARR] - (ent[e, E_LT] == t) <= sent:
                    continue
                q = lk[gb + LK_Q]
                gi = lk[gb + LK_GI]
                in_buffer = q < qp
                if in_buffer and org != HIPIQS and org != SAFC and inb[gi * IW + I_LAST] == t:
                    continue
                d = lk[gb + LK_D]
                if d >= 0:
                    q2 = lk[gb + LK_Q2]
                    gi2 = lk[gb + LK_GI2]
                    # the flit goes if it fits downstream (the rules of fits), committed there (HIPIQS: FIFO
                    # unit first, then the queue's last chunk)
                    if org == HIPIQS:
                        sh = qst[q2 * QW + Q_SH]
                        fc = qst[q2 * QW + Q_FIFO]
                        if sh == 0 and fc < xp_cap:
                            qst[q2 * QW + Q_FIFO] = fc + 1
                        else:
                            wp = qst[q2 * QW + Q_WP]
                            if wp == 0:
                                if inb[gi2 * IW + I_CHUNKS] >= n_chunks:
                                    continue
                                inb[gi2 * IW + I_CHUNKS] += 1
                            wp += 1
                            qst[q2 * QW + Q_WP] = 0 if wp == k else wp
                            qst[q2 * QW + Q_SH] = sh + 1
                    elif org == SAFC:
                        if qflits[q2] >= part_cap:
                            continue
                    else:
                        if inb[gi2 * IW + I_USED] >= cap:
                            continue
                        inb[gi2 * IW + I_USED] += 1
                    if org != HIPIQS:
                        qflits[q2] += 1
                    h = inb[gi2 * IW + I_HELD] + 1
                    inb[gi2 * IW + I_HELD] = h
                    if h > max_held:
                        max_held = h
                    if sw.up_output:        # out_load is read only to choose an up port by output
                        oi = lk[gb + LK_OID]
                        if oi >= 0:
                            out_load[oi] += 1
                    if sent > 0 and lazy:
                        ent[d, E_ARR] += 1
                        ent[d, E_LT] = t
                        lazy_next += 1
                    else:
                        ring[out_base + g] = d
                        sending |= 1 << (g & 63)
                else:
                    ring[out_base + g] = lk[gb + LK_PKT] if sent + 1 < lk[gb + LK_LEN] else ~lk[gb + LK_PKT]
                    sending |= 1 << (g & 63)
                sent += 1
                lk[gb + LK_SENT] = sent
                moved += 1
                if in_buffer:
                    # release it upstream (HIPIQS: refill the FIFO unit from the shared queue, freeing a chunk when
                    # its last flit is read or the queue empties)
                    if org != HIPIQS:
                        qflits[q] -= 1
                    inb[gi * IW + I_HELD] -= 1
                    if org == HIPIQS:
                        sh = qst[q * QW + Q_SH]
                        if sh > 0:
                            # the FIFO unit refilled from the shared queue: its count stays
                            qst[q * QW + Q_SH] = sh - 1
                            rp = qst[q * QW + Q_RP] + 1
                            if rp == k:
                                rp = 0
                                inb[gi * IW + I_CHUNKS] -= 1
                            if sh == 1:
                                if rp != 0:
                                    inb[gi * IW + I_CHUNKS] -= 1
                                qst[q * QW + Q_WP] = 0
                                rp = 0
                            qst[q * QW + Q_RP] = rp
                        else:
                            qst[q * QW + Q_FIFO] -= 1
                    elif org != SAFC:
                        inb[gi * IW + I_USED] -= 1
                    inb[gi * IW + I_LAST] = t
                    if sw.up_output:
                        oi = lk[gb + LK_OIE]
                        if oi >= 0:
                            out_load[oi] -= 1
                elif q < qc:
                    qflits[q] -= 1
                    rpos = lk[gb + LK_RPOS] + 1
                    if rpos == k or sent == lk[gb + LK_LEN]:
                        rpos = 0
                        c_used[gi] -= 1
                        if up_link[lk[gb + LK_OIE]]:
                            c_up[gi] -= 1
                    lk[gb + LK_RPOS] = rpos
                if sent == lk[gb + LK_LEN]:
                    # tail gone: the output is free, the entry leaves its queue (always the head)
                    lk[gb + LK_E] = -1
                    q_head[q] = ent[e, E_NEXT]
                    if q_head[q] < 0:
                        q_tail[q] = -1
                    if in_buffer and org == DAMQ:
                        rd_busy[gi] = 0
                        waiters = rd_wait[gi]
                        rd_wait[gi] = 0
                        while waiters:
                            # read this cycle, the input starts a packet from the next one on
                            g2 = g_sw[gi] * k + trailing_zeros(waiters)
                            waiters &= waiters - 1
                            if wake[g2] > t + 1:
                                wake[g2] = t + 1
                    if q >= qc:
                        nic_count[q - qc] -= 1
                    e_free[e_top] = e
                    e_top += 1
            arr_bits[out_slot, w] |= sending
        rot += 1                    # t % n_links
        if rot == n_links:
            rot = 0

        if moved == 0 and offered_flits > received_flits:
            stalled += 1
            if stalled >= STALL_CYCLES:
                stats[FLITS_RECEIVED] = received_flits
                stats[M_FLITS_RECEIVED] = m_received
                deadlock(stats, offered_flits - received_flits)
                break
        else:
            stalled = 0
    stats[FLITS_RECEIVED] = received_flits
    stats[M_FLITS_RECEIVED] = m_received
    close_run(stats, run, parts, offered_flits - received_flits, max_held, tr.msg_flits)
    return n_trace
