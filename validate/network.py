"""Packet-level simulation of a fat tree of crosspoint-buffered output-queued switches.

Paper 003 (Kumar, Kale & Stunkel) §2-§4: k-ary n-trees of output-queued
switches with crosspoint buffers and credit flow control, point-to-point
permutations, multicast over the switches' spanning trees, and batches of
messages (the NAMD-like benchmark). Wiring and routes are those of
:mod:`switchq.solvers.fattree`; this module re-derives them with integer
arithmetic so the slot loop is pure Numba.

Time is slotted: one slot is one packet on a link (256 B at 10 Gb/s =
204.8 ns with Table 1's figures). A packet sent by an output in slot ``t``
can leave the next switch's output from slot ``t + link_delay_slots``
(cut-through: channel plus switch pipeline delay, rounded up to a slot); the
credit of a crosspoint buffer freed in slot ``t`` is usable upstream from
``t + credit_delay_slots``.

Switch: every input port owns ``crosspoint_cells`` packet buffers at every
output port (crosspoint buffering, §2). The sender upstream (a switch output
or the node's NIC) holds the credits of those buffers, so it must know which
output a packet will take at the next switch: routing is one hop ahead.
Going down the output is fixed; going up the sender picks the up port with
the most credits (ties at random): adaptive routing on credits. Each output
sends one packet per slot, the oldest (by arrival at this switch) among the
heads of its crosspoint buffers whose next hop has credit.

Multicast (§2.1-2.2): a packet climbs to the lowest switch that reaches all
its destinations, then descends the unique downward paths; at a switch where
the paths fork it enters every needed crosspoint at once (it crosses the
crossbar once), so its sender needs a credit for each. As on a single
switch (``validate.arch.multicast``), the credits of one arrival's copies go
back together when the last of them leaves the switch. A destination set
is a sorted list; a copy carries the slice of it below the port it takes,
so splitting at a fork is a scan, not a set operation.

Destinations: uniform traffic picks any other node; a permutation's fixed
points (bit reversal and transpose have some) send through their leaf
switch and back; a multicast set never holds its sender.

Nodes: each node's NIC keeps a FIFO of packets, sends one per slot when the
leaf switch's crosspoint has credit, and sinks packets at link rate. NIC
overheads (Table 1) are latency added outside the loop, not a limit on rate.

Counters use ``kernel.STAT_*``: a "packet" is a message of one packet,
delivered when its last copy reaches a node; ``STAT_M_COPIES`` counts
copies reaching nodes.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np
from numba import njit

from switchq.models import _check
from switchq.models.network import UP_ROUTINGS, FatTreeNetwork
from switchq.models.traffic import PERMUTATIONS, Traffic

from . import kernel as K
from .harness import RunSettings, _run_all, confidence_interval, replication_seeds

__all__ = ["NetworkResult", "simulate_network", "replicate_network", "run_batch", "tables", "NIC_QUEUE_PACKETS"]

# Packets a NIC's send queue holds; reaching it means the offered load exceeds what the network
# carries (the harness then flags the run unstable, as kernel.UNBOUNDED_CELLS does for a switch).
NIC_QUEUE_PACKETS = 1 << 10
# Sizes below this share of the fanout law's mass are never drawn (binomial tails).
_FANOUT_TAIL = 1e-12


def tables(tree):
    """Integer wiring of ``tree`` for the kernel.

    Returns ``(out_sw, out_in, reach, level, kpow)``: output port ``g = s P + p``
    (and NIC link ``S P + v``) leads to switch ``out_sw[g]``, input ``out_in[g]``
    (``out_sw = -1``: to node ``out_in``; ``-2``: unwired top up port); switch
    ``s = l W + w`` reaches node d iff ``d // k^(l+1) == reach[s]``.
    """
    k, n = tree.k, tree.n
    ports, width = 2 * k, tree.switches_per_level
    s_count = n * width
    out_sw = np.full(s_count * ports + tree.nodes, -2, dtype=np.int64)
    out_in = np.zeros_like(out_sw)
    reach = np.zeros(s_count, dtype=np.int64)
    level = np.zeros(s_count, dtype=np.int64)
    kpow = np.array([k ** i for i in range(n + 1)], dtype=np.int64)
    for lv in range(n):
        for w in range(width):
            s = lv * width + w
            reach[s] = w // kpow[lv]
            level[s] = lv
            for p in range(ports):
                g = s * ports + p
                if p < k:
                    if lv == 0:
                        out_sw[g], out_in[g] = -1, w * k + p
                    else:
                        # Down port p: the child whose digit lv-1 is p; we are on its up port k + our digit.
                        child = w + (p - (w // kpow[lv - 1]) % k) * kpow[lv - 1]
                        out_sw[g], out_in[g] = (lv - 1) * width + child, k + (w // kpow[lv - 1]) % k
                elif lv < n - 1:
                    parent = w + (p - k - (w // kpow[lv]) % k) * kpow[lv]
                    out_sw[g], out_in[g] = (lv + 1) * width + parent, (w // kpow[lv]) % k
    for v in range(tree.nodes):
        out_sw[s_count * ports + v], out_in[s_count * ports + v] = v // k, v % k
    return out_sw, out_in, reach, level, kpow


@njit(cache=True)
def _need(s, lo, hi, m_dest, mid, k, reach, level, kpow):
    """What a packet carrying destinations ``m_dest[mid, lo:hi]`` needs at switch ``s``.

    The mask of down ports whose subtrees hold them, or -1 if ``s`` does not
    reach them all (the packet climbs: any up port).
    """
    lv = level[s]
    div = kpow[lv + 1]
    if m_dest[mid, lo] // div != reach[s] or m_dest[mid, hi - 1] // div != reach[s]:
        return np.int64(-1)
    mask = np.int64(0)
    for a in range(lo, hi):
        mask |= np.int64(1) << ((m_dest[mid, a] // kpow[lv]) % k)
    return mask


@njit(cache=True)
def _grant(x0, need, k, credits, oblivious):
    """Take the credits a packet needs at the crosspoints ``x0 + port`` of its next switch.

    Returns the mask of ports it will enter there, or 0 if it must wait.
    Climbing (``need == -1``) takes the up port with the most credits, ties at
    random, or (``oblivious``) any up port with a credit, at random.
    """
    if need == -1:
        best = -1
        best_c = 0
        ties = 0
        for u in range(k, 2 * k):
            c = credits[x0 + u]
            if oblivious and c > 0:
                c = 1
            if c > best_c:
                best, best_c, ties = u, c, 1
            elif c == best_c and c > 0:
                ties += 1
                if np.random.random() * ties < 1.0:
                    best = u
        if best < 0:
            return np.int64(0)
        credits[x0 + best] -= 1
        return np.int64(1) << best
    m = need
    while m:
        p = K.popcount((m & -m) - 1)
        if credits[x0 + p] < 1:
            return np.int64(0)
        m &= m - 1
    m = need
    while m:
        p = K.popcount((m & -m) - 1)
        credits[x0 + p] -= 1
        m &= m - 1
    return need


@njit(cache=True)
def _run(k, n_levels, q, ld, cd, routing, out_sw, out_in, reach, level, kpow,
         load, kind, perm, size_cdf, f_cap,
         batch_src, batch_ready, batch_n, batch_dest,
         slots, warmup, drain, seed, stats, deliveries, log):
    """One replication. ``batch_src`` non-empty: no random arrivals, run the batch until it drains.

    ``kind``: 0 uniform unicast (any other node), 1 permutation ``perm``,
    2 multicast (sizes from ``size_cdf``, uniform subsets of the other nodes).
    ``deliveries[b]`` gets the slot the last copy of batch packet ``b`` arrived,
    and row ``c`` of ``log`` the packet, node and slot of the c-th copy delivered.
    """
    K.seed_rng(seed)
    oblivious = routing == 1
    # Fixed routes: the up port at level l is k + digit l of the packet's route word, a random node
    # ("source") or its (first) destination ("dmodk", the usual InfiniBand fat-tree routing).
    source = routing >= 2
    ports = 2 * k
    width = kpow[n_levels - 1]
    n_sw = n_levels * width
    nodes = kpow[n_levels]
    n_out = n_sw * ports
    n_links = n_out + nodes
    n_xp = n_out * ports
    qc = 1
    while qc < q:
        qc *= 2
    lr = 1
    while lr <= ld:
        lr *= 2
    cr = 1
    while cr <= cd:
        cr *= 2
    n_batch = batch_src.shape[0]
    batch = n_batch > 0
    nic_cap = NIC_QUEUE_PACKETS
    if batch:
        # Room for every batch packet of the busiest sender.
        per_node = np.zeros(nodes, dtype=np.int64)
        for b in range(n_batch):
            per_node[batch_src[b]] += 1
        while nic_cap < per_node.max():
            nic_cap *= 2
    # Copies in crosspoints are bounded by the credits, copies on links by one per link per slot.
    n_pk = n_xp * q + n_links * lr + nodes
    n_msg = n_batch if batch else nodes * nic_cap + n_pk
    # Packet (copy) pool: its message, slice of the message's destinations, arrival slot at
    # this switch, what it needs at the next switch, the ports it will enter there, its arrival group.
    c_msg = np.zeros(n_pk, dtype=np.int64)
    c_lo = np.zeros(n_pk, dtype=np.int64)
    c_hi = np.zeros(n_pk, dtype=np.int64)
    c_t = np.zeros(n_pk, dtype=np.int64)
    c_need = np.zeros(n_pk, dtype=np.int64)
    c_next = np.zeros(n_pk, dtype=np.int64)
    c_grp = np.zeros(n_pk, dtype=np.int64)
    c_free = np.arange(n_pk)[::-1].copy()
    c_nfree = n_pk
    # Arrival groups: copies left in the switch, their ports, the crosspoint row they sit in.
    g_left = np.zeros(n_pk, dtype=np.int64)
    g_mask = np.zeros(n_pk, dtype=np.int64)
    g_x0 = np.zeros(n_pk, dtype=np.int64)
    g_free = np.arange(n_pk)[::-1].copy()
    g_nfree = n_pk
    # Messages: birth (or ready) slot, destinations, copies still to deliver.
    m_birth = np.zeros(n_msg, dtype=np.int64)
    m_n = np.zeros(n_msg, dtype=np.int64)
    m_route = np.zeros(n_msg, dtype=np.int64)
    m_left = np.zeros(n_msg, dtype=np.int64)
    m_dest = np.zeros((n_msg, f_cap), dtype=np.int64)
    m_free = np.arange(n_msg)[::-1].copy()
    m_nfree = n_msg
    # NIC send queues (message ids), crosspoint FIFOs (copy ids), credits, links, credit returns.
    nic_q = np.zeros((nodes, nic_cap), dtype=np.int64)
    nic_head = np.zeros(nodes, dtype=np.int64)
    nic_len = np.zeros(nodes, dtype=np.int64)
    xp = np.zeros((n_xp, qc), dtype=np.int64)
    xp_head = np.zeros(n_xp, dtype=np.int64)
    xp_len = np.zeros(n_xp, dtype=np.int64)
    occupied = np.zeros(n_out, dtype=np.int64)
    credits = np.full(n_xp, q, dtype=np.int64)
    link = np.full((n_links, lr), -1, dtype=np.int64)
    cr_ring = np.zeros((cr, n_xp), dtype=np.int64)
    cr_len = np.zeros(cr, dtype=np.int64)
    scratch = np.zeros(nodes, dtype=np.int64)
    if batch:
        m_nfree = 0
        for b in range(n_batch):
            v = batch_src[b]
            m_birth[b] = batch_ready[b]
            m_n[b] = batch_n[b]
            m_left[b] = batch_n[b]
            for a in range(batch_n[b]):
                m_dest[b, a] = batch_dest[b, a]
            if source:
                m_route[b] = int(np.random.random() * nodes) if routing == 2 else m_dest[b, 0]
            nic_q[v, (nic_head[v] + nic_len[v]) & (nic_cap - 1)] = b
            nic_len[v] += 1
            stats[K.STAT_ARRIVED] += 1
            stats[K.STAT_COPIES_OWED] += batch_n[b]
    in_flight = 0
    end = warmup + slots
    t = 0
    while True:
        if batch:
            if stats[K.STAT_DELIVERED] == n_batch or t >= end:
                break
        else:
            if t == warmup:
                stats[K.STAT_BACKLOG_START] = nic_len.sum()
            if t == end:
                stats[K.STAT_BACKLOG_END] = nic_len.sum()
            if t >= end + drain:
                break
        measured_from = warmup if t < end else 1 << 62
        # Credits freed cd slots ago.
        r = t & (cr - 1)
        for a in range(cr_len[r]):
            credits[cr_ring[r, a]] += 1
        cr_len[r] = 0
        # Packets arriving at switches: into every crosspoint granted, slices split at forks.
        slot = t & (lr - 1)
        for g in range(n_links):
            pid = link[g, slot]
            if pid < 0:
                continue
            link[g, slot] = -1
            s = out_sw[g]
            x0 = (s * ports + out_in[g]) * ports
            mask = c_next[pid]
            g_nfree -= 1
            gid = g_free[g_nfree]
            g_left[gid] = K.popcount(mask)
            g_mask[gid] = mask
            g_x0[gid] = x0
            mid = c_msg[pid]
            lo = c_lo[pid]
            hi = c_hi[pid]
            lv = level[s]
            first = True
            m = mask
            while m:
                p = K.popcount((m & -m) - 1)
                m &= m - 1
                if first:
                    cid = pid
                    first = False
                else:
                    c_nfree -= 1
                    cid = c_free[c_nfree]
                    c_msg[cid] = mid
                    in_flight += 1
                if p < k and mask != (np.int64(1) << p):
                    # A fork: the slice of destinations below down port p.
                    a = lo
                    while (m_dest[mid, a] // kpow[lv]) % k != p:
                        a += 1
                    b = a
                    while b < hi and (m_dest[mid, b] // kpow[lv]) % k == p:
                        b += 1
                    c_lo[cid] = a
                    c_hi[cid] = b
                else:
                    c_lo[cid] = lo
                    c_hi[cid] = hi
                c_t[cid] = t
                c_grp[cid] = gid
                nxt = out_sw[s * ports + p]
                if nxt == -1:
                    c_need[cid] = 0
                else:
                    c_need[cid] = _need(nxt, c_lo[cid], c_hi[cid], m_dest, mid, k, reach, level, kpow)
                    if source and c_need[cid] == -1:
                        c_need[cid] = np.int64(1) << (k + (m_route[mid] // kpow[level[nxt]]) % k)
                x = x0 + p
                xp[x, (xp_head[x] + xp_len[x]) & (qc - 1)] = cid
                xp_len[x] += 1
                if xp_len[x] == 1:
                    occupied[s * ports + p] += 1
        # New packets into the NICs.
        if not batch and t < end:
            for v in range(nodes):
                if load < 1.0 and np.random.random() >= load:
                    continue
                if not K.admit(stats, t, warmup, nic_len[v] < nic_cap, True):
                    continue
                m_nfree -= 1
                mid = m_free[m_nfree]
                m_birth[mid] = t
                if kind == 0:
                    d = int(np.random.random() * (nodes - 1))
                    m_dest[mid, 0] = d + 1 if d >= v else d
                    m_n[mid] = 1
                elif kind == 1:
                    m_dest[mid, 0] = perm[v]
                    m_n[mid] = 1
                else:
                    u = np.random.random()
                    size = 0
                    while size < f_cap and size_cdf[size] <= u:
                        size += 1
                    # A uniform size-subset of the other nodes (partial shuffle), then sorted.
                    for a in range(nodes - 1):
                        scratch[a] = a if a < v else a + 1
                    for a in range(size):
                        b = a + int(np.random.random() * (nodes - 1 - a))
                        scratch[a], scratch[b] = scratch[b], scratch[a]
                        e = scratch[a]
                        c = a
                        while c > 0 and m_dest[mid, c - 1] > e:
                            m_dest[mid, c] = m_dest[mid, c - 1]
                            c -= 1
                        m_dest[mid, c] = e
                    m_n[mid] = size
                m_left[mid] = m_n[mid]
                if source:
                    m_route[mid] = int(np.random.random() * nodes) if routing == 2 else m_dest[mid, 0]
                stats[K.STAT_COPIES_OWED] += m_n[mid]
                nic_q[v, (nic_head[v] + nic_len[v]) & (nic_cap - 1)] = mid
                nic_len[v] += 1
        # NICs send their head packet when the leaf switch's crosspoint(s) have credit.
        for v in range(nodes):
            if nic_len[v] == 0:
                continue
            mid = nic_q[v, nic_head[v]]
            if m_birth[mid] > t:
                continue
            s = v // k
            x0 = (s * ports + v % k) * ports
            need = _need(s, 0, m_n[mid], m_dest, mid, k, reach, level, kpow)
            if source and need == -1:
                need = np.int64(1) << (k + m_route[mid] % k)
            mask = _grant(x0, need, k, credits, oblivious)
            if mask == 0:
                continue
            c_nfree -= 1
            pid = c_free[c_nfree]
            in_flight += 1
            c_msg[pid] = mid
            c_lo[pid] = 0
            c_hi[pid] = m_n[mid]
            c_next[pid] = mask
            link[n_out + v, (t + ld) & (lr - 1)] = pid
            nic_head[v] = (nic_head[v] + 1) & (nic_cap - 1)
            nic_len[v] -= 1
        # Every output sends the oldest eligible head of its crosspoints.
        for o in range(n_out):
            if occupied[o] == 0:
                continue
            s = o // ports
            nxt = out_sw[o]
            nx0 = (nxt * ports + out_in[o]) * ports
            best = -1
            best_t = 0
            ties = 0
            for i in range(ports):
                x = (s * ports + i) * ports + (o - s * ports)
                if xp_len[x] == 0:
                    continue
                cid = xp[x, xp_head[x]]
                if best >= 0 and c_t[cid] > best_t:
                    continue
                need = c_need[cid]
                if need > 0:
                    ok = True
                    m = need
                    while m:
                        p = K.popcount((m & -m) - 1)
                        if credits[nx0 + p] < 1:
                            ok = False
                            break
                        m &= m - 1
                    if not ok:
                        continue
                elif need < 0:
                    ok = False
                    for u in range(k, ports):
                        if credits[nx0 + u] > 0:
                            ok = True
                            break
                    if not ok:
                        continue
                if best < 0 or c_t[cid] < best_t:
                    best, best_t, ties = i, c_t[cid], 1
                else:
                    ties += 1
                    if np.random.random() * ties < 1.0:
                        best = i
            if best < 0:
                continue
            x = (s * ports + best) * ports + (o - s * ports)
            cid = xp[x, xp_head[x]]
            xp_head[x] = (xp_head[x] + 1) & (qc - 1)
            xp_len[x] -= 1
            if xp_len[x] == 0:
                occupied[o] -= 1
            gid = c_grp[cid]
            g_left[gid] -= 1
            if g_left[gid] == 0:
                # The last copy of this arrival left: all its buffers' credits go back together.
                rr = (t + cd) & (cr - 1)
                m = g_mask[gid]
                while m:
                    p = K.popcount((m & -m) - 1)
                    m &= m - 1
                    cr_ring[rr, cr_len[rr]] = g_x0[gid] + p
                    cr_len[rr] += 1
                g_free[g_nfree] = gid
                g_nfree += 1
            if nxt >= 0:
                c_next[cid] = _grant(nx0, c_need[cid], k, credits, oblivious)
                link[o, (t + ld) & (lr - 1)] = cid
                continue
            # Down to a node: it has the packet ld slots later.
            mid = c_msg[cid]
            c_free[c_nfree] = cid
            c_nfree += 1
            in_flight -= 1
            stats[K.STAT_COPIES] += 1
            if t >= measured_from:
                stats[K.STAT_M_COPIES] += 1
            if batch:
                c = stats[K.STAT_COPIES] - 1
                log[c, 0] = mid
                log[c, 1] = m_dest[mid, c_lo[cid]]
                log[c, 2] = t + ld
            m_left[mid] -= 1
            if m_left[mid] == 0:
                # Counted in the slot the last copy is sent (as copies are); latency to its arrival.
                done = t + ld
                if batch:
                    deliveries[mid] = done
                stats[K.STAT_DELIVERED] += 1
                if t >= measured_from:
                    stats[K.STAT_M_DELIVERED] += 1
                    if m_birth[mid] >= warmup:
                        stats[K.STAT_M_LATENCY_SUM] += done - m_birth[mid]
                        stats[K.STAT_M_LATENCY_COUNT] += 1
                if not batch:
                    m_free[m_nfree] = mid
                    m_nfree += 1
        t += 1
    queued = nic_len.sum() + in_flight
    stats[K.STAT_QUEUED] = queued
    out = 0
    for x in range(n_xp):
        out += q - credits[x]
    for r in range(cr):
        out -= cr_len[r]
    stats[K.STAT_CREDITS_OUT] = out
    return t


def _fanout_sizes(nodes, traffic):
    """(size_cdf, f_cap) of the destination-set size over the other ``nodes - 1`` nodes."""
    from switchq.solvers.multicast import fanout_pmf

    pmf = fanout_pmf(nodes - 1, traffic.fanout, traffic.fanout_distribution)
    cdf = np.cumsum(pmf)
    # Largest size worth storing: beyond it the law's tail is below _FANOUT_TAIL.
    f_cap = int(np.searchsorted(cdf, 1.0 - _FANOUT_TAIL)) + 1
    f_cap = min(f_cap, nodes - 1)
    cdf[f_cap:] = 1.0
    return cdf, f_cap


def _kernel_inputs(net: FatTreeNetwork, traffic: Traffic):
    tree = net.tree
    nodes = tree.nodes
    perm = np.zeros(nodes, dtype=np.int64)
    size_cdf = np.ones(1)
    f_cap = 1
    if traffic.fanout != 1.0:
        kind = 2
        size_cdf, f_cap = _fanout_sizes(nodes, traffic)
    elif traffic.pattern == "uniform":
        kind = 0
    else:
        kind = 1
        perm = traffic.permutation(nodes).astype(np.int64)
    return kind, perm, size_cdf, f_cap


_NO_BATCH = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
             np.zeros((0, 1), dtype=np.int64))


def replicate_network(net: FatTreeNetwork, traffic: Traffic, slots: int, warmup_slots: int, seed: int,
                      drain_slots: int = 0) -> np.ndarray:
    """Run one replication of steady traffic; return the int64 counter vector (``kernel.STAT_*``)."""
    kind, perm, size_cdf, f_cap = _kernel_inputs(net, traffic)
    out_sw, out_in, reach, level, kpow = tables(net.tree)
    stats = np.zeros(K.N_STATS, dtype=np.int64)
    _run(net.tree.k, net.tree.n, net.crosspoint_cells, net.timing.link_delay_slots, net.timing.credit_delay_slots,
         UP_ROUTINGS.index(net.up_routing), out_sw, out_in, reach, level, kpow, float(traffic.load), kind, perm, size_cdf, f_cap,
         *_NO_BATCH, slots, warmup_slots, drain_slots, seed, stats, np.zeros(1, dtype=np.int64),
         np.zeros((1, 3), dtype=np.int64))
    return stats


def run_batch(net: FatTreeNetwork, src, ready, dests, seed: int = 1, max_slots: int = 10**7):
    """Send a batch of packets through an idle network; return the slot each arrives at its last destination.

    ``src[b]`` sends packet b (to the sorted destination list ``dests[b]``) no
    earlier than slot ``ready[b]``; packets of one NIC go in list order.
    Returns ``(deliveries, log, stats)``; ``deliveries[b]`` is -1 if the batch did
    not drain within ``max_slots``; ``log`` has one row (packet, node, slot) per copy delivered.
    """
    nodes = net.tree.nodes
    n_batch = len(src)
    if n_batch == 0 or len(ready) != n_batch or len(dests) != n_batch:
        raise _check.InputError("src", src, "a non-empty list, as long as ready and dests")
    for b in range(n_batch):
        v = _check.integer("src", src[b], 0, nodes - 1)
        _check.integer("ready", ready[b], 0, max_slots)
        d = list(dests[b])
        if not d or len(set(d)) != len(d) or v in d or not all(0 <= x < nodes for x in d):
            raise _check.InputError("dests", dests[b], f"distinct nodes in [0, {nodes - 1}] other than the "
                                                       f"sender {v}, at least one")
    f_cap = max(len(d) for d in dests)
    batch_dest = np.zeros((n_batch, f_cap), dtype=np.int64)
    batch_n = np.zeros(n_batch, dtype=np.int64)
    for b, d in enumerate(dests):
        batch_dest[b, :len(d)] = sorted(d)
        batch_n[b] = len(d)
    out_sw, out_in, reach, level, kpow = tables(net.tree)
    stats = np.zeros(K.N_STATS, dtype=np.int64)
    deliveries = np.full(n_batch, -1, dtype=np.int64)
    log = np.full((int(batch_n.sum()), 3), -1, dtype=np.int64)
    _run(net.tree.k, net.tree.n, net.crosspoint_cells, net.timing.link_delay_slots, net.timing.credit_delay_slots,
         UP_ROUTINGS.index(net.up_routing), out_sw, out_in, reach, level, kpow, 0.0, 0, np.zeros(1, dtype=np.int64), np.ones(1), f_cap,
         np.asarray(src, dtype=np.int64), np.asarray(ready, dtype=np.int64), batch_n, batch_dest,
         max_slots, 0, 0, seed, stats, deliveries, log)
    return deliveries, log, stats


@dataclass(frozen=True)
class NetworkResult:
    """Steady-state figures of a fat-tree network with 95 % intervals, and what reproduces them.

    ``throughput``: packets delivered per node per slot (a multicast packet
    when its last copy arrives), comparable with ``load``;
    ``output_utilization``: packets (copies) reaching each node per slot.
    ``mean_latency`` is in slots from generation (NIC queueing included) to
    arrival at the last destination; ``mean_latency_ns`` converts it with
    the slot time and adds the NIC send and receive overheads.
    """

    network: FatTreeNetwork
    traffic: Traffic
    settings: RunSettings
    throughput: float
    throughput_ci95: tuple
    output_utilization: float
    output_utilization_ci95: tuple
    mean_latency: float
    mean_latency_ci95: tuple
    mean_latency_ns: float
    mean_latency_ns_ci95: tuple
    unstable: bool
    wall_seconds: float
    per_replication: dict = field(repr=False)

    def to_dict(self) -> dict:
        out = self.network.describe()
        out.update(self.traffic.describe())
        out.update(asdict(self.settings))
        for name in ("throughput", "throughput_ci95", "output_utilization", "output_utilization_ci95",
                     "mean_latency", "mean_latency_ci95", "mean_latency_ns", "mean_latency_ns_ci95",
                     "unstable", "wall_seconds"):
            v = getattr(self, name)
            out[name] = list(v) if isinstance(v, tuple) else v
        out["seeds"] = self.per_replication["seeds"]
        return out


def check_traffic(net: FatTreeNetwork, traffic: Traffic) -> None:
    """Reject traffic the network simulator does not model (one line, before any work)."""
    nodes = net.tree.nodes
    if traffic.pattern not in ("uniform",) + PERMUTATIONS:
        raise _check.InputError("pattern", traffic.pattern, "uniform, " + ", ".join(PERMUTATIONS) + " on a network")
    if traffic.arrivals != "bernoulli":
        raise _check.InputError("arrivals", traffic.arrivals, "bernoulli on a network")
    if traffic.active_inputs is not None:
        raise _check.InputError("active_inputs", traffic.active_inputs, "None on a network (every node sends)")
    try:
        if traffic.fanout != 1.0:
            if traffic.pattern != "uniform":
                raise _check.InputError("pattern", traffic.pattern, "uniform for multicast traffic")
            traffic.check_ports(nodes - 1)
        elif traffic.pattern in PERMUTATIONS:
            traffic.check_ports(nodes)
    except _check.InputError as e:
        if e.parameter != "n_ports":
            raise
        # The pattern is laid on the nodes, not on a switch's ports.
        raise _check.InputError("nodes", nodes, e.allowed) from None


def _unstable(rows, nodes) -> bool:
    """Did any replication's source backlog overflow, or grow by more than 1 % of the offered packets
    (plus one per node of noise) while measuring? Either means the load exceeds what the network carries."""
    growth = rows[:, K.STAT_BACKLOG_END] - rows[:, K.STAT_BACKLOG_START]
    return bool((rows[:, K.STAT_OVERFLOW] > 0).any() or (growth > 0.01 * rows[:, K.STAT_M_OFFERED] + nodes).any())


def simulate_network(net: FatTreeNetwork, traffic: Traffic, settings: RunSettings = RunSettings(),
                     progress: bool = False) -> NetworkResult:
    """Simulate ``net`` under ``traffic``; figures with 95 % Student-t intervals over replications.

    Examples
    --------
    >>> from switchq.models import Traffic
    >>> net = FatTreeNetwork.for_nodes(16, switch_ports=8)
    >>> r = simulate_network(net, Traffic(load=0.5, pattern="complement"),
    ...                      RunSettings(slots=2000, replications=2, seed=3))
    >>> round(r.throughput, 2), r.unstable
    (0.5, False)
    """
    check_traffic(net, traffic)
    seeds = replication_seeds(settings.seed, settings.replications)
    args = [(net, traffic, settings.slots, settings.warmup_slots, s) for s in seeds]
    t0 = time.perf_counter()
    rows = np.array(_run_all(args, settings.workers, progress,
                             f"{net.tree.name} {traffic.pattern} load {traffic.load:g}", replicate_network))
    wall = time.perf_counter() - t0
    nodes = net.tree.nodes
    measured = settings.slots
    tp = confidence_interval(rows[:, K.STAT_M_DELIVERED] / (nodes * measured))
    ut = confidence_interval(rows[:, K.STAT_M_COPIES] / (nodes * measured))
    with np.errstate(invalid="ignore", divide="ignore"):
        lat = rows[:, K.STAT_M_LATENCY_SUM] / rows[:, K.STAT_M_LATENCY_COUNT]
    lt = confidence_interval(lat)
    timing = net.timing
    overhead = timing.nic_send_ns + timing.nic_recv_ns
    lt_ns = tuple(v * timing.packet_ns + overhead for v in lt)
    return NetworkResult(
        network=net, traffic=traffic, settings=settings,
        throughput=tp[0], throughput_ci95=tp[1:], output_utilization=ut[0], output_utilization_ci95=ut[1:],
        mean_latency=lt[0], mean_latency_ci95=lt[1:], mean_latency_ns=lt_ns[0], mean_latency_ns_ci95=lt_ns[1:],
        unstable=_unstable(rows, nodes), wall_seconds=wall,
        per_replication={"throughput": (rows[:, K.STAT_M_DELIVERED] / (nodes * measured)).tolist(),
                         "mean_latency": lat.tolist(), "seeds": seeds})
