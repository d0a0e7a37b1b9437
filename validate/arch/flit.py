"""The flit-level network kernel: cut-through switches moving multi-flit packets flit by flit (paper 000 §3-§5).

One kernel for every buffer organisation of :mod:`switchq.models.flit` and
every topology of :mod:`switchq.solvers.topology` (it reads the wiring and
routing tables and nothing else about the shape). The organisations differ
in four small pieces, each one branch on ``sw.org``: where a flit is stored
(:func:`_fits`, and the commit and release steps of step 4), which packet an
idle output may take (step 4's arbitration), and, for the central buffer,
the move from the input FIFO into the shared buffer (step 3). Virtual
channels, router pipelines and rate-based arbitration (paper 004) are meant
to enter the same way: as further queues per input and further arbitration
branches, not as a second kernel.

Time is in cycles; one flit crosses a link per cycle. A packet's presence in
one buffer is an *entry* (flits committed to it, arrived, sent on); a packet
in flight spans a chain of entries, one per buffer from its tail to its
head, which is how cut-through is represented without a record per flit.

Per cycle, in order:

1. new messages join their node's injection queue (unbounded in the paper;
   here ``NIC_PACKETS`` packets, beyond which the run is flagged unstable);
   starts are drawn as gaps (geometric for Bernoulli, exponential for Poisson);
2. flits sent ``link_delay`` cycles ago arrive (a ring per link); a header
   becomes eligible to leave ``bypass_cycles`` later if nothing waits ahead of
   it in its queue, at most a packet already streaming out (Fig. 5, Pipe 1),
   ``buffered_cycles`` later if it must be stored behind another packet
   (Pipe 3, usually hidden behind that packet);
3. ``central`` only: each input FIFO's head moves one flit into the shared
   buffer, in k-flit chunks that never mix packets, once the chunks it needs
   are free (``central_admission``);
4. every output with no packet takes one (arbitration among the inputs
   holding an eligible header for it, round-robin or random) and every
   output with a packet sends its next flit if it is there and the next
   buffer has room for it.

A link carries one packet from header to tail (no virtual channels), so the
flits of a packet arrive in order and are never interleaved with another's.

Flow control is flit by flit with the downstream buffer's state known at
once (credits with no return delay; the paper is silent): a flit goes when
its place downstream is free, so a blocked packet is spread over the buffers
behind it (buffered wormhole / cut-through). Routing is one hop ahead: the
sender picks the packet's queue at the next switch when it sends the header,
adaptively where the route offers a choice (going up a BMIN): the candidate
queue in that input's buffer holding the fewest flits, or the output with
the fewest flits queued at the switch (``up_select``). FIFO switches route
at the head of the queue (any free up port) or on arrival (``fifo_routing``).

Storage per organisation (the rules the kernel enforces; ``held`` counts
flits actually stored, independently, for the tests):

- ``fifo``, ``damq``: ``buffer_flits`` per input, any queue; FIFO reads only
  its head packet, DAMQ reads one packet per input at a time (a flag per input).
- ``safc``: ``buffer_flits / k`` per (input, output) partition.
- ``hipiqs``: per (input, output) pair a FIFO unit of ``crosspoint_flits``
  filled first while the pair's queue in the shared buffer is empty; beyond
  it the queue takes k-flit chunks from the input's ``buffer_flits / k``, a
  queue's last chunk refilled by its next packet (the partially-filled-chunk
  rule), a chunk freed when its last flit is read or its queue empties.
- ``central``: input FIFOs of ``central_input_flits``, then ``central_flits``
  in k-flit chunks (one packet a chunk), queues for up ports holding at most
  ``up_share`` of them (deadlock avoidance, see :class:`~switchq.models.flit.FlitSwitch`).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from switchq.models.flit import BUFFER_ORGS

from .. import kernel as K

__all__ = ["replicate", "trace_run", "lone_latency", "LAYOUT", "NIC_PACKETS", "ORG"]

LAYOUT = K.Layout(("flits_offered", "flits_received", "m_flits_offered", "m_flits_received", "backlog_start",
                   "backlog_end", "max_held", "deadlock", "m_packet_latency_sum", "m_packets"))
(FLITS_OFFERED, FLITS_RECEIVED, M_FLITS_OFFERED, M_FLITS_RECEIVED, BACKLOG_START, BACKLOG_END, MAX_HELD, DEADLOCK,
 M_PACKET_LATENCY_SUM, M_PACKETS) = (LAYOUT.index(n) for n in LAYOUT.names[K.N_CORE:])

ORG = {name: i for i, name in enumerate(BUFFER_ORGS)}
FIFO, SAFC, DAMQ, HIPIQS, CENTRAL = (ORG[n] for n in BUFFER_ORGS)

# Packets an injection queue holds; reaching it means the network cannot carry the load.
NIC_PACKETS = 1 << 10
# Cycles with a backlog and not one flit moving: a deadlock (the run stops and is flagged).
STALL_CYCLES = 20_000
TO_NODE, UNWIRED = -1, -2

Tab = namedtuple("Tab", "out_switch out_input route groups up")
Sw = namedtuple("Sw", "org k cap part_cap n_chunks xp_cap c_chunks c_up_chunks c_whole bypass buffered link_delay "
                       "rnd up_output fifo_arrival")
Tr = namedtuple("Tr", "p_msg poisson msg_flits pkt_flits perm uniform_all active")


def _tables(net):
    t = net.tables()
    k = t.ports
    switches = t.switches
    stage = t.stage
    up = np.zeros(switches * k + t.nodes, dtype=np.int64)
    for g in range(switches * k):
        target = t.out_switch[g]
        up[g] = 1 if target >= 0 and stage[target] > stage[g // k] else 0
    return Tab(t.out_switch, t.out_input, t.route.astype(np.int64), t.groups, up)


def _switch(net):
    s = net.switch
    k = s.ports
    c_chunks = s.central_flits // k
    return Sw(ORG[s.buffer_org], k, s.central_input_flits if s.buffer_org == "central" else s.buffer_flits,
              s.buffer_flits // k, s.shared_flits // k, s.crosspoint_flits, c_chunks,
              max(1, int(s.up_share * c_chunks)), 1 if s.central_admission == "packet" else 0, s.bypass_cycles, s.buffered_cycles, net.link_delay,
              1 if s.arbitration == "random" else 0, 1 if s.up_select == "output" else 0,
              1 if s.fifo_routing == "arrival" else 0)


def _traffic(net, tr):
    n = net.nodes
    if tr.pattern == "uniform":
        perm = np.full(n, -1, dtype=np.int64)
    else:
        from switchq.models.traffic import Traffic

        perm = Traffic(0.0, pattern=tr.pattern).permutation(n).astype(np.int64)
    pkt = tr.message_flits if tr.packet_flits is None else tr.packet_flits
    return Tr(tr.messages_per_cycle, 1 if tr.arrivals == "poisson" else 0, tr.message_flits, pkt, perm,
              1 if tr.uniform_over == "all" else 0, np.ones(n, dtype=np.int64))


# --------------------------------------------------------------------------- storage rules

@njit(cache=True, inline="always")
def _fits(org, q_flits, part_cap, q_shared, q_fifo, xp_cap, q_wpos, b_chunks, n_chunks, b_used, cap):
    """Whether a queue can take one more flit, from its state as scalars. The storage rules are written out in
    the kernel rather than in helpers taking arrays: every array passed to a function costs Numba an atomic
    reference-count increment and decrement, which took three quarters of the run time.

    SAFC: room in the queue's partition. HIPIQS: the FIFO unit while the shared queue is empty, else the
    queue's partly filled last chunk, else a free chunk. Others: room in the input buffer."""
    if org == SAFC:
        return q_flits < part_cap
    if org == HIPIQS:
        return (q_shared == 0 and q_fifo < xp_cap) or q_wpos != 0 or b_chunks < n_chunks
    return b_used < cap


@njit(cache=True, inline="always")
def _least_loaded(mask, base, qflits, k):
    """The port of ``mask`` whose queue ``base + port`` holds the fewest flits (ties: a random one)."""
    best = -1
    best_flits = 1 << 62
    ties = 0
    for o in range(k):
        if (mask >> o) & 1:
            f = qflits[base + o]
            if f < best_flits:
                best, best_flits, ties = o, f, 1
            elif f == best_flits:
                ties += 1
                if np.random.random() * ties < 1.0:
                    best = o
    return best


@njit(cache=True, inline="always")
def _gap(p, poisson):
    """Cycles to the next message start: exponential (Poisson starts, mean p per cycle, in continuous time,
    counted in the cycle they fall in), or geometric on 1, 2, ... (Bernoulli starts with probability p)."""
    if poisson:
        return -np.log(1.0 - np.random.random()) / p
    if p >= 1.0:
        return 1.0
    return 1.0 + np.floor(np.log(1.0 - np.random.random()) / np.log(1.0 - p))


# --------------------------------------------------------------------------- the kernel

@njit(cache=True)
def _run(tab, sw, tr, run, stats, trace):
    # Arrays are taken out of the tuples once: reading one from a tuple inside the loop costs Numba an atomic
    # reference-count increment and decrement each time, which dominated the run time.
    out_switch = tab.out_switch
    out_input = tab.out_input
    route = tab.route
    groups = tab.groups
    up_link = tab.up
    perm = tr.perm
    active = tr.active
    org = sw.org
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
    qp = n_in * k                      # pair (or input) queues: (input gi, output o) -> gi * k + o
    qc = qp + n_in                     # central queues: (switch s, output o) -> qp + s * k + o
    nq = qc + nodes                    # injection queues: node v -> qc + v
    net_flits = n_in * (sw.cap + k * sw.xp_cap + 2) + n_sw * sw.c_chunks * k
    pool = nodes * NIC_PACKETS + net_flits + 4 * n_links + 64
    # Entries (a packet's presence in one buffer) and packets, from free stacks.
    e_pkt = np.zeros(pool, dtype=np.int64)
    e_next = np.full(pool, -1, dtype=np.int64)
    e_q = np.zeros(pool, dtype=np.int64)
    e_len = np.zeros(pool, dtype=np.int64)         # its packet's flits
    e_gi = np.full(pool, -1, dtype=np.int64)       # its input buffer (central-buffer entries: the switch)
    e_oi = np.full(pool, -1, dtype=np.int64)       # the switch output it queues for, s * k + o (-1: none)
    e_wpos = np.zeros(pool, dtype=np.int64)        # central buffer: flits in its last chunk
    e_rpos = np.zeros(pool, dtype=np.int64)        # central buffer: flits read from its head chunk
    e_arr = np.zeros(pool, dtype=np.int64)         # flits arrived
    e_sent = np.zeros(pool, dtype=np.int64)        # flits sent on
    e_ready = np.zeros(pool, dtype=np.int64)       # cycle the header may leave
    e_claim = np.full(pool, -1, dtype=np.int64)    # output sending it
    e_down = np.full(pool, -1, dtype=np.int64)     # its entry at the next buffer
    e_port = np.zeros(pool, dtype=np.int64)        # FIFO routed on arrival: the output it waits for
    e_free = np.arange(pool - 1, -1, -1, dtype=np.int64)
    e_top = pool
    p_dest = np.zeros(pool, dtype=np.int64)
    p_len = np.zeros(pool, dtype=np.int64)
    p_msg = np.zeros(pool, dtype=np.int64)
    p_rcv = np.zeros(pool, dtype=np.int64)
    p_gen = np.zeros(pool, dtype=np.int64)
    p_free = np.arange(pool - 1, -1, -1, dtype=np.int64)
    p_top = pool
    m_gen = np.zeros(pool, dtype=np.int64)
    m_left = np.zeros(pool, dtype=np.int64)
    m_free = np.arange(pool - 1, -1, -1, dtype=np.int64)
    m_top = pool
    # Queues (linked lists of entries) and storage state.
    q_head = np.full(nq, -1, dtype=np.int64)
    q_tail = np.full(nq, -1, dtype=np.int64)
    qflits = np.zeros(nq, dtype=np.int64)
    fifo_cnt = np.zeros(qp, dtype=np.int64)
    qs = np.zeros(qp, dtype=np.int64)              # HIPIQS: flits in the shared queue (beyond the FIFO unit)
    qwp = np.zeros(qp, dtype=np.int64)             # ... in its last chunk
    qrp = np.zeros(qp, dtype=np.int64)             # ... read from its head chunk
    chunks = np.zeros(n_in, dtype=np.int64)
    buf_used = np.zeros(n_in, dtype=np.int64)
    held = np.zeros(n_in, dtype=np.int64)
    rd_busy = np.zeros(n_in, dtype=np.int64)
    last_read = np.full(n_in, -1, dtype=np.int64)
    c_used = np.zeros(n_sw, dtype=np.int64)
    c_up = np.zeros(n_sw, dtype=np.int64)
    waiting = np.zeros(n_sw, dtype=np.int64)       # FIFO: entries at a switch no output has taken yet
    cand = np.zeros(n_links, dtype=np.int64)       # others: entries queued for an output, not yet taken
    out_load = np.zeros(n_links, dtype=np.int64)   # flits queued at a switch for each of its outputs
    nic_count = np.zeros(nodes, dtype=np.int64)
    o_entry = np.full(n_links, -1, dtype=np.int64)
    rr = np.zeros(n_links, dtype=np.int64)
    ring_len = K.pow2_at_least(sw.link_delay + 1)
    ring_mask = ring_len - 1
    ring = np.full((n_links, ring_len), -1, dtype=np.int64)

    end_measure = run.warmup + run.slots
    total = end_measure + run.drain
    offered_flits = 0
    received_flits = 0
    stalled = 0
    n_trace = 0
    max_held = 0
    next_at = np.full(nodes, np.inf)
    for v in range(nodes):
        if active[v] and tr.p_msg > 0.0:
            next_at[v] = _gap(tr.p_msg, tr.poisson) - (0.0 if tr.poisson else 1.0)
    for t in range(total):
        K.mark_batch(stats, t, run)
        if t == run.warmup:
            stats[BACKLOG_START] = offered_flits - received_flits
        if t == end_measure:
            stats[BACKLOG_END] = offered_flits - received_flits
        measuring = t >= run.warmup and t < end_measure
        moved = 0

        # 1. new messages (drawn as gaps between starts, not a coin per node per cycle)
        if t < end_measure:
            for v in range(nodes):
                while next_at[v] < t + 1:
                    next_at[v] += _gap(tr.p_msg, tr.poisson)
                    ppm = (tr.msg_flits + tr.pkt_flits - 1) // tr.pkt_flits
                    room = nic_count[v] + ppm <= NIC_PACKETS
                    if not K.admit(stats, t, run.warmup, room, True):
                        continue
                    if perm[0] >= 0:
                        dest = perm[v]
                    elif tr.uniform_all:
                        dest = int(np.random.random() * nodes)
                    else:
                        dest = int(np.random.random() * (nodes - 1))
                        if dest >= v:
                            dest += 1
                    m_top -= 1
                    m = m_free[m_top]
                    m_gen[m] = t
                    m_left[m] = ppm
                    offered_flits += tr.msg_flits
                    stats[FLITS_OFFERED] += tr.msg_flits
                    if measuring:
                        stats[M_FLITS_OFFERED] += tr.msg_flits
                    q = qc + v
                    for j in range(ppm):
                        p_top -= 1
                        pkt = p_free[p_top]
                        p_dest[pkt] = dest
                        p_len[pkt] = min(tr.pkt_flits, tr.msg_flits - j * tr.pkt_flits)
                        p_msg[pkt] = m
                        p_rcv[pkt] = 0
                        p_gen[pkt] = t
                        # A new entry, appended to its queue. Written out here and at the two other places
                        # entries are made: a helper taking the entry arrays would cost two atomic reference-
                        # count operations per array per call (see _fits).
                        e_top -= 1
                        e = e_free[e_top]
                        e_pkt[e] = pkt
                        e_q[e] = q
                        e_len[e] = p_len[pkt]
                        e_gi[e] = -1
                        e_oi[e] = -1
                        e_arr[e] = p_len[pkt]
                        e_sent[e] = 0
                        e_ready[e] = t
                        e_claim[e] = -1
                        e_down[e] = -1
                        e_next[e] = -1
                        if q_tail[q] >= 0:
                            e_next[q_tail[q]] = e
                        else:
                            q_head[q] = e
                        q_tail[q] = e
                        nic_count[v] += 1

        # 2. flits arriving
        slot = t & ring_mask
        for g in range(n_links):
            x = ring[g, slot]
            if x < 0:
                continue
            ring[g, slot] = -1
            moved += 1
            if out_switch[g] == TO_NODE:
                pkt = x
                p_rcv[pkt] += 1
                received_flits += 1
                stats[FLITS_RECEIVED] += 1
                if measuring:
                    stats[M_FLITS_RECEIVED] += 1
                if trace.shape[0] > 1 and n_trace < trace.shape[0]:
                    trace[n_trace, 0] = t
                    trace[n_trace, 1] = out_input[g]
                    trace[n_trace, 2] = pkt
                    trace[n_trace, 3] = p_rcv[pkt]
                    n_trace += 1
                if p_rcv[pkt] == p_len[pkt]:
                    m = p_msg[pkt]
                    if measuring:
                        stats[M_PACKETS] += 1
                        stats[M_PACKET_LATENCY_SUM] += t - p_gen[pkt]
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
                e_arr[e] += 1
                if e_arr[e] == 1:
                    # Pipe 1 when nothing waits ahead of it in its queue (at most a packet already
                    # streaming out), Pipe 3 when it must be stored behind another packet.
                    h = q_head[e_q[e]]
                    clear = h == e or (e_claim[h] >= 0 and e_next[h] == e)
                    e_ready[e] = t + (sw.bypass if clear else sw.buffered)

        # 3. central buffer: each input FIFO's head moves a flit into the shared buffer
        if sw.org == CENTRAL:
            for gi in range(n_in):
                q = gi * k
                e = q_head[q]
                if e < 0 or e_arr[e] <= e_sent[e] or e_ready[e] > t:
                    continue
                s = gi // k
                d = e_down[e]
                if d < 0:
                    pkt = e_pkt[e]
                    o = _least_loaded(groups[s, route[s, p_dest[pkt]]], qp + s * k, qflits, k)
                    # Admission: a packet enters the central buffer only when the chunks it needs are free
                    # (all of them, or as many as its direction may hold), else it waits in the input FIFO.
                    need = (p_len[pkt] + k - 1) // k if sw.c_whole else 1
                    if up_link[s * k + o]:
                        if min(sw.c_chunks - c_used[s], sw.c_up_chunks - c_up[s]) < min(need, sw.c_up_chunks):
                            continue
                    elif sw.c_chunks - c_used[s] < min(need, sw.c_chunks - sw.c_up_chunks):
                        continue
                    e_top -= 1
                    d = e_free[e_top]
                    cq = qp + s * k + o
                    e_pkt[d] = pkt
                    e_q[d] = cq
                    e_len[d] = e_len[e]
                    e_gi[d] = s
                    e_oi[d] = s * k + o
                    e_wpos[d] = 0
                    e_rpos[d] = 0
                    e_arr[d] = 0
                    e_sent[d] = 0
                    e_ready[d] = t
                    e_claim[d] = -1
                    e_down[d] = -1
                    e_next[d] = -1
                    if q_tail[cq] >= 0:
                        e_next[q_tail[cq]] = d
                    else:
                        q_head[cq] = d
                    q_tail[cq] = d
                    e_down[e] = d
                    cand[s * k + o] += 1
                cq = e_q[d]
                up = up_link[e_oi[d]]
                if e_wpos[d] == 0:
                    if c_used[s] >= sw.c_chunks or (up and c_up[s] >= sw.c_up_chunks):
                        continue
                    c_used[s] += 1
                    if up:
                        c_up[s] += 1
                e_wpos[d] += 1
                if e_wpos[d] == k:
                    e_wpos[d] = 0
                e_arr[d] += 1
                qflits[cq] += 1
                qflits[q] -= 1          # out of the input FIFO
                held[gi] -= 1
                buf_used[gi] -= 1
                e_sent[e] += 1
                moved += 1
                if e_sent[e] == e_len[e]:
                    q_head[q] = e_next[e]
                    if q_head[q] < 0:
                        q_tail[q] = -1
                    e_free[e_top] = e
                    e_top += 1

        # 4. outputs: take a packet if idle, then send a flit. The scan starts one output later each cycle:
        # a FIFO head that may take any free up port would otherwise always find the lowest one first.
        rot = t % n_links
        for j_out in range(n_links):
            g = j_out + rot
            if g >= n_links:
                g -= n_links
            target = out_switch[g]
            if target == UNWIRED:
                continue
            e = o_entry[g]
            if e < 0:
                # --- arbitration: an eligible header for this output whose next buffer has room
                if g < n_in:
                    s = g // k
                    if (waiting[s] == 0) if sw.org == FIFO else (cand[g] == 0):
                        continue
                    o = g - s * k
                    if sw.org == CENTRAL:
                        first, count = 0, 1
                    else:
                        first = 0 if sw.rnd else rr[g]
                        count = k
                else:
                    s = -1
                    o = 0
                    first, count = 0, 1
                # Pass 1: the eligible header (first in round-robin order, or uniformly at random among
                # all eligible, Karol's rule) and its queue at the next switch; pass 2 takes it.
                chosen = -1
                chosen_q2 = -1
                chosen_i = 0
                eligible = 0
                for j in range(count):
                    i = first + j
                    if i >= k:
                        i -= k
                    if g >= n_in:
                        q = qc + (g - n_in)
                    elif sw.org == CENTRAL:
                        q = qp + s * k + o
                    elif sw.org == FIFO:
                        q = (s * k + i) * k
                    else:
                        q = (s * k + i) * k + o
                    c = q_head[q]
                    if c < 0 or e_claim[c] >= 0 or e_arr[c] == 0 or e_ready[c] > t:
                        continue
                    if g < n_in and sw.org != CENTRAL:
                        gi = s * k + i
                        if last_read[gi] == t or (sw.org == DAMQ and rd_busy[gi]):
                            continue
                        if sw.org == FIFO:
                            if sw.fifo_arrival:
                                if e_port[c] != o:
                                    continue
                            elif not (groups[s, route[s, p_dest[e_pkt[c]]]] >> o) & 1:
                                continue
                    q2 = -1
                    if target >= 0:
                        gi2 = target * k + out_input[g]
                        if sw.org == FIFO or sw.org == CENTRAL:
                            q2 = gi2 * k
                        else:
                            mask = groups[target, route[target, p_dest[e_pkt[c]]]]
                            if sw.up_output:
                                q2 = gi2 * k + _least_loaded(mask, target * k, out_load, k)
                            else:
                                q2 = gi2 * k + _least_loaded(mask, gi2 * k, qflits, k)
                        if not _fits(org, qflits[q2], part_cap, qs[q2], fifo_cnt[q2], xp_cap, qwp[q2], chunks[gi2],
                                     n_chunks, buf_used[gi2], cap):
                            continue
                    eligible += 1
                    if eligible == 1 or np.random.random() * eligible < 1.0:
                        chosen, chosen_q2, chosen_i = c, q2, i
                    if not sw.rnd:
                        break
                if chosen < 0:
                    continue
                c = chosen
                d = -1
                if chosen_q2 >= 0:
                    q2 = chosen_q2
                    e_top -= 1
                    d = e_free[e_top]
                    e_pkt[d] = e_pkt[c]
                    e_q[d] = q2
                    e_len[d] = e_len[c]
                    e_gi[d] = q2 // k
                    e_oi[d] = target * k + q2 % k if sw.org != FIFO and sw.org != CENTRAL else -1
                    e_arr[d] = 0
                    e_sent[d] = 0
                    e_ready[d] = 1 << 62
                    e_claim[d] = -1
                    e_down[d] = -1
                    e_next[d] = -1
                    if q_tail[q2] >= 0:
                        e_next[q_tail[q2]] = d
                    else:
                        q_head[q2] = d
                    q_tail[q2] = d
                    if sw.org == FIFO:
                        waiting[target] += 1
                        if sw.fifo_arrival:
                            # routed on arrival: the port with the fewest headers waiting for it
                            mask = groups[target, route[target, p_dest[e_pkt[c]]]]
                            e_port[d] = _least_loaded(mask, target * k, cand, k)
                            cand[target * k + e_port[d]] += 1
                    elif sw.org != CENTRAL:
                        cand[target * k + q2 % k] += 1
                e_down[c] = d
                e_claim[c] = g
                o_entry[g] = c
                if s >= 0:
                    if sw.org == FIFO:
                        waiting[s] -= 1
                        if sw.fifo_arrival:
                            cand[g] -= 1
                    else:
                        cand[g] -= 1
                    rr[g] = chosen_i + 1 if chosen_i + 1 < k else 0
                    if sw.org == DAMQ:
                        rd_busy[s * k + chosen_i] = 1
                e = c
            # --- send one flit of entry e
            if e_arr[e] <= e_sent[e]:
                continue
            q = e_q[e]
            gi = e_gi[e]
            in_buffer = q < qp
            if in_buffer and sw.org != HIPIQS and sw.org != SAFC and last_read[gi] == t:
                continue
            d = e_down[e]
            if d >= 0:
                q2 = e_q[d]
                gi2 = e_gi[d]
                if not _fits(org, qflits[q2], part_cap, qs[q2], fifo_cnt[q2], xp_cap, qwp[q2], chunks[gi2], n_chunks,
                             buf_used[gi2], cap):
                    continue
                # commit the flit downstream (HIPIQS: FIFO unit first, then the queue's last chunk)
                qflits[q2] += 1
                held[gi2] += 1
                if org == HIPIQS:
                    if qs[q2] == 0 and fifo_cnt[q2] < xp_cap:
                        fifo_cnt[q2] += 1
                    else:
                        if qwp[q2] == 0:
                            chunks[gi2] += 1
                        qwp[q2] += 1
                        if qwp[q2] == k:
                            qwp[q2] = 0
                        qs[q2] += 1
                elif org != SAFC:
                    buf_used[gi2] += 1
                if e_oi[d] >= 0:
                    out_load[e_oi[d]] += 1
                if held[gi2] > max_held:
                    max_held = held[gi2]
                ring[g, (t + sw.link_delay) & ring_mask] = d
            else:
                ring[g, (t + sw.link_delay) & ring_mask] = e_pkt[e]
            sent = e_sent[e] + 1
            e_sent[e] = sent
            moved += 1
            if in_buffer:
                # release it upstream (HIPIQS: refill the FIFO unit from the shared queue, freeing a chunk when
                # its last flit is read or the queue empties)
                qflits[q] -= 1
                held[gi] -= 1
                if org == HIPIQS:
                    fifo_cnt[q] -= 1
                    if qs[q] > 0:
                        qs[q] -= 1
                        fifo_cnt[q] += 1
                        qrp[q] += 1
                        if qrp[q] == k:
                            qrp[q] = 0
                            chunks[gi] -= 1
                        if qs[q] == 0:
                            if qrp[q] != 0:
                                chunks[gi] -= 1
                            qwp[q] = 0
                            qrp[q] = 0
                elif org != SAFC:
                    buf_used[gi] -= 1
                last_read[gi] = t
                if e_oi[e] >= 0:
                    out_load[e_oi[e]] -= 1
            elif q < qc:
                qflits[q] -= 1
                e_rpos[e] += 1
                if e_rpos[e] == k or sent == e_len[e]:
                    e_rpos[e] = 0
                    c_used[gi] -= 1
                    if up_link[e_oi[e]]:
                        c_up[gi] -= 1
            if sent == e_len[e]:
                # tail gone: the output is free, the entry leaves its queue (always the head)
                o_entry[g] = -1
                q_head[q] = e_next[e]
                if q_head[q] < 0:
                    q_tail[q] = -1
                if in_buffer and sw.org == DAMQ:
                    rd_busy[gi] = 0
                if q >= qc:
                    nic_count[q - qc] -= 1
                e_free[e_top] = e
                e_top += 1

        if moved == 0 and offered_flits > received_flits:
            stalled += 1
            if stalled >= STALL_CYCLES:
                stats[DEADLOCK] = 1
                stats[K.STAT_OVERFLOW] += 1
                stats[BACKLOG_END] = offered_flits - received_flits
                break
        else:
            stalled = 0
    if run.drain == 0 and stats[DEADLOCK] == 0:
        stats[BACKLOG_END] = offered_flits - received_flits      # the loop ended with the measured window
    stats[MAX_HELD] = max_held
    stats[K.STAT_QUEUED] = stats[K.STAT_ARRIVED] - stats[K.STAT_DELIVERED]
    return n_trace


def _arguments(net, traffic):
    net.check_traffic(traffic)
    return _tables(net), _switch(net), _traffic(net, traffic)


def replicate(net, traffic, run) -> np.ndarray:
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`, slots = cycles); return its
    counters (``LAYOUT``)."""
    tab, sw, tr = _arguments(net, traffic)
    stats = LAYOUT.zeros(run)
    _run(tab, sw, tr, run, stats, np.zeros((1, 4), dtype=np.int64))
    return stats


def trace_run(net, traffic, run, max_flits: int = 1 << 20):
    """One replication with every flit reaching a node logged: ``(counters, trace)``, a row per flit
    ``(cycle, node, packet, flits of that packet received so far)`` (for the property tests).

    Examples
    --------
    >>> from switchq.models.flit import FlitNetwork, FlitSwitch, MessageTraffic
    >>> net = FlitNetwork.bmin(16, FlitSwitch(8, "fifo", 64))
    >>> stats, trace = trace_run(net, MessageTraffic(0.2, 8), K.Run(500, 0, 2000, 3))
    >>> counts = LAYOUT.named(stats)
    >>> counts["flits_offered"] == counts["flits_received"] == len(trace)
    True
    """
    tab, sw, tr = _arguments(net, traffic)
    stats = LAYOUT.zeros(run)
    trace = np.zeros((max_flits, 4), dtype=np.int64)
    n = _run(tab, sw, tr, run, stats, trace)
    return stats, trace[:n]


def lone_latency(net, source: int, dest: int, message_flits: int, packet_flits: int | None = None) -> int:
    """Cycles from creation to last flit of one message from ``source`` to ``dest`` in an otherwise empty network.

    Examples
    --------
    >>> from switchq.models.flit import FlitNetwork
    >>> lone_latency(FlitNetwork.bmin(16), 0, 15, 64)      # 3 switches x 2 cycles + 4 links + 63 flits
    73
    """
    from switchq.models.flit import MessageTraffic

    tab, sw, tr = _arguments(net, MessageTraffic(1.0, message_flits, packet_flits))
    perm = np.full(net.nodes, dest, dtype=np.int64)
    active = np.zeros(net.nodes, dtype=np.int64)
    active[source] = 1
    stats = LAYOUT.zeros()
    _run(tab, sw, tr._replace(p_msg=1.0, perm=perm, active=active), K.Run(1, 0, 100 * message_flits + 1000, 1), stats,
         np.zeros((1, 4), dtype=np.int64))
    return int(stats[K.STAT_M_LATENCY_SUM])
