"""Packet-level simulation of a network of crosspoint-buffered output-queued switches with credits.

Paper 003 (Kumar, Kale & Stunkel) §2-§4: fat trees of output-queued switches
with crosspoint buffers and credits; permutations, multicast over the
spanning trees, batches of messages (the NAMD-like benchmark). The kernel
reads a topology's tables (:mod:`switchq.models.topology`) and nothing else
about its shape, so any topology there runs here.

Time is slotted: one slot is one packet on a link (256 B at 10 Gb/s =
204.8 ns with Table 1's figures). A packet sent by an output in slot ``t``
can leave the next switch's output from slot ``t + link_delay_slots``
(cut-through: channel plus switch pipeline delay, rounded up to a slot); the
credit of a crosspoint buffer freed in slot ``t`` is usable upstream from
``t + credit_delay_slots``.

Switch: every input port owns ``crosspoint_cells`` packet buffers at every
output port (crosspoint buffering, §2). The sender upstream (a switch output
or the node's NIC) holds the credits of those buffers, so it must know which
output a packet will take at the next switch: routing is one hop ahead.
Where the route is fixed (going down a tree) the output is the route's;
where it offers a choice (going up) the sender picks the candidate port with
the most credits (ties at random): adaptive routing on credits. Each output
sends one packet per slot, the oldest (by arrival at this switch) among the
heads of its crosspoint buffers whose next hop has credit.

Multicast (§2.1-2.2): a packet climbs to the lowest switch that reaches all
its destinations, then descends the unique downward paths; at a switch where
the paths fork it enters every needed crosspoint at once (it crosses the
crossbar once), so its sender needs a credit for each. As on a single
switch (``validate.arch.multicast``), the credits of one arrival's copies go
back together when the last of them leaves the switch. A destination set
is a sorted list; a copy carries the slice of it below the port it takes
(contiguous on a tree), so splitting at a fork is a scan, not a set operation.

Destinations: uniform traffic picks any other node; a permutation's fixed
points (bit reversal and transpose have some) loop through their leaf
switch; a multicast set never holds its sender. Each node's NIC keeps a
FIFO, sends one packet per slot when the leaf switch's crosspoint has credit
and sinks packets at link rate; NIC overheads (Table 1) are latency added
outside the loop.

Counters: a "packet" is a message of one packet, delivered when its last
copy reaches a node (``queued``: those not yet at all their destinations);
the extras count copies reaching nodes, copies owed, the copies owed and
not yet delivered when measuring starts and ends (the whole network's
backlog, for the stability rule), and credits not back at the end.

The slot is run as these named phases (:mod:`switchq.validate.arch.network_phases`) over the packed state
of :mod:`switchq.validate.arch.network_state`: ``return_credits``, ``arrive``, ``generate``, ``inject``,
``send_outputs``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from switchq.models import _check
from switchq.models.fanout import fanout_pmf

from .. import kernel as K
from .network_phases import account, arrive, generate, inject, load_batch, return_credits, send_outputs
from .network_state import (BACKLOG_END, BACKLOG_START, COPIES, COPIES_OWED, LAYOUT, NIC_QUEUE_PACKETS, ROUTINGS,
                            Output, dims, new_state, nic_capacity)

__all__ = ["replicate", "run_batch", "LAYOUT", "ROUTINGS", "NIC_QUEUE_PACKETS"]

# Sizes below this share of the fanout law's mass are never drawn (binomial tails).
_FANOUT_TAIL = 1e-12

# What the kernel reads besides its sizes (network_state.Dims): the topology's tables, the sources, a batch
# (or none).
Tables = namedtuple("Tables", "out_switch out_input route groups stage source_port ports")
Sources = namedtuple("Sources", "load kind perm size_cdf f_cap")
Batch = namedtuple("Batch", "src ready n dest")


@njit(cache=True)
def _run(d, tab, src, batch, run, stats, out, parts):
    """One replication. ``batch.src`` non-empty: no random arrivals, run the batch until it drains.

    ``d``: the network's sizes and routing (:data:`network_state.Dims`); ``src.kind``: ``K.DEST_UNIFORM``
    unicast (any other node), ``K.DEST_PERMUTATION`` ``src.perm``, ``K.DEST_MULTICAST`` (sizes from
    ``src.size_cdf``, uniform subsets of the other nodes). ``out.deliveries[b]`` gets the slot the last
    copy of batch packet ``b`` arrived, and row ``c`` of ``out.log`` the packet, node and slot of the c-th
    copy delivered. Each slot is the pipeline of :mod:`.network_phases`; ``stats`` (``LAYOUT``), ``out``
    and ``parts`` are modified in place; returns the slots run.
    """
    K.seed_rng(run.seed)
    n_batch = batch.src.shape[0]
    batched = n_batch > 0
    st = new_state(d, n_batch if batched else d.nodes * d.nic_cap + d.n_pk, src.f_cap)
    # The free stacks' tops (copies, arrival groups, messages): the phases take and return them.
    c_top = d.n_pk
    g_top = d.n_pk
    m_top = st.msgs.shape[1]
    if batched:
        m_top = 0
        load_batch(d, batch, stats, st)
    warmup = run.warmup
    end = warmup + run.slots
    t = 0
    while True:
        if batched:
            if stats[K.STAT_DELIVERED] == n_batch or t >= end:
                break
        else:
            if t == warmup:
                stats[BACKLOG_START] = stats[COPIES_OWED] - stats[COPIES]
            if t == end:
                stats[BACKLOG_END] = stats[COPIES_OWED] - stats[COPIES]
            if t >= end + run.drain:
                break
        K.mark_batch(stats, t, run)
        measured_from = warmup if t < end else K.NEVER
        return_credits(t, d, st)
        c_top, g_top = arrive(t, d, tab, st, c_top, g_top)
        if not batched and t < end:
            m_top = generate(t, d, src, warmup, stats, parts, st, m_top)
        c_top = inject(t, d, tab, st, c_top)
        c_top, g_top, m_top = send_outputs(t, measured_from, d, tab, stats, parts, st, out, c_top, g_top, m_top)
        t += 1
    account(d, stats, parts, st)
    return t


def _fanout_sizes(nodes, traffic):
    """(size_cdf, f_cap) of the destination-set size over the other ``nodes - 1`` nodes."""
    pmf = fanout_pmf(nodes - 1, traffic.fanout, traffic.fanout_distribution)
    cdf = np.cumsum(pmf)
    # Largest size worth storing: beyond it the law's tail is below _FANOUT_TAIL.
    f_cap = int(np.searchsorted(cdf, 1.0 - _FANOUT_TAIL)) + 1
    f_cap = min(f_cap, nodes - 1)
    cdf[f_cap:] = 1.0
    return cdf, f_cap


def _sources(nodes: int, traffic) -> Sources:
    perm = np.zeros(nodes, dtype=np.int64)
    size_cdf = np.ones(1)
    f_cap = 1
    if traffic.fanout != 1.0:
        kind = K.DEST_MULTICAST
        size_cdf, f_cap = _fanout_sizes(nodes, traffic)
    elif traffic.pattern == "uniform":
        kind = K.DEST_UNIFORM
    else:
        kind = K.DEST_PERMUTATION
        perm = traffic.permutation(nodes).astype(np.int64)
    return Sources(load=float(traffic.load), kind=kind, perm=perm, size_cdf=size_cdf, f_cap=f_cap)


def _arguments(net, batch_src=()):
    """The network's sizes, delays and routing (room in the NICs for ``batch_src``'s packets), and its
    topology's tables, for the kernel."""
    topo = net.topology()
    tab = Tables(**{name: getattr(topo, name) for name in Tables._fields})
    n_sw, nodes = tab.route.shape
    d = dims(q=net.crosspoint_cells, ld=net.timing.link_delay_slots, cd=net.timing.credit_delay_slots,
             routing=ROUTINGS[net.up_routing], ports=tab.ports, n_sw=n_sw, nodes=nodes,
             nic_cap=nic_capacity(np.asarray(batch_src, dtype=np.int64), nodes))
    return d, tab


_NO_BATCH = Batch(src=np.zeros(0, dtype=np.int64), ready=np.zeros(0, dtype=np.int64), n=np.zeros(0, dtype=np.int64),
                  dest=np.zeros((0, 1), dtype=np.int64))
_NO_OUTPUT = Output(deliveries=np.zeros(1, dtype=np.int64), log=np.zeros((1, 3), dtype=np.int64), batched=False)


def replicate(net, traffic, run) -> np.ndarray:
    """Run one replication of steady traffic (``run``: a :class:`~switchq.validate.kernel.Run`); return
    its counters (``LAYOUT``)."""
    d, tab = _arguments(net)
    stats = LAYOUT.zeros(run)
    _run(d, tab, _sources(d.nodes, traffic), _NO_BATCH, run, stats, _NO_OUTPUT, K.parts(d.nodes))
    return stats


def run_batch(net, src, ready, dests, seed: int = 1, max_slots: int = 10**7):
    """Send a batch of packets through an idle network; return the slot each arrives at its last destination.

    ``src[b]`` sends packet b (to the sorted destination list ``dests[b]``) no
    earlier than slot ``ready[b]``; packets of one NIC go in list order.
    Returns ``(deliveries, log, stats)``; ``deliveries[b]`` is -1 if the batch did
    not drain within ``max_slots``; ``log`` has one row (packet, node, slot) per copy delivered;
    ``stats`` are the counters (``LAYOUT``).

    Examples
    --------
    >>> from switchq.models.network import FatTreeNetwork
    >>> deliveries, log, _ = run_batch(FatTreeNetwork.for_nodes(16, 8), [0], [0], [[15]])
    >>> int(deliveries[0]), log[0].tolist()        # 4 links of one slot each
    (4, [0, 15, 4])
    """
    topo = net.topology()
    nodes, n_batch = topo.route.shape[1], len(src)
    if n_batch == 0 or len(ready) != n_batch or len(dests) != n_batch:
        raise _check.InputError("src", src, "a non-empty list, as long as ready and dests")
    for v, at, d in zip(src, ready, dests):
        v, _, d = _check.integer("src", v, 0, nodes - 1), _check.integer("ready", at, 0, max_slots), list(d)
        if not d or len(set(d)) != len(d) or v in d or not all(0 <= x < nodes for x in d):
            raise _check.InputError("dests", d, f"distinct nodes in [0, {nodes - 1}] other than the sender {v}, "
                                                "at least one")
    f_cap = max(len(d) for d in dests)
    batch_dest = np.zeros((n_batch, f_cap), dtype=np.int64)
    batch_n = np.zeros(n_batch, dtype=np.int64)
    for b, d in enumerate(dests):
        batch_dest[b, :len(d)] = sorted(d)
        batch_n[b] = len(d)
    sizes, tab = _arguments(net, src)
    stats = LAYOUT.zeros()
    deliveries = np.full(n_batch, -1, dtype=np.int64)
    log = np.full((int(batch_n.sum()), 3), -1, dtype=np.int64)
    batch = Batch(src=np.asarray(src, dtype=np.int64), ready=np.asarray(ready, dtype=np.int64), n=batch_n,
                  dest=batch_dest)
    no_sources = Sources(load=0.0, kind=K.DEST_UNIFORM, perm=np.zeros(1, dtype=np.int64), size_cdf=np.ones(1),
                         f_cap=f_cap)
    _run(sizes, tab, no_sources, batch, K.Run(slots=max_slots, warmup=0, drain=0, seed=seed), stats,
         Output(deliveries=deliveries, log=log, batched=True), K.parts(nodes))
    return deliveries, log, stats
