"""The flit-level network simulators: multi-flit packets moved flit by flit (paper 000 §3-§5, paper 004 §III).

Two kernels on the same tables of :mod:`switchq.models.topology`, the same counters (``LAYOUT``) and the
same bookkeeping (:mod:`.state`), chosen by the kind of network:

- :class:`~switchq.models.flit.FlitNetwork`: paper 000's cut-through switches in every buffer organisation
  (:mod:`.cut_through`, steps 1-4), used by ``bmin``;
- :class:`~switchq.models.wormhole.WormholeNetwork`: paper 004's MediaWorm routers with virtual channels,
  video streams and best effort (:mod:`.vc`, steps V1-V3), used by ``wormhole``.

Time is in cycles; one flit crosses a link per cycle. A packet's presence in one buffer is an *entry* (flits
committed to it, arrived, sent on); a packet in flight spans a chain of entries, one per buffer from its tail
to its head, which is how cut-through is represented without a record per flit.

The kernels take records built by keyword (:mod:`.arguments`, :mod:`.records`), make their arrays once
(:mod:`.arrays`) and apply the scalar rules of :mod:`.rules`; each is entered once per replication and
compiled only when first used. This module holds no loop: it builds the arguments, calls the kernel the
network needs and returns its counters.
"""

from __future__ import annotations

import numpy as np

from ... import kernel as K
from . import cut_through, vc
from .arguments import cut_through_arguments, frame_counters, vc_arguments
from .cut_through_pools import refusal
from .records import LAYOUT, NIC_PACKETS, ORG, TRACE_COLUMNS, Sw

__all__ = ["replicate", "trace_run", "lone_latency", "LAYOUT", "NIC_PACKETS", "ORG"]


def spec(sw: Sw) -> tuple:
    """The cut-through kernel's specialisation: two tuples, the first's length the buffer organisation + 1,
    the second's 1 when a sender's view of the next switch is delayed (``credit_delay`` or ``routing_age``,
    :mod:`.cut_through_view`), else 0. Numba types a tuple by its length, so each organisation, with or without
    those readings, gets a kernel of its own in which both are constants and the branches not taken are
    compiled away."""
    return (0,) * (sw.org + 1), (0,) * (1 if sw.credit_delay or sw.routing_age else 0)


def _is_vc(net) -> bool:
    from switchq.models.wormhole import WormholeNetwork

    return isinstance(net, WormholeNetwork)


# The tests read a VC run's frames as its kernel is given them.
_vc_arguments = vc_arguments


def _simulate(net, traffic, run, trace):
    """One replication of either kind of network, flits reaching nodes logged into ``trace`` while it has room
    (a 1-row trace logs nothing): ``(counters, rows of trace written)``."""
    if _is_vc(net):
        a = vc_arguments(net, traffic, run.seed)
        # the workload's seconds set the cycles; batches: the harness's trend segments
        run = K.Run(slots=a.measure, warmup=a.warm, drain=0, seed=run.seed, batches=run.batches)
        stats = LAYOUT.zeros(run)
        n = vc.simulate(a.tab, a.vc, a.va, run, stats, trace)
        frame_counters(stats, a.va, a.warm, a.warm + a.measure, a.period, a.pcs)
        return stats, n
    tab, sw, tr = cut_through_arguments(net, traffic)
    stats = LAYOUT.zeros(run)
    return stats, _cut_through(tab, sw, tr, run, stats, trace, traffic.load)


def _cut_through(tab, sw, tr, run, stats, trace, load):
    """The cut-through kernel's run: the trace rows written; a run whose pools would outgrow the memory is
    refused with what they needed (:mod:`.cut_through_pools`)."""
    n, rows, _ = cut_through.simulate(tab, sw, tr, run, stats, trace, spec(sw))
    if n < 0:
        raise refusal(rows, sw.mem_rows, load)
    return n


def replicate(net, traffic, run) -> np.ndarray:
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`, slots = cycles; for a
    :class:`~switchq.models.wormhole.WormholeNetwork` the workload's seconds set the cycles and ``run`` gives the
    seed); return its counters (``LAYOUT``)."""
    return _simulate(net, traffic, run, np.zeros((1, TRACE_COLUMNS), dtype=np.int64))[0]


def trace_run(net, traffic, run, max_flits: int = 1 << 20):
    """One replication with every flit reaching a node logged: ``(counters, trace)``, a row per flit
    ``(cycle, node, packet, flits of that packet received so far, VC)`` (for the property tests; VC 0 on
    paper-000 switches).

    Examples
    --------
    >>> from switchq.models.flit import FlitNetwork, FlitSwitch, MessageTraffic
    >>> net = FlitNetwork.bmin(16, FlitSwitch(8, "fifo", 64))
    >>> stats, trace = trace_run(net, MessageTraffic(0.2, 8), K.Run(slots=500, warmup=0, drain=2000, seed=3))
    >>> counts = LAYOUT.named(stats)
    >>> counts["flits_offered"] == counts["flits_received"] == len(trace)
    True
    """
    trace = np.zeros((max_flits, TRACE_COLUMNS), dtype=np.int64)
    stats, n = _simulate(net, traffic, run, trace)
    return stats, trace[:n]


def lone_latency(net, source: int, dest: int, message_flits: int, packet_flits: int | None = None) -> int:
    """Cycles from creation to last flit of one message from ``source`` to ``dest`` in an otherwise empty network.

    Examples
    --------
    >>> from switchq.models.flit import FlitNetwork
    >>> lone_latency(FlitNetwork.bmin(16), 0, 15, 64)      # 3 switches x 2 cycles + 4 links + 63 flits
    73
    """
    from switchq.models.flit import MessageTraffic

    tab, sw, tr = cut_through_arguments(net, MessageTraffic(1.0, message_flits, packet_flits))
    perm = np.full(net.nodes, dest, dtype=np.int64)
    active = np.zeros(net.nodes, dtype=np.int64)
    active[source] = 1
    stats = LAYOUT.zeros()
    # one message made in cycle 0, then a drain long enough for it to arrive
    _cut_through(tab, sw, tr._replace(p_msg=1.0, perm=perm, active=active),
                 K.Run(slots=1, warmup=0, drain=100 * message_flits + 1000, seed=1), stats,
                 np.zeros((1, TRACE_COLUMNS), dtype=np.int64), 1.0)
    return int(stats[K.STAT_M_LATENCY_SUM])
