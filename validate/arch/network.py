"""Packet-level simulation of a network of crosspoint-buffered output-queued switches with credits.

Paper 003 (Kumar, Kale & Stunkel) §2-§4: fat trees of output-queued switches
with crosspoint buffers and credits; permutations, multicast over the
spanning trees, batches of messages (the NAMD-like benchmark). The kernel
reads a topology's tables (:mod:`switchq.models.topology`) and nothing else
about its shape, so any topology there runs here.

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
Where the route is fixed (going down a tree) the output is the route's;
where it offers a choice (going up) the sender picks the candidate port with
the most credits (ties at random): adaptive routing on credits. Each output
sends one packet per slot, the oldest (by arrival at this switch) among the
heads of its crosspoint buffers whose next hop has credit.

Multicast (§2.1-2.2): a packet climbs to the lowest switch that reaches all
its destinations, then descends the unique downward paths; at a switch where
the paths fork it enters every needed crosspoint at once (it crosses the
crossbar once), so its sender needs a credit for each. As on a single
switch (``validate.arch.multicast``), the credits of one arrival's copies go
back together when the last of them leaves the switch. A destination set
is a sorted list; a copy carries the slice of it below the port it takes
(contiguous on a tree), so splitting at a fork is a scan, not a set operation.

Destinations: uniform traffic picks any other node; a permutation's fixed
points (bit reversal and transpose have some) loop through their leaf
switch; a multicast set never holds its sender. Each node's NIC keeps a
FIFO, sends one packet per slot when the leaf switch's crosspoint has credit
and sinks packets at link rate; NIC overheads (Table 1) are latency added
outside the loop.

Counters: a "packet" is a message of one packet, delivered when its last
copy reaches a node (``queued``: those not yet at all their destinations);
the extras count copies reaching nodes, copies owed, the copies owed and
not yet delivered when measuring starts and ends (the whole network's
backlog, for the stability rule), and credits not back at the end.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from switchq.models import _check
from switchq.models.fanout import fanout_pmf

from .. import kernel as K
from .credit_routing import candidates, grant, needs

__all__ = ["replicate", "run_batch", "LAYOUT", "ROUTINGS", "NIC_QUEUE_PACKETS"]

LAYOUT = K.Layout(("copies", "m_copies", "copies_owed", "m_copies_owed", "backlog_start", "backlog_end",
                   "credits_out"))
# copies_owed: destinations of the packets offered (m_: while measuring). backlog_start, backlog_end:
# copies owed and not yet delivered, wherever they are (NICs, crosspoint buffers, links), when measuring
# starts and when it ends.
COPIES, M_COPIES, COPIES_OWED, M_COPIES_OWED, BACKLOG_START, BACKLOG_END, CREDITS_OUT = (
    LAYOUT.index(name) for name in ("copies", "m_copies", "copies_owed", "m_copies_owed", "backlog_start",
                                    "backlog_end", "credits_out"))

# How a packet picks among candidate ports: most credits; at random among those with a credit; or a
# route fixed at the source (a random route word, or d-mod-k: the destination as the route word).
ROUTINGS = {"adaptive": 0, "random": 1, "source": 2, "dmodk": 3}
ADAPTIVE, RANDOM, SOURCE, DMODK = (ROUTINGS[r] for r in ("adaptive", "random", "source", "dmodk"))

# Packets a NIC's send queue holds; reaching it means the offered load exceeds what the network
# carries (the harness then flags the run unstable, as kernel.UNBOUNDED_CELLS does for a switch).
NIC_QUEUE_PACKETS = 1 << 10
# Sizes below this share of the fanout law's mass are never drawn (binomial tails).
_FANOUT_TAIL = 1e-12

# What the kernel reads: buffers and delays, the topology's tables, the sources, a batch (or none).
NetArgs = namedtuple("NetArgs", "q link_delay credit_delay routing")
Tables = namedtuple("Tables", "out_switch out_input route groups stage source_port ports")
Sources = namedtuple("Sources", "load kind perm size_cdf f_cap")
Batch = namedtuple("Batch", "src ready n dest")


@njit(cache=True)
def _run(net, tab, src, batch, run, stats, deliveries, log, parts):
    """One replication. ``batch.src`` non-empty: no random arrivals, run the batch until it drains.

    ``src.kind``: ``K.DEST_UNIFORM`` unicast (any other node), ``K.DEST_PERMUTATION``
    ``src.perm``, ``K.DEST_MULTICAST`` (sizes from ``src.size_cdf``, uniform subsets of
    the other nodes). ``deliveries[b]`` gets the slot the last copy of batch packet
    ``b`` arrived, and row ``c`` of ``log`` the packet, node and slot of the c-th copy
    delivered.
    """
    K.seed_rng(run.seed)
    q, ld, cd, routing = net
    oblivious = routing == RANDOM
    # Fixed routes: where a route offers a choice, the port is the source route's for the packet's
    # route word, a random node ("source") or its (first) destination ("dmodk", the usual InfiniBand
    # fat-tree routing).
    source = routing == SOURCE or routing == DMODK
    out_sw, out_in, ports = tab.out_switch, tab.out_input, tab.ports
    n_sw, nodes = tab.route.shape
    load, kind, f_cap = src.load, src.kind, src.f_cap
    slots, warmup, drain = run.slots, run.warmup, run.drain
    batch_src = batch.src
    n_out = n_sw * ports
    n_links = n_out + nodes
    n_xp = n_out * ports
    qc = K.pow2_at_least(q)
    lr = K.pow2_at_least(ld + 1)
    cr = K.pow2_at_least(cd + 1)
    n_batch = batch_src.shape[0]
    batched = n_batch > 0
    nic_cap = NIC_QUEUE_PACKETS
    if batched:
        # Room for every batch packet of the busiest sender.
        per_node = np.zeros(nodes, dtype=np.int64)
        for b in range(n_batch):
            per_node[batch_src[b]] += 1
        while nic_cap < per_node.max():
            nic_cap *= 2
    # Copies in crosspoints are bounded by the credits, copies on links by one per link per slot.
    n_pk = n_xp * q + n_links * lr + nodes
    n_msg = n_batch if batched else nodes * nic_cap + n_pk
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
    if batched:
        m_nfree = 0
        for b in range(n_batch):
            v = batch_src[b]
            m_birth[b] = batch.ready[b]
            m_n[b] = batch.n[b]
            m_left[b] = batch.n[b]
            for a in range(batch.n[b]):
                m_dest[b, a] = batch.dest[b, a]
            if source:
                m_route[b] = int(np.random.random() * nodes) if routing == SOURCE else m_dest[b, 0]
            nic_q[v, (nic_head[v] + nic_len[v]) & (nic_cap - 1)] = b
            nic_len[v] += 1
            stats[K.STAT_ARRIVED] += 1
            stats[COPIES_OWED] += batch.n[b]
    end = warmup + slots
    t = 0
    while True:
        if batched:
            if stats[K.STAT_DELIVERED] == n_batch or t >= end:
                break
        else:
            if t == warmup:
                stats[BACKLOG_START] = stats[COPIES_OWED] - stats[COPIES]
            if t == end:
                stats[BACKLOG_END] = stats[COPIES_OWED] - stats[COPIES]
            if t >= end + drain:
                break
        K.mark_batch(stats, t, run)
        measured_from = warmup if t < end else K.NEVER
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
            first = True
            m = mask
            while m:
                p = K.lowest_bit(m)
                m &= m - 1
                if first:
                    cid = pid
                    first = False
                else:
                    c_nfree -= 1
                    cid = c_free[c_nfree]
                    c_msg[cid] = mid
                if mask != (np.int64(1) << p):
                    # A fork: the slice of destinations routed through port p.
                    here = np.int64(1) << p
                    a = lo
                    while candidates(s, m_dest[mid, a], tab) != here:
                        a += 1
                    b = a
                    while b < hi and candidates(s, m_dest[mid, b], tab) == here:
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
                    c_need[cid] = needs(nxt, c_lo[cid], c_hi[cid], m_dest, mid, tab)
                    if source and c_need[cid] < 0:
                        c_need[cid] = np.int64(1) << tab.source_port[tab.stage[nxt], m_route[mid]]
                x = x0 + p
                xp[x, (xp_head[x] + xp_len[x]) & (qc - 1)] = cid
                xp_len[x] += 1
                if xp_len[x] == 1:
                    occupied[s * ports + p] += 1
        # New packets into the NICs.
        if not batched and t < end:
            for v in range(nodes):
                if not K.bernoulli(load):
                    continue
                if not K.admit(stats, t, warmup, nic_len[v] < nic_cap, True):
                    continue
                m_nfree -= 1
                mid = m_free[m_nfree]
                m_birth[mid] = t
                if kind == K.DEST_UNIFORM:
                    d = int(np.random.random() * (nodes - 1))
                    m_dest[mid, 0] = d + 1 if d >= v else d
                    m_n[mid] = 1
                elif kind == K.DEST_PERMUTATION:
                    m_dest[mid, 0] = src.perm[v]
                    m_n[mid] = 1
                else:
                    size = K.draw_index(src.size_cdf, f_cap)
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
                    m_route[mid] = int(np.random.random() * nodes) if routing == SOURCE else m_dest[mid, 0]
                stats[COPIES_OWED] += m_n[mid]
                if t >= warmup:
                    stats[M_COPIES_OWED] += m_n[mid]
                # Parts are the destination nodes: the copies owed to each.
                for a in range(m_n[mid]):
                    K.part_offered(parts, m_dest[mid, a], t, warmup, True)
                nic_q[v, (nic_head[v] + nic_len[v]) & (nic_cap - 1)] = mid
                nic_len[v] += 1
        # NICs send their head packet when the leaf switch's crosspoint(s) have credit.
        for v in range(nodes):
            if nic_len[v] == 0:
                continue
            mid = nic_q[v, nic_head[v]]
            if m_birth[mid] > t:
                continue
            s = out_sw[n_out + v]
            x0 = (s * ports + out_in[n_out + v]) * ports
            need = needs(s, 0, m_n[mid], m_dest, mid, tab)
            if source and need < 0:
                need = np.int64(1) << tab.source_port[tab.stage[s], m_route[mid]]
            mask = grant(x0, need, credits, oblivious)
            if mask == 0:
                continue
            c_nfree -= 1
            pid = c_free[c_nfree]
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
                        p = K.lowest_bit(m)
                        if credits[nx0 + p] < 1:
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
                    p = K.lowest_bit(m)
                    m &= m - 1
                    cr_ring[rr, cr_len[rr]] = g_x0[gid] + p
                    cr_len[rr] += 1
                g_free[g_nfree] = gid
                g_nfree += 1
            if nxt >= 0:
                c_next[cid] = grant(nx0, c_need[cid], credits, oblivious)
                link[o, (t + ld) & (lr - 1)] = cid
                continue
            # Down to a node: it has the packet ld slots later.
            mid = c_msg[cid]
            c_free[c_nfree] = cid
            c_nfree += 1
            stats[COPIES] += 1
            if t >= measured_from:
                stats[M_COPIES] += 1
            K.part_left(parts, m_dest[mid, c_lo[cid]], t, measured_from)
            if batched:
                c = stats[COPIES] - 1
                log[c, 0] = mid
                log[c, 1] = m_dest[mid, c_lo[cid]]
                log[c, 2] = t + ld
            m_left[mid] -= 1
            if m_left[mid] == 0:
                # Counted in the slot the last copy is sent (as copies are); latency to its arrival.
                done = t + ld
                if batched:
                    deliveries[mid] = done
                stats[K.STAT_DELIVERED] += 1
                if t >= measured_from:
                    stats[K.STAT_M_DELIVERED] += 1
                    stats[K.STAT_M_LATENCY_SUM] += done - m_birth[mid]
                    stats[K.STAT_M_LATENCY_COUNT] += 1
                if not batched:
                    m_free[m_nfree] = mid
                    m_nfree += 1
        t += 1
    # Messages not yet at all their destinations, wherever their copies are.
    queued = 0
    for mid in range(n_msg):
        if m_left[mid] > 0:
            queued += 1
    stats[K.STAT_QUEUED] = queued
    K.keep_worst_part(stats, parts, 1.0)
    out = 0
    for x in range(n_xp):
        out += q - credits[x]
    for r in range(cr):
        out -= cr_len[r]
    stats[CREDITS_OUT] = out
    return t


def _fanout_sizes(nodes, traffic):
    """(size_cdf, f_cap) of the destination-set size over the other ``nodes - 1`` nodes."""
    pmf = fanout_pmf(nodes - 1, traffic.fanout, traffic.fanout_distribution)
    cdf = np.cumsum(pmf)
    # Largest size worth storing: beyond it the law's tail is below _FANOUT_TAIL.
    f_cap = int(np.searchsorted(cdf, 1.0 - _FANOUT_TAIL)) + 1
    f_cap = min(f_cap, nodes - 1)
    cdf[f_cap:] = 1.0
    return cdf, f_cap


def _sources(nodes: int, traffic) -> Sources:
    perm = np.zeros(nodes, dtype=np.int64)
    size_cdf = np.ones(1)
    f_cap = 1
    if traffic.fanout != 1.0:
        kind = K.DEST_MULTICAST
        size_cdf, f_cap = _fanout_sizes(nodes, traffic)
    elif traffic.pattern == "uniform":
        kind = K.DEST_UNIFORM
    else:
        kind = K.DEST_PERMUTATION
        perm = traffic.permutation(nodes).astype(np.int64)
    return Sources(load=float(traffic.load), kind=kind, perm=perm, size_cdf=size_cdf, f_cap=f_cap)


def _arguments(net):
    """The network's buffers, delays and routing, and its topology's tables, for the kernel."""
    topo = net.topology()
    tab = Tables(**{name: getattr(topo, name) for name in Tables._fields})
    args = NetArgs(q=net.crosspoint_cells, link_delay=net.timing.link_delay_slots,
                   credit_delay=net.timing.credit_delay_slots, routing=ROUTINGS[net.up_routing])
    return args, tab


_NO_BATCH = Batch(src=np.zeros(0, dtype=np.int64), ready=np.zeros(0, dtype=np.int64), n=np.zeros(0, dtype=np.int64),
                  dest=np.zeros((0, 1), dtype=np.int64))


def replicate(net, traffic, run) -> np.ndarray:
    """Run one replication of steady traffic (``run``: a :class:`~switchq.validate.kernel.Run`); return
    its counters (``LAYOUT``)."""
    args, tab = _arguments(net)
    stats = LAYOUT.zeros(run)
    nodes = tab.route.shape[1]
    _run(args, tab, _sources(nodes, traffic), _NO_BATCH, run, stats, np.zeros(1, dtype=np.int64),
         np.zeros((1, 3), dtype=np.int64), K.parts(nodes))
    return stats


def run_batch(net, src, ready, dests, seed: int = 1, max_slots: int = 10**7):
    """Send a batch of packets through an idle network; return the slot each arrives at its last destination.

    ``src[b]`` sends packet b (to the sorted destination list ``dests[b]``) no
    earlier than slot ``ready[b]``; packets of one NIC go in list order.
    Returns ``(deliveries, log, stats)``; ``deliveries[b]`` is -1 if the batch did
    not drain within ``max_slots``; ``log`` has one row (packet, node, slot) per copy delivered;
    ``stats`` are the counters (``LAYOUT``).

    Examples
    --------
    >>> from switchq.models.network import FatTreeNetwork
    >>> deliveries, log, _ = run_batch(FatTreeNetwork.for_nodes(16, 8), [0], [0], [[15]])
    >>> int(deliveries[0]), log[0].tolist()        # 4 links of one slot each
    (4, [0, 15, 4])
    """
    args, tab = _arguments(net)
    nodes, n_batch = tab.route.shape[1], len(src)
    if n_batch == 0 or len(ready) != n_batch or len(dests) != n_batch:
        raise _check.InputError("src", src, "a non-empty list, as long as ready and dests")
    for v, at, d in zip(src, ready, dests):
        v, _, d = _check.integer("src", v, 0, nodes - 1), _check.integer("ready", at, 0, max_slots), list(d)
        if not d or len(set(d)) != len(d) or v in d or not all(0 <= x < nodes for x in d):
            raise _check.InputError("dests", d, f"distinct nodes in [0, {nodes - 1}] other than the sender {v}, "
                                                "at least one")
    f_cap = max(len(d) for d in dests)
    batch_dest = np.zeros((n_batch, f_cap), dtype=np.int64)
    batch_n = np.zeros(n_batch, dtype=np.int64)
    for b, d in enumerate(dests):
        batch_dest[b, :len(d)] = sorted(d)
        batch_n[b] = len(d)
    stats = LAYOUT.zeros()
    deliveries = np.full(n_batch, -1, dtype=np.int64)
    log = np.full((int(batch_n.sum()), 3), -1, dtype=np.int64)
    batch = Batch(src=np.asarray(src, dtype=np.int64), ready=np.asarray(ready, dtype=np.int64), n=batch_n,
                  dest=batch_dest)
    no_sources = Sources(load=0.0, kind=K.DEST_UNIFORM, perm=np.zeros(1, dtype=np.int64), size_cdf=np.ones(1),
                         f_cap=f_cap)
    _run(args, tab, no_sources, batch, K.Run(slots=max_slots, warmup=0, drain=0, seed=seed), stats, deliveries, log,
         K.parts(nodes))
    return deliveries, log, stats
