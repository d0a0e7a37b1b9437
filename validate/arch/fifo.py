"""FIFO input queuing with window (look-ahead) scheduling.

Paper 000 §2.1 (HOL blocking; Karol, Hluchyj & Morgan 1987) for window 1, and
paper 001 §2.1 "central control" (Hluchyj & Karol 1988) for window w > 1:
in round k = 1..w every input not yet matched offers its k-th queued cell;
every output not yet matched picks one offer uniformly at random. A cell not
chosen keeps its place and destination.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import kernel as K


@njit(cache=True)
def _run_fifo(n_ports, window, limit, unbounded, storage, slots, warmup, seed,
              p_start, p_end, kind, perm, cdf, stats):
    K.seed_rng(seed)
    n = n_ports
    mask = storage - 1
    # q[0]: destination, q[1]: arrival slot; parallel rings so removal keeps both aligned.
    q = np.zeros((2, n, storage), dtype=np.int64)
    q_head = np.zeros(n, dtype=np.int64)
    q_len = np.zeros(n, dtype=np.int64)
    burst = np.full(n, -1, dtype=np.int64)
    arrivals = np.empty(n, dtype=np.int64)
    # Marks are stamped with the slot (or round) instead of cleared, so nothing is reset per slot.
    out_mark = np.full(n, -1, dtype=np.int64)     # slot in which the output was matched
    in_mark = np.full(n, -1, dtype=np.int64)      # slot in which the input was matched
    offer_mark = np.full(n, -1, dtype=np.int64)   # round in which the output last got an offer
    offers = np.zeros(n, dtype=np.int64)
    winner = np.zeros(n, dtype=np.int64)
    winner_pos = np.zeros(n, dtype=np.int64)
    touched = np.zeros(n, dtype=np.int64)
    for t in range(warmup + slots):
        K.draw_arrivals(arrivals, burst, p_start, p_end, kind, perm, cdf, n)
        for i in range(n):
            d = arrivals[i]
            if d < 0:
                continue
            K.count_offered(stats, t, warmup)
            if q_len[i] < limit:
                row = (q_head[i] + q_len[i]) & mask
                q[0, i, row] = d
                q[1, i, row] = t
                q_len[i] += 1
                K.count_arrival(stats)
            else:
                K.count_drop(stats, t, warmup, unbounded)
        matched = 0
        for k in range(window):
            stamp = t * window + k
            n_touched = 0
            for i in range(n):
                if in_mark[i] == t or q_len[i] <= k:
                    continue
                d = q[0, i, (q_head[i] + k) & mask]
                if out_mark[d] == t:
                    continue
                if offer_mark[d] != stamp:
                    offer_mark[d] = stamp
                    offers[d] = 1
                    winner[d] = i
                    winner_pos[d] = k
                    touched[n_touched] = d
                    n_touched += 1
                else:
                    # Reservoir sampling: each of the c offers ends up chosen with probability 1/c.
                    offers[d] += 1
                    if np.random.random() * offers[d] < 1.0:
                        winner[d] = i
                        winner_pos[d] = k
            for m in range(n_touched):
                d = touched[m]
                i = winner[d]
                out_mark[d] = t
                in_mark[i] = t
                arrival = q[1, i, (q_head[i] + winner_pos[d]) & mask]
                K.ring_remove_at(q, 2, q_head, q_len, i, winner_pos[d])
                K.count_departure(stats, t, arrival, warmup)
            matched += n_touched
            if matched == n or n_touched == 0 and k >= 0 and _no_deeper(q_len, in_mark, t, k, n):
                break
    stats[K.STAT_QUEUED] = q_len.sum()


@njit(cache=True)
def _no_deeper(q_len, in_mark, t, k, n):
    """True if no unmatched input holds more than k + 1 cells (later rounds would be empty)."""
    for i in range(n):
        if in_mark[i] != t and q_len[i] > k + 1:
            return False
    return True


def replicate(switch, traffic, slots, warmup_slots, seed):
    """Run one replication; return the int64 counter vector (``kernel.STAT_*``)."""
    n = switch.n_ports
    unbounded = switch.input_buffer_cells is None
    limit = K.UNBOUNDED_CELLS if unbounded else switch.input_buffer_cells
    p_start, p_end, kind, perm, cdf = K.traffic_arrays(traffic, n)
    stats = np.zeros(K.N_STATS, dtype=np.int64)
    _run_fifo(n, switch.window, limit, unbounded, K.ring_storage(limit), slots, warmup_slots,
              seed, p_start, p_end, kind, perm, cdf, stats)
    return stats
