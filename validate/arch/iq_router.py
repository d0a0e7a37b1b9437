"""An input-queued virtual-channel router network as BookSim2 builds it (issue 38), cycle by cycle.

Routers of BookSim2's ``iq`` kind (per input port, ``num_vcs`` VCs of ``vc_buf_size`` flits; routing, VC
allocation, switch allocation and crossbar traversal as pipeline stages; credits per VC) on a fly, a mesh, a torus
or a fat tree (:mod:`switchq.models.iq_topology`, wired as BookSim2 wires them), fed by BookSim2's traffic manager:
an unbounded source queue per node (its packets' latency counts the time in it), Bernoulli or on-off packets to a
pattern's destinations. A cycle runs the phases of :mod:`switchq.validate.arch.iq_router_phases` in BookSim2's
order: ejection, the nodes' credits, injection, then every router, then the outputs.

Modelled: lookahead routing when ``routing_delay`` is 0 and a routing stage otherwise; VC allocation and switch
allocation of one cycle each (``vc_alloc_delay`` = ``sw_alloc_delay`` = 1), each evaluated the cycle after the
stage before completes; the crossbar delay ``st_prepare_delay + st_final_delay``; ``credit_delay`` after the
credit channel; ``wait_for_tail_credit``; ``input_speedup`` binding VC v to crossbar input v mod s and
``output_speedup`` input p to output port p mod s; ``hold_switch_for_packet``; iSLIP with its iterations and the
separable input-first and output-first allocators with round-robin arbiters; private buffers. Not modelled (the
configuration reader refuses them): speculation, longer allocation stages, shared buffer policies, several traffic
classes or subnets, output buffers of bounded size, internal speedup.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import kernel as K
from .iq_router_alloc import ALLOCATORS
from .iq_router_phases import eject, inject, node_credits, router_step, send_outputs
from .iq_router_state import IN_NET_START, LAG_END, LAG_START, LAYOUT, N_QTIME, Load, Net, Wires, new_state
from .iq_routes import TOPOLOGY_CODES

__all__ = ["LAYOUT", "replicate", "args_for", "load_for", "wires_for"]


@njit(cache=True)
def _lag(st, net, t):
    total = 0
    for node in range(net.nodes):
        total += t - st.nodes[N_QTIME, node]
    return total


@njit(cache=True)
def _run(net, wires, ld, run, stats):
    K.seed_rng(run.seed)
    st = new_state(net, ld.on_off == 1)
    end = run.warmup + run.slots
    for t in range(end):
        K.mark_batch(stats, t, run)
        if t == run.warmup:
            stats[LAG_START] = _lag(st, net, t)
            stats[IN_NET_START] = stats[K.STAT_ARRIVED] - stats[K.STAT_DELIVERED]
        eject(st, net, wires, t, run.warmup, stats)
        node_credits(st, net, t)
        inject(st, net, wires, ld, t, run.warmup, stats)
        for r in range(net.routers):
            router_step(st, net, wires, r, t)
        send_outputs(st, net, wires, t)
    stats[LAG_END] = _lag(st, net, end)
    stats[K.STAT_QUEUED] = stats[K.STAT_ARRIVED] - stats[K.STAT_DELIVERED]


def _pow2(n: int) -> int:
    return 1 << max(1, int(n - 1).bit_length())


def wires_for(w):
    """The kernel's record of a :class:`~switchq.models.iq_topology.Wiring`, with each input's upstream."""
    up_router = np.full((w.routers, w.ports), -1, dtype=np.int64)
    up_port = np.full((w.routers, w.ports), -1, dtype=np.int64)
    up_node = np.full((w.routers, w.ports), -1, dtype=np.int64)
    for r in range(w.routers):
        for o in range(w.ports):
            dr, dp = w.out_router[r, o], w.out_port[r, o]
            if dr >= 0:
                up_router[dr, dp], up_port[dr, dp] = r, o
    for node in range(w.nodes):
        up_node[w.inj_router[node], w.inj_port[node]] = node
    return Wires(out_router=w.out_router, out_port=w.out_port, out_node=w.out_node, latency=w.latency,
                 inj_router=w.inj_router, inj_port=w.inj_port, ej_router=w.ej_router, ej_port=w.ej_port,
                 up_router=up_router, up_port=up_port, up_node=up_node)


def args_for(net, traffic, w):
    """The kernel's record of a :class:`~switchq.models.iq_router.IqRouterNetwork` wired as ``w``, for packets of
    ``traffic``'s size."""
    xd = net.st_prepare_delay + net.st_final_delay
    lmax = int(w.latency.max()) if w.latency.size else 1
    qcap = _pow2(net.num_vcs * net.vc_buf_size + xd * net.output_speedup + 2)
    ring = lmax + net.credit_delay + 3
    # Packets at once: one per flit any buffer, output queue or channel can hold, and each node's own.
    pool = (w.routers * w.ports * (net.num_vcs * net.vc_buf_size + qcap + ring) + w.nodes * (ring + 1) + 1)
    return Net(topo=TOPOLOGY_CODES[net.topology], k=net.k, n=net.n, nodes=w.nodes, routers=w.routers,
               ports=w.ports, vcs=net.num_vcs, depth=net.vc_buf_size, si=net.input_speedup, so=net.output_speedup,
               xd=xd, rd=net.routing_delay, credit_delay=net.credit_delay, hold=net.hold_switch_for_packet,
               wait_tail=net.wait_for_tail_credit, va_alloc=ALLOCATORS[net.vc_allocator], va_iters=net.vc_iterations,
               sa_alloc=ALLOCATORS[net.sw_allocator], sa_iters=net.sw_iterations, lmax=lmax, qcap=qcap, pool=pool,
               size=traffic.packet_size)


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
    _run(args_for(net, traffic, w), wires_for(w), load_for(traffic, w.nodes), run, stats)
    return stats
