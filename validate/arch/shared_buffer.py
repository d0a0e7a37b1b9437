"""The shared-memory switch's kernel (issue 37): output queues as linked lists of cells in one memory.

As a shared-memory switch is built: the memory is ``buffer_cells`` cells on a free list (with a lossless
class, its input groups' private headrooms and the shared headroom pool beside them), each queue a doubly
linked list through it, so state grows with the memory asked about, not with N times it. A slot runs the
phases of :mod:`switchq.validate.arch.shared_buffer_phases` in order: offer, admit, depart, sample.

Queues are (output, priority) pairs, sent in strict priority. Workloads: ``Traffic`` (any unicast pattern, each
cell of a priority drawn uniformly), ``Overload`` (the k-th congested queue, output k's of priority k mod P, fed
a cell a slot by each of its feeders) and ``Incast`` (inputs 0..N-1 send a burst each to the last output's queue
of the incast's priority every period; the others Bernoulli background to the other outputs, any priority). A lossy incast event records the cells per sender admitted
before its first drop (the burst absorbed) and, when its queue empties, its completion time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import kernel as K
from .phase_pipeline import PhasePipeline
from .shared_buffer_phases import admit_all, depart_all, offer, percentile_99, sample
from .shared_buffer_state import (INCAST, LAYOUT, LEN, OVERLOAD, POLICY_CODES, TRAFFIC, LoadArgs, SharedArgs,
                                  new_state)

__all__ = ["LAYOUT", "replicate", "args_for", "load_for"]


@njit(cache=True, pipeline_class=PhasePipeline)
def _run(sw, ld, run, tr, stats, parts):
    K.seed_rng(run.seed)
    cell, qs, grp, ports, g, hist = new_state(sw)
    for t in range(run.warmup + run.slots):
        K.mark_batch(stats, t, run)
        offer(ports, grp, g, sw, ld, t, run, tr, stats)
        admit_all(cell, qs, grp, ports, g, sw, ld, t, run, stats, parts)
        depart_all(cell, qs, grp, g, sw, ld, t, run, stats, parts)
        sample(qs, g, hist, sw, ld, t, run, stats)
    percentile_99(hist, stats)
    K.finish(stats, parts, qs[LEN].sum(), tr)


def args_for(switch):
    """The kernel's record of a :class:`~switchq.models.shared_buffer.SharedBufferSwitch`."""
    lossless = switch.lossless
    npri = switch.priorities
    lossless_p = np.array([int(lossless and p in switch.lossless_priorities) for p in range(npri)], dtype=np.int64)
    return SharedArgs(n_ports=switch.n_ports, priorities=npri, cells=switch.buffer_cells, shared=switch.shared_cells,
                      reserved=switch.reserved_cells, policy=POLICY_CODES[switch.policy],
                      alphas=np.array(switch.alphas, dtype=np.float64), threshold=switch.threshold_cells or 0,
                      partition=switch.partition_cells, lossless=lossless, lossless_p=lossless_p,
                      xoff=(switch.xoff_cells or 0) if lossless else 0,
                      xoff_alpha=float(switch.xoff_alpha or 0.0) if lossless else 0.0,
                      xon_offset=switch.xon_offset_cells if lossless else 0, xon=switch.xon_cells if lossless else 0,
                      headroom=switch.headroom_cells if lossless else 0,
                      pool=switch.headroom_pool_cells if lossless else 0,
                      pause_slots=switch.pause_slots if lossless else 0)


def load_for(workload, n_ports, priorities=1):
    """The kernel's record of a workload: ``Overload``, ``Incast`` or a unicast ``Traffic``."""
    from switchq.models.shared_buffer import Incast, Overload

    if isinstance(workload, Overload):
        return LoadArgs(kind=OVERLOAD, congested=workload.congested, feeders=workload.feeders, degree=0, burst=0,
                        period=1, background=0.0, priority=0, senders=workload.congested * workload.feeders,
                        classes=1)
    if isinstance(workload, Incast):
        return LoadArgs(kind=INCAST, congested=0, feeders=1, degree=workload.degree, burst=workload.burst_cells,
                        period=workload.period, background=workload.background_load, priority=workload.priority,
                        senders=workload.degree, classes=1)
    return LoadArgs(kind=TRAFFIC, congested=0, feeders=1, degree=0, burst=0, period=1, background=0.0, priority=0,
                    senders=n_ports, classes=priorities)


def replicate(switch, workload, run):
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`); return its counters (``LAYOUT``)."""
    from switchq.models.traffic import Traffic

    n = switch.n_ports
    idle = Traffic(load=0.0)
    tr = K.traffic_arrays(workload if isinstance(workload, Traffic) else idle, n)
    stats = LAYOUT.zeros(run)
    _run(args_for(switch), load_for(workload, n, switch.priorities), run, tr, stats,
         K.parts(n * switch.priorities))
    return stats
