"""Paper 000's switch outputs: every output with no packet takes one, every output with a packet sends its next
flit if it is there and fits downstream (§3-§4; step 4 of :mod:`.cut_through`).

Arbitration (:func:`arbitrate`, :func:`take`) is among the inputs holding an eligible header for the output: round
robin from the output's pointer, or uniformly at random among all eligible (Karol's rule); a header is eligible
when it has arrived, its pipeline delay is over, its input can be read (FIFO and DAMQ have one read port: an
input read this cycle starts no packet; SAFC's partitions and HIPIQS's banks serve every output at once, §3)
and its queue at the next switch has room (:mod:`.cut_through_orgs`). Routing is one hop ahead: the sender
picks the packet's queue at the next switch when it takes the header, adaptively where the route offers a
choice (going up a BMIN): the candidate queue in that input's buffer holding the fewest flits, or the output
with the fewest flits queued at the switch (``up_select``). FIFO switches route at the head of the queue (any
free up port) or on arrival (``fifo_routing``).

:func:`send_flit` moves one flit: flow control is flit by flit with the downstream buffer's state known at once
(credits with no return delay) or a credit's return trip later (:mod:`.cut_through_view`), the flit committed
there (:func:`.cut_through_orgs.commit`) and released upstream; with 1-cycle links a body flit is counted in its next buffer as it is sent (``E_LT``). A packet's tail
frees the output and leaves its queue.

An output's arbitration and its send stay in one pass over the outputs: an input's read port (``I_LAST``) and
the outputs' loads make each output depend on those before it in the same cycle. The outputs with work are a
bitmask (``ACT``), walked from one output later each cycle; an idle output of a pair-queue switch skips its
arbitration until a header can be ready (``WAKE``; DAMQ: or the input read port its ready headers wait for is
free), and arbitration draws random numbers only for eligible headers: none of this changes a result.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from . import org_damq
from .cut_through_orgs import commit, fits
from .cut_through_state import (ACT, ARR, C_UP, C_USED, CAND, E_FREE, G_SW, INB, LK, LOADS, NIC, OUT_INPUT, OUT_LOAD,
                                OUT_SWITCH, QFLITS, QHEAD, QTAIL, RD_BUSY, RING, RR, UP, WAITING, WAKE, allowed,
                                least_loaded)
from .records import (CENTRAL, DAMQ, E_ARR, E_CLAIM, E_DEST, E_DOWN, E_GI, E_LEN, E_LT, E_NEXT, E_OI, E_PKT, E_PORT,
                      E_Q, E_READY, FIFO, HIPIQS, I_HELD, I_LAST, IW, LK_D, LK_E, LK_GI, LK_GI2, LK_LEN, LK_OID, LK_OIE,
                      LK_PKT, LK_Q, LK_Q2, LK_RPOS, LK_SENT, LKW, SAFC, UNWIRED)
from .cut_through_view import aged_base, free_later, load_field
from .state import new_entry


@njit(cache=True, inline="always")
def next_queue(t, org, sw, dm, S, T, target, gi2, dest):
    """The queue at input ``gi2`` of switch ``target`` a packet to ``dest`` takes (routing one hop ahead): FIFO
    and central, the input's one queue; others, the pair queue for the route's output holding the fewest flits
    (``up_select="output"``: the output with the fewest flits queued at the switch), as the lengths were
    ``routing_age`` cycles ago (:mod:`.cut_through_view`)."""
    k = dm.k
    if org == FIFO or org == CENTRAL:
        return gi2 * k
    mask = allowed(T, dm, target, dest)
    base = target * k if sw.up_output else gi2 * k      # the candidates' loads (cut_through_view.load_field)
    if sw.routing_age:
        return gi2 * k + least_loaded(mask, aged_base(t, sw, dm) + base, S, LOADS, k, 1, 0)
    row, width, second = load_field(org, sw)
    return gi2 * k + least_loaded(mask, base, S, row, k, width, second)


@njit(cache=True, inline="always")
def candidate_queue(org, dm, g, s, i, o):
    """The queue whose head output ``g`` (output ``o`` of switch ``s``; a node link: its injection queue) may take
    from its ``i``-th input: FIFO the input's one queue, central the switch's queue for ``o``, others the
    input's queue for ``o``."""
    k = dm.k
    if g >= dm.n_in:
        return dm.qc + (g - dm.n_in)
    if org == CENTRAL:
        return dm.qp + s * k + o
    if org == FIFO:
        return (s * k + i) * k
    return (s * k + i) * k + o


@njit(cache=True, inline="always")
def take(t, org, sw, dm, S, T, stk, ent, g, s, target, c, q2, chosen_i, e_top):
    """Pass 2: output ``g`` takes entry ``c``, making its entry in queue ``q2`` of switch ``target`` (none to a
    node) and the output's record of what it sends. Returns the entry stack's new top."""
    k = dm.k
    gb = g * LKW
    d = -1
    if q2 >= 0:
        e_top -= 1
        d = stk[E_FREE, e_top]
        new_entry(ent, d, ent[c, E_PKT], q2, ent[c, E_LEN], q2 // k,
                  target * k + q2 % k if org != FIFO and org != CENTRAL else -1, 0, 1 << 62)
        ent[d, E_LT] = -1
        ent[d, E_DEST] = ent[c, E_DEST]
        ent[d, E_NEXT] = -1
        if S[QTAIL, q2] >= 0:
            ent[S[QTAIL, q2], E_NEXT] = d
        else:
            S[QHEAD, q2] = d
        S[QTAIL, q2] = d
        if org == FIFO:
            S[WAITING, target] += 1
            for g2 in range(target * k, target * k + k):
                S[ACT, g2 >> 6] |= 1 << (g2 & 63)
            if sw.fifo_arrival:
                # routed on arrival: the port with the fewest headers waiting for it
                mask = allowed(T, dm, target, ent[c, E_DEST])
                ent[d, E_PORT] = least_loaded(mask, target * k, S, CAND, k, 1, 0)
                S[CAND, target * k + ent[d, E_PORT]] += 1
        elif org != CENTRAL:
            S[CAND, target * k + q2 % k] += 1
            S[ACT, (target * k + q2 % k) >> 6] |= 1 << ((target * k + q2 % k) & 63)
    ent[c, E_DOWN] = d
    ent[c, E_CLAIM] = g
    # the output's record of what it sends: read each flit without going through the entries
    S[LK, gb + LK_E] = c
    S[LK, gb + LK_D] = d
    S[LK, gb + LK_Q] = ent[c, E_Q]
    S[LK, gb + LK_GI] = ent[c, E_GI]
    S[LK, gb + LK_OIE] = ent[c, E_OI]
    S[LK, gb + LK_LEN] = ent[c, E_LEN]
    S[LK, gb + LK_SENT] = 0
    S[LK, gb + LK_RPOS] = 0
    if d >= 0:
        S[LK, gb + LK_Q2] = ent[d, E_Q]
        S[LK, gb + LK_GI2] = ent[d, E_GI]
        S[LK, gb + LK_OID] = ent[d, E_OI]
    else:
        S[LK, gb + LK_PKT] = ent[c, E_PKT]
    if s >= 0:
        if org == FIFO:
            S[WAITING, s] -= 1
            if sw.fifo_arrival:
                S[CAND, g] -= 1
        else:
            S[CAND, g] -= 1
        S[RR, g] = chosen_i + 1 if chosen_i + 1 < k else 0
        if org == DAMQ:
            S[RD_BUSY, s * k + chosen_i] = 1
    return e_top


@njit(cache=True, inline="always")
def arbitrate(t, org, sw, dm, S, T, stk, ent, g, w, target, e_top):
    """Idle output ``g`` (in word ``w`` of ``ACT``) takes a packet: the eligible header (first in round-robin order,
    or uniformly at random among all eligible, Karol's rule) whose queue at the next switch has room, taken by
    :func:`take`. Returns the entry taken (-1: none) and the entry stack's new top. An output with nothing
    queued for it leaves ``ACT``; a pair-queue output finding nothing sleeps until a header can be ready
    (``WAKE``)."""
    k = dm.k
    s = -1
    o = 0
    first, count = 0, 1
    if g < dm.n_in:
        s = T[G_SW, g]
        if (S[WAITING, s] == 0) if org == FIFO else (S[CAND, g] == 0):
            S[ACT, w] &= ~(1 << (g & 63))
            return -1, e_top
        if org != FIFO and org != CENTRAL and S[WAKE, g] > t:
            return -1, e_top
        o = g - s * k
        if org != CENTRAL:
            first = 0 if sw.rnd else S[RR, g]
            count = k
    elif S[QHEAD, dm.qc + (g - dm.n_in)] < 0:
        S[ACT, w] &= ~(1 << (g & 63))
        return -1, e_top
    e = -1
    q2 = -1
    chosen_i = 0
    eligible = 0
    nxt = 1 << 62
    for j in range(count):
        i = first + j
        if i >= k:
            i -= k
        c = S[QHEAD, candidate_queue(org, dm, g, s, i, o)]
        if c < 0:
            continue
        if ent[c, E_CLAIM] >= 0 or ent[c, E_ARR] == 0 or ent[c, E_READY] > t:
            if ent[c, E_CLAIM] >= 0:
                nxt = t + 1
            elif ent[c, E_ARR] > 0 and ent[c, E_READY] < nxt:
                nxt = ent[c, E_READY]
            continue
        if org == DAMQ and g < dm.n_in and org_damq.read_busy(S, s * k + i, o):
            continue
        nxt = t + 1
        if g < dm.n_in and (org == FIFO or org == DAMQ):
            # one read port: an input read this cycle starts no packet
            if S[INB, (s * k + i) * IW + I_LAST] == t:
                continue
            if org == FIFO:
                if sw.fifo_arrival:
                    if ent[c, E_PORT] != o:
                        continue
                elif not (allowed(T, dm, s, ent[c, E_DEST]) >> o) & 1:
                    continue
        c_q2 = -1
        if target >= 0:
            gi2 = target * k + T[OUT_INPUT, g]
            c_q2 = next_queue(t, org, sw, dm, S, T, target, gi2, ent[c, E_DEST])
            if not fits(org, sw, S, c_q2, gi2):
                continue
        eligible += 1
        if eligible == 1 or np.random.random() * eligible < 1.0:
            e, q2, chosen_i = c, c_q2, i
        if not sw.rnd:
            break
    if e < 0:
        if org != FIFO and org != CENTRAL and g < dm.n_in:
            S[WAKE, g] = nxt
        return -1, e_top
    return e, take(t, org, sw, dm, S, T, stk, ent, g, s, target, e, q2, chosen_i, e_top)


@njit(cache=True, inline="always")
def send_flit(t, org, sw, dm, S, T, stk, ent, g, e, out_base, e_top, max_held):
    """Output ``g`` sends the next flit of entry ``e`` if it is there and fits downstream: committed in its next
    buffer and released from this one (to a node: into the ring). Returns how it went (0: not sent; 1: a body
    flit over a 1-cycle link, counted in downstream at once; 2: into the ring), the entry stack's new top and
    the most flits an input held."""
    k = dm.k
    gb = g * LKW
    sent = S[LK, gb + LK_SENT]
    q = S[LK, gb + LK_Q]
    gi = S[LK, gb + LK_GI]
    in_buffer = q < dm.qp
    how = 0
    # (a packet at its node's injection queue has all its flits there; one read port: an input read this
    # cycle sends nothing more)
    if not ((g < dm.n_in and ent[e, E_ARR] - (ent[e, E_LT] == t) <= sent)
            or (in_buffer and org != HIPIQS and org != SAFC and S[INB, gi * IW + I_LAST] == t)):
        d = S[LK, gb + LK_D]
        if d < 0:
            S[RING, out_base + g] = S[LK, gb + LK_PKT] if sent + 1 < S[LK, gb + LK_LEN] else ~S[LK, gb + LK_PKT]
            how = 2
        elif commit(org, sw, S, S[LK, gb + LK_Q2], S[LK, gb + LK_GI2]):
            # the flit fits downstream and is committed there
            gi2 = S[LK, gb + LK_GI2]
            h = S[INB, gi2 * IW + I_HELD] + 1
            S[INB, gi2 * IW + I_HELD] = h
            if h > max_held:
                max_held = h
            if sw.up_output:        # out_load is read only to choose an up port by output
                oi = S[LK, gb + LK_OID]
                if oi >= 0:
                    S[OUT_LOAD, oi] += 1
            if sent > 0 and sw.link_delay == 1:
                ent[d, E_ARR] += 1
                ent[d, E_LT] = t
                how = 1
            else:
                S[RING, out_base + g] = d
                how = 2
    if how == 0:
        return 0, e_top, max_held
    sent += 1
    S[LK, gb + LK_SENT] = sent
    if in_buffer:
        # released upstream (its sender told now, or a credit's return trip later)
        free_later(t, org, sw, dm, S, q, gi, g)
        S[INB, gi * IW + I_HELD] -= 1
        S[INB, gi * IW + I_LAST] = t
        if sw.up_output:
            oi = S[LK, gb + LK_OIE]
            if oi >= 0:
                S[OUT_LOAD, oi] -= 1
    elif q < dm.qc:
        # a central queue: its chunk freed when its last flit is read or the packet's tail leaves
        S[QFLITS, q] -= 1
        rpos = S[LK, gb + LK_RPOS] + 1
        if rpos == k or sent == S[LK, gb + LK_LEN]:
            rpos = 0
            S[C_USED, gi] -= 1
            if T[UP, S[LK, gb + LK_OIE]]:
                S[C_UP, gi] -= 1
        S[LK, gb + LK_RPOS] = rpos
    if sent == S[LK, gb + LK_LEN]:
        # tail gone: the output is free, the entry leaves its queue (always the head)
        S[LK, gb + LK_E] = -1
        S[QHEAD, q] = ent[e, E_NEXT]
        if S[QHEAD, q] < 0:
            S[QTAIL, q] = -1
        if in_buffer and org == DAMQ:
            org_damq.read_done(S, T, k, gi, t)
        if q >= dm.qc:
            S[NIC, q - dm.qc] -= 1
        stk[E_FREE, e_top] = e
        e_top += 1
    return how, e_top, max_held


@njit(cache=True, inline="always")
def outputs(t, org, sw, dm, S, T, stk, ent, rot, e_top, moved, max_held):
    """Step 4 at cycle ``t``: each output with work, from output ``rot`` on, takes a packet if idle
    (:func:`arbitrate`), then sends a flit (:func:`send_flit`). Returns the entry stack's new top, the flits
    moved, the most flits an input held and the body flits counted in downstream at once (they move next
    cycle)."""
    lazy_next = 0
    n_w = dm.n_w
    w0 = rot >> 6
    out_slot = (t + sw.link_delay) & dm.ring_mask
    out_base = out_slot * dm.n_links
    for step in range(n_w + 1):
        # the set bits from rot up, then those below it (kernel.rotated_word's walk, written out: the call
        # measured 2-4 % slower in this loop)
        if step == 0:
            w = w0
            bits = S[ACT, w] & (-1 << (rot & 63))
        elif step < n_w:
            w = w0 + step
            if w >= n_w:
                w -= n_w
            bits = S[ACT, w]
        else:
            w = w0
            bits = S[ACT, w] & ((1 << (rot & 63)) - 1)
        sending = 0                 # the links of word w sending a flit this cycle
        while bits:
            g = (w << 6) + trailing_zeros(bits)
            bits &= bits - 1
            target = T[OUT_SWITCH, g]
            if target == UNWIRED:
                continue
            e = S[LK, g * LKW + LK_E]
            if e < 0:
                e, e_top = arbitrate(t, org, sw, dm, S, T, stk, ent, g, w, target, e_top)
                if e < 0:
                    continue
            how, e_top, max_held = send_flit(t, org, sw, dm, S, T, stk, ent, g, e, out_base, e_top, max_held)
            if how == 0:
                continue
            moved += 1
            if how == 1:
                lazy_next += 1
            else:
                sending |= 1 << (g & 63)
        S[ARR, out_slot * n_w + w] |= sending
    return e_top, moved, max_held, lazy_next
