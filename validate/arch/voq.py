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

from collections import namedtuple

from numba import njit

from .. import kernel as K

LAYOUT = K.Layout()
PIM = K.MATCH_PIM
ISLIP = K.MATCH_ISLIP
# The switch as the kernel sees it.
VoqArgs = namedtuple("VoqArgs", "n_ports matching iterations limit unbounded storage")


@njit(cache=True)
def _run_voq(sw, run, tr, stats, parts):
    K.seed_rng(run.seed)
    n, matching, iterations, limit, unbounded, storage = sw
    # VOQs hold arrival slots; held[i]: the cells at input i.
    voqs, (burst, arrivals), state = K.voq_switch(n, storage)
    q, q_head, q_len, held = voqs
    in_match, out_match = state[2], state[3]   # state: iSLIP pointers, the match of a phase, its grants
    for t in range(run.warmup + run.slots):
        K.mark_batch(stats, t, run)
        K.draw_arrivals(arrivals, burst, tr, n)
        K.enqueue_voqs(stats, parts, t, run.warmup, arrivals, voqs, limit, unbounded)
        in_match[:] = -1
        out_match[:] = -1
        K.match_voqs(q_len, n, matching, iterations, state)
        for i in range(n):
            j = in_match[i]
            if j >= 0:
                held[i] -= 1
                K.depart(stats, parts, j, t, K.ring_pop(q, q_head, q_len, i * n + j), run.warmup)
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
