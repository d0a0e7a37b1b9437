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
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import kernel as K
from .iq_router_alloc import allocate
from .iq_router_state import (ACTIVE, B_CREDITS, B_FLITS, B_INCOMING, B_QUEUED, B_VA, G_FREE, G_LIVE, IDLE, M_FLAT, M_FLIT_GEN, M_FLITS_EJ, M_HOPS, M_NLAT, M_PACKETS,
                              M_PKT_GEN, M_PLAT, N_FLIT, N_LAST, N_ON, N_PKT, N_QTIME, N_VC, NEVER, O_OCC, O_OWNER,
                              O_TAIL, P_CTIME, P_DEST, P_EJECTED, P_FLAT, P_HOPS, P_ITIME, P_NEXT, P_PH, PLAT_MAX,
                              ROUTING, V_DONE, V_EVAL, V_HEAD, V_HI, V_HOLD, V_LEN, V_LO, V_OUT, V_OVC, V_STATE, VA)
from .iq_routes import destination, route


@njit(cache=True, inline="always")
def _release_packet(st, pkt):
    st.pk[P_NEXT, pkt] = st.g[G_FREE]
    st.g[G_FREE] = pkt
    st.g[G_LIVE] -= 1


@njit(cache=True, inline="always")
def eject(st, net, wires, t, warmup, stats):
    """Flits read at the nodes in cycle t; each sends its credit back at once (a channel of 1 cycle); a tail's
    packet is measured (creation to tail, head injection to tail) if it arrives while measuring."""
    ring = st.ch_flit.shape[1]
    s = t % ring
    size = net.size
    for node in range(net.nodes):
        ro = wires.ej_router[node] * net.ports + wires.ej_port[node]
        f = st.ch_flit[ro, s]
        if f < 0:
            continue
        st.ch_flit[ro, s] = -1
        st.cr[ro, (t + 2 + net.credit_delay) % ring, st.ch_vc[ro, s]] += 1
        st.busy[B_CREDITS, wires.ej_router[node]] += 1
        pkt = f // size
        st.pk[P_FLAT, pkt] += t
        st.pk[P_EJECTED, pkt] += 1
        stats[K.STAT_DELIVERED] += 1
        if t >= warmup:
            stats[K.STAT_M_DELIVERED] += 1
            stats[M_FLITS_EJ] += 1
        if f % size != size - 1:
            continue
        if t >= warmup:
            plat = t - st.pk[P_CTIME, pkt]
            stats[M_PACKETS] += 1
            stats[M_PLAT] += plat
            stats[M_NLAT] += t - st.pk[P_ITIME, pkt]
            stats[M_FLAT] += st.pk[P_FLAT, pkt]
            stats[M_HOPS] += st.pk[P_HOPS, pkt]
            stats[K.STAT_M_LATENCY_SUM] += plat
            stats[K.STAT_M_LATENCY_COUNT] += 1
            if plat > stats[PLAT_MAX]:
                stats[PLAT_MAX] = plat
        _release_packet(st, pkt)


@njit(cache=True, inline="always")
def node_credits(st, net, t):
    """Credits a node reads in cycle t, applied at once (BookSim2's traffic manager): its view of its router's
    input VCs."""
    ring = st.ncr.shape[1]
    s = t % ring
    for node in range(net.nodes):
        for vc in range(net.vcs):
            c = st.ncr[node, s, vc]
            if c == 0:
                continue
            st.ncr[node, s, vc] = 0
            j = node * net.vcs + vc
            st.nbs[O_OCC, j] -= c
            if net.wait_tail and st.nbs[O_OCC, j] == 0 and st.nbs[O_TAIL, j] == 1:
                st.nbs[O_OWNER, j] = -1
                st.nbs[O_TAIL, j] = 0


@njit(cache=True, inline="always")
def _trial(st, ld, node):
    """One cycle of the node's injection process: Bernoulli, or BookSim2's on-off chain (the state steps, then
    a packet with probability r1 while on)."""
    if ld.on_off == 0:
        return np.random.random() < ld.rate
    if st.nodes[N_ON, node] == 1:
        st.nodes[N_ON, node] = 0 if np.random.random() < ld.beta else 1
    else:
        st.nodes[N_ON, node] = 1 if np.random.random() < ld.alpha else 0
    return st.nodes[N_ON, node] == 1 and np.random.random() < ld.r1


@njit(cache=True, inline="always")
def inject(st, net, wires, ld, t, warmup, stats):
    """Each node's source (generating its next packet once the last has left it) and one flit onto its
    injection channel, if its router's input VC has room."""
    ring = st.ch_flit.shape[1]
    size = net.size
    nro = net.routers * net.ports
    for node in range(net.nodes):
        if st.nodes[N_PKT, node] < 0:
            while st.nodes[N_QTIME, node] <= t:
                q = st.nodes[N_QTIME, node]
                st.nodes[N_QTIME, node] = q + 1
                if not _trial(st, ld, node):
                    continue
                pkt = st.g[G_FREE]
                st.g[G_FREE] = st.pk[P_NEXT, pkt]
                st.g[G_LIVE] += 1
                st.pk[P_DEST, pkt] = destination(ld.pattern, node, net.nodes, net.k, net.n)
                st.pk[P_CTIME, pkt] = q if ld.queuing else t
                st.pk[P_ITIME, pkt] = -1
                st.pk[P_PH, pkt] = -1         # not yet routed (BookSim2's reset value)
                st.pk[P_HOPS, pkt] = 0
                st.pk[P_EJECTED, pkt] = 0
                st.pk[P_FLAT, pkt] = 0
                st.nodes[N_PKT, node] = pkt
                st.nodes[N_FLIT, node] = 0
                if t >= warmup:
                    stats[M_PKT_GEN] += 1
                    stats[M_FLIT_GEN] += size
                    stats[K.STAT_M_OFFERED] += size
                break
        pkt = st.nodes[N_PKT, node]
        if pkt < 0:
            continue
        f = st.nodes[N_FLIT, node]
        base = node * net.vcs
        if f == 0:
            out, lo, hi, ph = route(net.topo, net.k, net.n, net.vcs, wires.inj_router[node], wires.inj_port[node],
                                    st.pk[P_DEST, pkt], -1, True)
            vc = -1
            span = hi - lo + 1
            last = st.nodes[N_LAST, node]
            for m in range(1, span + 1):
                c = lo + (last - lo + m) % span
                if st.nbs[O_OWNER, base + c] < 0 and st.nbs[O_OCC, base + c] < net.depth:
                    vc = c
                    break
            if vc < 0:
                continue
            st.nodes[N_VC, node] = vc
            st.nodes[N_LAST, node] = vc
            st.nbs[O_OWNER, base + vc] = node
            st.nbs[O_TAIL, base + vc] = 0
            st.pk[P_ITIME, pkt] = t
        else:
            vc = st.nodes[N_VC, node]
            if st.nbs[O_OCC, base + vc] >= net.depth:
                continue
        st.nbs[O_OCC, base + vc] += 1
        if f == size - 1:
            st.nbs[O_TAIL, base + vc] = 1
            if not net.wait_tail:
                st.nbs[O_OWNER, base + vc] = -1
        st.pk[P_FLAT, pkt] -= t
        st.ch_flit[nro + node, (t + 2) % ring] = pkt * size + f
        st.ch_vc[nro + node, (t + 2) % ring] = vc
        st.busy[B_INCOMING, wires.inj_router[node]] += 1
        stats[K.STAT_ARRIVED] += 1
        st.nodes[N_FLIT, node] = f + 1
        if f + 1 == size:
            st.nodes[N_PKT, node] = -1


@njit(cache=True, inline="always")
def _routed(st, net, r, p, iv):
    """The head at the front of input VC ``iv`` (port ``p`` of router ``r``) takes its route and waits for VC
    allocation."""
    pkt = st.vbuf[iv, st.vcs[V_HEAD, iv]] // net.size
    out, lo, hi, ph = route(net.topo, net.k, net.n, net.vcs, r, p, st.pk[P_DEST, pkt], st.pk[P_PH, pkt], False)
    st.pk[P_PH, pkt] = ph
    st.vcs[V_OUT, iv], st.vcs[V_LO, iv], st.vcs[V_HI, iv] = out, lo, hi
    st.vcs[V_STATE, iv] = VA
    st.busy[B_VA, r] += 1


@njit(cache=True, inline="always")
def _route_head(st, net, r, p, iv, t):
    """The route of the head at the front of input VC ``iv`` (port ``p`` of router ``r``): now, with lookahead
    routing (routing_delay 0: its upstream hop computed it), else after routing_delay cycles."""
    if net.rd > 0:
        st.vcs[V_STATE, iv] = ROUTING
        st.vcs[V_DONE, iv] = t + net.rd - 1
        st.vcs[V_EVAL, iv] = NEVER
        return
    _routed(st, net, r, p, iv)


@njit(cache=True, inline="always")
def _arrivals(st, net, wires, r, t):
    """Flits read at router r's inputs in cycle t into their VCs, and the credits due at its outputs."""
    ring = st.ch_flit.shape[1]
    s = t % ring
    nro = net.routers * net.ports
    v = net.vcs
    for p in range(net.ports):
        if st.busy[B_INCOMING, r] == 0:
            break
        node = wires.up_node[r, p]
        if node >= 0:
            ch = nro + node
        elif wires.up_router[r, p] >= 0:
            ch = wires.up_router[r, p] * net.ports + wires.up_port[r, p]
        else:
            continue
        f = st.ch_flit[ch, s]
        if f < 0:
            continue
        st.ch_flit[ch, s] = -1
        st.busy[B_INCOMING, r] -= 1
        st.busy[B_FLITS, r] += 1
        iv = (r * net.ports + p) * v + st.ch_vc[ch, s]
        st.vbuf[iv, (st.vcs[V_HEAD, iv] + st.vcs[V_LEN, iv]) % net.depth] = f
        st.vcs[V_LEN, iv] += 1
        if st.vcs[V_STATE, iv] == IDLE:
            _route_head(st, net, r, p, iv, t)
            if st.vcs[V_STATE, iv] == VA:
                st.vcs[V_EVAL, iv] = t
        elif st.vcs[V_STATE, iv] == ACTIVE and st.vcs[V_LEN, iv] == 1:
            st.vcs[V_EVAL, iv] = t             # a body flit reaching an empty VC that holds its output VC
    for o in range(net.ports):
        if st.busy[B_CREDITS, r] == 0:
            break
        ro = r * net.ports + o
        for c in range(v):
            k = st.cr[ro, s, c]
            if k == 0:
                continue
            st.cr[ro, s, c] = 0
            st.busy[B_CREDITS, r] -= k
            j = ro * v + c
            st.ovcs[O_OCC, j] -= k
            if net.wait_tail and st.ovcs[O_OCC, j] == 0 and st.ovcs[O_TAIL, j] == 1:
                st.ovcs[O_OWNER, j] = -1
                st.ovcs[O_TAIL, j] = 0


@njit(cache=True, inline="always")
def _vc_allocation(st, net, r, t):
    """Heads in VA ask for every free output VC of their route's range; the VC allocator matches them."""
    v, p_count = net.vcs, net.ports
    req = st.scratch
    m = 0
    base = r * p_count * v
    for local in range(p_count * v):
        iv = base + local
        if st.vcs[V_STATE, iv] != VA or st.vcs[V_EVAL, iv] > t:
            continue
        o = st.vcs[V_OUT, iv]
        for ov in range(st.vcs[V_LO, iv], st.vcs[V_HI, iv] + 1):
            if st.ovcs[O_OWNER, (r * p_count + o) * v + ov] < 0:
                req[0, m] = local
                req[1, m] = o * v + ov
                m += 1
    if m == 0:
        for local in range(p_count * v):
            iv = base + local
            if st.vcs[V_STATE, iv] == VA and st.vcs[V_EVAL, iv] <= t:
                st.vcs[V_EVAL, iv] = t + 1
        return
    nin = p_count * v
    allocate(net.va_alloc, net.va_iters, req, m, nin, nin, st.va_ptr[0, r], st.va_ptr[1, r], req[3], req[4], req[5])
    for local in range(p_count * v):
        iv = base + local
        if st.vcs[V_STATE, iv] != VA or st.vcs[V_EVAL, iv] > t:
            continue
        got = req[3, local]
        st.vcs[V_EVAL, iv] = t + 1
        if got >= 0:
            ov = got % v
            st.ovcs[O_OWNER, (r * p_count + got // v) * v + ov] = iv
            st.ovcs[O_TAIL, (r * p_count + got // v) * v + ov] = 0
            st.vcs[V_OVC, iv] = ov
            st.vcs[V_STATE, iv] = ACTIVE
            st.busy[B_VA, r] -= 1


@njit(cache=True, inline="always")
def _send(st, net, wires, r, iv, t):
    """Input VC ``iv``'s front flit crosses the switch in cycle t: a credit back upstream, the output VC's credit
    taken, the flit queued at its output until its crossbar traversal is over; then the VC's next step."""
    v, ports, size = net.vcs, net.ports, net.size
    ring = st.ch_flit.shape[1]
    local = iv - r * ports * v
    p, vc = local // v, local % v
    f = st.vbuf[iv, st.vcs[V_HEAD, iv]]
    st.vbuf[iv, st.vcs[V_HEAD, iv]] = -1
    st.vcs[V_HEAD, iv] = (st.vcs[V_HEAD, iv] + 1) % net.depth
    st.vcs[V_LEN, iv] -= 1
    st.busy[B_FLITS, r] -= 1
    st.busy[B_QUEUED, r] += 1
    o, ov = st.vcs[V_OUT, iv], st.vcs[V_OVC, iv]
    j = (r * ports + o) * v + ov
    st.ovcs[O_OCC, j] += 1
    pkt, idx = f // size, f % size
    tail = idx == size - 1
    if idx == 0:
        st.pk[P_HOPS, pkt] += 1
    if tail:
        st.ovcs[O_TAIL, j] = 1
        if not net.wait_tail:
            st.ovcs[O_OWNER, j] = -1
    node = wires.up_node[r, p]
    if node >= 0:
        st.ncr[node, (t + 2) % ring, vc] += 1
    else:
        ur, uo = wires.up_router[r, p], wires.up_port[r, p]
        st.cr[ur * ports + uo, (t + wires.latency[ur, uo] + 1 + net.credit_delay) % ring, vc] += 1
        st.busy[B_CREDITS, ur] += 1
    ro = r * ports + o
    pos = (st.oq_head[ro] + st.oq_len[ro]) % net.qcap
    st.oq_flit[ro, pos] = f
    st.oq_vc[ro, pos] = ov
    st.oq_ready[ro, pos] = t + net.xd
    st.oq_len[ro] += 1
    if st.vcs[V_LEN, iv] == 0:
        st.vcs[V_HOLD, iv] = 0
        st.vcs[V_EVAL, iv] = NEVER
        if tail:
            st.vcs[V_STATE, iv] = IDLE
            st.vcs[V_OVC, iv] = -1
        return
    if tail:                                   # the next packet's head is at the front
        st.vcs[V_HOLD, iv] = 0
        st.vcs[V_OVC, iv] = -1
        _route_head(st, net, r, p, iv, t)
        if st.vcs[V_STATE, iv] == VA:
            st.vcs[V_EVAL, iv] = t + 1
        else:
            st.vcs[V_DONE, iv] = t + net.rd     # routing evaluated next cycle
        return
    st.vcs[V_HOLD, iv] = 1 if net.hold else 0
    st.vcs[V_EVAL, iv] = t + 1


@njit(cache=True, inline="always")
def _exp_in(net, p, vc):
    return p * net.si + vc % net.si


@njit(cache=True, inline="always")
def _exp_out(net, o, p):
    return o * net.so + p % net.so


@njit(cache=True, inline="always")
def _switch_allocation(st, net, wires, r, t):
    """The held switch first (a packet keeping its crossbar path while its flits follow back to back), then
    switch allocation over the crossbar's expanded inputs and outputs: one request per (input, output) pair, the
    VC nearest after the input's round-robin offset."""
    v, ports = net.vcs, net.ports
    base = r * ports * v
    nin, nout = ports * net.si, ports * net.so
    req = st.scratch
    # Ports held at the cycle's start are kept out of allocation even if their hold ends this cycle.
    for local in range(ports * v):
        iv = base + local
        if st.vcs[V_HOLD, iv] == 0 or st.vcs[V_EVAL, iv] > t or st.vcs[V_LEN, iv] == 0:
            continue
        j = (r * ports + st.vcs[V_OUT, iv]) * v + st.vcs[V_OVC, iv]
        if st.ovcs[O_OCC, j] < net.depth:
            _send(st, net, wires, r, iv, t)
        else:                                  # a stall releases the hold; the VC asks the allocator again
            st.vcs[V_HOLD, iv] = 0
            st.vcs[V_EVAL, iv] = t + 1
    m = 0
    for local in range(ports * v):
        iv = base + local
        if st.vcs[V_STATE, iv] != ACTIVE or st.vcs[V_HOLD, iv] == 1 or st.vcs[V_EVAL, iv] > t \
                or st.vcs[V_LEN, iv] == 0:
            continue
        p, vc = local // v, local % v
        o = st.vcs[V_OUT, iv]
        st.vcs[V_EVAL, iv] = t + 1
        if st.ovcs[O_OCC, (r * ports + o) * v + st.vcs[V_OVC, iv]] >= net.depth:
            continue
        ei, eo = _exp_in(net, p, vc), _exp_out(net, o, p)
        if st.held_in[r, ei] == 1 or st.held_out[r, eo] == 1:
            continue
        found = -1
        for j in range(m):
            if req[0, j] == ei and req[1, j] == eo:
                found = j
                break
        off = st.rr_off[r, ei]
        if found < 0:
            req[0, m], req[1, m], req[2, m] = ei, eo, vc
            m += 1
        elif (vc - off + v) % v < (req[2, found] - off + v) % v:
            req[2, found] = vc
    if m > 0:
        allocate(net.sa_alloc, net.sa_iters, req, m, nin, nout, st.sa_ptr[0, r], st.sa_ptr[1, r], req[3], req[4],
                 req[5])
        for j in range(m):
            ei, eo, vc = req[0, j], req[1, j], req[2, j]
            if req[3, ei] != eo:
                continue
            p = ei // net.si
            iv = base + p * v + vc
            st.rr_off[r, ei] = (vc + net.si) % v
            _send(st, net, wires, r, iv, t)
            if st.vcs[V_HOLD, iv] == 1:
                st.held_in[r, ei] = 1
                st.held_out[r, eo] = 1
    # Holds that ended this cycle (a tail, an empty VC, a stall) free their ports for the next.
    if net.hold:
        for e in range(nin):
            st.held_in[r, e] = 0
        for e in range(nout):
            st.held_out[r, e] = 0
        for local in range(ports * v):
            iv = base + local
            if st.vcs[V_HOLD, iv] == 1:
                st.held_in[r, _exp_in(net, local // v, local % v)] = 1
                st.held_out[r, _exp_out(net, st.vcs[V_OUT, iv], local // v)] = 1


@njit(cache=True, inline="always")
def router_step(st, net, wires, r, t):
    """Router r's cycle: arrivals and credits, routing done, VC allocation, the held switch and switch
    allocation; nothing for a router with no flit and no credit on its way."""
    if st.busy[B_INCOMING, r] + st.busy[B_CREDITS, r] > 0:
        _arrivals(st, net, wires, r, t)
    if st.busy[B_FLITS, r] == 0:
        return
    if net.rd > 0:
        base = r * net.ports * net.vcs
        for local in range(net.ports * net.vcs):
            iv = base + local
            if st.vcs[V_STATE, iv] == ROUTING and st.vcs[V_DONE, iv] <= t:
                _routed(st, net, r, local // net.vcs, iv)
                st.vcs[V_DONE, iv] = NEVER
                st.vcs[V_EVAL, iv] = t + 1
    if st.busy[B_VA, r] > 0:
        _vc_allocation(st, net, r, t)
    _switch_allocation(st, net, wires, r, t)


@njit(cache=True, inline="always")
def send_outputs(st, net, wires, t):
    """Each output sends the first flit of its queue whose crossbar traversal is over."""
    ring = st.ch_flit.shape[1]
    for r in range(net.routers):
        if st.busy[B_QUEUED, r] > 0:
            _send_router_outputs(st, net, wires, r, t, ring)


@njit(cache=True, inline="always")
def _send_router_outputs(st, net, wires, r, t, ring):
    for o in range(net.ports):
        ro = r * net.ports + o
        if st.oq_len[ro] == 0:
            continue
        h = st.oq_head[ro]
        if st.oq_ready[ro, h] > t:
            continue
        st.busy[B_QUEUED, r] -= 1
        dr = wires.out_router[r, o]
        if dr >= 0:
            st.busy[B_INCOMING, dr] += 1
        lat = 1 if wires.out_node[r, o] >= 0 else wires.latency[r, o]
        s = (t + lat + 1) % ring
        st.ch_flit[ro, s] = st.oq_flit[ro, h]
        st.ch_vc[ro, s] = st.oq_vc[ro, h]
        st.oq_flit[ro, h] = -1
        st.oq_head[ro] = (h + 1) % net.qcap
        st.oq_len[ro] -= 1
