"""Virtual output queuing matched by PIM or iSLIP.

Each input keeps one FIFO per output (paper 000 §2.1, "virtual output
queuing"); each slot a matching pairs inputs with outputs, one cell per input
and per output.

PIM (Anderson, Owicki, Saxe & Thacker 1993): every unmatched output grants a
requesting unmatched input at random; every input accepts one grant at random.

iSLIP (McKeown 1999): grants and accepts go round robin from per-port
pointers; a pointer moves one past the partner only when a grant is accepted
in the first iteration, which desynchronises the pointers under load and
gives 100 % throughput under uniform Bernoulli traffic with one iteration.

An input buffer of B cells bounds the sum of an input's VOQs; arrivals that
find it full are lost.

The matching sees, per output, the set of inputs whose VOQ for it holds a
cell, kept as 64-bit words as cells come and go (``kernel.match_words``):
a grant or accept is one pick among set bits, not a scan of every VOQ. PIM
draws one number a pick with two or more candidates (the k-th in index order).
Issue 26: VOQ 32 x 32 PIM with 4 iterations, saturated, 1.2-1.4e6 -> 1.0-1.1e7
port-slots/s measured in turn on one machine; iSLIP's results are unchanged
to the counter, PIM's are the same law drawn from another stream.
"""

from __future__ import annotations

from collections import namedtuple

from numba import njit

from .. import kernel as K

LAYOUT = K.Layout()
PIM = K.MATCH_PIM
ISLIP = K.MATCH_ISLIP
# The switch as the kernel sees it.
VoqArgs = namedtuple("VoqArgs", "n_ports matching iterations limit unbounded storage")


@njit(cache=True, inline="always")
def enqueue_requests(stats, parts, t, warmup, arrivals, voqs, sets, limit, unbounded):
    """Cells arriving in slot ``t`` join VOQ (i, destination), rings ``voqs = (q, head, len, held)``, counted as
    ``kernel.admit`` and ``kernel.part_offered`` count them; input i then requests that output in ``sets``
    (:func:`kernel.word_matching_state`). An unbounded input keeps up to the ring's size per VOQ; a bounded one
    up to ``limit`` cells in all its VOQs together (any of them may hold all).

    Written out rather than through ``kernel.admit`` and ``kernel.ring_push``: a call that passes arrays
    reference-counts each (an atomic add and subtract), per cell. With the matching on words, perf put
    NRT_incref/decref at 31 % of the PIM kernel's time until they and the matching's views were gone (6 %).
    """
    q, q_head, q_len, held = voqs
    n = held.shape[0]
    storage = q.shape[1]
    measured = t >= warmup
    for i in range(n):
        d = arrivals[i]
        if d < 0:
            continue
        row = i * n + d
        if measured:
            stats[K.STAT_M_OFFERED] += 1
            parts[0, d] += 1
        if q_len[row] < storage if unbounded else held[i] < limit:
            stats[K.STAT_ARRIVED] += 1
            if measured:
                parts[1, d] += 1
            q[row, (q_head[row] + q_len[row]) & (storage - 1)] = t
            q_len[row] += 1
            held[i] += 1
            sets[d, i >> 6] |= 1 << (i & 63)    # K.request written out: see above
        else:
            stats[K.STAT_DROPPED] += 1
            if measured:
                stats[K.STAT_M_DROPPED] += 1
            if unbounded:
                stats[K.STAT_OVERFLOW] += 1


@njit(cache=True)
def _run_voq(sw, run, tr, stats, parts):
    K.seed_rng(run.seed)
    n, matching, iterations, limit, unbounded, storage = sw
    # VOQs hold arrival slots; held[i]: the cells at input i.
    voqs = K.voqs(n, storage)
    q, q_head, q_len, held = voqs
    burst, arrivals = K.sources(n)
    # The matching's pointers and match (ports) and its sets: requests[j] (row j) the inputs with a cell for j.
    ports, sets = K.word_matching_state(n)
    for t in range(run.warmup + run.slots):
        K.mark_batch(stats, t, run)
        K.draw_arrivals(arrivals, burst, tr, n)
        enqueue_requests(stats, parts, t, run.warmup, arrivals, voqs, sets, limit, unbounded)
        for i in range(n):
            ports[K.IN_MATCH, i] = -1
            ports[K.OUT_MATCH, i] = -1
        K.match_words(ports, sets, n, matching, iterations)
        for i in range(n):
            j = ports[K.IN_MATCH, i]
            if j >= 0:
                held[i] -= 1
                K.depart(stats, parts, j, t, K.ring_pop(q, q_head, q_len, i * n + j), run.warmup)
                if q_len[i * n + j] == 0:
                    K.withdraw(sets, j, i)
    K.finish(stats, parts, held.sum(), tr)


def replicate(switch, traffic, run):
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`); return its counters (``LAYOUT``)."""
    n = switch.n_ports
    # An unbounded input keeps up to UNBOUNDED_CELLS per VOQ; a bounded one may put all B in one VOQ.
    unbounded, limit, storage = K.queue_limit(switch.input_buffer_cells)
    stats = LAYOUT.zeros(run)
    matching = ISLIP if switch.matching == "islip" else PIM
    sw = VoqArgs(n_ports=n, matching=matching, iterations=switch.iterations, limit=limit, unbounded=unbounded,
                 storage=storage)
    _run_voq(sw, run, K.traffic_arrays(traffic, n), stats, K.parts(n))
    return stats
