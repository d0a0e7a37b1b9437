"""An input-queued virtual-channel router network as BookSim2 builds it (issue 38), cycle by cycle.

Routers of BookSim2's ``iq`` kind (per input port, ``num_vcs`` VCs of ``vc_buf_size`` flits; routing, VC
allocation, switch allocation and crossbar traversal as pipeline stages; credits per VC) on a fly, a mesh, a torus
or a fat tree (:mod:`switchq.models.iq_topology`, wired as BookSim2 wires them), fed by BookSim2's traffic manager:
an unbounded source queue per node (its packets' latency counts the time in it), Bernoulli or on-off packets to a
pattern's destinations. A cycle runs the traffic manager's steps (:mod:`.iq_router_nodes`), then the routers'
(:mod:`.iq_router_phases`), in BookSim2's
order: ejection, the nodes' credits, injection, then every router, then the outputs.

Modelled: lookahead routing when ``routing_delay`` is 0 and a routing stage otherwise; VC allocation and switch
allocation of one cycle each (``vc_alloc_delay`` = ``sw_alloc_delay`` = 1), each evaluated the cycle after the
stage before completes; the crossbar delay ``st_prepare_delay + st_final_delay``; ``credit_delay`` after the
credit channel; ``wait_for_tail_credit``; ``input_speedup`` binding VC v to crossbar input v mod s and
``output_speedup`` input p to output port p mod s; ``hold_switch_for_packet``; iSLIP with its iterations and the
separable input-first and output-first allocators with round-robin arbiters; private buffers, and the shared
policy with one private region per VC (reserved slots kept for the packet holding a VC, as SharedBufferPolicy).
Not modelled (the configuration reader refuses them): speculation, longer allocation stages, the limited, dynamic,
shifting and feedback buffer policies and other private regions, the shared policy with output speedup (BookSim2
overflows there and stops), several traffic classes or subnets, output buffers of bounded size, internal
speedup.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import kernel as K
from .iq_router_alloc import ALLOCATORS
from .iq_router_nodes import eject, inject, node_credits
from .iq_router_phases import router_step, send_outputs
from .iq_router_state import (G_FREE, G_LIVE, IN_NET_START, LAG_END, LAG_START, LAYOUT, N_QTIME, P_NEXT, W_EJ_PORT,
                              W_EJ_ROUTER, W_INJ_PORT,
                              W_INJ_ROUTER, W_LATENCY, W_OUT_NODE, W_OUT_PORT, W_OUT_ROUTER, W_UP_NODE, W_UP_PORT,
                              W_UP_ROUTER, VC_ROWS, Load, Net, new_state, offsets)
from .iq_routes import TOPOLOGY_CODES
from .memory import check_fits

__all__ = ["LAYOUT", "replicate", "args_for", "load_for", "wires_for"]


@njit(cache=True)
def _lag(nd, net, t):
    total = 0
    for node in range(net.nodes):
        total += t - nd[N_QTIME, node]
    return total


@njit(cache=True)
def _start(net, ld, seed):
    """Seed the replication's generator and build the empty network (the on-off sources draw their state)."""
    K.seed_rng(seed)
    return new_state(net, ld.on_off == 1)


@njit(cache=True)
def _run(net, wr_, ld, run, stats_, start, vcs_, vbuf_, port_, pk_, nd_, rt_, req_):
    """The cycles from ``start``, on borrowed views of the state (its caller holds the arrays; see
    kernel.borrowed). Returns the cycle it stopped before: the end, or a cycle that might need more packet
    records than are free (a node creates at most one a cycle), for the caller to grow them and go on."""
    b = K.borrowed
    wr, stats, vcs, vbuf, port, pk, nd, rt, req = (b(wr_), b(stats_), b(vcs_), b(vbuf_), b(port_), b(pk_), b(nd_),
                                                  b(rt_), b(req_))
    end = run.warmup + run.slots
    for t in range(start, end):
        if pk.shape[1] - rt[net.routers, G_LIVE] < net.nodes:
            return t
        K.mark_batch(stats, t, run)
        if t == run.warmup:
            stats[LAG_START] = _lag(nd, net, t)
            stats[IN_NET_START] = stats[K.STAT_ARRIVED] - stats[K.STAT_DELIVERED]
        eject(port, pk, rt, wr, stats, net, t, run.warmup)
        node_credits(vcs, port, net, t)
        inject(vcs, port, pk, nd, rt, wr, stats, net, ld, t, run.warmup)
        for r in range(net.routers):
            router_step(vcs, vbuf, port, pk, rt, req, wr, net, r, t)
        send_outputs(port, rt, wr, net, t)
    stats[LAG_END] = _lag(nd, net, end)
    stats[K.STAT_QUEUED] = stats[K.STAT_ARRIVED] - stats[K.STAT_DELIVERED]
    return end


def _more_packets(pk, rt, routers):
    """The packet records doubled, the new ones put on the free list (records are named by index only, so where a
    packet's record lies changes no figure)."""
    n = pk.shape[1]
    grown = np.zeros((pk.shape[0], 2 * n), dtype=np.int64)
    grown[:, :n] = pk
    grown[P_NEXT, n:2 * n - 1] = np.arange(n + 1, 2 * n)
    grown[P_NEXT, 2 * n - 1] = rt[routers, G_FREE]
    rt[routers, G_FREE] = n
    return grown


def _pow2(n: int) -> int:
    return 1 << max(1, int(n - 1).bit_length())


def wires_for(w):
    """The kernel's record of a :class:`~switchq.models.iq_topology.Wiring` (rows ``W_*``), with each input's
    upstream."""
    nro = w.routers * w.ports
    wr = np.full((11, max(nro, w.nodes)), -1, dtype=np.int64)
    for row, table in ((W_OUT_ROUTER, w.out_router), (W_OUT_PORT, w.out_port), (W_OUT_NODE, w.out_node),
                       (W_LATENCY, w.latency)):
        wr[row, :nro] = np.asarray(table).reshape(-1)
    for r in range(w.routers):
        for o in range(w.ports):
            dr, dp = w.out_router[r, o], w.out_port[r, o]
            if dr >= 0:
                wr[W_UP_ROUTER, dr * w.ports + dp], wr[W_UP_PORT, dr * w.ports + dp] = r, o
    for node in range(w.nodes):
        wr[W_UP_NODE, w.inj_router[node] * w.ports + w.inj_port[node]] = node
    for row, table in ((W_INJ_ROUTER, w.inj_router), (W_INJ_PORT, w.inj_port), (W_EJ_ROUTER, w.ej_router),
                       (W_EJ_PORT, w.ej_port)):
        wr[row, :w.nodes] = table
    return wr


def args_for(net, traffic, w):
    """The kernel's record of a :class:`~switchq.models.iq_router.IqRouterNetwork` wired as ``w``, for packets of
    ``traffic``'s size."""
    xd = net.st_prepare_delay + net.st_final_delay
    lmax = int(w.latency.max()) if w.latency.size else 1
    shared = net.buffer_policy == "shared"
    per_port = net.port_buffer                      # flits an input port's buffer holds
    priv = net.private_slots if shared else 0
    shsize = per_port - net.num_vcs * priv if shared else 0
    depth = priv + shsize if shared else net.vc_buf_size   # the most one VC can hold
    # An output queue takes at most one flit a cycle per crossbar output and sends one a cycle once its traversal
    # is over: with output_speedup 1 it never holds more than xd + 1; with more, the downstream credits bound it.
    qcap = _pow2(xd + 2 if net.output_speedup == 1 else per_port + xd * net.output_speedup + 2)
    ring = _pow2(lmax + net.credit_delay + 3)
    nro = w.routers * w.ports
    sbits = int(traffic.packet_size - 1).bit_length()
    pool = 4 * w.nodes + 64             # packet records to start with: they double when a cycle might run out
    return Net(topo=TOPOLOGY_CODES[net.topology], k=net.k, n=net.n, nodes=w.nodes, routers=w.routers,
               ports=w.ports, vcs=net.num_vcs, depth=depth, si=net.input_speedup, so=net.output_speedup,
               xd=xd, rd=net.routing_delay, credit_delay=net.credit_delay, hold=net.hold_switch_for_packet,
               wait_tail=net.wait_for_tail_credit, va_alloc=ALLOCATORS[net.vc_allocator], va_iters=net.vc_iterations,
               sa_alloc=ALLOCATORS[net.sw_allocator], sa_iters=net.sw_iterations, qcap=qcap, pool=pool,
               size=traffic.packet_size, sbits=sbits, bits=int(w.ports * net.num_vcs <= 63), smask=(1 << sbits) - 1, shared=int(shared), priv=priv,
               shsize=shsize, cap=per_port, ring=ring, rmask=ring - 1,
               niv=nro * net.num_vcs, nro=nro,
               **offsets(w.ports, net.num_vcs, net.input_speedup, net.output_speedup, ring, qcap))


def load_for(traffic, nodes):
    """The kernel's record of :class:`~switchq.models.iq_router.IqTraffic`: the rate in packets per node per
    cycle (a rate in flits divided by the packet size, as BookSim2's injection_rate_uses_flits)."""
    from .iq_routes import PATTERNS

    on_off = traffic.process == "on_off"
    return Load(pattern=PATTERNS[traffic.pattern], rate=traffic.packet_rate, on_off=int(on_off),
                alpha=traffic.on_off_alpha if on_off else 0.0, beta=traffic.on_off_beta if on_off else 0.0,
                r1=traffic.burst_r1_packets if on_off else 0.0, queuing=bool(traffic.include_queuing))


def replicate(net, traffic, run):
    """One replication; its counters (``LAYOUT``)."""
    from switchq.models.iq_topology import wiring

    w = wiring(net.topology, net.k, net.n, net.use_noc_latency)
    stats = LAYOUT.zeros(run)
    kn, ld, wr = args_for(net, traffic, w), load_for(traffic, w.nodes), wires_for(w)
    left = check_fits("nodes", w.nodes, state_bytes(kn), "the network's state at the start")
    state = list(_start(kn, ld, run.seed))
    t, end = 0, run.warmup + run.slots
    while t < end:
        t = _run(kn, wr, ld, run, stats, t, *state)
        if t < end:
            # The doubled records are allocated while the old ones still live; then the old ones are freed.
            left = check_fits("nodes", w.nodes, {"packet_records": 2 * state[3].nbytes},
                              f"the packets in flight at cycle {t}", available=left) + state[3].nbytes
            state[3] = _more_packets(state[3], state[5], kn.routers)      # pk, grown with rt's free list
    return stats


def state_bytes(kn) -> dict:
    """The bytes of the state :func:`new_state` allocates, by record (the packet records' first size)."""
    word = 8
    return {"VC_records": VC_ROWS * (kn.niv + kn.nodes * kn.vcs) * word, "flit_stores": 2 * kn.nro * kn.cap * word,
            "channels_and_queues": (kn.nro + kn.nodes) * (kn.c_free + 1) * word,
            "router_records": (kn.routers + 1) * (kn.r_hout + kn.ports * kn.so) * word,
            "packet_records": 8 * kn.pool * word}
