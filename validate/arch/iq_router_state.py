"""The input-queued virtual-channel router network's state (issue 38): counters, sizes, packed records.

:mod:`switchq.validate.arch.iq_router` runs the cycles; :mod:`switchq.validate.arch.iq_router_phases` holds the
steps of a cycle and :mod:`switchq.validate.arch.iq_router_alloc` the allocators. They share what is here.

Indices: an input VC ``iv = (router * P + port) * V + vc``, an output VC ``ov`` the same over output ports, an
output ``ro = router * P + port``; a flit ``pkt * S + i`` (packet ``pkt`` of the pool, its ``i``-th flit of
``S``). Every record is an int64 array with named rows, sized by the network and the buffers asked about: the
packet pool holds what the buffers, channels and output queues can hold at once, and grows with nothing else.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .. import kernel as K

LAYOUT = K.Layout(("m_packets", "m_packet_latency_sum", "m_network_latency_sum", "m_flit_latency_sum",
                   "m_hops_sum", "m_flits_ejected", "m_packets_generated", "m_flits_generated",
                   "source_lag_start", "source_lag_end", "in_network_start", "packet_latency_max"))
# m_packets: packets whose tail was ejected while measuring, with their latencies (creation to tail, head
# injection to tail), their flits' (injection to ejection, summed over the packet's flits) and routers crossed;
# m_flits_ejected: flits ejected while measuring; m_*_generated: packets (flits) generated while measuring;
# source_lag_*: cycles each source's next Bernoulli trial lags the clock, summed over the nodes, when measuring
# starts and ends (BookSim2's source queue is that lag: it grows without bound past saturation); in_network_start:
# flits in the network when measuring starts (at the end: the core counter ``queued``).
(M_PACKETS, M_PLAT, M_NLAT, M_FLAT, M_HOPS, M_FLITS_EJ, M_PKT_GEN, M_FLIT_GEN, LAG_START, LAG_END, IN_NET_START,
 PLAT_MAX) = (LAYOUT.index(n) for n in LAYOUT.names[K.N_CORE:])

IDLE, ROUTING, VA, ACTIVE = 0, 1, 2, 3       # an input VC's state, as BookSim2's VC
NEVER = K.NEVER

# rows of ``vcs`` (one column per input VC): its FIFO's head and length; its state; the cycle its pending stage
# is evaluated (routing, VA or SA; NEVER: none pending) and the cycle routing completes; the route (output port,
# VC range) and the output VC granted; whether it holds the switch (hold_switch_for_packet).
V_HEAD, V_LEN, V_STATE, V_EVAL, V_DONE, V_OUT, V_LO, V_HI, V_OVC, V_HOLD = range(10)
# rows of ``ovcs`` (one column per output VC: the downstream buffer as its sender sees it, BookSim2's
# BufferState): flits sent and not credited, the input VC owning it (-1: free), the tail sent.
O_OCC, O_OWNER, O_TAIL = range(3)
# rows of ``pk`` (one column per packet of the pool): destination, creation cycle, head's injection cycle,
# the torus dateline phase, routers crossed, flits ejected, the flits' latencies (their ejection cycles less
# their injection cycles, summed), the free list.
P_DEST, P_CTIME, P_ITIME, P_PH, P_HOPS, P_EJECTED, P_FLAT, P_NEXT = range(8)
# rows of ``nodes`` (one column per node): the next cycle its source tests (BookSim2's qtime), its packet being
# injected (-1: none) and its next flit, the VC it uses, the last VC picked (round-robin), the on-off state.
N_QTIME, N_PKT, N_FLIT, N_VC, N_LAST, N_ON = range(6)
# slots of ``g``: the packet pool's free-list head, packets in the network.
G_FREE, G_LIVE = range(2)
# rows of ``busy`` (one column per router), so an idle router is skipped: flits in its VCs, flits on channels
# towards it, credits due at its outputs, flits in its output queues, VCs waiting for VC allocation.
B_FLITS, B_INCOMING, B_CREDITS, B_QUEUED, B_VA = range(5)

# The network and router as the kernel reads them (built by iq_router.args_for).
Net = namedtuple("Net", "topo k n nodes routers ports vcs depth si so xd rd credit_delay hold wait_tail "
                        "va_alloc va_iters sa_alloc sa_iters lmax qcap pool size")
# Wiring tables (models.iq_topology.Wiring's arrays).
Wires = namedtuple("Wires", "out_router out_port out_node latency inj_router inj_port ej_router ej_port up_router "
                            "up_port up_node")
# The traffic: pattern code, rate (packets per node per cycle), on-off process (alpha, beta, r1; on_off 0:
# Bernoulli), creation at the source queue's time (include_queuing).
Load = namedtuple("Load", "pattern rate on_off alpha beta r1 queuing")
State = namedtuple("State", "vcs vbuf ovcs oq_flit oq_vc oq_ready oq_head oq_len ch_flit ch_vc cr ncr nbs pk nodes "
                            "g busy va_ptr sa_ptr rr_off held_in held_out scratch")


@njit(cache=True)
def new_state(net, seed_nodes_on):
    """An empty network: every VC idle, every output VC free, the pool's packets on its free list."""
    r, p, v = net.routers, net.ports, net.vcs
    niv = r * p * v
    vcs = np.zeros((10, niv), dtype=np.int64)
    vcs[V_EVAL, :] = NEVER
    vcs[V_DONE, :] = NEVER
    vcs[V_OVC, :] = -1
    vbuf = np.full((niv, net.depth), -1, dtype=np.int64)
    ovcs = np.zeros((3, niv), dtype=np.int64)
    ovcs[O_OWNER, :] = -1
    nro = r * p
    oq_flit = np.full((nro, net.qcap), -1, dtype=np.int64)
    oq_vc = np.zeros((nro, net.qcap), dtype=np.int64)
    oq_ready = np.zeros((nro, net.qcap), dtype=np.int64)
    oq_head = np.zeros(nro, dtype=np.int64)
    oq_len = np.zeros(nro, dtype=np.int64)
    # Channels, indexed by the cycle a flit (or credit) is read at, modulo a ring longer than any delay.
    ring = net.lmax + net.credit_delay + 3
    ch_flit = np.full((nro + net.nodes, ring), -1, dtype=np.int64)   # router outputs, then node injections
    ch_vc = np.zeros((nro + net.nodes, ring), dtype=np.int64)
    cr = np.zeros((nro, ring, v), dtype=np.int64)                     # credits due at a router output's sender
    ncr = np.zeros((net.nodes, ring, v), dtype=np.int64)               # credits due at a node's injection
    nbs = np.zeros((3, net.nodes * v), dtype=np.int64)                 # the node's view of its router's input VCs
    nbs[O_OWNER, :] = -1
    pk = np.zeros((8, net.pool), dtype=np.int64)
    pk[P_NEXT, :] = np.arange(1, net.pool + 1)
    pk[P_NEXT, net.pool - 1] = -1
    nodes = np.zeros((6, net.nodes), dtype=np.int64)
    nodes[N_PKT, :] = -1
    nodes[N_LAST, :] = v - 1
    if seed_nodes_on:
        for i in range(net.nodes):
            nodes[N_ON, i] = np.random.randint(0, 2)
    g = np.zeros(2, dtype=np.int64)
    busy = np.zeros((5, r), dtype=np.int64)
    va_ptr = np.zeros((2, r, p * v), dtype=np.int64)                   # allocator pointers: inputs, outputs
    sa_ptr = np.zeros((2, r, p * max(net.si, net.so)), dtype=np.int64)
    rr_off = np.zeros((r, p * net.si), dtype=np.int64)                 # BookSim2's _sw_rr_offset
    for i in range(p * net.si):
        rr_off[:, i] = i % net.si
    held_in = np.zeros((r, p * net.si), dtype=np.int64)
    held_out = np.zeros((r, p * net.so), dtype=np.int64)
    # Scratch for one router's requests: (input, output, label) triples and the allocators' working rows.
    # (VA: P V requesters of V output VCs each; SA: P max(si, so) expanded ports, matched in rows 3-5.)
    most = max(p * v * v, p * v, p * max(net.si, net.so)) + 1
    scratch = np.zeros((8, most), dtype=np.int64)
    return State(vcs, vbuf, ovcs, oq_flit, oq_vc, oq_ready, oq_head, oq_len, ch_flit, ch_vc, cr, ncr, nbs, pk, nodes,
                 g, busy, va_ptr, sa_ptr, rr_off, held_in, held_out, scratch)
