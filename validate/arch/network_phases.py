"""The steps of one slot of the fat-tree network (paper 003, Kumar, Kale & Stunkel §2-§4), in the slot's order.

Each is an ``@njit`` phase over the packed state of :mod:`switchq.validate.arch.network_state` (``d`` the
Dims, ``tab`` the topology's tables, ``st`` the NetState, modified in place), entered once a slot by
:func:`switchq.validate.arch.network._run` and inlined there (``inline="always"``):

1. :func:`return_credits` credits of crosspoint buffers freed ``cd`` slots ago are usable upstream again;
2. :func:`arrive` packets on links reach their switch and enter every crosspoint granted them, forking a
   multicast's destinations at the ports where their routes part (§2.1-2.2), each copy routed one hop
   ahead (what it needs at the next switch);
3. :func:`generate` new packets enter the NICs' send queues (Bernoulli arrivals; unicast, permutation or
   multicast destinations);
4. :func:`inject` each NIC sends its head packet when the leaf switch's crosspoint(s) grant credit;
5. :func:`send_outputs` each switch output sends the oldest eligible head of its crosspoints (§2): on to
   the next switch, taking the credits granted there, or down to a node (delivery).

:func:`load_batch` fills the NICs before a batch; :func:`account` closes the run. The order is the random
stream's: the same draws in the same order. The free stacks' tops are plain integers of the cycle loop,
passed in and returned, so they stay in registers.

A phase is entered once per slot and unpacks the few arrays it needs at its top; inside, the calls not
inlined are those the single function before these phases made too (credit_routing's ``needs`` and
``grant`` per packet, ``kernel.admit``, ``kernel.popcount``). Measured (CPU time, medians of 7, old and new
alternated; 256 nodes, 10,000 slots): load 0.8 +0.6 % (8 ports) and +0.6 % (32 ports), multicast fanout 8
+3.4 %, uniform load 0.1 +3.7 % (8 ports) and +1.5 % (32 ports). With the state as ~67 separate arrays it
ran 8-10 % slower at light load (a reference count per array per phase entry), and with an output's steps
as inline helpers called per output 12-19 % slower (:func:`send_outputs`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import kernel as K
from .credit_routing import candidates, grant, needs
from .network_state import (C_FREE, C_GRP, C_HI, C_LO, C_MSG, C_NEED, C_NEXT, C_T, COPIES, COPIES_OWED, CREDITS,
                            CREDITS_OUT, G_FREE, G_LEFT, G_MASK, G_X0, M_BIRTH, M_COPIES, M_COPIES_OWED, M_FREE,
                            M_LEFT, M_N, M_ROUTE, NIC_HEAD, NIC_LEN, OCCUPIED, SCRATCH, XP_HEAD, XP_LEN)


@njit(cache=True, inline="always")
def return_credits(t, d, st):
    """Phase 1: the crosspoints listed in the credit ring for slot ``t`` get their credit back (it was freed
    ``cd`` slots ago, §2 credits), and the ring entry is emptied."""
    ring, xs = st.ring, st.xs
    r = t & (d.cr - 1)
    for a in range(1, ring[r, 0] + 1):
        xs[CREDITS, ring[r, a]] += 1
    ring[r, 0] = 0


@njit(cache=True, inline="always")
def arrive(t, d, tab, st, c_top, g_top):
    """Phase 2: copies on links arriving in slot ``t`` enter every crosspoint granted them at their switch.

    One arrival is one group (its buffers' credits go back together once it is dispatched, §2); at a fork
    each extra port gets a new copy carrying the slice of destinations below it (contiguous on a tree: a
    scan). Each copy
    records its arrival slot and what it needs at the next switch (routing one hop ahead, §2: the ports
    its fixed routes take there, or ``~candidates`` where it climbs; a source route fixes the climb).
    Returns the pools' new tops ``(c_top, g_top)``.
    """
    pool, dest, msgs, xs, xq, link = st.pool, st.dest, st.msgs, st.xs, st.xq, st.link
    out_sw, out_in = tab.out_switch, tab.out_input     # bound once: an attribute read in a loop costs a refcount
    ports = d.ports
    qc = d.qc
    slot = t & (d.lr - 1)
    for g in range(d.n_links):
        pid = link[g, slot]
        if pid < 0:
            continue
        link[g, slot] = -1
        s = out_sw[g]
        x0 = (s * ports + out_in[g]) * ports
        mask = pool[C_NEXT, pid]
        g_top -= 1
        gid = pool[G_FREE, g_top]
        pool[G_LEFT, gid] = K.popcount(mask)
        pool[G_MASK, gid] = mask
        pool[G_X0, gid] = x0
        mid = pool[C_MSG, pid]
        lo = pool[C_LO, pid]
        hi = pool[C_HI, pid]
        first = True
        m = mask
        while m:
            p = K.lowest_bit(m)
            m &= m - 1
            if first:
                cid = pid
                first = False
            else:
                c_top -= 1
                cid = pool[C_FREE, c_top]
                pool[C_MSG, cid] = mid
            if mask != (np.int64(1) << p):
                # A fork: the slice of destinations routed through port p.
                here = np.int64(1) << p
                a = lo
                while candidates(s, dest[mid, a], tab) != here:
                    a += 1
                b = a
                while b < hi and candidates(s, dest[mid, b], tab) == here:
                    b += 1
                pool[C_LO, cid] = a
                pool[C_HI, cid] = b
            else:
                pool[C_LO, cid] = lo
                pool[C_HI, cid] = hi
            pool[C_T, cid] = t
            pool[C_GRP, cid] = gid
            nxt = out_sw[s * ports + p]
            if nxt == -1:
                pool[C_NEED, cid] = 0
            else:
                need = needs(nxt, pool[C_LO, cid], pool[C_HI, cid], dest, mid, tab)
                if d.source and need < 0:
                    need = np.int64(1) << tab.source_port[tab.stage[nxt], msgs[M_ROUTE, mid]]
                pool[C_NEED, cid] = need
            x = x0 + p
            xq[x, (xs[XP_HEAD, x] + xs[XP_LEN, x]) & (qc - 1)] = cid
            xs[XP_LEN, x] += 1
            if xs[XP_LEN, x] == 1:
                xs[OCCUPIED, s * ports + p] += 1
    return c_top, g_top


@njit(cache=True, inline="always")
def generate(t, d, src, warmup, stats, parts, st, m_top):
    """Phase 3: each node offers a new message with probability ``src.load``, admitted if its NIC queue has
    room. Returns the message pool's new top.

    Its destinations: any other node (``K.DEST_UNIFORM``), ``src.perm[v]``, or a uniform subset of the
    other nodes of a size drawn from ``src.size_cdf`` (a multicast set never holds its sender); then a
    source route's word (a random node, or the first destination for d-mod-k).
    """
    msgs, dest, nics, nic_q = st.msgs, st.dest, st.nics, st.nic_q
    perm, size_cdf = src.perm, src.size_cdf
    nodes = d.nodes
    kind = src.kind
    for v in range(nodes):
        if not K.bernoulli(src.load):
            continue
        if not K.admit(stats, t, warmup, nics[NIC_LEN, v] < d.nic_cap, True):
            continue
        m_top -= 1
        mid = msgs[M_FREE, m_top]
        msgs[M_BIRTH, mid] = t
        if kind == K.DEST_UNIFORM:
            e = int(np.random.random() * (nodes - 1))
            dest[mid, 0] = e + 1 if e >= v else e
            msgs[M_N, mid] = 1
        elif kind == K.DEST_PERMUTATION:
            dest[mid, 0] = perm[v]
            msgs[M_N, mid] = 1
        else:
            size = K.draw_index(size_cdf, src.f_cap)
            # A uniform size-subset of the other nodes (partial shuffle of the scratch row), kept sorted.
            for a in range(nodes - 1):
                nics[SCRATCH, a] = a if a < v else a + 1
            for a in range(size):
                b = a + int(np.random.random() * (nodes - 1 - a))
                nics[SCRATCH, a], nics[SCRATCH, b] = nics[SCRATCH, b], nics[SCRATCH, a]
                e = nics[SCRATCH, a]
                c = a
                while c > 0 and dest[mid, c - 1] > e:
                    dest[mid, c] = dest[mid, c - 1]
                    c -= 1
                dest[mid, c] = e
            msgs[M_N, mid] = size
        msgs[M_LEFT, mid] = msgs[M_N, mid]
        if d.source:
            msgs[M_ROUTE, mid] = int(np.random.random() * nodes) if d.source_random else dest[mid, 0]
        stats[COPIES_OWED] += msgs[M_N, mid]
        if t >= warmup:
            stats[M_COPIES_OWED] += msgs[M_N, mid]
        # Parts are the destination nodes: the copies owed to each.
        for a in range(msgs[M_N, mid]):
            K.part_offered(parts, dest[mid, a], t, warmup, True)
        nic_q[v, (nics[NIC_HEAD, v] + nics[NIC_LEN, v]) & (d.nic_cap - 1)] = mid
        nics[NIC_LEN, v] += 1
    return m_top


@njit(cache=True, inline="always")
def load_batch(d, batch, stats, st):
    """Before a batch: its packets become messages ``0..n-1``, in their senders' NIC queues in list order (each
    with its source route's word drawn, if routes are fixed at the source)."""
    msgs, dest, nics, nic_q = st.msgs, st.dest, st.nics, st.nic_q
    for b in range(batch.src.shape[0]):
        v = batch.src[b]
        msgs[M_BIRTH, b] = batch.ready[b]
        msgs[M_N, b] = batch.n[b]
        msgs[M_LEFT, b] = batch.n[b]
        for a in range(batch.n[b]):
            dest[b, a] = batch.dest[b, a]
        if d.source:
            msgs[M_ROUTE, b] = int(np.random.random() * d.nodes) if d.source_random else dest[b, 0]
        nic_q[v, (nics[NIC_HEAD, v] + nics[NIC_LEN, v]) & (d.nic_cap - 1)] = b
        nics[NIC_LEN, v] += 1
        stats[K.STAT_ARRIVED] += 1
        stats[COPIES_OWED] += batch.n[b]


@njit(cache=True, inline="always")
def inject(t, d, tab, st, c_top):
    """Phase 4: each NIC sends its head message (if ready by slot ``t``) when the leaf switch's crosspoint(s)
    grant the credits it needs there: a copy carrying all its destinations goes on the node's link,
    arriving ``ld`` slots later. Returns the copy pool's new top."""
    pool, msgs, dest, nics, nic_q, link = st.pool, st.msgs, st.dest, st.nics, st.nic_q, st.link
    credits = st.xs[CREDITS]
    out_sw, out_in = tab.out_switch, tab.out_input
    n_out = d.n_out
    nic_len = nics[NIC_LEN]
    for v in range(d.nodes):
        if nic_len[v] == 0:
            continue
        mid = nic_q[v, nics[NIC_HEAD, v]]
        if msgs[M_BIRTH, mid] > t:
            continue
        s = out_sw[n_out + v]
        x0 = (s * d.ports + out_in[n_out + v]) * d.ports
        need = needs(s, 0, msgs[M_N, mid], dest, mid, tab)
        if d.source and need < 0:
            need = np.int64(1) << tab.source_port[tab.stage[s], msgs[M_ROUTE, mid]]
        mask = grant(x0, need, credits, d.oblivious)
        if mask == 0:
            continue
        c_top -= 1
        pid = pool[C_FREE, c_top]
        pool[C_MSG, pid] = mid
        pool[C_LO, pid] = 0
        pool[C_HI, pid] = msgs[M_N, mid]
        pool[C_NEXT, pid] = mask
        link[n_out + v, (t + d.ld) & (d.lr - 1)] = pid
        nics[NIC_HEAD, v] = (nics[NIC_HEAD, v] + 1) & (d.nic_cap - 1)
        nics[NIC_LEN, v] -= 1
    return c_top


@njit(cache=True, inline="always")
def send_outputs(t, measured_from, d, tab, stats, parts, st, out, c_top, g_top, m_top):
    """Phase 5: every switch output, in order, sends one head of its crosspoints on to the next switch or down
    to a node. Returns the pools' new tops ``(c_top, g_top, m_top)``.

    Arbitration: the oldest head (arrival slot at this switch) whose next hop has credit (every fixed
    port it needs, or one candidate of a choice), ties at random. Departure: the last copy of an arrival
    group to leave sends the group's credits back, usable ``cd`` slots later (§2: "when ever the next switch
    dispatches a packet it sends back the credits"). Forwarding: the copy
    takes the credits granted it at the next switch (:func:`credit_routing.grant`) and the link (``ld``
    slots). Delivery: a copy reaching a node is counted (in a batch, logged in ``out.log``); the message's
    last copy delivers it (``out.deliveries``), counted in this slot, latency to its arrival ``ld`` slots on.

    The four steps stay written out in one loop body. As inline helpers called per output (arbitrate,
    depart, deliver) every number was the same but the kernel ran 12-19 % slower (CPU time, medians of 7,
    old and new alternated, the four bench cases and uniform load 0.1), and with deliver alone a helper
    about 4 %.
    """
    pool, msgs, dest, xs, xq, link, ring = st.pool, st.msgs, st.dest, st.xs, st.xq, st.link, st.ring
    credits, occupied = xs[CREDITS], xs[OCCUPIED]
    deliveries, log, batched = out.deliveries, out.log, out.batched
    out_sw, out_in = tab.out_switch, tab.out_input
    ports = d.ports
    for o in range(d.n_out):
        if occupied[o] == 0:
            continue
        s = o // ports
        nxt = out_sw[o]
        nx0 = (nxt * ports + out_in[o]) * ports
        # Arbitration.
        best = -1
        best_t = 0
        ties = 0
        for i in range(ports):
            x = (s * ports + i) * ports + (o - s * ports)
            if xs[XP_LEN, x] == 0:
                continue
            cid = xq[x, xs[XP_HEAD, x]]
            if best >= 0 and pool[C_T, cid] > best_t:
                continue
            need = pool[C_NEED, cid]
            if need > 0:
                ok = True
                m = need
                while m:
                    if credits[nx0 + K.lowest_bit(m)] < 1:
                        ok = False
                        break
                    m &= m - 1
                if not ok:
                    continue
            elif need < 0:
                ok = False
                m = ~need
                while m:
                    if credits[nx0 + K.lowest_bit(m)] > 0:
                        ok = True
                        break
                    m &= m - 1
                if not ok:
                    continue
            if best < 0 or pool[C_T, cid] < best_t:
                best, best_t, ties = i, pool[C_T, cid], 1
            else:
                ties += 1
                if np.random.random() * ties < 1.0:
                    best = i
        if best < 0:
            continue
        # Departure.
        x = (s * ports + best) * ports + (o - s * ports)
        cid = xq[x, xs[XP_HEAD, x]]
        xs[XP_HEAD, x] = (xs[XP_HEAD, x] + 1) & (d.qc - 1)
        xs[XP_LEN, x] -= 1
        if xs[XP_LEN, x] == 0:
            occupied[o] -= 1
        gid = pool[C_GRP, cid]
        pool[G_LEFT, gid] -= 1
        if pool[G_LEFT, gid] == 0:
            # The last copy of this arrival left: all its buffers' credits go back together.
            rr = (t + d.cd) & (d.cr - 1)
            m = pool[G_MASK, gid]
            while m:
                p = K.lowest_bit(m)
                m &= m - 1
                ring[rr, 0] += 1
                ring[rr, ring[rr, 0]] = pool[G_X0, gid] + p
            pool[G_FREE, g_top] = gid
            g_top += 1
        if nxt >= 0:
            # Forwarding.
            pool[C_NEXT, cid] = grant(nx0, pool[C_NEED, cid], credits, d.oblivious)
            link[o, (t + d.ld) & (d.lr - 1)] = cid
            continue
        # Delivery: down to a node, which has the packet ld slots later.
        mid = pool[C_MSG, cid]
        pool[C_FREE, c_top] = cid
        c_top += 1
        node = dest[mid, pool[C_LO, cid]]
        stats[COPIES] += 1
        if t >= measured_from:
            stats[M_COPIES] += 1
        K.part_left(parts, node, t, measured_from)
        if batched:
            c = stats[COPIES] - 1
            log[c, 0] = mid
            log[c, 1] = node
            log[c, 2] = t + d.ld
        msgs[M_LEFT, mid] -= 1
        if msgs[M_LEFT, mid] == 0:
            # Counted in the slot the last copy is sent (as copies are); latency to its arrival.
            done = t + d.ld
            if batched:
                deliveries[mid] = done
            stats[K.STAT_DELIVERED] += 1
            if t >= measured_from:
                stats[K.STAT_M_DELIVERED] += 1
                stats[K.STAT_M_LATENCY_SUM] += done - msgs[M_BIRTH, mid]
                stats[K.STAT_M_LATENCY_COUNT] += 1
            if not batched:
                msgs[M_FREE, m_top] = mid
                m_top += 1
    return c_top, g_top, m_top


@njit(cache=True)
def account(d, stats, parts, st):
    """After the last slot: messages not yet at all their destinations (wherever their copies are), the worst
    part, and the credits not back (held by senders' packets or still in the credit ring)."""
    msgs, xs, ring = st.msgs, st.xs, st.ring
    queued = 0
    for mid in range(msgs.shape[1]):
        if msgs[M_LEFT, mid] > 0:
            queued += 1
    stats[K.STAT_QUEUED] = queued
    K.keep_worst_part(stats, parts, 1.0)
    owed = 0
    for x in range(d.n_xp):
        owed += d.q - xs[CREDITS, x]
    for r in range(d.cr):
        owed -= ring[r, 0]
    stats[CREDITS_OUT] = owed
