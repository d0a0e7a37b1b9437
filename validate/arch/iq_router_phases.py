"""The steps of the iq router network's cycle (issue 38), each over the packed state of
:mod:`switchq.validate.arch.iq_router_state`, in the order BookSim2 runs a cycle.

The traffic manager first: :func:`eject` (flits reaching the nodes, their credits sent back), :func:`node_credits`
and :func:`inject` (each source's next Bernoulli or on-off trial as BookSim2 makes it, lazily: a source tests
cycle ``qtime`` only once its last packet has left it, so its lag behind the clock is its queue; then one flit per
node per cycle, a head taking the first free input VC with room after the last one used). Then every router:
:func:`router_step` (arrivals into their VCs and credits due; routing, VC allocation, the held switch and switch
allocation, each evaluated the cycle after the stage before it completes, as BookSim2's stages are), and
:func:`send_outputs` (each output sends the first flit of its queue whose crossbar traversal is over).

Timing, as BookSim2's channels have it: what is sent in cycle t on a channel of latency d is read in cycle
t + d + 1. A credit returns on the reverse channel and is applied ``credit_delay`` cycles after it is read (at
once by a node). A flit winning switch allocation in cycle t leaves its output in cycle t + the crossbar delay.

Each phase takes the arrays it touches as arguments (see the state module for why).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import kernel as K
from .iq_router_alloc import allocate
from .iq_router_state import (ACTIVE, B_FLITS, B_QUEUED, B_ROUTING, B_SA, B_VA, G_FREE, G_LIVE, IDLE,
                              M_FLAT, M_FLIT_GEN, M_FLITS_EJ, M_HOPS, M_NLAT, M_PACKETS, M_PKT_GEN, M_PLAT,
                              N_FLIT, N_LAST, N_ON, N_PKT, N_QTIME, N_VC, NEVER, O_OCC, O_OWNER, O_POCC, O_RES,
                              O_TAIL, P_CTIME, P_DEST, P_EJECTED, P_FLAT, P_HOPS, P_ITIME, P_NEXT, P_PH, PLAT_MAX,
                              ROUTING, V_DONE, V_EVAL, V_HEAD, V_HI, V_HOLD, V_LEN, V_LO, V_OUT, V_OVC, V_STATE, V_TAIL,
                              VA,
                              W_EJ_PORT, W_EJ_ROUTER, W_INJ_PORT, W_INJ_ROUTER, W_LATENCY, W_OUT_NODE,
                              W_OUT_ROUTER, W_UP_NODE, W_UP_PORT, W_UP_ROUTER)
from .iq_routes import destination, route

# --- A sender's view of the buffer behind its channel (BookSim2's BufferState and its buffer policy), for an
# output VC's column j of ``vcs`` and the channel's row x of ``port``. Private: ``depth`` flits a VC. Shared
# (SharedBufferPolicy, one private region per VC): a flit takes a slot reserved for its VC, else a private one,
# else a shared one; a credit that empties a VC still held by a packet keeps its slot reserved for that packet
# until its tail is sent.


@njit(cache=True, inline="always")
def _full(vcs, port, net, j, x):
    """BookSim2's IsFullFor: no room behind channel x for another flit of VC j."""
    if net.shared == 0:
        return vcs[O_OCC, j] >= net.depth
    return vcs[O_RES, j] == 0 and vcs[O_POCC, j] >= net.priv and port[x, net.c_sh] >= net.shsize


@njit(cache=True, inline="always")
def _free_slot(vcs, port, net, j, x):
    """The shared policy's ProcessFreeSlot: a slot of VC j's region back, a shared one if it had spilled."""
    vcs[O_POCC, j] -= 1
    if vcs[O_POCC, j] >= net.priv:
        port[x, net.c_sh] -= 1


@njit(cache=True, inline="always")
def _sending(vcs, port, net, j, x, tail):
    """BookSim2's SendingFlit: a flit sent on VC j; a tail frees the VC unless wait_for_tail_credit holds it."""
    vcs[O_OCC, j] += 1
    if net.shared == 1:
        if vcs[O_RES, j] > 0:
            vcs[O_RES, j] -= 1
        else:
            vcs[O_POCC, j] += 1
            if vcs[O_POCC, j] > net.priv:
                port[x, net.c_sh] += 1
        if tail:
            while vcs[O_RES, j] > 0:
                vcs[O_RES, j] -= 1
                _free_slot(vcs, port, net, j, x)
    if tail:
        vcs[O_TAIL, j] = 1
        if not net.wait_tail:
            vcs[O_OWNER, j] = -1


@njit(cache=True, inline="always")
def _credited(vcs, port, net, j, x, k):
    """BookSim2's ProcessCredit, ``k`` credits of VC j: with wait_for_tail_credit the tail's frees the VC."""
    if net.shared == 0:
        vcs[O_OCC, j] -= k
        if net.wait_tail and vcs[O_OCC, j] == 0 and vcs[O_TAIL, j] == 1:
            vcs[O_OWNER, j] = -1
            vcs[O_TAIL, j] = 0
        return
    for _ in range(k):
        vcs[O_OCC, j] -= 1
        if net.wait_tail and vcs[O_OCC, j] == 0 and vcs[O_TAIL, j] == 1:
            vcs[O_OWNER, j] = -1
            vcs[O_TAIL, j] = 0
        if vcs[O_OWNER, j] >= 0 and vcs[O_OCC, j] == 0:
            vcs[O_RES, j] += 1                 # FreeSlotFor: kept for the packet holding the VC
        else:
            _free_slot(vcs, port, net, j, x)


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
    ring = net.ring
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


# --- The routers.


@njit(cache=True, inline="always")
def _routed(vcs, vbuf, pk, rt, net, r, p, iv):
    """The head at the front of input VC ``iv`` (port ``p`` of router ``r``) takes its route and waits for VC
    allocation."""
    pkt = vbuf[0, (r * net.ports + p) * net.cap + vcs[V_HEAD, iv]] >> net.sbits
    out, lo, hi, ph = route(net.topo, net.k, net.n, net.vcs, r, p, pk[P_DEST, pkt], pk[P_PH, pkt], False)
    pk[P_PH, pkt] = ph
    vcs[V_OUT, iv], vcs[V_LO, iv], vcs[V_HI, iv] = out, lo, hi
    vcs[V_STATE, iv] = VA
    rt[r, B_VA] += 1


@njit(cache=True, inline="always")
def _route_head(vcs, vbuf, pk, rt, net, r, p, iv, t):
    """The route of the head at the front of input VC ``iv`` (port ``p`` of router ``r``): now, with lookahead
    routing (routing_delay 0: its upstream hop computed it), else after routing_delay cycles."""
    if net.rd > 0:
        vcs[V_STATE, iv] = ROUTING
        vcs[V_DONE, iv] = t + net.rd - 1
        vcs[V_EVAL, iv] = NEVER
        rt[r, B_ROUTING] += 1
        return
    _routed(vcs, vbuf, pk, rt, net, r, p, iv)


@njit(cache=True, inline="always")
def _arrivals(vcs, vbuf, port, pk, rt, wr, net, r, t):
    """Flits read at router r's inputs in cycle t into their VCs, and the credits due at its outputs."""
    s = t & net.rmask
    v = net.vcs
    due = rt[r, net.r_idue + s]
    rt[r, net.r_idue + s] = 0
    for p in range(net.ports):
        if due == 0:
            break
        rp = r * net.ports + p
        node = wr[W_UP_NODE, rp]
        if node >= 0:
            ch = net.nro + node
        elif wr[W_UP_ROUTER, rp] >= 0:
            ch = wr[W_UP_ROUTER, rp] * net.ports + wr[W_UP_PORT, rp]
        else:
            continue
        f = port[ch, s]
        if f < 0:
            continue
        port[ch, s] = -1
        due -= 1
        rt[r, B_FLITS] += 1
        iv = rp * v + port[ch, net.c_vc + s]
        store = rp * net.cap                   # the flit into a free slot of the port's store, at its VC's tail
        slot = port[rp, net.c_free]
        port[rp, net.c_free] = vbuf[1, store + slot]
        vbuf[0, store + slot] = f
        vbuf[1, store + slot] = -1
        if vcs[V_LEN, iv] == 0:
            vcs[V_HEAD, iv] = slot
        else:
            vbuf[1, store + vcs[V_TAIL, iv]] = slot
        vcs[V_TAIL, iv] = slot
        vcs[V_LEN, iv] += 1
        if vcs[V_STATE, iv] == IDLE:
            _route_head(vcs, vbuf, pk, rt, net, r, p, iv, t)
            if vcs[V_STATE, iv] == VA:
                vcs[V_EVAL, iv] = t
        elif vcs[V_STATE, iv] == ACTIVE and vcs[V_LEN, iv] == 1:
            vcs[V_EVAL, iv] = t                # a body flit reaching an empty VC that holds its output VC
            rt[r, B_SA] |= 1 << (iv - r * net.ports * v) if net.bits else 0
    left = rt[r, net.r_cdue + s]
    rt[r, net.r_cdue + s] = 0
    col = net.c_cr + s * v
    for o in range(net.ports):
        if left == 0:
            break
        ro = r * net.ports + o
        for c in range(v):
            k = port[ro, col + c]
            if k == 0:
                continue
            port[ro, col + c] = 0
            left -= k
            _credited(vcs, port, net, ro * v + c, ro, k)


@njit(cache=True, inline="always")
def _vc_allocation(vcs, rt, req, net, r, t):
    """Heads in VA ask for every free output VC of their route's range; the VC allocator matches them."""
    v, p_count = net.vcs, net.ports
    m = 0
    base = r * p_count * v
    for local in range(p_count * v):
        iv = base + local
        if vcs[V_STATE, iv] != VA or vcs[V_EVAL, iv] > t:
            continue
        o = vcs[V_OUT, iv]
        for ov in range(vcs[V_LO, iv], vcs[V_HI, iv] + 1):
            if vcs[O_OWNER, (r * p_count + o) * v + ov] < 0:
                req[0, m] = local
                req[1, m] = o * v + ov
                m += 1
    if m == 0:
        for local in range(p_count * v):
            iv = base + local
            if vcs[V_STATE, iv] == VA and vcs[V_EVAL, iv] <= t:
                vcs[V_EVAL, iv] = t + 1
        return
    nin = p_count * v
    allocate(net.va_alloc, net.va_iters, req, m, nin, nin, rt, r, net.r_va_in, net.r_va_out)
    for local in range(p_count * v):
        iv = base + local
        if vcs[V_STATE, iv] != VA or vcs[V_EVAL, iv] > t:
            continue
        got = req[3, local]
        vcs[V_EVAL, iv] = t + 1
        if got >= 0:
            ov = got % v
            j = (r * p_count + got // v) * v + ov
            vcs[O_OWNER, j] = iv
            vcs[O_TAIL, j] = 0
            vcs[V_OVC, iv] = ov
            vcs[V_STATE, iv] = ACTIVE
            rt[r, B_VA] -= 1
            rt[r, B_SA] |= 1 << local if net.bits else 0


@njit(cache=True, inline="always")
def _send(vcs, vbuf, port, pk, rt, wr, net, r, p, vc, t):
    """Input VC ``iv``'s front flit crosses the switch in cycle t: a credit back upstream, the output VC's credit
    taken, the flit queued at its output until its crossbar traversal is over; then the VC's next step (``iv`` is
    VC ``vc`` of port ``p``)."""
    v, ports, size = net.vcs, net.ports, net.size
    rp = r * ports + p
    iv = rp * v + vc
    store, slot = rp * net.cap, vcs[V_HEAD, iv]     # the front flit out; its slot back on the free list
    f = vbuf[0, store + slot]
    vbuf[0, store + slot] = -1
    vcs[V_HEAD, iv] = vbuf[1, store + slot]
    vbuf[1, store + slot] = port[rp, net.c_free]
    port[rp, net.c_free] = slot
    vcs[V_LEN, iv] -= 1
    rt[r, B_FLITS] -= 1
    rt[r, B_QUEUED] += 1
    o, ov = vcs[V_OUT, iv], vcs[V_OVC, iv]
    ro = r * ports + o
    pkt, idx = f >> net.sbits, f & net.smask
    tail = idx == size - 1
    if idx == 0:
        pk[P_HOPS, pkt] += 1
    _sending(vcs, port, net, ro * v + ov, ro, tail)
    node = wr[W_UP_NODE, rp]
    if node >= 0:
        port[net.nro + node, net.c_cr + ((t + 2) & net.rmask) * v + vc] += 1
    else:
        ur, up = wr[W_UP_ROUTER, rp], wr[W_UP_ROUTER, rp] * ports + wr[W_UP_PORT, rp]
        slot = (t + wr[W_LATENCY, up] + 1 + net.credit_delay) & net.rmask
        port[up, net.c_cr + slot * v + vc] += 1
        rt[ur, net.r_cdue + slot] += 1
    pos = (port[ro, net.c_oqh] + port[ro, net.c_oql]) & (net.qcap - 1)
    port[ro, net.c_oqf + pos] = f
    port[ro, net.c_oqv + pos] = ov
    port[ro, net.c_oqr + pos] = t + net.xd
    port[ro, net.c_oql] += 1
    if net.bits and (tail or vcs[V_LEN, iv] == 0):
        rt[r, B_SA] &= ~(1 << (p * v + vc))    # no longer asking for the switch
    if vcs[V_LEN, iv] == 0:
        vcs[V_HOLD, iv] = 0
        vcs[V_EVAL, iv] = NEVER
        if tail:
            vcs[V_STATE, iv] = IDLE
            vcs[V_OVC, iv] = -1
        return
    if tail:                                   # the next packet's head is at the front
        vcs[V_HOLD, iv] = 0
        vcs[V_OVC, iv] = -1
        _route_head(vcs, vbuf, pk, rt, net, r, p, iv, t)
        if vcs[V_STATE, iv] == VA:
            vcs[V_EVAL, iv] = t + 1
        else:
            vcs[V_DONE, iv] = t + net.rd        # routing evaluated next cycle
        return
    vcs[V_HOLD, iv] = 1 if net.hold else 0
    vcs[V_EVAL, iv] = t + 1


@njit(cache=True, inline="always")
def _exp_in(net, p, vc):
    return p * net.si + (vc % net.si if net.si > 1 else 0)


@njit(cache=True, inline="always")
def _exp_out(net, o, p):
    return o * net.so + (p % net.so if net.so > 1 else 0)


@njit(cache=True, inline="always")
def _switch_allocation(vcs, vbuf, port, pk, rt, req, wr, net, r, t):
    """The held switch first (a packet keeping its crossbar path while its flits follow back to back), then
    switch allocation over the crossbar's expanded inputs and outputs: one request per (input, output) pair, the
    VC nearest after the input's round-robin offset."""
    v, ports = net.vcs, net.ports
    base = r * ports * v
    nin, nout = ports * net.si, ports * net.so
    # Ports held at the cycle's start are kept out of allocation even if their hold ends this cycle.
    for local in range(ports * v if net.hold else 0):
        iv = base + local
        if vcs[V_HOLD, iv] == 0 or vcs[V_EVAL, iv] > t or vcs[V_LEN, iv] == 0:
            continue
        ro = r * ports + vcs[V_OUT, iv]
        if not _full(vcs, port, net, ro * v + vcs[V_OVC, iv], ro):
            _send(vcs, vbuf, port, pk, rt, wr, net, r, local // v, local - (local // v) * v, t)
        else:                                  # a stall releases the hold; the VC asks the allocator again
            vcs[V_HOLD, iv] = 0
            vcs[V_EVAL, iv] = t + 1
    m = 0
    # The VCs asking for the switch: ACTIVE with a flit (a bit each where the router has at most 63 VCs).
    asking = rt[r, B_SA] if net.bits else -1
    for local in range(ports * v):
        if asking == 0:
            break
        if net.bits:
            local = K.lowest_bit(asking)
            asking &= asking - 1
        iv = base + local
        if vcs[V_STATE, iv] != ACTIVE or vcs[V_HOLD, iv] == 1 or vcs[V_EVAL, iv] > t or vcs[V_LEN, iv] == 0:
            continue
        p = local // v
        vc = local - p * v
        o = vcs[V_OUT, iv]
        vcs[V_EVAL, iv] = t + 1
        ro = r * ports + o
        if _full(vcs, port, net, ro * v + vcs[V_OVC, iv], ro):
            continue
        ei, eo = _exp_in(net, p, vc), _exp_out(net, o, p)
        if rt[r, net.r_hin + ei] == 1 or rt[r, net.r_hout + eo] == 1:
            continue
        found = -1
        for j in range(m):
            if req[0, j] == ei and req[1, j] == eo:
                found = j
                break
        if found < 0:
            req[0, m], req[1, m], req[2, m] = ei, eo, vc
            m += 1
        else:
            off = rt[r, net.r_rr + ei]     # the VC nearest at or after the input's offset
            if (vc - off + v if vc < off else vc - off) < \
                    (req[2, found] - off + v if req[2, found] < off else req[2, found] - off):
                req[2, found] = vc
    if m > 0:
        allocate(net.sa_alloc, net.sa_iters, req, m, nin, nout, rt, r, net.r_sa_in, net.r_sa_out)
        for j in range(m):
            ei, eo, vc = req[0, j], req[1, j], req[2, j]
            if req[3, ei] != eo:
                continue
            p = ei // net.si if net.si > 1 else ei
            iv = base + p * v + vc
            rt[r, net.r_rr + ei] = (vc + net.si) % v
            _send(vcs, vbuf, port, pk, rt, wr, net, r, p, vc, t)
            if vcs[V_HOLD, iv] == 1:
                rt[r, net.r_hin + ei] = 1
                rt[r, net.r_hout + eo] = 1
    # Holds that ended this cycle (a tail, an empty VC, a stall) free their ports for the next.
    if net.hold:
        for e in range(nin):
            rt[r, net.r_hin + e] = 0
        for e in range(nout):
            rt[r, net.r_hout + e] = 0
        for local in range(ports * v):
            iv = base + local
            if vcs[V_HOLD, iv] == 1:
                rt[r, net.r_hin + _exp_in(net, local // v, local % v)] = 1
                rt[r, net.r_hout + _exp_out(net, vcs[V_OUT, iv], local // v)] = 1


@njit(cache=True, inline="always")
def router_step(vcs, vbuf, port, pk, rt, req, wr, net, r, t):
    """Router r's cycle: arrivals and credits, routing done, VC allocation, the held switch and switch
    allocation; nothing for a router with no flit and no credit on its way."""
    s = t & net.rmask
    if rt[r, net.r_idue + s] + rt[r, net.r_cdue + s] > 0:
        _arrivals(vcs, vbuf, port, pk, rt, wr, net, r, t)
    if rt[r, B_FLITS] == 0:
        return
    if rt[r, B_ROUTING] > 0:
        base = r * net.ports * net.vcs
        for local in range(net.ports * net.vcs):
            iv = base + local
            if vcs[V_STATE, iv] == ROUTING and vcs[V_DONE, iv] <= t:
                rt[r, B_ROUTING] -= 1
                _routed(vcs, vbuf, pk, rt, net, r, local // net.vcs, iv)
                vcs[V_DONE, iv] = NEVER
                vcs[V_EVAL, iv] = t + 1
    if rt[r, B_VA] > 0:
        _vc_allocation(vcs, rt, req, net, r, t)
    _switch_allocation(vcs, vbuf, port, pk, rt, req, wr, net, r, t)


@njit(cache=True, inline="always")
def send_outputs(port, rt, wr, net, t):
    """Each output sends the first flit of its queue whose crossbar traversal is over."""
    for r in range(net.routers):
        if rt[r, B_QUEUED] > 0:
            _send_router_outputs(port, rt, wr, net, r, t)


@njit(cache=True, inline="always")
def _send_router_outputs(port, rt, wr, net, r, t):
    for o in range(net.ports):
        ro = r * net.ports + o
        if port[ro, net.c_oql] == 0:
            continue
        h = port[ro, net.c_oqh]
        if port[ro, net.c_oqr + h] > t:
            continue
        rt[r, B_QUEUED] -= 1
        lat = 1 if wr[W_OUT_NODE, ro] >= 0 else wr[W_LATENCY, ro]
        s = (t + lat + 1) & net.rmask
        dr = wr[W_OUT_ROUTER, ro]
        if dr >= 0:
            rt[dr, net.r_idue + s] += 1
        port[ro, s] = port[ro, net.c_oqf + h]
        port[ro, net.c_vc + s] = port[ro, net.c_oqv + h]
        port[ro, net.c_oqf + h] = -1
        port[ro, net.c_oqh] = (h + 1) & (net.qcap - 1)
        port[ro, net.c_oql] -= 1
