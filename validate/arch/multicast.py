"""Multicast switches: output queuing with crosspoint buffers, and FIFO input queuing.

Paper 003 (Kumar, Kale & Stunkel) §2 and §3.1. Each slot each of the M
active inputs gets a packet with probability ``load`` (Bernoulli) or a
Poisson number of packets of mean ``load`` (the paper's Poisson sources,
slotted); each destination set
has a size drawn from the fanout law and is uniform given its size (a 64-bit
mask). A packet counts as delivered when its last copy leaves.

``oq-crosspoint``
    The head-of-line packet leaves its input queue, crossing the crossbar
    once, only when every destination crosspoint has a credit (Q cells per
    crosspoint); each crosspoint gets a copy. Each output sends one copy per
    slot, the oldest at its crosspoints first (ties at random). The credits
    of all of a packet's copies come back together when its last copy leaves
    ("credits ... are only sent back after all multicast packets have been
    sent out"), usable from the next slot.
``iq-split``
    FIFO input queues with fanout splitting: every output picks one of the
    head-of-line packets that still need it, at random; a packet keeps the
    destinations it did not get and leaves when none remain.
``iq-nosplit``
    FIFO input queues without fanout splitting: the inputs in a random order
    each send their head-of-line packet whole if all its destinations are
    still free this slot.
``iq-wba``
    ``iq-split`` with the weight based algorithm (WBA) of Prabhakar, McKeown
    & Ahuja, JSAC 15(5), 1997 (paper 003's ref. [19]) in place of random
    choice: every slot the HOL packet of each input gets the weight
    ``age - residue`` and every output grants the requesting HOL packet of
    largest weight, ties at random. The residue is the number of
    destinations the packet still needs: a small residue wins, which
    concentrates what is left on few inputs, so packets finish and new work
    reaches the head sooner (their throughput heuristic). The age counts the
    slots the packet has been at the head of its queue, 0 in the slot it
    gets there: the scheduler sees only HOL packets, and a packet that has
    been at the head N slots longer than another outweighs it whatever the
    residues, so none starves (their fairness aim). Age since arrival would
    add the time spent queued behind the head, which this scheduler does
    not arbitrate; at saturation (N = 8, M = 2 or 8, mean fanout 4) the two
    ages give the same throughput within 0.001. Unit factors on age and
    residue are our choice: only the paper's abstract was at hand, and it
    gives none. With every weight equal the rule is ``iq-split``: the two
    share code and random stream.

Order in a slot: arrivals, then sending, then (crosspoint switch) outputs.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from switchq.models.fanout import fanout_pmf

from .. import kernel as K

# Counters count packets; the extras count copies sent to outputs (all slots and measured) and the
# destinations owed by every accepted packet.
LAYOUT = K.Layout(("copies", "m_copies", "copies_owed"))
COPIES, M_COPIES, COPIES_OWED = (LAYOUT.index(name) for name in ("copies", "m_copies", "copies_owed"))
# The switch and its sources as the kernel sees them.
MulticastArgs = namedtuple("MulticastArgs", "n_ports inputs mode q load poisson storage")

OQ_CROSSPOINT = 0
IQ_SPLIT = 1
IQ_NOSPLIT = 2
IQ_WBA = 3
MODES = {"oq-crosspoint": OQ_CROSSPOINT, "iq-split": IQ_SPLIT, "iq-nosplit": IQ_NOSPLIT, "iq-wba": IQ_WBA}


@njit(cache=True)
def _draw_set(n, size_cdf, scratch):
    """A destination mask: a size from the fanout law, then a uniform subset (partial shuffle)."""
    k = K.draw_index(size_cdf, n)
    for a in range(n):
        scratch[a] = a
    mask = np.int64(0)
    for a in range(k):
        b = a + int(np.random.random() * (n - a))
        scratch[a], scratch[b] = scratch[b], scratch[a]
        mask |= np.int64(1) << scratch[a]
    return mask


@njit(cache=True)
def _run_multicast(sw, size_cdf, run, stats, parts):
    K.seed_rng(run.seed)
    n, m_in, mode, q, load, poisson, storage = sw
    warmup = run.warmup
    mask_ring = storage - 1
    # Input FIFOs of packets: arrival slot, destination mask, destinations still to serve.
    f_arr = np.zeros((m_in, storage), dtype=np.int64)
    f_set = np.zeros((m_in, storage), dtype=np.int64)
    f_left = np.zeros((m_in, storage), dtype=np.int64)
    f_head = np.zeros(m_in, dtype=np.int64)
    f_len = np.zeros(m_in, dtype=np.int64)
    scratch = np.zeros(n, dtype=np.int64)
    order = np.arange(m_in)
    picks = np.full(n, -1, dtype=np.int64)
    offers = np.zeros(n, dtype=np.int64)
    # WBA: slot each input's HOL packet reached the head, and each output's best weight this slot.
    hol_since = np.zeros(m_in, dtype=np.int64)
    best_w = np.zeros(n, dtype=np.int64)
    # Crosspoint switch: credits, copies (packet slot in the input's pool, time sent) per crosspoint.
    credits = np.full((m_in, n), q, dtype=np.int64)
    qc = K.pow2_at_least(q)
    xp_pkt = np.zeros((m_in * n, qc), dtype=np.int64)
    xp_time = np.zeros((m_in * n, qc), dtype=np.int64)
    xp_head = np.zeros(m_in * n, dtype=np.int64)
    xp_len = np.zeros(m_in * n, dtype=np.int64)
    # A sent packet waits in its input's pool until its last copy leaves (at most Q per crosspoint).
    pool = q * n + 1
    p_arr = np.zeros((m_in, pool), dtype=np.int64)
    p_set = np.zeros((m_in, pool), dtype=np.int64)
    p_left = np.zeros((m_in, pool), dtype=np.int64)
    p_free = np.zeros((m_in, pool), dtype=np.int64)
    p_nfree = np.full(m_in, pool, dtype=np.int64)
    for i in range(m_in):
        for k in range(pool):
            p_free[i, k] = k
    in_pool = 0
    end = warmup + run.slots
    for t in range(end + run.drain):
        K.mark_batch(stats, t, run)
        measured_from = warmup if t < end else K.NEVER
        # Arrivals.
        if t < end:
            for i in range(m_in):
                for _ in range(K.slot_count(load, poisson)):
                    admitted = K.admit(stats, t, warmup, f_len[i] < storage, True)
                    # Parts are the inputs: a packet waits at its input until its last copy leaves.
                    K.part_offered(parts, i, t, warmup, admitted)
                    if not admitted:
                        continue
                    s = (f_head[i] + f_len[i]) & mask_ring
                    if f_len[i] == 0:
                        hol_since[i] = t
                    f_arr[i, s] = t
                    f_set[i, s] = _draw_set(n, size_cdf, scratch)
                    f_left[i, s] = f_set[i, s]
                    f_len[i] += 1
                    stats[COPIES_OWED] += K.popcount(f_set[i, s])
        if mode == OQ_CROSSPOINT:
            # Each input sends its HOL packet if every destination crosspoint has a credit.
            for i in range(m_in):
                if f_len[i] == 0:
                    continue
                h = f_head[i]
                dest = f_set[i, h]
                ok = True
                for j in range(n):
                    if (dest >> j) & 1 and credits[i, j] < 1:
                        ok = False
                        break
                if not ok:
                    continue
                p_nfree[i] -= 1
                slot = p_free[i, p_nfree[i]]
                p_arr[i, slot] = f_arr[i, h]
                p_set[i, slot] = dest
                p_left[i, slot] = K.popcount(dest)
                in_pool += 1
                for j in range(n):
                    if (dest >> j) & 1:
                        credits[i, j] -= 1
                        x = i * n + j
                        e = (xp_head[x] + xp_len[x]) & (qc - 1)
                        xp_pkt[x, e] = slot
                        xp_time[x, e] = t
                        xp_len[x] += 1
                f_head[i] = (h + 1) & mask_ring
                f_len[i] -= 1
            # Each output sends the oldest copy at its crosspoints.
            for j in range(n):
                best = -1
                best_t = 0
                ties = 0
                for i in range(m_in):
                    x = i * n + j
                    if xp_len[x] == 0:
                        continue
                    tt = xp_time[x, xp_head[x]]
                    if best < 0 or tt < best_t:
                        best, best_t, ties = i, tt, 1
                    elif tt == best_t:
                        ties += 1
                        if np.random.random() * ties < 1.0:
                            best = i
                if best < 0:
                    continue
                i = best
                x = i * n + j
                slot = xp_pkt[x, xp_head[x]]
                xp_head[x] = (xp_head[x] + 1) & (qc - 1)
                xp_len[x] -= 1
                stats[COPIES] += 1
                if t >= measured_from:
                    stats[M_COPIES] += 1
                p_left[i, slot] -= 1
                if p_left[i, slot] == 0:
                    dest = p_set[i, slot]
                    # The last copy is out: every credit of the packet comes back (usable next slot).
                    for jj in range(n):
                        if (dest >> jj) & 1:
                            credits[i, jj] += 1
                    K.depart(stats, parts, i, t, p_arr[i, slot], measured_from)
                    p_free[i, p_nfree[i]] = slot
                    p_nfree[i] += 1
                    in_pool -= 1
        elif mode == IQ_SPLIT or mode == IQ_WBA:
            # Every output picks, among the HOL packets that still need it, one of largest weight
            # at random (reservoir sampling over the ties); iq-split weighs them all 0.
            for j in range(n):
                picks[j] = -1
                offers[j] = 0
            for i in range(m_in):
                if f_len[i] == 0:
                    continue
                left = f_left[i, f_head[i]]
                w = np.int64(0)
                if mode == IQ_WBA:
                    w = (t - hol_since[i]) - K.popcount(left)
                for j in range(n):
                    if (left >> j) & 1:
                        if offers[j] > 0:
                            if w < best_w[j]:
                                continue
                            if w > best_w[j]:
                                offers[j] = 0
                        best_w[j] = w
                        offers[j] += 1
                        if np.random.random() * offers[j] < 1.0:
                            picks[j] = i
            for j in range(n):
                i = picks[j]
                if i < 0:
                    continue
                h = f_head[i]
                f_left[i, h] &= ~(np.int64(1) << j)
                stats[COPIES] += 1
                if t >= measured_from:
                    stats[M_COPIES] += 1
            for i in range(m_in):
                if f_len[i] > 0 and f_left[i, f_head[i]] == 0:
                    K.depart(stats, parts, i, t, f_arr[i, f_head[i]], measured_from)
                    f_head[i] = (f_head[i] + 1) & mask_ring
                    f_len[i] -= 1
                    hol_since[i] = t + 1  # the next packet, if any, is at the head from the next slot
        else:
            # Inputs in random order; a HOL packet goes whole if all its outputs are still free.
            K.shuffle(order, m_in)
            taken = np.int64(0)
            for a in range(m_in):
                i = order[a]
                if f_len[i] == 0:
                    continue
                h = f_head[i]
                dest = f_set[i, h]
                if dest & taken:
                    continue
                taken |= dest
                stats[COPIES] += K.popcount(dest)
                if t >= measured_from:
                    stats[M_COPIES] += K.popcount(dest)
                K.depart(stats, parts, i, t, f_arr[i, h], measured_from)
                f_head[i] = (h + 1) & mask_ring
                f_len[i] -= 1
    stats[K.STAT_QUEUED] = f_len.sum() + in_pool
    K.keep_worst_part(stats, parts, 1.0)


def replicate(switch, traffic, run):
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`); return its counters (``LAYOUT``).

    Core counters count packets; ``m_copies`` counts the copies sent in measured slots.
    """
    n = switch.n_ports
    size_cdf = np.cumsum(fanout_pmf(n, traffic.fanout, traffic.fanout_distribution))
    size_cdf[-1] = 1.0  # guard the last bin against rounding
    stats = LAYOUT.zeros(run)
    args = MulticastArgs(n_ports=n, inputs=traffic.active_inputs or n, mode=MODES[switch.architecture],
                         q=switch.crosspoint_cells, load=float(traffic.load), poisson=traffic.arrivals == "poisson",
                         storage=K.UNBOUNDED_CELLS)
    _run_multicast(args, size_cdf, run, stats, K.parts(args.inputs))
    return stats
