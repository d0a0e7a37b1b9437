"""FIFO input queuing with window (look-ahead) scheduling.

Window 1 is plain FIFO input queuing with HOL blocking (paper 000 §2.1;
Karol, Hluchyj & Morgan 1987). With a window of w cells two rules are built:

``rounds`` (Hluchyj & Karol 1988)
    in round k = 1..w every input not yet matched offers its k-th queued cell;
    every output not yet matched accepts one offer uniformly at random.
``random`` (paper 001 §2.1, central control)
    the outputs, in a random order, each pick one cell uniformly at random
    among all cells addressed to them in the windows of inputs not yet
    matched (all events of a slot "executed in random order").

Either way a cell not chosen keeps its place and destination.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .. import kernel as K

LAYOUT = K.Layout()
ROUNDS = 0
RANDOM = 1
# The switch as the kernel sees it.
FifoArgs = namedtuple("FifoArgs", "n_ports window policy limit unbounded storage")


@njit(cache=True)
def _run_fifo(sw, run, tr, stats, parts):
    K.seed_rng(run.seed)
    n, window, policy, limit, unbounded, storage = sw
    warmup = run.warmup
    mask = storage - 1
    # q[0]: destination, q[1]: arrival slot; parallel rings so removal keeps both aligned.
    q = np.zeros((2, n, storage), dtype=np.int64)
    q_head = np.zeros(n, dtype=np.int64)
    q_len = np.zeros(n, dtype=np.int64)
    burst, arrivals = K.sources(n)
    # Marks are stamped with the slot (or round) instead of cleared, so nothing is reset per slot.
    out_mark = np.full(n, -1, dtype=np.int64)     # slot in which the output was matched
    in_mark = np.full(n, -1, dtype=np.int64)      # slot in which the input was matched
    offer_mark = np.full(n, -1, dtype=np.int64)   # round in which the output last got an offer
    offers = np.zeros(n, dtype=np.int64)
    winner = np.zeros(n, dtype=np.int64)
    winner_pos = np.zeros(n, dtype=np.int64)
    touched = np.zeros(n, dtype=np.int64)
    # For the random rule: window cells bucketed by output (counting sort), and an output order.
    bucket_start = np.zeros(n + 1, dtype=np.int64)
    bucket_fill = np.zeros(n, dtype=np.int64)
    cand_input = np.zeros(n * window, dtype=np.int64)
    cand_pos = np.zeros(n * window, dtype=np.int64)
    order = np.arange(n)
    scratch = (bucket_start, bucket_fill, cand_input, cand_pos, order)
    for t in range(warmup + run.slots):
        K.mark_batch(stats, t, run)
        K.draw_arrivals(arrivals, burst, tr, n)
        for i in range(n):
            d = arrivals[i]
            if d < 0:
                continue
            admitted = K.admit(stats, t, warmup, q_len[i] < limit, unbounded)
            # Parts are the inputs' queues: a hot output blocks every input behind it.
            K.part_offered(parts, i, t, warmup, admitted)
            if admitted:
                row = (q_head[i] + q_len[i]) & mask
                q[0, i, row] = d
                q[1, i, row] = t
                q_len[i] += 1
        if policy == ROUNDS or window == 1:
            # Hluchyj & Karol's rounds, written in the slot loop: as a function (even inlined)
            # the saturated 32 x 32 FIFO runs 10-15 % slower (switchq bench).
            n_matched = 0
            for k in range(window):
                stamp = t * window + k
                first_new = n_matched
                deeper = False
                for i in range(n):
                    if in_mark[i] == t or q_len[i] <= k:
                        continue
                    if q_len[i] > k + 1:
                        deeper = True
                    d = q[0, i, (q_head[i] + k) & mask]
                    if out_mark[d] == t:
                        continue
                    if offer_mark[d] != stamp:
                        offer_mark[d] = stamp
                        offers[d] = 1
                        winner[d] = i
                        winner_pos[d] = k
                        touched[n_matched] = d
                        n_matched += 1
                    else:
                        # Reservoir sampling: each of the c offers ends up chosen with probability 1/c.
                        offers[d] += 1
                        if np.random.random() * offers[d] < 1.0:
                            winner[d] = i
                            winner_pos[d] = k
                # Matches take effect after the round: an output takes one offer per round.
                for m in range(first_new, n_matched):
                    d = touched[m]
                    out_mark[d] = t
                    in_mark[winner[d]] = t
                if n_matched == n or not deeper:
                    break
        else:
            n_matched = _match_random(q, q_head, q_len, window, t, in_mark, winner, winner_pos, touched, scratch)
        for m in range(n_matched):
            d = touched[m]
            i = winner[d]
            arrival = q[1, i, (q_head[i] + winner_pos[d]) & mask]
            K.ring_remove_at(q, 2, q_head, q_len, i, winner_pos[d])
            K.depart(stats, parts, i, t, arrival, warmup)
    K.finish(stats, parts, q_len.sum(), tr)


@njit(cache=True)
def _match_random(q, q_head, q_len, window, t, in_mark, winner, winner_pos, touched, scratch):
    """Paper 001's central control: outputs in random order pick a random cell among those for them."""
    bucket_start, bucket_fill, cand_input, cand_pos, order = scratch
    n = q_len.shape[0]
    mask = q.shape[2] - 1
    bucket_start[:] = 0
    for i in range(n):
        for k in range(min(window, q_len[i])):
            bucket_start[q[0, i, (q_head[i] + k) & mask] + 1] += 1
    for j in range(n):
        bucket_start[j + 1] += bucket_start[j]
        bucket_fill[j] = bucket_start[j]
    for i in range(n):
        for k in range(min(window, q_len[i])):
            d = q[0, i, (q_head[i] + k) & mask]
            cand_input[bucket_fill[d]] = i
            cand_pos[bucket_fill[d]] = k
            bucket_fill[d] += 1
    K.shuffle(order, n)
    matched = 0
    for m in range(n):
        d = order[m]
        x = K.draw_free(cand_input, cand_pos, bucket_start, d, in_mark, t)
        if x >= 0:
            winner[d] = cand_input[x]
            winner_pos[d] = cand_pos[x]
            touched[matched] = d
            matched += 1
    return matched


def replicate(switch, traffic, run):
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`); return its counters (``LAYOUT``)."""
    n = switch.n_ports
    unbounded, limit, storage = K.queue_limit(switch.input_buffer_cells)
    policy = RANDOM if switch.window_policy == "random" else ROUNDS
    stats = LAYOUT.zeros(run)
    sw = FifoArgs(n_ports=n, window=switch.window, policy=policy, limit=limit, unbounded=unbounded, storage=storage)
    _run_fifo(sw, run, K.traffic_arrays(traffic, n), stats, K.parts(n))
    return stats
