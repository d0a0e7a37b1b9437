"""The iq router network's traffic manager (issue 38), as BookSim2's runs it each cycle before the routers:
:func:`eject` (flits reaching the nodes, their credits sent back), :func:`node_credits` and :func:`inject` (each
source's next Bernoulli or on-off trial, lazily: a source tests cycle ``qtime`` only once its last packet has
left it, so its lag behind the clock is its queue; then one flit per node per cycle, a head taking the first
free input VC with room after the last one used). The routers are :mod:`.iq_router_phases`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import kernel as K
from .iq_router_buffers import _credited, _full, _sending
from .iq_router_state import (G_FREE, G_LIVE, M_FLAT, M_FLIT_GEN, M_FLITS_EJ, M_HOPS, M_NLAT, M_PACKETS, M_PKT_GEN,
                              M_PLAT, N_FLIT, N_LAST, N_ON, N_PKT, N_QTIME, N_VC, O_OWNER, O_TAIL, P_CTIME, P_DEST,
                              P_EJECTED, P_FLAT, P_HOPS, P_ITIME, P_NEXT, P_PH, PLAT_MAX, W_EJ_PORT, W_EJ_ROUTER,
                              W_INJ_PORT, W_INJ_ROUTER)
from .iq_routes import destination, route


# --- The traffic manager.


@njit(cache=True, inline="always")
def _release_packet(pk, rt, net, pkt):
    g = net.routers                            # rt's last row: the pool's free list
    pk[P_NEXT, pkt] = rt[g, G_FREE]
    rt[g, G_FREE] = pkt
    rt[g, G_LIVE] -= 1


@njit(cache=True, inline="always")
def eject(port, pk, rt, wr, stats, net, t, warmup):
    """Flits read at the nodes in cycle t; each sends its credit back at once (a channel of 1 cycle); a tail's
    packet is measured (creation to tail, head injection to tail) if it arrives while measuring."""
    s = t & net.rmask
    slot = (t + 2 + net.credit_delay) & net.rmask
    back = net.c_cr + slot * net.vcs
    for node in range(net.nodes):
        er = wr[W_EJ_ROUTER, node]
        ro = er * net.ports + wr[W_EJ_PORT, node]
        f = port[ro, s]
        if f < 0:
            continue
        port[ro, s] = -1
        port[ro, back + port[ro, net.c_vc + s]] += 1
        rt[er, net.r_cdue + slot] += 1
        pkt = f >> net.sbits
        pk[P_FLAT, pkt] += t
        pk[P_EJECTED, pkt] += 1
        stats[K.STAT_DELIVERED] += 1
        if t >= warmup:
            stats[K.STAT_M_DELIVERED] += 1
            stats[M_FLITS_EJ] += 1
        if f & net.smask != net.size - 1:
            continue
        if t >= warmup:
            plat = t - pk[P_CTIME, pkt]
            stats[M_PACKETS] += 1
            stats[M_PLAT] += plat
            stats[M_NLAT] += t - pk[P_ITIME, pkt]
            stats[M_FLAT] += pk[P_FLAT, pkt]
            stats[M_HOPS] += pk[P_HOPS, pkt]
            stats[K.STAT_M_LATENCY_SUM] += plat
            stats[K.STAT_M_LATENCY_COUNT] += 1
            if plat > stats[PLAT_MAX]:
                stats[PLAT_MAX] = plat
        _release_packet(pk, rt, net, pkt)


@njit(cache=True, inline="always")
def node_credits(vcs, port, net, t):
    """Credits a node reads in cycle t, applied at once (BookSim2's traffic manager): its view of its router's
    input VCs."""
    due = net.c_cr + (t & net.rmask) * net.vcs
    for node in range(net.nodes):
        x = net.nro + node
        for c in range(net.vcs):
            k = port[x, due + c]
            if k == 0:
                continue
            port[x, due + c] = 0
            _credited(vcs, port, net, net.niv + node * net.vcs + c, x, k)


@njit(cache=True, inline="always")
def _trial(nd, ld, node):
    """One cycle of the node's injection process: Bernoulli, or BookSim2's on-off chain (the state steps, then
    a packet with probability r1 while on)."""
    if ld.on_off == 0:
        return np.random.random() < ld.rate
    if nd[N_ON, node] == 1:
        nd[N_ON, node] = 0 if np.random.random() < ld.beta else 1
    else:
        nd[N_ON, node] = 1 if np.random.random() < ld.alpha else 0
    return nd[N_ON, node] == 1 and np.random.random() < ld.r1


@njit(cache=True, inline="always")
def _new_packet(pk, nd, rt, stats, net, ld, node, q, t, warmup):
    """A packet created at the node's source in cycle q (seen in cycle t), taken from the pool."""
    g = net.routers
    pkt = rt[g, G_FREE]
    rt[g, G_FREE] = pk[P_NEXT, pkt]
    rt[g, G_LIVE] += 1
    pk[P_DEST, pkt] = destination(ld.pattern, node, net.nodes, net.k, net.n)
    pk[P_CTIME, pkt] = q if ld.queuing else t
    pk[P_ITIME, pkt] = -1
    pk[P_PH, pkt] = -1                         # not yet routed (BookSim2's reset value)
    pk[P_HOPS, pkt] = 0
    pk[P_EJECTED, pkt] = 0
    pk[P_FLAT, pkt] = 0
    nd[N_PKT, node] = pkt
    nd[N_FLIT, node] = 0
    if t >= warmup:
        stats[M_PKT_GEN] += 1
        stats[M_FLIT_GEN] += net.size
        stats[K.STAT_M_OFFERED] += net.size


@njit(cache=True, inline="always")
def inject(vcs, port, pk, nd, rt, wr, stats, net, ld, t, warmup):
    """Each node's source (generating its next packet once the last has left it) and one flit onto its
    injection channel, if its router's input VC has room."""
    size = net.size
    s = (t + 2) & net.rmask
    for node in range(net.nodes):
        if nd[N_PKT, node] < 0:
            while nd[N_QTIME, node] <= t:
                q = nd[N_QTIME, node]
                nd[N_QTIME, node] = q + 1
                if _trial(nd, ld, node):
                    _new_packet(pk, nd, rt, stats, net, ld, node, q, t, warmup)
                    break
        pkt = nd[N_PKT, node]
        if pkt < 0:
            continue
        f = nd[N_FLIT, node]
        x = net.nro + node
        base = net.niv + node * net.vcs
        if f == 0:
            out, lo, hi, ph = route(net.topo, net.k, net.n, net.vcs, wr[W_INJ_ROUTER, node], wr[W_INJ_PORT, node],
                                    pk[P_DEST, pkt], -1, True)
            vc = -1
            span = hi - lo + 1
            last = nd[N_LAST, node]
            for m in range(1, span + 1):
                c = lo + (last - lo + m) % span
                if vcs[O_OWNER, base + c] < 0 and not _full(vcs, port, net, base + c, x):
                    vc = c
                    break
            if vc < 0:
                continue
            nd[N_VC, node] = vc
            nd[N_LAST, node] = vc
            vcs[O_OWNER, base + vc] = node
            vcs[O_TAIL, base + vc] = 0
            pk[P_ITIME, pkt] = t
        else:
            vc = nd[N_VC, node]
            if _full(vcs, port, net, base + vc, x):
                continue
        _sending(vcs, port, net, base + vc, x, f == size - 1)
        pk[P_FLAT, pkt] -= t
        port[x, s] = (pkt << net.sbits) | f
        port[x, net.c_vc + s] = vc
        rt[wr[W_INJ_ROUTER, node], net.r_idue + s] += 1
        stats[K.STAT_ARRIVED] += 1
        nd[N_FLIT, node] = f + 1
        if f + 1 == size:
            nd[N_PKT, node] = -1
