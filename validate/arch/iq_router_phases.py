"""The routers' steps of the iq router network's cycle (issue 38), each over the packed state of
:mod:`switchq.validate.arch.iq_router_state`, in the order BookSim2 runs them, after the traffic manager's
(:mod:`.iq_router_nodes`): :func:`router_step` (arrivals into their VCs and credits due; routing, VC allocation,
the held switch and switch allocation, each evaluated the cycle after the stage before it completes, as
BookSim2's stages are), and :func:`send_outputs` (each output sends the first flit of its queue whose crossbar
traversal is over). A sender's view of the buffer it sends into is :mod:`.iq_router_buffers`.

Timing, as BookSim2's channels have it: what is sent in cycle t on a channel of latency d is read in cycle
t + d + 1. A credit returns on the reverse channel and is applied ``credit_delay`` cycles after it is read (at
once by a node). A flit winning switch allocation in cycle t leaves its output in cycle t + the crossbar delay.

Each phase takes the arrays it touches as arguments (see the state module for why).
"""

from __future__ import annotations

from numba import njit

from .. import kernel as K
from .iq_router_alloc import allocate
from .iq_router_buffers import _credited, _full, _sending
from .iq_router_state import (ACTIVE, B_FLITS, B_QUEUED, B_ROUTING, B_SA, B_VA, IDLE, NEVER, O_OWNER, O_TAIL, P_DEST,
                              P_HOPS, P_PH, ROUTING, V_DONE, V_EVAL, V_HEAD, V_HI, V_HOLD, V_LEN, V_LO, V_OUT, V_OVC,
                              V_STATE, V_TAIL, VA, W_LATENCY, W_OUT_NODE, W_OUT_ROUTER, W_UP_NODE, W_UP_PORT,
                              W_UP_ROUTER)
from .iq_routes import route


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
