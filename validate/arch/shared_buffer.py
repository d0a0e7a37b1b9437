"""The shared-memory switch's kernel (issue 37): output queues as linked lists of cells in one memory.

As a shared-memory switch is built: the memory is ``buffer_cells`` cells on a free list (with a lossless
class, its input groups' private headrooms and the shared headroom pool beside them), each queue a doubly
linked list through it, so state grows with the memory asked about, not with N times it. A slot runs the
phases of :mod:`switchq.validate.arch.shared_buffer_phases` in order: offer, admit, depart, sample.

Workloads: ``Traffic`` (any unicast pattern), ``Overload`` (queues 0..S-1 fed a cell a slot by each of their
feeders) and ``Incast`` (inputs 0..N-1 send a burst each to the last output every period; the others
Bernoulli background to the other outputs). A lossy incast event records the cells per sender admitted
before its first drop (the burst absorbed) and, when its queue empties, its completion time.
"""

from __future__ import annotations

from numba import njit

from .. import kernel as K
from .phase_pipeline import PhasePipeline
from .shared_buffer_phases import admit_all, depart_all, offer, sample
from .shared_buffer_state import (INCAST, LAYOUT, LEN, OVERLOAD, POLICY_CODES, TRAFFIC, LoadArgs, SharedArgs,
                                  new_state)

__all__ = ["LAYOUT", "replicate", "args_for", "load_for"]


@njit(cache=True, pipeline_class=PhasePipeline)
def _run(sw, ld, run, tr, stats, parts):
    K.seed_rng(run.seed)
    cell, qs, ports, g = new_state(sw)
    for t in range(run.warmup + run.slots):
        K.mark_batch(stats, t, run)
        offer(ports, g, sw, ld, t, run, tr, stats)
        admit_all(cell, qs, ports, g, sw, ld, t, run, stats, parts)
        depart_all(cell, qs, ports, g, sw, ld, t, run, stats, parts)
        sample(qs, g, sw, ld, t, run, stats)
    K.finish(stats, parts, qs[LEN].sum(), tr)


def args_for(switch):
    """The kernel's record of a :class:`~switchq.models.shared_buffer.SharedBufferSwitch`."""
    lossless = switch.lossless
    return SharedArgs(n_ports=switch.n_ports, cells=switch.buffer_cells, shared=switch.shared_cells,
                      reserved=switch.reserved_cells, policy=POLICY_CODES[switch.policy], alpha=float(switch.alpha),
                      threshold=switch.threshold_cells or 0, partition=switch.buffer_cells // switch.n_ports,
                      lossless=lossless, xoff=(switch.xoff_cells or 0) if lossless else 0,
                      xoff_alpha=float(switch.xoff_alpha or 0.0) if lossless else 0.0,
                      xon_offset=switch.xon_offset_cells if lossless else 0, xon=switch.xon_cells if lossless else 0,
                      headroom=switch.headroom_cells if lossless else 0,
                      pool=switch.headroom_pool_cells if lossless else 0,
                      pause_slots=switch.pause_slots if lossless else 0)


def load_for(workload, n_ports):
    """The kernel's record of a workload: ``Overload``, ``Incast`` or a unicast ``Traffic``."""
    from switchq.models.shared_buffer import Incast, Overload

    if isinstance(workload, Overload):
        return LoadArgs(kind=OVERLOAD, congested=workload.congested, feeders=workload.feeders, degree=0, burst=0,
                        period=1, background=0.0, watch_lo=0, watch_hi=workload.congested,
                        senders=workload.congested * workload.feeders)
    if isinstance(workload, Incast):
        return LoadArgs(kind=INCAST, congested=0, feeders=1, degree=workload.degree, burst=workload.burst_cells,
                        period=workload.period, background=workload.background_load, watch_lo=n_ports - 1,
                        watch_hi=n_ports, senders=workload.degree)
    return LoadArgs(kind=TRAFFIC, congested=0, feeders=1, degree=0, burst=0, period=1, background=0.0, watch_lo=0,
                    watch_hi=n_ports, senders=n_ports)


def replicate(switch, workload, run):
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`); return its counters (``LAYOUT``)."""
    from switchq.models.traffic import Traffic

    n = switch.n_ports
    idle = Traffic(load=0.0)
    tr = K.traffic_arrays(workload if isinstance(workload, Traffic) else idle, n)
    stats = LAYOUT.zeros(run)
    _run(args_for(switch), load_for(workload, n), run, tr, stats, K.parts(n))
    return stats
