"""The input-queued virtual-channel router network's state (issue 38): counters, sizes, packed records.

:mod:`switchq.validate.arch.iq_router` runs the cycles; :mod:`.iq_router_nodes` (the traffic manager) and
:mod:`.iq_router_phases` (the routers) hold the steps of a cycle, :mod:`.iq_router_buffers` a sender's view of
a buffer and :mod:`.iq_router_alloc` the allocators. They share what is here.

Indices: an input VC ``iv = (router * P + port) * V + vc``, an output VC ``ov`` the same over output ports, an
output ``ro = router * P + port``; a flit ``pkt << sbits | i`` (packet ``pkt`` of the pool, its ``i``-th flit).
The state is seven int64 arrays, each a record of named rows or column blocks, passed to the phases one by one:
a phase handed a tuple of arrays pays Numba a copy and a reference count per array at every call (a tuple of 23
arrays: 113 ns a call). Arrays passed one by one still cost a reference count at each phase with a branch,
unless borrowed (:func:`switchq.validate.kernel.borrowed`), as the cycle loop's are.
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

# ``vc``: one column per input VC (iv), then one per node's VC (niv + node * V + vc).
# Rows 0-10, an input VC: its FIFO's first slot (in its port's flit store) and length; its state; the cycle its
# pending stage is evaluated (routing, VA or SA; NEVER: none pending) and the cycle routing completes; the route
# (output port, VC range) and the output VC granted; whether it holds the switch (hold_switch_for_packet); its
# FIFO's last slot.
V_HEAD, V_LEN, V_STATE, V_EVAL, V_DONE, V_OUT, V_LO, V_HI, V_OVC, V_HOLD, V_TAIL = range(11)
# Rows 11-15, the buffer downstream of an output VC (column ov) or of a node's VC (column niv + node * V + vc) as
# its sender sees it (BookSim2's BufferState): flits sent and not credited, the input VC owning it (-1: free),
# the tail sent; under the shared policy the slots reserved for its packet and its private region's occupancy.
O_OCC, O_OWNER, O_TAIL, O_RES, O_POCC = range(11, 16)
VC_ROWS = 16
# ``vbuf``: each input port's flit store, ``cap`` slots (the port's buffer, BookSim2's Buffer), its VCs' FIFOs
# linked lists through it: row 0 a slot's flit, row 1 the next slot (of its VC's FIFO, or of the port's free
# list, whose head is the port's ``c_free`` column of ``port``). A ring per VC would hold num_vcs times the port's
# flits under the shared policy, where one VC may take them all.
# ``pk``: one column per packet of the pool: destination, creation cycle, head's injection cycle, the torus
# dateline phase, routers crossed, flits ejected, the flits' latencies (ejection less injection cycles, summed),
# the free list.
P_DEST, P_CTIME, P_ITIME, P_PH, P_HOPS, P_EJECTED, P_FLAT, P_NEXT = range(8)
# ``nd``: one column per node: the next cycle its source tests (BookSim2's qtime), its packet being injected (-1:
# none) and its next flit, the VC it uses, the last VC picked (round-robin), the on-off state.
N_QTIME, N_PKT, N_FLIT, N_VC, N_LAST, N_ON = range(6)
# ``rt``: one row per router. Columns 0-4 (``busy``), so a router skips what has nothing to do: flits in its VCs,
# flits in its output queues, VCs waiting for VC allocation, VCs in the routing stage, and a bit per VC (local
# index p V + vc, routers of at most 63 VCs: ``bits``) for each VC that holds an output VC and a flit, so switch
# allocation visits only those. Then blocks at the offsets
# of ``Net``: flits and credits reaching it by the cycle they are read (a ring, as the channels'), the VC
# allocator's input and output pointers, the switch allocator's, the round-robin offsets of the crossbar inputs
# (BookSim2's _sw_rr_offset), the held crossbar inputs and outputs. The last row holds the packet pool's
# free-list head and the packets in the network.
B_FLITS, B_QUEUED, B_VA, B_ROUTING, B_SA = range(5)
G_FREE, G_LIVE = range(2)
# ``port``: one row per router output (ro), then one per node's injection channel (nro + node). Column blocks at
# the offsets of ``Net``: the channel's flits and their VCs by the cycle they are read (a ring longer than any
# delay), the credits due back at the channel's sender (ring x V), the output queue (flits, VCs, the cycle each
# is ready, its head and length), and the shared occupancy of the buffer the channel feeds (shared policy). Rows
# of router outputs also hold, in ``c_free``, the free list of the input port of the same index (ro = rp).

# The network and router as the kernel reads them (built by iq_router.args_for): sizes, delays, allocators, the
# buffer policy (shared 0: private, ``depth`` flits a VC; 1: ``priv`` private slots a VC and ``shsize`` shared,
# ``depth`` = priv + shsize the most a VC can hold; ``cap`` the port's flits), and the column offsets of ``port``
# and ``rt``. ``pool``: the packet records to start with (they grow as packets are in flight, see
# iq_router.replicate). Rings are a power of two long (the channels' ``ring``, the output queue ``qcap``) and a flit is
# ``pkt << sbits | i``, so positions and flits are split by masks: a 64-bit division costs 40-90 cycles.
Net = namedtuple("Net", "topo k n nodes routers ports vcs depth si so xd rd credit_delay hold wait_tail va_alloc "
                        "va_iters sa_alloc sa_iters qcap pool size sbits smask bits shared priv shsize cap ring rmask niv "
                        "nro c_vc c_cr c_oqf "
                        "c_oqv c_oqr c_oqh c_oql c_sh c_free r_idue r_cdue r_va_in r_va_out r_sa_in r_sa_out r_rr r_hin "
                        "r_hout")
# Wiring (models.iq_topology.Wiring's arrays) as one array: rows indexed by output or input (router * P + port),
# then rows indexed by node.
W_OUT_ROUTER, W_OUT_PORT, W_OUT_NODE, W_LATENCY, W_UP_ROUTER, W_UP_PORT, W_UP_NODE = range(7)
W_INJ_ROUTER, W_INJ_PORT, W_EJ_ROUTER, W_EJ_PORT = range(7, 11)
# The traffic: pattern code, rate (packets per node per cycle), on-off process (alpha, beta, r1; on_off 0:
# Bernoulli), creation at the source queue's time (include_queuing).
Load = namedtuple("Load", "pattern rate on_off alpha beta r1 queuing")
State = namedtuple("State", "vc vbuf port pk nd rt scratch")


def offsets(ports, vcs, si, so, ring, qcap) -> dict:
    """The column offsets of ``port`` and ``rt`` (Net's c_* and r_* fields) and their widths."""
    c = dict(c_vc=ring, c_cr=2 * ring)
    c["c_oqf"] = c["c_cr"] + ring * vcs
    c["c_oqv"] = c["c_oqf"] + qcap
    c["c_oqr"] = c["c_oqv"] + qcap
    c["c_oqh"] = c["c_oqr"] + qcap
    c["c_oql"] = c["c_oqh"] + 1
    c["c_sh"] = c["c_oql"] + 1
    c["c_free"] = c["c_sh"] + 1
    pv, ps = ports * vcs, ports * max(si, so)
    c["r_idue"] = 5
    c["r_cdue"] = 5 + ring
    c["r_va_in"] = 5 + 2 * ring
    c["r_va_out"] = c["r_va_in"] + pv
    c["r_sa_in"] = c["r_va_out"] + pv
    c["r_sa_out"] = c["r_sa_in"] + ps
    c["r_rr"] = c["r_sa_out"] + ps
    c["r_hin"] = c["r_rr"] + ports * si
    c["r_hout"] = c["r_hin"] + ports * si
    return c


@njit(cache=True)
def new_state(net, seed_nodes_on):
    """An empty network: every VC idle, every output VC free, the pool's packets on its free list."""
    r, p, v = net.routers, net.ports, net.vcs
    vc = np.zeros((VC_ROWS, net.niv + net.nodes * v), dtype=np.int64)
    vc[V_EVAL, :] = NEVER
    vc[V_DONE, :] = NEVER
    vc[V_OVC, :] = -1
    vc[O_OWNER, :] = -1
    vbuf = np.empty((2, net.nro * net.cap), dtype=np.int64)
    vbuf[0, :] = -1
    for rp in range(net.nro):                     # each port's slots on its free list, in order
        base = rp * net.cap
        for i in range(net.cap - 1):
            vbuf[1, base + i] = i + 1
        vbuf[1, base + net.cap - 1] = -1
    port = np.zeros((net.nro + net.nodes, net.c_free + 1), dtype=np.int64)
    port[:, :net.c_vc] = -1                          # no flit on the channels
    port[:, net.c_oqf:net.c_oqv] = -1
    pk = np.zeros((8, net.pool), dtype=np.int64)
    pk[P_NEXT, :] = np.arange(1, net.pool + 1)
    pk[P_NEXT, net.pool - 1] = -1
    nd = np.zeros((6, net.nodes), dtype=np.int64)
    nd[N_PKT, :] = -1
    nd[N_LAST, :] = v - 1
    if seed_nodes_on:
        for i in range(net.nodes):
            nd[N_ON, i] = np.random.randint(0, 2)
    rt = np.zeros((r + 1, net.r_hout + p * net.so), dtype=np.int64)
    for i in range(p * net.si):
        rt[:r, net.r_rr + i] = i % net.si
    # Scratch for one router's requests: (input, output, label) triples and the allocators' working rows.
    # (VA: P V requesters of V output VCs each; SA: P max(si, so) expanded ports, matched in rows 3-5.)
    most = max(p * v * v, p * v, p * max(net.si, net.so)) + 1
    scratch = np.zeros((8, most), dtype=np.int64)
    return State(vc, vbuf, port, pk, nd, rt, scratch)
