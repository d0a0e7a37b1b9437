"""Combined input-output queuing (CIOQ) with speedup S: VOQs, S matching phases per slot, output queues.

Each slot: cells arrive at their VOQs (as in :mod:`.voq`); the fabric runs S
phases, each a PIM or iSLIP matching over request sets kept as words
(``kernel.match_words``, the one the VOQ switch uses; issue 26: 32 x 32, S = 2,
iSLIP, load 0.95, 3.5-4.2e6 -> 1.05-1.14e7 port-slots/s, counters unchanged)
that moves the head cell of every matched VOQ to its output's
FIFO; then each output sends one cell. A cell moved in a slot may leave in
it, so with S = N and maximal matchings every cell reaches its output in its
arrival slot: ideal output queuing. An output queue that fills its storage
takes no more cells (its output does not grant) and flags the run unstable.
"""

from __future__ import annotations

from collections import namedtuple

from numba import njit

from .. import kernel as K
from .voq import enqueue_requests

LAYOUT = K.Layout()
# The switch as the kernel sees it.
CioqArgs = namedtuple("CioqArgs", "n_ports speedup matching iterations limit unbounded storage")


@njit(cache=True)
def _run_cioq(sw, run, tr, stats, parts):
    K.seed_rng(run.seed)
    n, speedup, matching, iterations, limit, unbounded, storage = sw
    # VOQs and output queues (ring row j) hold arrival slots.
    voqs = K.voqs(n, storage)
    q, q_head, q_len, held = voqs
    burst, arrivals = K.sources(n)
    # The matching's pointers and match (ports) and its sets: requests[j] (row j) the inputs with a cell for j.
    ports, sets = K.word_matching_state(n)
    out_q, out_head, out_len = K.rings(n, K.UNBOUNDED_CELLS)
    for t in range(run.warmup + run.slots):
        # VOQ's slot start and head-cell take, written again (issue 35, item 5): as shared inline phases
        # (voq.arrive, voq.take) they made VOQ 32 x 32 PIM 8-10 % and CIOQ 4 % slower (median of 3-5 runs,
        # 200,000 slots, old and new alternated), over the 5 % a copy may save.
        K.mark_batch(stats, t, run)
        K.draw_arrivals(arrivals, burst, tr, n)
        enqueue_requests(stats, parts, t, run.warmup, arrivals, voqs, sets, limit, unbounded)
        for _ in range(speedup):
            for j in range(n):
                ports[K.IN_MATCH, j] = -1
                # A full output queue takes nothing more: its output is marked matched, so it does not grant.
                full = out_len[j] == K.UNBOUNDED_CELLS
                ports[K.OUT_MATCH, j] = n if full else -1
                if full:
                    stats[K.STAT_OVERFLOW] += 1
            K.match_words(ports, sets, n, matching, iterations)
            for i in range(n):
                j = ports[K.IN_MATCH, i]
                if j >= 0:
                    held[i] -= 1
                    K.ring_push(out_q, out_head, out_len, j, K.ring_pop(q, q_head, q_len, i * n + j))
                    if q_len[i * n + j] == 0:
                        K.withdraw(sets, j, i)
        for j in range(n):
            if out_len[j] > 0:
                K.depart(stats, parts, j, t, K.ring_pop(out_q, out_head, out_len, j), run.warmup)
    K.finish(stats, parts, held.sum() + out_len.sum(), tr)


def replicate(switch, traffic, run):
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`); return its counters (``LAYOUT``)."""
    n = switch.n_ports
    unbounded, limit, storage = K.queue_limit(switch.input_buffer_cells)
    matching = K.MATCH_ISLIP if switch.matching == "islip" else K.MATCH_PIM
    stats = LAYOUT.zeros(run)
    args = CioqArgs(n_ports=n, speedup=switch.speedup, matching=matching, iterations=switch.iterations, limit=limit,
                    unbounded=unbounded, storage=storage)
    _run_cioq(args, run, K.traffic_arrays(traffic, n), stats, K.parts(n))
    return stats
