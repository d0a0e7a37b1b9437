"""Step V3 of the virtual-channel routers (paper 004, MediaWorm §III-B, §III-D): every link sends one flit.

Per link: :func:`multiplex` (an output's VC multiplexer C, or a node's NIC, takes the VC
with the smallest stamp whose next flit is ready and has a credit for its downstream VC buffer; a header also
needs that VC free: a VC holds one message from header to tail), then the flit goes on: to its node
(:func:`deliver_flit`) or into the next router's input VC (:func:`enter_router`: ready ``link_cycles +
body_stages - 2`` cycles later, a header ``header_stages - body_stages`` more, so a lone message takes ``hops x
header_stages + (hops + 1) x link_cycles + M - 1`` cycles); a tail frees its VC (:func:`release_vc`). An output
to a node behind a multiplexed crossbar never queues (one flit a cycle crosses to it, one leaves, a node returns
no credits): each flit leaves the cycle it reaches the multiplexer, through the delay line.

Best effort's VCs (``best_effort_vcs``): with ``free``, a node's NIC keeps one best-effort queue whose head takes
a uniformly drawn free best-effort VC (with its credit back) as its header leaves. Where the paper is silent:
credits return ``link_cycles`` after the flit leaves a buffer, the output VC buffers are read without a credit
delay, a message keeps its destination VC on every router output.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ... import kernel as K
from .records import (FLITS_RECEIVED, H_BE, H_GEN, H_LEN, H_PKT, H_SENT, M_BE_LATENCY_SUM, M_BE_MESSAGES,
                      M_FLITS_RECEIVED, P_GEN, P_LEN, P_MSG, P_NEXT, P_VT, SCHED_FGFQ, SCHED_FIFO, UNWIRED)
from .rules import draw_bit, nic_stamp, stamp
from .vc_state import (AUX, C_MAX_HELD, C_P_TOP, C_RECEIVED, C_TRACE, COUNT, CREDIT_AT, DIRECT, DL, FM_LEFT, G_SW, H_VT,
                       IN_MASK, NIC_COUNT, NIC_MASK, OUT_INPUT, OUT_LOAD, OUT_MASK, OUT_SWITCH, PARK_IN, PARKED, PROG,
                       Q_DN, Q_HEAD, Q_RT, Q_ST, Q_TAIL, QIN, QOUT, R_IN, R_LINK, RDY, WHEEL, hand_over)


@njit(cache=True, inline="always")
def multiplex(t, g, d, vc, S, F, T, fr_t, fr_s, hd):
    """Link ``g``'s choice in cycle ``t``: ``(q, c, sent, gi2, shared, shared_ok)``, the queue that sends (-1:
    none), its VC and the flits of its message sent with this one, the router input downstream (-1: a node), the
    NIC's shared best-effort queue (``m``: none) and the free best-effort VCs downstream whose first slot's
    credit is back. The flit is taken: off an output VC's ring (a node link behind a multiplexed crossbar: off
    its delay line), counted sent, and a NIC queue's next flit stamped."""
    m = d.m
    n_in = d.n_in
    target = T[OUT_SWITCH, g]
    if target == UNWIRED:
        return -1, 0, 0, -1, m, 0
    if g < n_in and T[DIRECT, g]:
        # a node's link behind a multiplexed crossbar: the flit that crossed 2 cycles ago, if one did
        q = S[DL + (t & 3), g]
        if q < 0:
            return -1, 0, 0, -1, m, 0
        S[DL + (t & 3), g] = -1
        S[OUT_LOAD, g] -= 1
        sent = hd[q, H_SENT] + 1
        hd[q, H_SENT] = sent
        return q, q - d.qo_base - g * m, sent, -1, m, 0
    if g < n_in:
        mask = S[RDY, n_in + g]
        base = d.qo_base + g * m
    else:
        mask = S[NIC_MASK, g - n_in]
        base = d.nq_ring + (g - n_in) * m
    if mask == 0:
        return -1, 0, 0, -1, m, 0
    gi2 = target * d.k + T[OUT_INPUT, g] if target >= 0 else -1
    # a NIC's best-effort queue when best effort takes any free VC (its head's downstream VC: drawn as its
    # header goes, kept in Q_DN)
    shared = m if g < n_in or not vc.be_free else vc.m_rt
    shared_ok = 0
    if gi2 >= 0:
        # a VC whose next message has not started waits while the downstream VC is held (the shared queue:
        # while every best-effort VC is)
        busy = S[IN_MASK, gi2]
        if shared < m and (vc.be_bits & ~busy) != 0:
            busy &= ~(1 << shared)
        mask &= S[PROG, g] | ~busy
        if mask == 0:
            return -1, 0, 0, -1, m, 0
    best_q = -1
    best_s = np.inf
    while mask:
        c = trailing_zeros(mask)
        mask &= mask - 1
        q = base + c
        if c == shared and (S[PROG, g] >> c) & 1 == 0:
            # the free best-effort VCs downstream whose first slot's credit is back
            free = vc.be_bits & ~S[IN_MASK, gi2]
            shared_ok = 0
            while free:
                c2 = trailing_zeros(free)
                free &= free - 1
                if S[CREDIT_AT, gi2 * m + c2] <= t:
                    shared_ok |= 1 << c2
            if shared_ok == 0:
                continue
        elif gi2 >= 0:
            q2 = gi2 * m + c if c != shared else S[Q_DN, q]
            if S[CREDIT_AT, q2] > t:
                continue
        st = F[Q_ST, q]
        take = st < best_s
        best_s = st if take else best_s
        best_q = q if take else best_q
    if best_q < 0:
        return -1, 0, 0, -1, m, 0
    q = best_q
    c = q - base
    if vc.sched == SCHED_FGFQ:
        F[R_LINK, g] = best_s
    if g < n_in:
        n_out = S[QOUT, q] + 1
        S[QOUT, q] = n_out
        bit = 1 << c
        if n_out == S[QIN, q]:
            S[RDY, n_in + g] &= ~bit
        else:
            ready = fr_t[q, n_out & vc.rmask]
            F[Q_ST, q] = fr_s[q, n_out & vc.rmask]
            if ready > t + 1:
                S[RDY, n_in + g] &= ~bit
                S[WHEEL + (ready & d.wmask), n_in + g] |= bit
    if g < n_in:
        S[OUT_LOAD, g] -= 1
    sent = hd[q, H_SENT] + 1
    hd[q, H_SENT] = sent
    if g >= n_in and sent < hd[q, H_LEN]:
        F[Q_ST, q] = nic_stamp(hd[q, H_GEN], sent, F[H_VT, q], hd[q, H_BE], vc.sched == SCHED_FIFO, vc.be_flat,
                               vc.be_vtick)
    return q, c, sent, gi2, shared, shared_ok


@njit(cache=True, inline="always")
def deliver_flit(t, arrive, g, q, c, sent, measuring, warmup, d, S, T, hd, pk, p_free, stats, parts, trace, frames,
                 frame_done):
    """A flit of queue ``q`` (VC ``c``) reaches node ``T[OUT_INPUT, g]`` at cycle ``arrive``, the ``sent``-th of
    its message: counted, traced while the trace has room; a tail delivers its message (its frame's count, or
    best effort's latency) and frees its packet. A message reaches its node in order on one VC: its flits
    received are those sent."""
    nodes = d.nodes
    pkt = hd[q, H_PKT]
    S[COUNT, C_RECEIVED] += 1
    stats[FLITS_RECEIVED] += 1
    if measuring:
        stats[M_FLITS_RECEIVED] += 1
        parts[1, T[OUT_INPUT, g] + nodes * hd[q, H_BE]] -= 1
    n_trace = S[COUNT, C_TRACE]
    if trace.shape[0] > 1 and n_trace < trace.shape[0]:
        trace[n_trace, 0] = arrive
        trace[n_trace, 1] = T[OUT_INPUT, g]
        trace[n_trace, 2] = pkt
        trace[n_trace, 3] = sent
        trace[n_trace, 4] = c
        S[COUNT, C_TRACE] = n_trace + 1
    if sent == hd[q, H_LEN]:
        stats[K.STAT_DELIVERED] += 1
        row = pk[pkt, P_MSG]
        if row >= 0:
            frames[FM_LEFT, row] -= 1
            if frames[FM_LEFT, row] == 0:
                frame_done[row] = arrive
        elif t >= warmup:
            stats[M_BE_MESSAGES] += 1
            stats[M_BE_LATENCY_SUM] += arrive - pk[pkt, P_GEN]
        if t >= warmup:
            stats[K.STAT_M_DELIVERED] += 1
            stats[K.STAT_M_LATENCY_SUM] += arrive - pk[pkt, P_GEN]
            stats[K.STAT_M_LATENCY_COUNT] += 1
        p_top = S[COUNT, C_P_TOP]
        p_free[p_top] = pkt
        S[COUNT, C_P_TOP] = p_top + 1


@njit(cache=True, inline="always")
def enter_router(arrive, g, q, c, sent, gi2, shared, shared_ok, d, vc, S, F, fr_t, fr_s, hd):
    """A flit of queue ``q`` (VC ``c``), the ``sent``-th of its message, enters its VC buffer at router input
    ``gi2`` at cycle ``arrive`` (a header first takes that VC: its own, or for the shared best-effort queue one
    drawn from ``shared_ok``), ready after stage 1 (a header also after routing and arbitration), stamped;
    the buffer's credit upstream follows its occupancy."""
    m = d.m
    q2 = S[Q_DN, q]
    if q2 < 0:
        # the header: the message in the downstream VC
        c2 = draw_bit(shared_ok) if c == shared else c
        q2 = gi2 * m + c2
        hand_over(hd, S, F, vc.per_message, hd[q, H_PKT], q, q2)
        S[IN_MASK, gi2] |= 1 << c2
        S[PROG, g] |= 1 << c
    slot = S[QIN, q2] & vc.rmask
    # stage 1 (and, for a header, routing and arbitration) before the crossbar
    ready = arrive + vc.body_wait + (vc.header_extra if sent == 1 else 0)
    fr_t[q2, slot] = ready
    st, F[AUX, q2] = stamp(vc.sched, arrive, F[AUX, q2], F[R_IN, gi2], F[H_VT, q], vc.be_flat and hd[q, H_BE],
                           vc.be_vtick)
    fr_s[q2, slot] = st
    if S[QIN, q2] == S[QOUT, q2]:
        S[WHEEL + (ready & d.wmask), gi2] |= 1 << (q2 - gi2 * m)
        F[Q_ST, q2] = st
        S[Q_RT, q2] = ready
    n2 = S[QIN, q2] + 1
    S[QIN, q2] = n2
    if n2 - S[QOUT, q2] >= vc.cap:
        S[CREDIT_AT, q2] = 1 << 62
    elif n2 >= vc.cap:
        S[CREDIT_AT, q2] = fr_t[q2, (n2 - vc.cap) & vc.rmask]
    if n2 - S[QOUT, q2] > S[COUNT, C_MAX_HELD]:
        S[COUNT, C_MAX_HELD] = n2 - S[QOUT, q2]


@njit(cache=True, inline="always")
def release_vc(g, q, c, d, vc, S, F, T, hd, pk, pkf):
    """A tail has left queue ``q`` (VC ``c`` of link ``g``): a router output's VC is free again and wakes the
    headers parked on it; a NIC queue's next message, if any, becomes its head."""
    k = d.k
    n_in = d.n_in
    S[PROG, g] &= ~(1 << c)
    S[Q_DN, q] = -1
    if g < n_in:
        hd[q, H_PKT] = -1
        S[OUT_MASK, g] &= ~(1 << c)
        s = T[G_SW, g]
        for i in range(k):
            b = S[PARKED, g * k + i] & S[PARK_IN, s * k + i]
            S[PARKED, g * k + i] = 0
            if b:
                S[RDY, s * k + i] |= b
                S[PARK_IN, s * k + i] &= ~b
    else:
        # a NIC queue: its next message, if any, becomes the head
        S[NIC_COUNT, g - n_in] -= 1
        h = pk[S[Q_HEAD, q], P_NEXT]
        S[Q_HEAD, q] = h
        if h < 0:
            S[Q_TAIL, q] = -1
            hd[q, H_PKT] = -1
            S[NIC_MASK, g - n_in] &= ~(1 << c)
        else:
            hd[q, H_PKT] = h
            hd[q, H_SENT] = 0
            hd[q, H_LEN] = pk[h, P_LEN]
            hd[q, H_BE] = 1 if pk[h, P_MSG] < 0 else 0
            F[H_VT, q] = pkf[h, P_VT]
            hd[q, H_GEN] = pk[h, P_GEN]
            F[Q_ST, q] = nic_stamp(pk[h, P_GEN], 0, F[H_VT, q], hd[q, H_BE], vc.sched == SCHED_FIFO, vc.be_flat,
                                   vc.be_vtick)
