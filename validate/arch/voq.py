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
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import kernel as K

PIM = 0
ISLIP = 1


@njit(cache=True)
def _run_voq(n_ports, matching, iterations, limit, unbounded, storage, slots, warmup, seed,
             p_start, p_end, kind, perm, cdf, stats):
    K.seed_rng(seed)
    n = n_ports
    # VOQ (i, j) is ring row i * n + j; it holds arrival slots.
    q = np.zeros((n * n, storage), dtype=np.int64)
    q_head = np.zeros(n * n, dtype=np.int64)
    q_len = np.zeros(n * n, dtype=np.int64)
    held = np.zeros(n, dtype=np.int64)           # cells held by each input
    burst = np.full(n, -1, dtype=np.int64)
    arrivals = np.empty(n, dtype=np.int64)
    grant_ptr = np.zeros(n, dtype=np.int64)      # iSLIP pointers
    accept_ptr = np.zeros(n, dtype=np.int64)
    in_match = np.full(n, -1, dtype=np.int64)    # output matched to input i this slot
    out_match = np.full(n, -1, dtype=np.int64)
    grant = np.full(n, -1, dtype=np.int64)       # input granted by output j this iteration
    for t in range(warmup + slots):
        K.draw_arrivals(arrivals, burst, p_start, p_end, kind, perm, cdf, n)
        for i in range(n):
            d = arrivals[i]
            if d < 0:
                continue
            row = i * n + d
            room = q_len[row] < storage if unbounded else held[i] < limit
            if K.admit(stats, t, warmup, room, unbounded):
                K.ring_push(q, q_head, q_len, row, t)
                held[i] += 1
        in_match[:] = -1
        out_match[:] = -1
        for it in range(iterations):
            # Grant: each unmatched output picks among unmatched inputs with a cell for it.
            any_grant = False
            for j in range(n):
                grant[j] = -1
                if out_match[j] >= 0:
                    continue
                if matching == ISLIP:
                    start = grant_ptr[j]
                    for k in range(n):
                        i = start + k
                        if i >= n:
                            i -= n
                        if in_match[i] < 0 and q_len[i * n + j] > 0:
                            grant[j] = i
                            break
                else:
                    c = 0
                    for i in range(n):
                        if in_match[i] < 0 and q_len[i * n + j] > 0:
                            c += 1
                            if np.random.random() * c < 1.0:
                                grant[j] = i
                if grant[j] >= 0:
                    any_grant = True
            if not any_grant:
                break
            # Accept: each input that got grants picks one output.
            for i in range(n):
                if in_match[i] >= 0:
                    continue
                pick = -1
                if matching == ISLIP:
                    start = accept_ptr[i]
                    for k in range(n):
                        j = start + k
                        if j >= n:
                            j -= n
                        if grant[j] == i:
                            pick = j
                            break
                else:
                    c = 0
                    for j in range(n):
                        if grant[j] == i:
                            c += 1
                            if np.random.random() * c < 1.0:
                                pick = j
                if pick >= 0:
                    in_match[i] = pick
                    out_match[pick] = i
                    if matching == ISLIP and it == 0:
                        accept_ptr[i] = pick + 1 if pick + 1 < n else 0
                        grant_ptr[pick] = i + 1 if i + 1 < n else 0
        for i in range(n):
            j = in_match[i]
            if j >= 0:
                held[i] -= 1
                K.count_departure(stats, t, K.ring_pop(q, q_head, q_len, i * n + j), warmup)
    stats[K.STAT_QUEUED] = held.sum()


def replicate(switch, traffic, slots, warmup_slots, seed):
    """Run one replication; return the int64 counter vector (``kernel.STAT_*``)."""
    n = switch.n_ports
    # An unbounded input keeps up to UNBOUNDED_CELLS per VOQ; a bounded one may put all B in one VOQ.
    unbounded, limit, storage = K.queue_limit(switch.input_buffer_cells)
    p_start, p_end, kind, perm, cdf = K.traffic_arrays(traffic, n)
    stats = np.zeros(K.N_STATS, dtype=np.int64)
    matching = ISLIP if switch.matching == "islip" else PIM
    _run_voq(n, matching, switch.iterations, limit, unbounded, storage, slots, warmup_slots,
             seed, p_start, p_end, kind, perm, cdf, stats)
    return stats
