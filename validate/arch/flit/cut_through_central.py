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

from .records import (CENTRAL, E_ARR, E_DEST, E_DOWN, E_LEN, E_LT, E_NEXT, E_OI, E_PKT, E_Q, E_READY, E_RES, E_SENT,
                      E_WPOS, I_HELD, IW, P_DEST, P_LEN)
from .cut_through_state import (ACT, C_UP, C_USED, CAND, E_FREE, G_SW, INB, QFLITS, QHEAD, QTAIL, UP, allowed,
                                least_loaded)
from .cut_through_view import free_later
from .state import new_entry


@njit(cache=True, inline="always")
def admit_central(t, sw, dm, S, T, stk, ent, pk, e_top, moved):
    """Step 3 at cycle ``t``, input by input; returns the entry stack's new top and the flits moved this cycle
    (one more per flit moved)."""
    k = dm.k
    qp = dm.qp
    for gi in range(dm.n_in):
        q = gi * k
        e = S[QHEAD, q]
        if e < 0 or ent[e, E_ARR] - (ent[e, E_LT] == t) <= ent[e, E_SENT] or ent[e, E_READY] > t:
            continue
        s = T[G_SW, gi]
        d = ent[e, E_DOWN]
        if d < 0:
            pkt = ent[e, E_PKT]
            o = least_loaded(allowed(T, dm, s, pk[pkt, P_DEST]), qp + s * k, S, QFLITS, k, 1, 0)
            # Admission: a packet enters only when the chunks it needs are free (within its direction's
            # share), which are then reserved for it: packets admitted behind it took the chunks its tail
            # needed, and a leaf full of packets queued behind one waiting for its tail deadlocked
            # (FlitNetwork.check_traffic keeps a packet within either share).
            need = (pk[pkt, P_LEN] + k - 1) // k if sw.c_whole else 1
            up = T[UP, s * k + o]
            if sw.c_chunks - S[C_USED, s] < need or (up and sw.c_up_chunks - S[C_UP, s] < need):
                continue
            res = need if sw.c_whole else 0
            S[C_USED, s] += res
            S[C_UP, s] += res * up
            e_top -= 1
            d = stk[E_FREE, e_top]
            cq = qp + s * k + o
            new_entry(ent, d, pkt, cq, ent[e, E_LEN], s, s * k + o, 0, t)
            ent[d, E_WPOS] = 0
            ent[d, E_RES] = res
            ent[d, E_NEXT] = -1
            ent[d, E_DEST] = ent[e, E_DEST]
            if S[QTAIL, cq] >= 0:
                ent[S[QTAIL, cq], E_NEXT] = d
            else:
                S[QHEAD, cq] = d
            S[QTAIL, cq] = d
            ent[e, E_DOWN] = d
            S[CAND, s * k + o] += 1
            S[ACT, (s * k + o) >> 6] |= 1 << ((s * k + o) & 63)
        cq = ent[d, E_Q]
        up = T[UP, ent[d, E_OI]]
        if ent[d, E_WPOS] == 0 and ent[d, E_ARR] >= ent[d, E_RES] * k:     # a chunk not reserved
            if S[C_USED, s] >= sw.c_chunks or (up and S[C_UP, s] >= sw.c_up_chunks):
                continue
            S[C_USED, s] += 1
            if up:
                S[C_UP, s] += 1
        ent[d, E_WPOS] += 1
        if ent[d, E_WPOS] == k:
            ent[d, E_WPOS] = 0
        ent[d, E_ARR] += 1
        S[QFLITS, cq] += 1
        free_later(t, CENTRAL, sw, dm, S, q, gi, dm.n_links + gi)     # out of the input FIFO
        S[INB, gi * IW + I_HELD] -= 1
        ent[e, E_SENT] += 1
        moved += 1
        if ent[e, E_SENT] == ent[e, E_LEN]:
            S[QHEAD, q] = ent[e, E_NEXT]
            if S[QHEAD, q] < 0:
                S[QTAIL, q] = -1
            stk[E_FREE, e_top] = e
            e_top += 1
    return e_top, moved
