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
its route frees one (:mod:`.arrays` says what each array holds); a NIC queue is linked through its packets'
rows, and the smallest-stamp choices are selects, not branches. None of this changes a result.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ... import kernel as K
from . import arrays
from .records import (FLITS_OFFERED, FLITS_RECEIVED, H_BE, H_GEN, H_LEN, H_PKT, H_SENT, M_BE_LATENCY_SUM,
                      M_BE_MESSAGES, M_FLITS_OFFERED, M_FLITS_RECEIVED, P_DEST, P_DVC, P_GEN, P_LEN, P_MSG, P_NEXT,
                      P_VT, SCHED_FGFQ, SCHED_FIFO, STALL_CYCLES, TO_NODE, UNWIRED)
from .rules import draw_bit, nic_stamp, precedes, stamp
from .state import close_run, deadlock, packets, window


@njit(cache=True, inline="always")
def hand_over(hd, h_vt, q_dn, aux, per_message, pkt, q, q2):
    """Message ``pkt``'s header takes VC buffer ``q2`` downstream of ``q`` (a router's output VC, or the next
    router's input VC): ``q2`` holds the message (none of its flits sent yet, its length, class and virtual
    time), ``q`` forwards its flits there from now on, and a per-message scheduler starts ``q2`` afresh."""
    hd[q2, H_PKT] = pkt
    hd[q2, H_SENT] = 0
    hd[q2, H_LEN] = hd[q, H_LEN]
    hd[q2, H_BE] = hd[q, H_BE]
    h_vt[q2] = h_vt[q]
    q_dn[q] = q2
    if per_message:
        aux[q2] = 0.0


@njit(cache=True)
def simulate(tab, vc, va, run, stats, trace):
    """One replication of a network of virtual-channel routers (steps V1-V3 of the module docstring); returns
    the rows of ``trace`` written (a row per flit reaching a node while it has room). ``stats`` (``LAYOUT``),
    ``trace`` and ``va.frame_done`` are modified in place."""
    out_switch = tab.out_switch
    out_input = tab.out_input
    route = tab.route
    groups = tab.groups
    K.seed_rng(run.seed)
    k = vc.k
    m = vc.m
    n_sw = route.shape[0]
    nodes = route.shape[1]
    n_in = n_sw * k
    n_links = n_in + nodes
    g_sw = np.arange(n_links) // k
    nq_ring = 2 * n_in * m             # VC buffers, then NIC queues (see arrays)
    qo_base = n_in * m
    nq = nq_ring + nodes * m
    pool = 2 * nodes * vc.nic_messages + 2 * n_in * m + 4 * n_links + 64
    # a NIC queue is a list linked through its packets (P_NEXT), so the message that becomes its head is read
    # from one row, Vtick (P_VT) included: a deep queue's next message has long left the cache
    pk, p_free = packets(pool)
    p_top = pool
    pkf = pk.view(np.float64)
    q_head = np.full(nq, -1, dtype=np.int64)
    q_tail = np.full(nq, -1, dtype=np.int64)
    rmask = vc.rmask
    nic_fifo = vc.sched == SCHED_FIFO
    fr_t, fr_s, credit_at, qin, qout, aux, q_dn, q_go, q_st, q_rt, hd, h_vt = arrays.vc_buffers(n_in, nodes, vc)
    (rdy, wheel, wmask, in_mask, out_mask, direct, dl, parked, park_in, nic_mask, prog, r_in, r_link,
     out_load, nic_count) = arrays.vc_links(n_in, nodes, vc, out_switch)
    xq, xq_gi, bo_i, bo_q, bo_s, xg, xo, xt, xc, xs, xnew = arrays.vc_crossbar(n_in, vc)
    s_row, s_k, heap_t, heap_c, heap_size, f_left, be_next, be_first = arrays.vc_sources(va, vc, nodes)
    n_streams = s_row.shape[0]
    frame_done = va.frame_done

    end_measure = run.warmup + run.slots
    total = end_measure + run.drain
    offered_flits = 0
    received_flits = 0
    stalled = 0
    n_trace = 0
    max_held = 0
    # Stability by part: real time by destination, and best effort apart (it can starve behind video)
    parts = K.parts(2 * nodes)
    for t in range(total):
        if t == run.warmup or t == end_measure or run.batches > 1:
            window(stats, run, t, offered_flits - received_flits)
        measuring = t >= run.warmup and t < end_measure
        moved = 0
        # V1. messages: the streams' regulators first, then best effort; each joins its NIC queue for its input VC
        while t < end_measure:
            if heap_size[0] > 0 and heap_t[0] < (t + 1) * n_streams:
                _, i = K.heap_pop(heap_t, heap_c, heap_size)
                r = s_row[i]
                j = s_k[i]
                flits = vc.msg_flits if j < va.f_msgs[r] - 1 else va.f_last[r]
                src = va.st_src[i]
                dest = va.st_dest[i]
                c_in = va.st_ivc[i]
                dvc = va.st_dvc[i]
                vt = va.f_spacing[r] / flits        # Vtick: message interval / its flits (§III-D)
                row = r
                # the 1e-9 keeps floor(k x spacing) exact where the product lands a hair below a whole cycle
                if j + 1 < va.f_msgs[r]:
                    s_k[i] = j + 1
                    due = va.f_start[r] + K.regulator_offset(j + 1, va.f_spacing[r])
                    K.heap_push(heap_t, heap_c, heap_size, due * n_streams + i, i)
                elif r + 1 < va.st_off[i + 1]:
                    s_row[i] = r + 1
                    s_k[i] = 0
                    K.heap_push(heap_t, heap_c, heap_size, va.f_start[r + 1] * n_streams + i, i)
            else:
                if be_first >= t + 1:
                    break
                src = -1
                for v in range(nodes):
                    if be_next[v] < t + 1:
                        src = v
                        break
                be_next[src] += K.start_gap(vc.be_rate, 1)
                be_first = be_next[0]
                for v in range(1, nodes):
                    be_first = min(be_first, be_next[v])
                dest = K.draw_node(src, nodes, vc.be_all)
                if vc.be_free:
                    c_in = vc.m_rt      # the NIC's one best-effort queue; VCs are taken free on the way
                    dvc = -1
                else:
                    c_in = vc.m_rt + int(np.random.random() * (m - vc.m_rt))
                    dvc = vc.m_rt + int(np.random.random() * (m - vc.m_rt))
                flits = vc.msg_flits
                vt = vc.be_vtick
                row = -1
            # Best effort may fill a NIC to NIC_MESSAGES; video (regulated, so bounded unless the router
            # cannot carry it) has as many again, so a flood of best effort never costs a frame.
            if not K.admit(stats, t, run.warmup, nic_count[src] < (2 if row >= 0 else 1) * vc.nic_messages, True):
                if row >= 0:
                    f_left[row] = -1 << 40      # a message lost: its frame is never delivered
                continue
            p_top -= 1
            pkt = p_free[p_top]
            pk[pkt, P_DEST] = dest
            pk[pkt, P_LEN] = flits
            pk[pkt, P_MSG] = row
            pk[pkt, P_GEN] = t
            pkf[pkt, P_VT] = vt
            pk[pkt, P_DVC] = dvc
            pk[pkt, P_NEXT] = -1
            offered_flits += flits
            stats[FLITS_OFFERED] += flits
            if measuring:
                stats[M_FLITS_OFFERED] += flits
                part = dest if row >= 0 else nodes + dest
                parts[0, part] += flits
                parts[1, part] += flits
            q = nq_ring + src * m + c_in
            if q_tail[q] >= 0:
                pk[q_tail[q], P_NEXT] = pkt
            else:
                # the head of its NIC queue: its message record
                q_head[q] = pkt
                hd[q, H_PKT] = pkt
                hd[q, H_SENT] = 0
                hd[q, H_LEN] = flits
                hd[q, H_BE] = 1 if row < 0 else 0
                h_vt[q] = vt
                hd[q, H_GEN] = t
                q_st[q] = nic_stamp(t, 0, vt, row < 0, nic_fifo, vc.be_flat, vc.be_vtick)
            q_tail[q] = pkt
            nic_count[src] += 1
            nic_mask[src] |= 1 << c_in

        ws = t & wmask
        for p in range(2 * n_in):
            b = wheel[ws, p]
            if b:
                wheel[ws, p] = 0
                rdy[p] |= b
                if p < n_in:
                    xnew[p] |= b        # flits now ready at an input

        # V2. crossbars, one router at a time; the candidates are kept as they change, as most wait several cycles
        for s in range(n_sw):
            nx = 0
            live = 0
            for i in range(k):
                gi = s * k + i
                mask = rdy[gi] & ~xg[gi]
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
                            free = hd[qo_base + g2 * m + dvc, H_PKT] < 0
                        else:
                            free = (vc.be_bits & ~out_mask[g2]) != 0
                        if free and out_load[g2] < least:
                            go = g2
                            least = out_load[g2]
                    bit = 1 << c
                    if go < 0:
                        rdy[gi] &= ~bit
                        park_in[gi] |= bit
                        while route_mask:
                            parked[(s * k + trailing_zeros(route_mask)) * k + i] |= bit
                            route_mask &= route_mask - 1
                        continue
                    if dvc < 0:
                        dvc = draw_bit(vc.be_bits & ~out_mask[go])
                    qo = qo_base + go * m + dvc
                    # the message in the output VC (a VC buffer's one message needs no entry)
                    hand_over(hd, h_vt, q_dn, aux, vc.per_message, pkt, q, qo)
                    q_go[q] = go
                    out_mask[go] |= 1 << dvc
                    # a candidate at once
                    xg[gi] |= bit
                    xt[gi * k + go - s * k] |= bit
                    xnew[gi] |= bit
                # VCs that may have become candidates (a flit ready, an output VC taken) join their (input,
                # output)'s best
                b = xnew[gi] & rdy[gi] & xg[gi]
                xnew[gi] = 0
                while b:
                    c = trailing_zeros(b)
                    b &= b - 1
                    q = gi * m + c
                    o = q_go[q] - s * k
                    if (xo[gi] >> o) & 1 == 0 or precedes(q_st[q], c, xs[gi * k + o], xc[gi * k + o]):
                        xc[gi * k + o] = c
                        xs[gi * k + o] = q_st[q]
                        xo[gi] |= 1 << o
                if vc.full:
                    mask = rdy[gi] & xg[gi]
                    while mask:
                        xq[nx] = gi * m + trailing_zeros(mask)
                        xq_gi[nx] = gi
                        nx += 1
                        mask &= mask - 1
                elif xo[gi]:
                    live |= 1 << i     # inputs with a flit to offer, not yet matched
            if not vc.full and live:
                # Matching: A by stamp, then B by stamp (b_stamp) or by ready cycle; repeated while that adds a
                # pair. An input's offer is the smallest of its per-output bests (xc, xs), ties to the lower VC.
                out_used = 0
                for _ in range(vc.iterations):
                    offered = 0
                    b = live
                    while b:
                        i = trailing_zeros(b)
                        b &= b - 1
                        gi = s * k + i
                        avail = xo[gi] & ~out_used
                        if avail == 0:
                            live &= ~(1 << i)       # its outputs are all taken: it cannot offer again
                            continue
                        o = trailing_zeros(avail)
                        avail &= avail - 1
                        best_s = xs[gi * k + o]
                        best_c = xc[gi * k + o]
                        # selects, not branches: which stamp is smaller is a coin toss a branch predictor loses
                        while avail:
                            o2 = trailing_zeros(avail)
                            avail &= avail - 1
                            s2 = xs[gi * k + o2]
                            c2 = xc[gi * k + o2]
                            take = precedes(s2, c2, best_s, best_c)
                            o = o2 if take else o
                            best_s = s2 if take else best_s
                            best_c = c2 if take else best_c
                        key = best_s if vc.b_stamp else q_rt[gi * m + best_c]
                        take = (((offered >> o) & 1) == 0) | (key < bo_s[o])
                        bo_q[o] = gi * m + best_c if take else bo_q[o]
                        bo_s[o] = key if take else bo_s[o]
                        bo_i[o] = i if take else bo_i[o]
                        offered |= 1 << o
                    if offered == 0:
                        break
                    while offered:
                        o = trailing_zeros(offered)
                        offered &= offered - 1
                        xq[nx] = bo_q[o]
                        xq_gi[nx] = s * k + bo_i[o]
                        nx += 1
                        live &= ~(1 << bo_i[o])
                        out_used |= 1 << o
                    if live == 0:
                        break
            for x in range(nx):
                # one flit across the crossbar: its input slot's credit goes back upstream, it reaches
                # the VC multiplexer (stage 5) in 2 cycles, stamped for it (a node's output behind a
                # multiplexed crossbar: into its delay line, unstamped)
                q = xq[x]
                gi = xq_gi[x]
                qo = q_dn[q]
                go = q_go[q]
                n_out = qout[q]
                slot = n_out & rmask
                fr_t[q, slot] = t + vc.credit
                if n_out == qin[q] - vc.cap:
                    credit_at[q] = t + vc.credit
                if vc.sched == SCHED_FGFQ:
                    r_in[gi] = fr_s[q, slot]
                n_out += 1
                qout[q] = n_out
                bit = 1 << (q - gi * m)
                if n_out == qin[q]:
                    rdy[gi] &= ~bit
                else:
                    ready = fr_t[q, n_out & rmask]
                    q_st[q] = fr_s[q, n_out & rmask]
                    q_rt[q] = ready
                    if ready > t + 1:
                        rdy[gi] &= ~bit
                        wheel[ready & wmask, gi] |= bit
                sent = hd[q, H_SENT] + 1
                hd[q, H_SENT] = sent
                if direct[go]:
                    dl[(t + 2) & 3, go] = qo
                else:
                    slot = qin[qo] & rmask
                    fr_t[qo, slot] = t + 2
                    # the VC multiplexer's stamps: the scheduler's with a full crossbar, else arrival order
                    st, aux[qo] = stamp(vc.sched if vc.full else SCHED_FIFO, t, aux[qo], r_link[go], h_vt[q],
                                         vc.be_flat and hd[q, H_BE], vc.be_vtick)
                    fr_s[qo, slot] = st
                    if qin[qo] == qout[qo]:
                        wheel[(t + 2) & wmask, n_in + go] |= 1 << (qo - qo_base - go * m)
                        q_st[qo] = st
                    qin[qo] += 1
                out_load[go] += 1
                moved += 1
                o = go - s * k
                if sent == hd[q, H_LEN]:
                    hd[q, H_PKT] = -1
                    q_dn[q] = -1
                    in_mask[gi] &= ~bit
                    xg[gi] &= ~bit
                    xt[gi * k + o] &= ~bit
                # its (input, output)'s best candidate again: it was that best, and its stamp changed or it left
                b = rdy[gi] & xg[gi] & xt[gi * k + o]
                if b == 0:
                    xo[gi] &= ~(1 << o)
                else:
                    c = trailing_zeros(b)
                    b &= b - 1
                    best_s = q_st[gi * m + c]
                    best_c = c
                    while b:
                        c = trailing_zeros(b)
                        b &= b - 1
                        s2 = q_st[gi * m + c]
                        take = s2 < best_s
                        best_s = s2 if take else best_s
                        best_c = c if take else best_c
                    xc[gi * k + o] = best_c
                    xs[gi * k + o] = best_s

        # V3. links: each output's VC multiplexer (C) and each node's NIC sends one flit
        for g in range(n_links):
            target = out_switch[g]
            if target == UNWIRED:
                continue
            if g < n_in and direct[g]:
                # a node's link behind a multiplexed crossbar: the flit that crossed 2 cycles ago, if one did
                q = dl[t & 3, g]
                if q < 0:
                    continue
                dl[t & 3, g] = -1
                c = q - qo_base - g * m
                gi2 = -1
                shared = m
                shared_ok = 0
            else:
                if g < n_in:
                    mask = rdy[n_in + g]
                    base = qo_base + g * m
                else:
                    mask = nic_mask[g - n_in]
                    base = nq_ring + (g - n_in) * m
                if mask == 0:
                    continue
                gi2 = target * k + out_input[g] if target >= 0 else -1
                # a NIC's best-effort queue when best effort takes any free VC (its head's downstream VC:
                # drawn as its header goes, kept in q_dn)
                shared = m if g < n_in or not vc.be_free else vc.m_rt
                shared_ok = 0
                if gi2 >= 0:
                    # a VC whose next message has not started waits while the downstream VC is held (the
                    # shared queue: while every best-effort VC is)
                    held = in_mask[gi2]
                    if shared < m and (vc.be_bits & ~held) != 0:
                        held &= ~(1 << shared)
                    mask &= prog[g] | ~held
                    if mask == 0:
                        continue
                best_q = -1
                best_s = np.inf
                while mask:
                    c = trailing_zeros(mask)
                    mask &= mask - 1
                    q = base + c
                    if c == shared and (prog[g] >> c) & 1 == 0:
                        # the free best-effort VCs downstream whose first slot's credit is back
                        free = vc.be_bits & ~in_mask[gi2]
                        shared_ok = 0
                        while free:
                            c2 = trailing_zeros(free)
                            free &= free - 1
                            q2 = gi2 * m + c2
                            if credit_at[q2] <= t:
                                shared_ok |= 1 << c2
                        if shared_ok == 0:
                            continue
                    elif gi2 >= 0:
                        q2 = gi2 * m + c if c != shared else q_dn[q]
                        if credit_at[q2] > t:
                            continue
                    st = q_st[q]
                    take = st < best_s
                    best_s = st if take else best_s
                    best_q = q if take else best_q
                if best_q < 0:
                    continue
                q = best_q
                c = q - base
                if vc.sched == SCHED_FGFQ:
                    r_link[g] = best_s
                if g < n_in:
                    n_out = qout[q] + 1
                    qout[q] = n_out
                    bit = 1 << c
                    if n_out == qin[q]:
                        rdy[n_in + g] &= ~bit
                    else:
                        ready = fr_t[q, n_out & rmask]
                        q_st[q] = fr_s[q, n_out & rmask]
                        if ready > t + 1:
                            rdy[n_in + g] &= ~bit
                            wheel[ready & wmask, n_in + g] |= bit
            if g < n_in:
                out_load[g] -= 1
            pkt = hd[q, H_PKT]
            sent = hd[q, H_SENT] + 1
            hd[q, H_SENT] = sent
            if g >= n_in and sent < hd[q, H_LEN]:
                q_st[q] = nic_stamp(hd[q, H_GEN], sent, h_vt[q], hd[q, H_BE], nic_fifo, vc.be_flat, vc.be_vtick)
            moved += 1
            arrive = t + vc.link
            if target == TO_NODE:
                # a message reaches its node in order on one VC: its flits received are those sent
                received_flits += 1
                stats[FLITS_RECEIVED] += 1
                if measuring:
                    stats[M_FLITS_RECEIVED] += 1
                    parts[1, out_input[g] + nodes * hd[q, H_BE]] -= 1
                if trace.shape[0] > 1 and n_trace < trace.shape[0]:
                    trace[n_trace, 0] = arrive
                    trace[n_trace, 1] = out_input[g]
                    trace[n_trace, 2] = pkt
                    trace[n_trace, 3] = sent
                    trace[n_trace, 4] = c
                    n_trace += 1
                if sent == hd[q, H_LEN]:
                    stats[K.STAT_DELIVERED] += 1
                    row = pk[pkt, P_MSG]
                    if row >= 0:
                        f_left[row] -= 1
                        if f_left[row] == 0:
                            frame_done[row] = arrive
                    elif t >= run.warmup:
                        stats[M_BE_MESSAGES] += 1
                        stats[M_BE_LATENCY_SUM] += arrive - pk[pkt, P_GEN]
                    if t >= run.warmup:
                        stats[K.STAT_M_DELIVERED] += 1
                        stats[K.STAT_M_LATENCY_SUM] += arrive - pk[pkt, P_GEN]
                        stats[K.STAT_M_LATENCY_COUNT] += 1
                    p_free[p_top] = pkt
                    p_top += 1
            else:
                q2 = q_dn[q]
                if q2 < 0:
                    # the header: the message in the downstream VC
                    c2 = draw_bit(shared_ok) if c == shared else c
                    q2 = gi2 * m + c2
                    hand_over(hd, h_vt, q_dn, aux, vc.per_message, pkt, q, q2)
                    in_mask[gi2] |= 1 << c2
                    prog[g] |= 1 << c
                slot = qin[q2] & rmask
                # stage 1 (and, for a header, routing and arbitration) before the crossbar
                ready = arrive + vc.body_wait + (vc.header_extra if sent == 1 else 0)
                fr_t[q2, slot] = ready
                st, aux[q2] = stamp(vc.sched, arrive, aux[q2], r_in[gi2], h_vt[q], vc.be_flat and hd[q, H_BE],
                                     vc.be_vtick)
                fr_s[q2, slot] = st
                if qin[q2] == qout[q2]:
                    wheel[ready & wmask, gi2] |= 1 << (q2 - gi2 * m)
                    q_st[q2] = st
                    q_rt[q2] = ready
                n2 = qin[q2] + 1
                qin[q2] = n2
                if n2 - qout[q2] >= vc.cap:
                    credit_at[q2] = 1 << 62
                elif n2 >= vc.cap:
                    credit_at[q2] = fr_t[q2, (n2 - vc.cap) & rmask]
                if qin[q2] - qout[q2] > max_held:
                    max_held = qin[q2] - qout[q2]
            if sent == hd[q, H_LEN]:
                prog[g] &= ~(1 << c)
                q_dn[q] = -1
                if g < n_in:
                    hd[q, H_PKT] = -1
                    out_mask[g] &= ~(1 << c)
                    s = g_sw[g]
                    for i in range(k):
                        b = parked[g * k + i] & park_in[s * k + i]
                        parked[g * k + i] = 0
                        if b:
                            rdy[s * k + i] |= b
                            park_in[s * k + i] &= ~b
                else:
                    # a NIC queue: its next message, if any, becomes the head
                    nic_count[g - n_in] -= 1
                    h = pk[q_head[q], P_NEXT]
                    q_head[q] = h
                    if h < 0:
                        q_tail[q] = -1
                        hd[q, H_PKT] = -1
                        nic_mask[g - n_in] &= ~(1 << c)
                    else:
                        p2 = h
                        hd[q, H_PKT] = p2
                        hd[q, H_SENT] = 0
                        hd[q, H_LEN] = pk[p2, P_LEN]
                        hd[q, H_BE] = 1 if pk[p2, P_MSG] < 0 else 0
                        h_vt[q] = pkf[p2, P_VT]
                        hd[q, H_GEN] = pk[p2, P_GEN]
                        q_st[q] = nic_stamp(pk[p2, P_GEN], 0, h_vt[q], hd[q, H_BE], nic_fifo, vc.be_flat,
                                            vc.be_vtick)

        if moved == 0 and offered_flits > received_flits:
            stalled += 1
            if stalled >= STALL_CYCLES:
                deadlock(stats, offered_flits - received_flits)
                break
        else:
            stalled = 0
    close_run(stats, run, parts, offered_flits - received_flits, max_held, vc.msg_flits)
    return n_trace
