"""Step V1 of the virtual-channel routers (paper 004, MediaWorm §III, §IV-B): messages join their NIC queues.

Each stream's regulator makes message k of a frame at ``start + floor(k x spacing)`` (its frames' columns
in ``frames``; with no regulator, at ``start``: a reading of §III-D's Table II), Poisson best effort per node at
``vc.be_rate``; each message joins the NIC queue of its input VC (a list linked through its packets' ``P_NEXT``,
so the message that becomes its head is read from one row, Vtick ``P_VT`` included: a deep queue's next message
has long left the cache). Best effort's VCs: ``drawn``, a
message's input and output VC are drawn when it is made; ``free``, a node's NIC keeps one best-effort queue
(VC ``m_rt``) whose head takes a free best-effort VC as its header leaves (:mod:`.vc_links`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ... import kernel as K
from .records import (FLITS_OFFERED, H_BE, H_GEN, H_LEN, H_PKT, H_SENT, M_FLITS_OFFERED, P_DEST, P_DVC, P_GEN, P_LEN,
                      P_MSG, P_NEXT, P_VT, SCHED_FIFO)
from .rules import nic_stamp
from .vc_state import (BE_NEXT, C_OFFERED, C_P_TOP, COUNT, FM_LAST, FM_LEFT, FM_MSGS, FM_START, H_VT, NIC_COUNT,
                       NIC_MASK, Q_HEAD, Q_ST, Q_TAIL, ST_DEST, ST_DVC, ST_IVC, ST_K, ST_OFF, ST_ROW, ST_SRC)


@njit(cache=True, inline="always")
def inject_messages(t, measuring, warmup, d, vc, S, F, hd, pk, pkf, p_free, stats, parts, streams, frames, spacing,
                    heap_t, heap_c, heap_size, be_first):
    """Cycle ``t``'s messages, the streams' regulators first (those due in one cycle in stream order), then best
    effort, each joining its NIC queue for its input VC; returns the earliest next best-effort start. A message
    a full NIC refuses is counted (:func:`~switchq.validate.kernel.admit`) and, if video, loses its frame."""
    n_streams = streams.shape[1] - 1
    nodes = d.nodes
    m = d.m
    nic_fifo = vc.sched == SCHED_FIFO
    more = True
    while more:
        src = dest = c_in = dvc = flits = row = 0
        vt = 0.0
        if heap_size[0] > 0 and heap_t[0] < (t + 1) * n_streams:
            _, i = K.heap_pop(heap_t, heap_c, heap_size)
            r = streams[ST_ROW, i]
            j = streams[ST_K, i]
            flits = vc.msg_flits if j < frames[FM_MSGS, r] - 1 else frames[FM_LAST, r]
            src = streams[ST_SRC, i]
            dest = streams[ST_DEST, i]
            c_in = streams[ST_IVC, i]
            dvc = streams[ST_DVC, i]
            vt = spacing[r] / flits        # Vtick: message interval / its flits (§III-D)
            row = r
            # the 1e-9 keeps floor(k x spacing) exact where the product lands a hair below a whole cycle
            if j + 1 < frames[FM_MSGS, r]:
                streams[ST_K, i] = j + 1
                # unregulated, a frame's messages are all due as it starts (they wait in the NIC's queue)
                due = frames[FM_START, r] + (K.regulator_offset(j + 1, spacing[r]) if vc.regulated else 0)
                K.heap_push(heap_t, heap_c, heap_size, due * n_streams + i, i)
            elif r + 1 < streams[ST_OFF, i + 1]:
                streams[ST_ROW, i] = r + 1
                streams[ST_K, i] = 0
                K.heap_push(heap_t, heap_c, heap_size, frames[FM_START, r + 1] * n_streams + i, i)
        elif be_first >= t + 1:
            # no loop exit by break: a phase with one keeps its arrays' reference counts in the cycle loop
            more = False
            continue
        else:
            src = -1
            for v in range(nodes):
                if src < 0 and F[BE_NEXT, v] < t + 1:
                    src = v
            F[BE_NEXT, src] += K.start_gap(vc.be_rate, 1)
            be_first = F[BE_NEXT, 0]
            for v in range(1, nodes):
                be_first = min(be_first, F[BE_NEXT, v])
            dest = K.draw_node(src, nodes, vc.be_all)
            if vc.be_free:
                c_in = vc.m_rt      # the NIC's one best-effort queue; VCs are taken free on the way
                dvc = -1
            else:
                c_in = vc.m_rt + int(np.random.random() * (m - vc.m_rt))
                dvc = vc.m_rt + int(np.random.random() * (m - vc.m_rt))
            flits = vc.msg_flits
            vt = vc.be_vtick
            row = -1
        # Best effort may fill a NIC to NIC_MESSAGES; video (regulated, so bounded unless the router
        # cannot carry it) has as many again, so a flood of best effort never costs a frame.
        if not K.admit(stats, t, warmup, S[NIC_COUNT, src] < (2 if row >= 0 else 1) * vc.nic_messages, True):
            if row >= 0:
                frames[FM_LEFT, row] = -1 << 40      # a message lost: its frame is never delivered
            continue
        p_top = S[COUNT, C_P_TOP] - 1
        S[COUNT, C_P_TOP] = p_top
        pkt = p_free[p_top]
        pk[pkt, P_DEST] = dest
        pk[pkt, P_LEN] = flits
        pk[pkt, P_MSG] = row
        pk[pkt, P_GEN] = t
        pkf[pkt, P_VT] = vt
        pk[pkt, P_DVC] = dvc
        pk[pkt, P_NEXT] = -1
        S[COUNT, C_OFFERED] += flits
        stats[FLITS_OFFERED] += flits
        if measuring:
            stats[M_FLITS_OFFERED] += flits
            part = dest if row >= 0 else nodes + dest
            parts[0, part] += flits
            parts[1, part] += flits
        q = d.nq_ring + src * m + c_in
        if S[Q_TAIL, q] >= 0:
            pk[S[Q_TAIL, q], P_NEXT] = pkt
        else:
            # the head of its NIC queue: its message record
            S[Q_HEAD, q] = pkt
            hd[q, H_PKT] = pkt
            hd[q, H_SENT] = 0
            hd[q, H_LEN] = flits
            hd[q, H_BE] = 1 if row < 0 else 0
            F[H_VT, q] = vt
            hd[q, H_GEN] = t
            F[Q_ST, q] = nic_stamp(t, 0, vt, row < 0, nic_fifo, vc.be_flat, vc.be_vtick)
        S[Q_TAIL, q] = pkt
        S[NIC_COUNT, src] += 1
        S[NIC_MASK, src] |= 1 << c_in
    return be_first
