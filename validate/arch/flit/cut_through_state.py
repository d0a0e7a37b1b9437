"""Paper 000's cut-through network as its kernel holds it: a few packed records with named rows (§3-§5).

:mod:`.cut_through` runs the cycles; its phases (:mod:`.cut_through_inject`, :mod:`.cut_through_arrive`,
:mod:`.cut_through_central`, :mod:`.cut_through_outputs`) share what is here. The state is four int64 arrays,
each a record of named rows indexed directly (``S[QHEAD, q]``), never a row taken into a variable: in this
kernel a cycle costs 1-3 us, and an array variable live across a phase's branches costs Numba a reference-count
increment and decrement that LLVM cannot pair away (measured: phases over a record of ~20 arrays, 124-227 in
the cycle loop; over these four records, compiled with :class:`~switchq.validate.arch.phase_pipeline.PhasePipeline`,
3):

- ``S`` (row, index), what changes: per queue (``QHEAD``, ``QTAIL``, ``QFLITS``; pair queues' ``QST`` and input
  buffers' ``INB`` fields side by side, ``q * QW + Q_*`` and ``gi * IW + I_*``, one cache line where a flit is
  committed and released), per switch, per link (an output's record ``LK``, ``g * LKW + LK_*``), the arrival
  ring (``RING``, ``slot * n_links + g``, and its bitmask ``ARR``, ``slot * n_w + w``), the links with work
  (``ACT``) and the stability rule's parts (``PART_OFF``, ``PART_GROW``);
- ``stk`` (row, i): the free stacks of entries, packets and messages and a message's creation cycle and packets
  left;
- ``T`` (row, index), read only: the wiring and routing tables (``route`` and ``groups`` flattened by row);
- the entry and packet records (``ent``, ``pk``: fields ``E_*``, ``P_*`` of :mod:`.records`).

Queues are numbered by what they hold (:mod:`.arrays`): a pair (or input) queue (input gi, output o) at
``gi * k + o``, a central queue (switch s, output o) at ``qp + s * k + o`` (``qp = n_in k``), node v's injection
queue at ``qc + v`` (``qc = qp + n_in``). Scalars the phases read are one ``Dims`` record (scalars cost nothing).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ... import kernel as K
from .records import I_LAST, IW, LK_E, LKW, NIC_PACKETS, QW

# S rows. Per queue: first and last entry (-1: empty, linked through E_NEXT), flits held. Per pair queue (QW
# fields a queue) and input buffer (IW fields an input). Per input: DAMQ read port busy, and the switch's
# outputs waiting for it. Per switch: central chunks taken, taken by up queues, FIFO entries no output has
# taken. Per link: entries queued for the output not yet taken, flits queued for it (up_select="output"),
# round-robin pointer, the cycle an idle output next arbitrates. Per node: packets at its injection queue.
# Ring: per slot and link the flit arriving (the entry; to a node the packet, its tail ~packet); ARR the links
# with one, 64 a word; ACT the links step 4 visits; an output's record LK. Parts: flits offered and backlog
# growth per destination while measuring (as many parts as the VC kernel's; the rest stay 0). Credits (with
# credit_delay): per slot (the cycle a credit arrives, & credit_mask) and sender (an output link; a central
# switch's input FIFO at n_links + gi), the queue + 1 whose flit's place it frees. Loads (with routing_age): per
# slot (cycle & loads_mask) the queue lengths the adaptive choice reads, as at that cycle's start. Rings of a
# power of two: a slot by a mask, not a division (a division by a run's value costs its zero check in the loop).
(QHEAD, QTAIL, QFLITS, QST, INB, RD_BUSY, RD_WAIT, C_USED, C_UP, WAITING, CAND, OUT_LOAD, RR, WAKE, NIC, RING,
 ARR, ACT, LK, PART_OFF, PART_GROW, CREDIT, LOADS) = range(23)
N_S = 23
# stk rows, per pool index: free entries, free packets, free messages (stacks, top kept by the kernel), a
# message's creation cycle and its packets not yet delivered.
E_FREE, P_FREE, M_FREE, M_GEN, M_LEFT = range(5)
# T rows: per output link the switch it feeds (TO_NODE, UNWIRED) and that switch's input (a node link: the
# node), 1 if it goes up a stage, the switch of a link; per node 1 if it sends, its permutation destination
# (PERM row 0 < 0: uniform); then per switch s and destination the mask of the outputs its route may take
# (groups[s, route[s, dest]], one load where a route is read), 2^route_shift switches a row: row
# ALLOWED + (s >> route_shift), column (s & (2^route_shift - 1)) * nodes + dest. (As one row of n_sw * nodes
# it made every row that wide: 1.6 GB at 4096 nodes for a table of 0.2 GB.)
OUT_SWITCH, OUT_INPUT, UP, G_SW, ACTIVE, PERM, ALLOWED = range(7)


class Dims(NamedTuple):
    """The network's sizes and queue numbering, as scalars."""
    k: int                      # ports per switch
    n_sw: int
    nodes: int
    n_in: int                   # switch inputs (= switch outputs): n_sw * k
    n_links: int                # n_in + nodes (node links last)
    qp: int                     # first central queue
    qc: int                     # first injection queue
    n_w: int                    # 64-link words
    ring_mask: int              # ring slots - 1
    pool: int                   # rows of the entry, packet and message pools at the start (they grow)
    pool_max: int               # ... that the network and its injection queues could ever fill
    reserve: int                # entries steps 2-4 of a cycle may take: one per output and central input
    pairs: int                  # 1: pair queues (SAFC, DAMQ, HIPIQS), an idle output may sleep (wake)
    senders: int                # credit senders a slot: output links, then central input FIFOs
    credit_mask: int            # credit ring slots - 1 (a power of two above credit_delay; 0: no delay)
    loads_mask: int             # load snapshots - 1 (a power of two above routing_age; 0: read as they are)
    t_width: int                # columns of T
    route_shift: int            # log2 of the switches an ALLOWED row of T holds


@njit(cache=True, inline="always")
def dims(tab, sw):
    """The sizes of the network of ``tab`` with switches ``sw``."""
    k = sw.k
    n_sw = tab.route.shape[0]
    nodes = tab.route.shape[1]
    n_in = n_sw * k
    n_links = n_in + nodes
    qp = n_in * k
    # The worst case: an entry for every flit every buffer could hold, plus full injection queues. Below
    # saturation a run fills a small part of it, so the pools start at a few entries per link and grow.
    net_flits = n_in * (sw.cap + k * sw.xp_cap + 2) + n_sw * sw.c_chunks * k
    pool_max = nodes * NIC_PACKETS + net_flits + 4 * n_links + 64
    reserve = n_links + n_in
    # (a conditional inside this keyword call's arguments: Numba refuses a call of this many keywords with one)
    pairs = 1 if sw.org != 0 and sw.org != 4 else 0
    credit_mask = K.pow2_at_least(sw.credit_delay + 1) - 1 if sw.credit_delay else 0
    loads_mask = K.pow2_at_least(sw.routing_age + 1) - 1 if sw.routing_age else 0
    t_width = max(n_links, nodes)
    route_shift = 0
    while (2 << route_shift) * nodes <= t_width:
        route_shift += 1
    return Dims(k=k, n_sw=n_sw, nodes=nodes, n_in=n_in, n_links=n_links, qp=qp, qc=qp + n_in,
                n_w=(n_links + 63) >> 6, ring_mask=K.pow2_at_least(sw.link_delay + 1) - 1,
                pool=min(pool_max, 2 * reserve + 64), pool_max=pool_max,
                reserve=reserve, pairs=pairs, senders=n_links + n_in, credit_mask=credit_mask,
                loads_mask=loads_mask, t_width=t_width, route_shift=route_shift)


@njit(cache=True, inline="always")
def state_width(dm, sw):
    """The columns of ``S``: its widest row."""
    ring_len = dm.ring_mask + 1
    return max(dm.qc + dm.nodes, dm.qp * QW, dm.n_links * LKW, ring_len * dm.n_links, ring_len * dm.n_w,
               2 * dm.nodes, (dm.credit_mask + 1) * dm.senders if sw.credit_delay else 0,
               (dm.loads_mask + 1) * dm.qp if sw.routing_age else 0)


@njit(cache=True, inline="always")
def tables_rows(dm):
    """The rows of ``T``: the named rows, then the allowed outputs'."""
    return ALLOWED + ((dm.n_sw + (1 << dm.route_shift) - 1) >> dm.route_shift)


@njit(cache=True, inline="always")
def new_state(dm, sw):
    """``S`` at the start of a run: queues empty, inputs never read, outputs idle, the rings empty."""
    ring_len = dm.ring_mask + 1
    S = np.zeros((N_S, state_width(dm, sw)), dtype=np.int64)
    for q in range(dm.qc + dm.nodes):
        S[QHEAD, q] = -1
        S[QTAIL, q] = -1
    for gi in range(dm.n_in):
        S[INB, gi * IW + I_LAST] = -1
    for g in range(dm.n_links):
        S[LK, g * LKW + LK_E] = -1
    for j in range(ring_len * dm.n_links):
        S[RING, j] = -1
    return S


@njit(cache=True, inline="always")
def stacks(pool):
    """``stk``: every entry, packet and message free (each stack's top is ``pool``)."""
    stk = np.zeros((5, pool), dtype=np.int64)
    for i in range(pool):
        stk[E_FREE, i] = pool - 1 - i
        stk[P_FREE, i] = pool - 1 - i
        stk[M_FREE, i] = pool - 1 - i
    return stk


@njit(cache=True, inline="always")
def tables(tab, tr, dm):
    """``T``: the wiring, routing and workload tables of ``tab`` and ``tr`` in named rows."""
    T = np.zeros((tables_rows(dm), dm.t_width), dtype=np.int64)
    for g in range(dm.n_links):
        T[OUT_SWITCH, g] = tab.out_switch[g]
        T[OUT_INPUT, g] = tab.out_input[g]
        T[UP, g] = tab.up[g]
        T[G_SW, g] = g // dm.k
    for s in range(dm.n_sw):
        row = ALLOWED + (s >> dm.route_shift)
        col = (s & ((1 << dm.route_shift) - 1)) * dm.nodes
        for v in range(dm.nodes):
            T[row, col + v] = tab.groups[s, tab.route[s, v]]
    for v in range(dm.nodes):
        T[ACTIVE, v] = tr.active[v]
        T[PERM, v] = tr.perm[v]
    return T


@njit(cache=True, inline="always")
def allowed(T, dm, s, dest):
    """The mask of switch ``s``'s outputs a packet to ``dest`` may take."""
    return T[ALLOWED + (s >> dm.route_shift), (s & ((1 << dm.route_shift) - 1)) * dm.nodes + dest]


@njit(cache=True, inline="always")
def least_loaded(mask, base, S, row, k, width, second):
    """The port o of ``mask`` whose queue ``base + o`` holds the fewest flits, ``S[row, (base + o) * width]``
    plus the field ``second`` if not 0 (HIPIQS: a pair queue's FIFO unit and shared queue); ties: a random one."""
    best = -1
    best_flits = 1 << 62
    ties = 0
    for o in range(k):
        if (mask >> o) & 1:
            f = S[row, (base + o) * width]
            if second:
                f += S[row, (base + o) * width + second]
            if f < best_flits:
                best, best_flits, ties = o, f, 1
            elif f == best_flits:
                ties += 1
                if np.random.random() * ties < 1.0:
                    best = o
    return best
