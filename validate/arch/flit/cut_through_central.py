"""Paper 000's SP2-style central buffer: the move from an input FIFO into the shared buffer (§3, §5.3; step 3 of
:mod:`.cut_through`).

Each cycle every input FIFO whose head packet has a flit there (and its header ready) moves one flit into the
switch's shared buffer, in k-flit chunks that never mix packets. The packet's queue there (one per output,
adaptively the least loaded of its route's outputs) is chosen when its first flit moves. Admission
(``central_admission``): with ``packet`` all the chunks the packet needs must be free, within the share that
queues for up ports may hold, and are reserved for it; with ``flit`` one chunk at a time.
"""

from __future__ import annotations

from numba import njit

from .records import (E_ARR, E_DOWN, E_LEN, E_LT, E_NEXT, E_OI, E_PKT, E_Q, E_READY, E_RES, E_SENT, E_WPOS,
                      I_HELD, I_USED, IW, P_DEST, P_LEN)
from .rules import least_loaded
from .state import new_entry


@njit(cache=True, inline="always")
def central_step(t, sw, n_in, qp, g_sw, groups, route, up_link, pk, ent, e_free, e_top, q_head, q_tail, qflits,
                 inb, c_used, c_up, cand, act, moved):
    """Step 3 at cycle ``t``, input by input; returns the entry stack's new top and the flits moved this cycle
    (one more per flit moved)."""
    k = sw.k
    for gi in range(n_in):
        q = gi * k
        e = q_head[q]
        if e < 0 or ent[e, E_ARR] - (ent[e, E_LT] == t) <= ent[e, E_SENT] or ent[e, E_READY] > t:
            continue
        s = g_sw[gi]
        d = ent[e, E_DOWN]
        if d < 0:
            pkt = ent[e, E_PKT]
            o = least_loaded(groups[s, route[s, pk[pkt, P_DEST]]], qp + s * k, qflits, k, 1, 0)
            # Admission: a packet enters only when the chunks it needs are free (within its direction's
            # share), which are then reserved for it: packets admitted behind it took the chunks its tail
            # needed, and a leaf full of packets queued behind one waiting for its tail deadlocked
            # (FlitNetwork.check_traffic keeps a packet within either share).
            need = (pk[pkt, P_LEN] + k - 1) // k if sw.c_whole else 1
            up = up_link[s * k + o]
            if sw.c_chunks - c_used[s] < need or (up and sw.c_up_chunks - c_up[s] < need):
                continue
            res = need if sw.c_whole else 0
            c_used[s] += res
            c_up[s] += res * up
            e_top -= 1
            d = e_free[e_top]
            cq = qp + s * k + o
            new_entry(ent, d, pkt, cq, ent[e, E_LEN], s, s * k + o, 0, t)
            ent[d, E_WPOS] = 0
            ent[d, E_RES] = res
            ent[d, E_NEXT] = -1
            if q_tail[cq] >= 0:
                ent[q_tail[cq], E_NEXT] = d
            else:
                q_head[cq] = d
            q_tail[cq] = d
            ent[e, E_DOWN] = d
            cand[s * k + o] += 1
            act[(s * k + o) >> 6] |= 1 << ((s * k + o) & 63)
        cq = ent[d, E_Q]
        up = up_link[ent[d, E_OI]]
        if ent[d, E_WPOS] == 0 and ent[d, E_ARR] >= ent[d, E_RES] * k:     # a chunk not reserved
            if c_used[s] >= sw.c_chunks or (up and c_up[s] >= sw.c_up_chunks):
                continue
            c_used[s] += 1
            if up:
                c_up[s] += 1
        ent[d, E_WPOS] += 1
        if ent[d, E_WPOS] == k:
            ent[d, E_WPOS] = 0
        ent[d, E_ARR] += 1
        qflits[cq] += 1
        qflits[q] -= 1          # out of the input FIFO
        inb[gi * IW + I_HELD] -= 1
        inb[gi * IW + I_USED] -= 1
        ent[e, E_SENT] += 1
        moved += 1
        if ent[e, E_SENT] == ent[e, E_LEN]:
            q_head[q] = ent[e, E_NEXT]
            if q_head[q] < 0:
                q_tail[q] = -1
            e_free[e_top] = e
            e_top += 1
    return e_top, moved
