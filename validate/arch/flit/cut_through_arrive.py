"""Paper 000's link arrivals: the flits sent ``link_delay`` cycles ago reach their next buffer or node (§3, Fig. 5;
step 2 of :mod:`.cut_through`).

A ring per link holds what each flit is, the arrival bitmask (``ARR``) the links with one this cycle, so only
they are visited. At a switch input a flit is counted into its entry; a header becomes eligible to leave
``bypass_cycles`` later if nothing waits ahead of it in its queue, at most a packet already streaming out
(Pipe 1), ``buffered_cycles`` later if it must be stored behind another packet (Pipe 3, usually hidden behind
that packet); an idle output that sleeps (``WAKE``) is woken for it. At a node a packet's flits arrive in order
over one link, its tail as ``~packet``: the tail frees the packet, and the message's last packet delivers it
(latency: creation to last flit).
"""

from __future__ import annotations

from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ... import kernel as K
from .cut_through_state import ARR, M_FREE, M_GEN, M_LEFT, OUT_INPUT, OUT_SWITCH, P_FREE, PART_GROW, QHEAD, RING, WAKE
from .records import (CENTRAL, E_ARR, E_CLAIM, E_NEXT, E_OI, E_Q, E_READY, FIFO, M_PACKET_LATENCY_SUM, M_PACKETS,
                      P_GEN, P_MSG, P_RCV, TO_NODE)


@njit(cache=True, inline="always")
def arrive(t, org, run, sw, dm, S, T, stk, ent, pk, stats, trace, measuring, p_top, m_top, moved, received, m_received,
           n_trace):
    """Step 2 at cycle ``t``: every flit due now arrives. Returns the packet and message stacks' new tops, the
    flits moved (one more per arrival), flits received (all, and while ``measuring``) and the rows of ``trace``
    written (a row per flit reaching a node while it has room; a 1-row ``trace`` logs nothing)."""
    slot = t & dm.ring_mask
    in_base = slot * dm.n_links
    for w in range(dm.n_w):
        bits = S[ARR, slot * dm.n_w + w]
        if bits == 0:
            continue
        S[ARR, slot * dm.n_w + w] = 0
        while bits:
            g = (w << 6) + trailing_zeros(bits)
            bits &= bits - 1
            x = S[RING, in_base + g]
            moved += 1
            if T[OUT_SWITCH, g] == TO_NODE:
                # a packet's flits reach its node in order over one link; its tail comes as ~packet
                tail = x < 0
                pkt = ~x if tail else x
                received += 1
                if measuring:
                    m_received += 1
                    S[PART_GROW, T[OUT_INPUT, g]] -= 1     # the node this link delivers to: its destination
                if trace.shape[0] > 1 and n_trace < trace.shape[0]:
                    pk[pkt, P_RCV] += 1
                    trace[n_trace, 0] = t
                    trace[n_trace, 1] = T[OUT_INPUT, g]
                    trace[n_trace, 2] = pkt
                    trace[n_trace, 3] = pk[pkt, P_RCV]
                    n_trace += 1
                if tail:
                    m = pk[pkt, P_MSG]
                    if measuring:
                        stats[M_PACKETS] += 1
                        stats[M_PACKET_LATENCY_SUM] += t - pk[pkt, P_GEN]
                    stk[P_FREE, p_top] = pkt
                    p_top += 1
                    stk[M_LEFT, m] -= 1
                    if stk[M_LEFT, m] == 0:
                        # Latency: cycles from the message's creation to its last flit's arrival.
                        stats[K.STAT_DELIVERED] += 1
                        if t >= run.warmup:
                            stats[K.STAT_M_DELIVERED] += 1
                            stats[K.STAT_M_LATENCY_SUM] += t - stk[M_GEN, m]
                            stats[K.STAT_M_LATENCY_COUNT] += 1
                        stk[M_FREE, m_top] = m
                        m_top += 1
            else:
                e = x
                ent[e, E_ARR] += 1
                if ent[e, E_ARR] == 1:
                    # Pipe 1 when nothing waits ahead of it in its queue (at most a packet already
                    # streaming out), Pipe 3 when it must be stored behind another packet.
                    h = S[QHEAD, ent[e, E_Q]]
                    clear = h == e or (ent[h, E_CLAIM] >= 0 and ent[h, E_NEXT] == e)
                    ent[e, E_READY] = t + (sw.bypass if clear else sw.buffered)
                    if org != FIFO and org != CENTRAL and ent[e, E_READY] < S[WAKE, ent[e, E_OI]]:
                        S[WAKE, ent[e, E_OI]] = ent[e, E_READY]
    return p_top, m_top, moved, received, m_received, n_trace
