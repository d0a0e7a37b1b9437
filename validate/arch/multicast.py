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

Order in a slot, the phases of ``_run_multicast``: ``_arrivals``, then the
architecture's step: ``_crosspoint_send`` and ``_crosspoint_outputs``
(oq-crosspoint); ``_split_grants``, ``_split_transfer`` and
``_split_departures`` (iq-split, iq-wba); ``_nosplit_send`` (iq-nosplit: a
packet goes whole or not, so grant and transfer are one step). ``_account``
closes the run.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from switchq.models.fanout import fanout_pmf

from .. import kernel as K
from .phase_pipeline import PhasePipeline

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


# The kernel's state, packed into a few int64 arrays indexed by the named rows below (built by ``_new_state``).
# ``fifo[row, i, s]``: input i's FIFO of packets, a ring of ``storage``: arrival slot, destination mask,
# destinations still to serve.
F_ARR, F_SET, F_LEFT = 0, 1, 2
# ``ins[row, i]``: its head, length, and (WBA) the slot its HOL packet reached the head.
I_HEAD, I_LEN, I_HOL = 0, 1, 2
# Crosspoint switch, crosspoint x = i * n + j: ``xq[row, x, e]`` its copies (packet slot in the input's pool, time
# sent), a ring of ``qc``; ``xs[row, x]`` the ring's head and length and the crosspoint's credits.
X_PKT, X_TIME = 0, 1
X_HEAD, X_LEN, X_CREDITS = 0, 1, 2
# A sent packet waits in its input's pool until its last copy leaves (at most Q per crosspoint):
# ``pool[row, i, slot]`` its arrival slot, destination mask, copies still to send, and the free-slot stack;
# ``pool_n[i]`` the stack's height, ``pool_n[inputs]`` the packets pooled.
P_ARR, P_SET, P_LEFT, P_FREE = 0, 1, 2, 3
# ``grants[row, j]``: each output's pick this slot (-1: none), offers, and best weight (iq-split / iq-wba).
G_PICK, G_OFFERS, G_BEST = 0, 1, 2


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
def _new_state(sw):
    """Empty FIFOs and crosspoints, full credits, every pool slot free; the inputs' order (iq-nosplit, shuffled
    in place slot after slot) and the scratch of ``_draw_set``."""
    n, m_in, q, storage = sw.n_ports, sw.inputs, sw.q, sw.storage
    fifo = np.zeros((3, m_in, storage), dtype=np.int64)
    ins = np.zeros((3, m_in), dtype=np.int64)
    qc = K.pow2_at_least(q)
    xq = np.zeros((2, m_in * n, qc), dtype=np.int64)
    xs = np.zeros((3, m_in * n), dtype=np.int64)
    xs[X_CREDITS, :] = q
    size = q * n + 1
    pool = np.zeros((4, m_in, size), dtype=np.int64)
    pool_n = np.full(m_in + 1, size, dtype=np.int64)
    pool_n[m_in] = 0
    for i in range(m_in):
        for k in range(size):
            pool[P_FREE, i, k] = k
    grants = np.zeros((3, n), dtype=np.int64)
    grants[G_PICK, :] = -1
    return fifo, ins, xq, xs, pool, pool_n, grants, np.arange(m_in), np.zeros(n, dtype=np.int64)


@njit(cache=True, inline="always")
def _arrivals(t, warmup, sw, size_cdf, fifo, ins, scratch, stats, parts):
    """Each active input gets its packets of slot ``t`` (Bernoulli or Poisson), each with a destination set,
    at the tail of its FIFO; a packet reaching an empty FIFO is at the head from ``t``."""
    n, storage = sw.n_ports, sw.storage
    for i in range(sw.inputs):
        for _ in range(K.slot_count(sw.load, sw.poisson)):
            admitted = K.admit(stats, t, warmup, ins[I_LEN, i] < storage, True)
            # Parts are the inputs: a packet waits at its input until its last copy leaves.
            K.part_offered(parts, i, t, warmup, admitted)
            if not admitted:
                continue
            s = (ins[I_HEAD, i] + ins[I_LEN, i]) & (storage - 1)
            if ins[I_LEN, i] == 0:
                ins[I_HOL, i] = t
            fifo[F_ARR, i, s] = t
            fifo[F_SET, i, s] = _draw_set(n, size_cdf, scratch)
            fifo[F_LEFT, i, s] = fifo[F_SET, i, s]
            ins[I_LEN, i] += 1
            stats[COPIES_OWED] += K.popcount(fifo[F_SET, i, s])


@njit(cache=True, inline="always")
def _crosspoint_send(t, sw, fifo, ins, xq, xs, pool, pool_n):
    """oq-crosspoint: each input sends its HOL packet across the crossbar once, a copy to each destination
    crosspoint, if every one of them has a credit; the packet moves to the input's pool."""
    n = sw.n_ports
    qc = xq.shape[2]
    for i in range(sw.inputs):
        if ins[I_LEN, i] == 0:
            continue
        h = ins[I_HEAD, i]
        dest = fifo[F_SET, i, h]
        ok = True
        for j in range(n):
            if (dest >> j) & 1 and xs[X_CREDITS, i * n + j] < 1:
                ok = False
                break
        if not ok:
            continue
        pool_n[i] -= 1
        slot = pool[P_FREE, i, pool_n[i]]
        pool[P_ARR, i, slot] = fifo[F_ARR, i, h]
        pool[P_SET, i, slot] = dest
        pool[P_LEFT, i, slot] = K.popcount(dest)
        pool_n[sw.inputs] += 1
        for j in range(n):
            if (dest >> j) & 1:
                xs[X_CREDITS, i * n + j] -= 1
                x = i * n + j
                e = (xs[X_HEAD, x] + xs[X_LEN, x]) & (qc - 1)
                xq[X_PKT, x, e] = slot
                xq[X_TIME, x, e] = t
                xs[X_LEN, x] += 1
        ins[I_HEAD, i] = (h + 1) & (sw.storage - 1)
        ins[I_LEN, i] -= 1


@njit(cache=True, inline="always")
def _crosspoint_outputs(t, measured_from, sw, xq, xs, pool, pool_n, stats, parts):
    """oq-crosspoint: each output sends the oldest copy at its crosspoints (ties at random); a packet whose last
    copy leaves departs, and all its credits come back (usable next slot)."""
    n = sw.n_ports
    qc = xq.shape[2]
    for j in range(n):
        best = -1
        best_t = 0
        ties = 0
        for i in range(sw.inputs):
            x = i * n + j
            if xs[X_LEN, x] == 0:
                continue
            tt = xq[X_TIME, x, xs[X_HEAD, x]]
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
        slot = xq[X_PKT, x, xs[X_HEAD, x]]
        xs[X_HEAD, x] = (xs[X_HEAD, x] + 1) & (qc - 1)
        xs[X_LEN, x] -= 1
        stats[COPIES] += 1
        if t >= measured_from:
            stats[M_COPIES] += 1
        pool[P_LEFT, i, slot] -= 1
        if pool[P_LEFT, i, slot] == 0:
            dest = pool[P_SET, i, slot]
            for jj in range(n):
                if (dest >> jj) & 1:
                    xs[X_CREDITS, i * n + jj] += 1
            K.depart(stats, parts, i, t, pool[P_ARR, i, slot], measured_from)
            pool[P_FREE, i, pool_n[i]] = slot
            pool_n[i] += 1
            pool_n[sw.inputs] -= 1


@njit(cache=True, inline="always")
def _split_grants(t, sw, fifo, ins, grants):
    """iq-split / iq-wba: every output picks (``grants[G_PICK, j]``, -1: none), among the HOL packets that still
    need it, one of largest weight at random (reservoir sampling over the ties); iq-split weighs them all 0,
    iq-wba ``age at the head - residue``."""
    n = sw.n_ports
    for j in range(n):
        grants[G_PICK, j] = -1
        grants[G_OFFERS, j] = 0
    for i in range(sw.inputs):
        if ins[I_LEN, i] == 0:
            continue
        left = fifo[F_LEFT, i, ins[I_HEAD, i]]
        w = np.int64(0)
        if sw.mode == IQ_WBA:
            w = (t - ins[I_HOL, i]) - K.popcount(left)
        for j in range(n):
            if (left >> j) & 1:
                if grants[G_OFFERS, j] > 0:
                    if w < grants[G_BEST, j]:
                        continue
                    if w > grants[G_BEST, j]:
                        grants[G_OFFERS, j] = 0
                grants[G_BEST, j] = w
                grants[G_OFFERS, j] += 1
                if np.random.random() * grants[G_OFFERS, j] < 1.0:
                    grants[G_PICK, j] = i


@njit(cache=True, inline="always")
def _split_transfer(t, measured_from, sw, fifo, ins, grants, stats):
    """iq-split / iq-wba: each output takes a copy of the HOL packet it picked; the packet keeps the
    destinations it did not get."""
    for j in range(sw.n_ports):
        i = grants[G_PICK, j]
        if i < 0:
            continue
        fifo[F_LEFT, i, ins[I_HEAD, i]] &= ~(np.int64(1) << j)
        stats[COPIES] += 1
        if t >= measured_from:
            stats[M_COPIES] += 1


@njit(cache=True, inline="always")
def _split_departures(t, measured_from, sw, fifo, ins, stats, parts):
    """iq-split / iq-wba: a HOL packet with no destination left departs; the next, if any, is at the head from
    the next slot."""
    for i in range(sw.inputs):
        if ins[I_LEN, i] > 0 and fifo[F_LEFT, i, ins[I_HEAD, i]] == 0:
            K.depart(stats, parts, i, t, fifo[F_ARR, i, ins[I_HEAD, i]], measured_from)
            ins[I_HEAD, i] = (ins[I_HEAD, i] + 1) & (sw.storage - 1)
            ins[I_LEN, i] -= 1
            ins[I_HOL, i] = t + 1


@njit(cache=True, inline="always")
def _nosplit_send(t, measured_from, sw, fifo, ins, order, stats, parts):
    """iq-nosplit: the inputs in a random order each send their HOL packet whole, every copy at once, if all its
    outputs are still free this slot; it departs. Grant and transfer are one step: a packet goes whole or not."""
    K.shuffle(order, sw.inputs)
    taken = np.int64(0)
    for a in range(sw.inputs):
        i = order[a]
        if ins[I_LEN, i] == 0:
            continue
        h = ins[I_HEAD, i]
        dest = fifo[F_SET, i, h]
        if dest & taken:
            continue
        taken |= dest
        stats[COPIES] += K.popcount(dest)
        if t >= measured_from:
            stats[M_COPIES] += K.popcount(dest)
        K.depart(stats, parts, i, t, fifo[F_ARR, i, h], measured_from)
        ins[I_HEAD, i] = (h + 1) & (sw.storage - 1)
        ins[I_LEN, i] -= 1


@njit(cache=True)
def _account(sw, stats, parts, ins, pool_n):
    """At the end: packets still queued (in FIFOs or pooled), and the worst input's backlog growth."""
    stats[K.STAT_QUEUED] = ins[I_LEN].sum() + pool_n[sw.inputs]
    K.keep_worst_part(stats, parts, 1.0)


@njit(cache=True, pipeline_class=PhasePipeline)
def _run_multicast(sw, size_cdf, run, stats, parts):
    """One replication: each slot arrivals, then the architecture's step (crosspoint: send to the crosspoints,
    then outputs; iq-split / iq-wba: grants, copies, departures; iq-nosplit: whole packets out)."""
    K.seed_rng(run.seed)
    fifo, ins, xq, xs, pool, pool_n, grants, order, scratch = _new_state(sw)
    warmup = run.warmup
    end = warmup + run.slots
    for t in range(end + run.drain):
        K.mark_batch(stats, t, run)
        measured_from = warmup if t < end else K.NEVER
        if t < end:
            _arrivals(t, warmup, sw, size_cdf, fifo, ins, scratch, stats, parts)
        if sw.mode == OQ_CROSSPOINT:
            _crosspoint_send(t, sw, fifo, ins, xq, xs, pool, pool_n)
            _crosspoint_outputs(t, measured_from, sw, xq, xs, pool, pool_n, stats, parts)
        elif sw.mode == IQ_SPLIT or sw.mode == IQ_WBA:
            _split_grants(t, sw, fifo, ins, grants)
            _split_transfer(t, measured_from, sw, fifo, ins, grants, stats)
            _split_departures(t, measured_from, sw, fifo, ins, stats, parts)
        else:
            _nosplit_send(t, measured_from, sw, fifo, ins, order, stats, parts)
    _account(sw, stats, parts, ins, pool_n)


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
