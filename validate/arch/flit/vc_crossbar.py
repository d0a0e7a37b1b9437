"""Step V2 of the virtual-channel routers (paper 004, MediaWorm §III-C, §III-D): each router's crossbar.

One router at a time: :func:`allocate_vcs` (a header that has passed stages 1-3 takes its output VC: the
message's destination VC on the route's output, the least loaded of the parallel links whose VC is free: the
fat mesh; if no message holds it), :func:`allocate_switch` (``multiplexed``: a matching, each free input
offering its smallest-stamp flit for a free output, the rate scheduler at the input multiplexer A, each
output taking the offer with the smallest stamp, B, §III-D; ``crossbar_output="fifo"``: the oldest offer;
repeated while that adds a pair, ``crossbar_iterations``; ``full``: every input VC at once), then
:func:`traverse_crossbar` (a granted message's next flit crosses: the output VC buffer holds one message and
is at least a message deep, so it always has room, see :func:`.arguments.vc_arguments`; a flit crossing at t
reaches the VC multiplexer at t + 2, stages 4, 5). :func:`turn_wheel` first makes the flits ready this cycle
visible to the crossbars and the links.

For speed the crossbar scans only the VC buffers whose next flit is ready and keeps its candidates as they
change (most wait several cycles), and a header with no free output VC waits out of the scan until an output
of its route frees one (:mod:`.vc_state` says what each row holds); the smallest-stamp choices are selects, not
branches. None of this changes a result.
"""

from __future__ import annotations

from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .records import H_BE, H_LEN, H_PKT, H_SENT, P_DEST, P_DVC, SCHED_FGFQ, SCHED_FIFO
from .rules import draw_bit, precedes, stamp
from .vc_state import (AUX, BO_I, BO_Q, BO_S, CREDIT_AT, DIRECT, DL, H_VT, IN_MASK, OUT_LOAD, OUT_MASK, PARK_IN,
                       PARKED, Q_DN, Q_GO, Q_RT, Q_ST, QIN, QOUT, R_IN, R_LINK, RDY, WHEEL, XC, XG, XNEW, XO, XQ, XQ_GI,
                       XS, XT, hand_over)


@njit(cache=True, inline="always")
def turn_wheel(t, d, S):
    """The VC buffers whose next flit becomes ready in cycle ``t`` join ``RDY`` (an input's also ``XNEW``: they
    may have become crossbar candidates)."""
    ws = WHEEL + (t & d.wmask)
    for p in range(2 * d.n_in):
        b = S[ws, p]
        if b:
            S[ws, p] = 0
            S[RDY, p] |= b
            if p < d.n_in:
                S[XNEW, p] |= b        # flits now ready at an input


@njit(cache=True, inline="always")
def allocate_vcs(s, d, vc, S, F, hd, pk, route, groups):
    """Router ``s``'s route and VC allocation: each ready header takes an output VC on its route (the least
    loaded output whose VC is free; none: it parks on every output of its route), becoming a candidate at once;
    then each input's new candidates join their (input, output)'s best. With a full crossbar every candidate is
    granted (``XQ``); returns ``(granted, inputs with a candidate to offer)``."""
    k = d.k
    m = d.m
    nx = 0
    live = 0
    for i in range(k):
        gi = s * k + i
        mask = S[RDY, gi] & ~S[XG, gi]
        while mask:
            # a header: its output VC
            c = trailing_zeros(mask)
            mask &= mask - 1
            q = gi * m + c
            pkt = hd[q, H_PKT]
            dvc = pk[pkt, P_DVC]
            route_mask = groups[s, route[s, pk[pkt, P_DEST]]]
            choice = route_mask
            go = -1
            least = 1 << 62
            while choice:
                g2 = s * k + trailing_zeros(choice)
                choice &= choice - 1
                if dvc >= 0:
                    free = hd[d.qo_base + g2 * m + dvc, H_PKT] < 0
                else:
                    free = (vc.be_bits & ~S[OUT_MASK, g2]) != 0
                if free and S[OUT_LOAD, g2] < least:
                    go = g2
                    least = S[OUT_LOAD, g2]
            bit = 1 << c
            if go < 0:
                S[RDY, gi] &= ~bit
                S[PARK_IN, gi] |= bit
                while route_mask:
                    S[PARKED, (s * k + trailing_zeros(route_mask)) * k + i] |= bit
                    route_mask &= route_mask - 1
                continue
            if dvc < 0:
                dvc = draw_bit(vc.be_bits & ~S[OUT_MASK, go])
            qo = d.qo_base + go * m + dvc
            # the message in the output VC (a VC buffer's one message needs no entry)
            hand_over(hd, S, F, vc.per_message, pkt, q, qo)
            S[Q_GO, q] = go
            S[OUT_MASK, go] |= 1 << dvc
            # a candidate at once
            S[XG, gi] |= bit
            S[XT, gi * k + go - s * k] |= bit
            S[XNEW, gi] |= bit
        # VCs that may have become candidates (a flit ready, an output VC taken) join their (input, output)'s best
        b = S[XNEW, gi] & S[RDY, gi] & S[XG, gi]
        S[XNEW, gi] = 0
        while b:
            c = trailing_zeros(b)
            b &= b - 1
            q = gi * m + c
            o = S[Q_GO, q] - s * k
            if (S[XO, gi] >> o) & 1 == 0 or precedes(F[Q_ST, q], c, F[XS, gi * k + o], S[XC, gi * k + o]):
                S[XC, gi * k + o] = c
                F[XS, gi * k + o] = F[Q_ST, q]
                S[XO, gi] |= 1 << o
        if vc.full:
            mask = S[RDY, gi] & S[XG, gi]
            while mask:
                S[XQ, nx] = gi * m + trailing_zeros(mask)
                S[XQ_GI, nx] = gi
                nx += 1
                mask &= mask - 1
        elif S[XO, gi]:
            live |= 1 << i     # inputs with a flit to offer, not yet matched
    return nx, live


@njit(cache=True, inline="always")
def allocate_switch(s, live, d, vc, S, F):
    """Router ``s``'s multiplexed crossbar, inputs ``live`` offering: a matching, A by stamp, then B by stamp
    (``b_stamp``) or by ready cycle, repeated while that adds a pair (at most ``vc.iterations`` rounds). An
    input's offer is the smallest of its per-output bests (``XC``, ``XS``), ties to the lower VC. The pairs go to
    ``XQ``; returns how many."""
    k = d.k
    m = d.m
    nx = 0
    out_used = 0
    rounds = 0
    more = True
    while more and rounds < vc.iterations:
        rounds += 1
        offered = 0
        b = live
        while b:
            i = trailing_zeros(b)
            b &= b - 1
            gi = s * k + i
            avail = S[XO, gi] & ~out_used
            if avail == 0:
                live &= ~(1 << i)       # its outputs are all taken: it cannot offer again
                continue
            o = trailing_zeros(avail)
            avail &= avail - 1
            best_s = F[XS, gi * k + o]
            best_c = S[XC, gi * k + o]
            # selects, not branches: which stamp is smaller is a coin toss a branch predictor loses
            while avail:
                o2 = trailing_zeros(avail)
                avail &= avail - 1
                s2 = F[XS, gi * k + o2]
                c2 = S[XC, gi * k + o2]
                take = precedes(s2, c2, best_s, best_c)
                o = o2 if take else o
                best_s = s2 if take else best_s
                best_c = c2 if take else best_c
            key = best_s if vc.b_stamp else S[Q_RT, gi * m + best_c]
            take = (((offered >> o) & 1) == 0) | (key < F[BO_S, o])
            S[BO_Q, o] = gi * m + best_c if take else S[BO_Q, o]
            F[BO_S, o] = key if take else F[BO_S, o]
            S[BO_I, o] = i if take else S[BO_I, o]
            offered |= 1 << o
        # no loop exit by break (see vc_state): a round that offers nothing, or leaves no input, is the last
        more = offered != 0
        while offered:
            o = trailing_zeros(offered)
            offered &= offered - 1
            S[XQ, nx] = S[BO_Q, o]
            S[XQ_GI, nx] = s * k + S[BO_I, o]
            nx += 1
            live &= ~(1 << S[BO_I, o])
            out_used |= 1 << o
        more = more and live != 0
    return nx


@njit(cache=True, inline="always")
def traverse_crossbar(t, s, nx, d, vc, S, F, T, fr_t, fr_s, hd):
    """Router ``s``'s ``nx`` granted input VCs (``XQ``) each send one flit across the crossbar: its input slot's
    credit goes back upstream, it reaches the VC multiplexer (stage 5) in 2 cycles, stamped for it (a node's
    output behind a multiplexed crossbar: into its delay line, unstamped); a tail frees its input VC. Each
    crossing input's best candidate for that output is found again. Returns ``nx`` (the flits moved)."""
    k = d.k
    m = d.m
    n_in = d.n_in
    rmask = vc.rmask
    for x in range(nx):
        q = S[XQ, x]
        gi = S[XQ_GI, x]
        qo = S[Q_DN, q]
        go = S[Q_GO, q]
        n_out = S[QOUT, q]
        slot = n_out & rmask
        fr_t[q, slot] = t + vc.credit
        if n_out == S[QIN, q] - vc.cap:
            S[CREDIT_AT, q] = t + vc.credit
        if vc.sched == SCHED_FGFQ:
            F[R_IN, gi] = fr_s[q, slot]
        n_out += 1
        S[QOUT, q] = n_out
        bit = 1 << (q - gi * m)
        if n_out == S[QIN, q]:
            S[RDY, gi] &= ~bit
        else:
            ready = fr_t[q, n_out & rmask]
            F[Q_ST, q] = fr_s[q, n_out & rmask]
            S[Q_RT, q] = ready
            if ready > t + 1:
                S[RDY, gi] &= ~bit
                S[WHEEL + (ready & d.wmask), gi] |= bit
        sent = hd[q, H_SENT] + 1
        hd[q, H_SENT] = sent
        if T[DIRECT, go]:
            S[DL + ((t + 2) & 3), go] = qo
        else:
            slot = S[QIN, qo] & rmask
            fr_t[qo, slot] = t + 2
            # the VC multiplexer's stamps: the scheduler's with a full crossbar, else arrival order
            st, F[AUX, qo] = stamp(vc.sched if vc.full else SCHED_FIFO, t, F[AUX, qo], F[R_LINK, go], F[H_VT, q],
                                   vc.be_flat and hd[q, H_BE], vc.be_vtick)
            fr_s[qo, slot] = st
            if S[QIN, qo] == S[QOUT, qo]:
                S[WHEEL + ((t + 2) & d.wmask), n_in + go] |= 1 << (qo - d.qo_base - go * m)
                F[Q_ST, qo] = st
            S[QIN, qo] += 1
        S[OUT_LOAD, go] += 1
        o = go - s * k
        if sent == hd[q, H_LEN]:
            hd[q, H_PKT] = -1
            S[Q_DN, q] = -1
            S[IN_MASK, gi] &= ~bit
            S[XG, gi] &= ~bit
            S[XT, gi * k + o] &= ~bit
        # its (input, output)'s best candidate again: it was that best, and its stamp changed or it left
        b = S[RDY, gi] & S[XG, gi] & S[XT, gi * k + o]
        if b == 0:
            S[XO, gi] &= ~(1 << o)
        else:
            c = trailing_zeros(b)
            b &= b - 1
            best_s = F[Q_ST, gi * m + c]
            best_c = c
            while b:
                c = trailing_zeros(b)
                b &= b - 1
                s2 = F[Q_ST, gi * m + c]
                take = s2 < best_s
                best_s = s2 if take else best_s
                best_c = c if take else best_c
            S[XC, gi * k + o] = best_c
            F[XS, gi * k + o] = best_s
    return nx
