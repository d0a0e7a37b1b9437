"""Paper 000's message sources for the cut-through kernel (§5.1; step 1 of :mod:`.cut_through`).

Each node starts messages as a Bernoulli (or Poisson) process of ``load / M`` messages per cycle, drawn as gaps
between starts (``kernel.start_gap``), to a destination drawn uniformly (over the other nodes, or all) or fixed
by a permutation. A message is cut into packets of ``pkt_flits`` flits, each an entry of its node's injection
queue holding all its flits from the start. The queue holds ``NIC_PACKETS`` packets; a message that would
overflow it is refused and the run flagged unstable (the paper's queue is unbounded).

The kernel enters this step only in a cycle in which some node starts a message (``next_first``, the earliest
start, is kept here): at light load most cycles start none, and looking at every node's next start every
cycle cost 5-10 % of the run. Nodes are still visited in order within a cycle, so the random draws, and with
them every result, are those of a visit every cycle.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ... import kernel as K
from .records import E_DEST, E_NEXT, FLITS_OFFERED, M_FLITS_OFFERED, NIC_PACKETS, P_DEST, P_GEN, P_LEN, P_MSG, P_RCV
from .cut_through_state import ACT, M_FREE, M_GEN, M_LEFT, NIC, P_FREE, PART_GROW, PART_OFF, PERM, QHEAD, QTAIL, E_FREE
from .state import new_entry


@njit(cache=True, inline="always")
def first_start(next_at):
    """The earliest next message start over the nodes (``inf``: none)."""
    first = np.inf
    for v in range(next_at.shape[0]):
        if next_at[v] < first:
            first = next_at[v]
    return first


@njit(cache=True, inline="always")
def inject(t, tr, run, dm, stats, measuring, next_at, S, T, stk, ent, pk, m_top, p_top, e_top, offered_flits, v0,
           short):
    """Step 1 at cycle ``t``, from node ``v0`` on: the messages whose start falls in it join their nodes'
    injection queues (and set the node's link in ``act``). Returns the free stacks' new tops, the flits offered
    so far, the earliest start still to come and the node reached: ``dm.nodes`` when done; less when ``short``
    (the pools may still grow) and a message would leave fewer free rows than it needs and ``dm.reserve``
    entries besides: it is left, undrawn, for the kernel to grow the pools and enter again at that node."""
    nodes = dm.nodes
    qc = dm.qc
    n_in = dm.n_in
    ppm = (tr.msg_flits + tr.pkt_flits - 1) // tr.pkt_flits
    for v in range(v0, nodes):
        while next_at[v] < t + 1:
            if short and (m_top < 1 or p_top < ppm or e_top < ppm + dm.reserve):
                return m_top, p_top, e_top, offered_flits, first_start(next_at), v
            next_at[v] += K.start_gap(tr.p_msg, tr.poisson)
            room = S[NIC, v] + ppm <= NIC_PACKETS
            if not K.admit(stats, t, run.warmup, room, True):
                continue
            if T[PERM, 0] >= 0:
                dest = T[PERM, v]
            else:
                dest = K.draw_node(v, nodes, tr.uniform_all)
            m_top -= 1
            m = stk[M_FREE, m_top]
            stk[M_GEN, m] = t
            stk[M_LEFT, m] = ppm
            offered_flits += tr.msg_flits
            stats[FLITS_OFFERED] += tr.msg_flits
            if measuring:
                stats[M_FLITS_OFFERED] += tr.msg_flits
                S[PART_OFF, dest] += tr.msg_flits
                S[PART_GROW, dest] += tr.msg_flits
            q = qc + v
            for j in range(ppm):
                p_top -= 1
                pkt = stk[P_FREE, p_top]
                pk[pkt, P_DEST] = dest
                pk[pkt, P_LEN] = min(tr.pkt_flits, tr.msg_flits - j * tr.pkt_flits)
                pk[pkt, P_MSG] = m
                pk[pkt, P_RCV] = 0
                pk[pkt, P_GEN] = t
                # all its flits are at the NIC
                e_top -= 1
                e = stk[E_FREE, e_top]
                new_entry(ent, e, pkt, q, pk[pkt, P_LEN], -1, -1, pk[pkt, P_LEN], t)
                ent[e, E_NEXT] = -1
                ent[e, E_DEST] = dest
                # The queue append is written out at its three places: a helper taking the three queue
                # arrays, with the per-cycle checks, cost 5-12 % of the run (measured, paired).
                if S[QTAIL, q] >= 0:
                    ent[S[QTAIL, q], E_NEXT] = e
                else:
                    S[QHEAD, q] = e
                S[QTAIL, q] = e
                S[NIC, v] += 1
                S[ACT, (n_in + v) >> 6] |= 1 << ((n_in + v) & 63)
    return m_top, p_top, e_top, offered_flits, first_start(next_at), nodes
