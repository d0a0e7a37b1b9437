"""The virtual-channel routers' state (paper 004, MediaWorm §III): the packed records the phases share.

:mod:`.vc` runs the cycles; :mod:`.vc_inject` (V1), :mod:`.vc_crossbar` (V2) and :mod:`.vc_links` (V3) hold the
steps of a cycle. They share what is here: the dimensions of a run (:class:`VcDims`, scalars), its state as a
few arrays with named rows (:func:`new_state`), and :func:`hand_over`, a header taking a VC downstream.

VC buffers are numbered 0..2 n_in m - 1 (input VC c of input link gi at ``gi * m + c``, then output VC c of
output link g at ``n_in m + g * m + c``); node v's NIC queue for VC c follows at ``2 n_in m + v * m + c``.
The routers' integer state is one int64 array ``S`` (row = field, column = queue, input, link or node), their
floats one array ``F``, the wiring the rows of ``T``; beside them only the flit rings (``fr_t``, ``fr_s``), the
message rows (``hd``), the packets and the sources (``streams``, ``frames``), each one 2-D record. A phase
indexes ``S[ROW, i]`` and never takes a row into a local: an array a phase made would be counted, per call, in
the cycle loop (those it is given are the kernel's own, see :mod:`switchq.validate.arch.phase_pipeline`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ... import kernel as K
from .records import H_BE, H_LEN, H_PKT, H_SENT, HW, TO_NODE

# S, per queue (VC buffer, and NIC queue where it has one):
# - Q_HEAD, Q_TAIL: a NIC queue's first and last packet (-1: empty), linked through P_NEXT;
# - CREDIT_AT: the cycle from which the flit upstream may send its next flit (the place it needs is the one
#   flit ``qin - cap`` left, whose credit is back as its slot says; never, while it is there);
# - QIN, QOUT: flits sent into it and out of it (cumulative);
# - Q_DN: the buffer its message goes to next, once its header has taken it (-1: not yet), and Q_GO (input VC
#   buffers) the router output link it crosses to;
# - Q_RT: the ready cycle of the next flit it would send (its stamp: F[Q_ST]).
Q_HEAD, Q_TAIL, CREDIT_AT, QIN, QOUT, Q_DN, Q_GO, Q_RT = range(8)
# S, per input, output and link, as VC bitmasks where they are sets of VCs:
# - RDY: the VC buffers whose next flit is there and ready, of each input (gi) and output (n_in + g) (the
#   crossbar and the links scan only these: most VCs wait for flits the links bring one a cycle);
# - IN_MASK, OUT_MASK: the VCs of an input and of an output holding a message;
# - PARK_IN: per input, its headers that found no free output VC on their route, and PARKED per (output g,
#   input i of its switch) at g * k + i, the VCs of i parked on g (a header parked on several outputs is woken
#   once);
# - NIC_MASK: the VCs of a node's NIC with messages queued; PROG: the VCs of a link whose message has started
#   on it; OUT_LOAD: flits queued at a router for each of its outputs; NIC_COUNT: messages at a NIC.
RDY, IN_MASK, OUT_MASK, PARK_IN, PARKED, NIC_MASK, PROG, OUT_LOAD, NIC_COUNT = range(8, 17)
# S, the crossbars' working state:
# - XQ, XQ_GI: the input VC buffers granted the crossbar this cycle (one router) and their inputs;
# - BO_I, BO_Q: multiplexed crossbar, per output, the input of its best offer and the offer (its key: F[BO_S]);
# - the candidates, an input VC whose next flit is ready and whose message holds an output VC (that buffer
#   always has room for it), kept as they change: per input the VCs granted (XG), per (input gi, its switch's
#   output o) at gi * k + o the VCs granted to o (XT) and the candidate with the smallest stamp, ties to the
#   lower VC (XC, its stamp F[XS]), per input the outputs with a candidate (XO) and the VCs that may have
#   become candidates (XNEW).
XQ, XQ_GI, BO_I, BO_Q, XG, XO, XNEW, XT, XC = range(17, 26)
# S, the run's counters: one row, fields below.
COUNT = 26
C_P_TOP, C_OFFERED, C_RECEIVED, C_TRACE, C_MAX_HELD = range(5)
# S, the node links' delay line: rows DL + (t & 3), per link the output VC buffer whose flit leaves in cycle t
# (-1: none). The outputs to a node behind a multiplexed crossbar (T[DIRECT]) take one flit a cycle and a node
# returns no credits, so each flit leaves the cycle it is ready, 2 cycles after crossing: not through the rings,
# stamps and the multiplexer's choice.
DL = 27
# S, the wheel: rows WHEEL + (cycle & wmask), per input (gi) and output (n_in + g) the VC buffers whose next
# flit becomes ready that cycle.
WHEEL = 31
# F, per queue: AUX (FGVC's auxVC / FGFQ's finish number), Q_ST (the stamp of the next flit it would send),
# H_VT (the Vtick of the message it holds); per input and link: R_IN, R_LINK (FGFQ's round number,
# self-clocked, at each crossbar input and VC multiplexer); BO_S, XS (the crossbar's keys, as in S).
AUX, Q_ST, H_VT, R_IN, R_LINK, BO_S, XS = range(7)
# F, per node: BE_NEXT, its next best-effort start (Poisson).
BE_NEXT = 7
# streams (row, stream), the video sources (§IV-B) from ``va``: ST_SRC, ST_DEST, ST_IVC (its input VC at the
# NIC), ST_DVC (its VC on router outputs), ST_OFF (its frames are frames' columns ST_OFF[i]..ST_OFF[i + 1] - 1),
# ST_ROW, ST_K (its current frame and its next message in it).
ST_SRC, ST_DEST, ST_IVC, ST_DVC, ST_OFF, ST_ROW, ST_K = range(7)
# frames (row, frame): FM_START (its first message's cycle), FM_MSGS (its messages), FM_LAST (its last message's
# flits), FM_LEFT (its messages not yet delivered).
FM_START, FM_MSGS, FM_LAST, FM_LEFT = range(4)
# T, per link (read only): OUT_SWITCH, OUT_INPUT (the router it feeds and that router's input; TO_NODE and
# the node, UNWIRED), G_SW (the router a link leaves), DIRECT (1: an output to a node behind a multiplexed
# crossbar, through the delay line).
OUT_SWITCH, OUT_INPUT, G_SW, DIRECT = range(4)


class VcDims(NamedTuple):
    """A run's sizes, as scalars: routers, ports, VCs, inputs, links, queues."""
    n_sw: int
    nodes: int
    k: int
    m: int
    n_in: int           # router input links (n_sw k); output links are numbered the same
    n_links: int        # output links and node links (n_in + nodes)
    nq_ring: int        # VC buffers (2 n_in m): the queues with a ring of flits
    qo_base: int        # the first output VC buffer (n_in m)
    nq: int             # VC buffers and NIC queues
    wmask: int          # the wheel's length - 1
    pool: int           # packet records


@njit(cache=True, inline="always")
def dims(vc, n_sw, nodes):
    """The sizes of a run of ``n_sw`` routers of ``vc`` (a :class:`~.records.Vc`) and ``nodes`` nodes."""
    k = vc.k
    m = vc.m
    n_in = n_sw * k
    n_links = n_in + nodes
    wmask = K.pow2_at_least(max(2, vc.link + vc.body_wait + vc.header_extra) + 1) - 1
    pool = 2 * nodes * vc.nic_messages + 2 * n_in * m + 4 * n_links + 64
    return VcDims(n_sw=n_sw, nodes=nodes, k=k, m=m, n_in=n_in, n_links=n_links, nq_ring=2 * n_in * m,
                  qo_base=n_in * m, nq=2 * n_in * m + nodes * m, wmask=wmask, pool=pool)


@njit(cache=True, inline="always")
def new_state(d, vc, out_switch, out_input):
    """An empty network of ``d`` (:class:`VcDims`): ``(S, F, T, fr_t, fr_s, hd)``. ``fr_t``, ``fr_s``: per VC
    buffer a ring of its flits (``vc.rmask + 1`` long, at least ``vc.cap``) with their ready cycle and
    scheduling stamp; once a flit has left an input buffer its slot's cycle is the one its credit is back
    upstream (the slot is not reused before that is read). ``hd``: per queue the message it holds (a NIC
    queue: the one at its head), a row of ``H_*`` fields read by every flit without going through packets."""
    width = max(d.nq, 2 * d.n_in, d.n_links, d.n_in * d.k, d.k * d.m, 8)
    S = np.zeros((WHEEL + d.wmask + 1, width), dtype=np.int64)
    S[Q_HEAD] = -1
    S[Q_TAIL] = -1
    S[Q_DN] = -1
    S[BO_Q] = -1
    for r in range(DL, DL + 4):
        S[r] = -1
    S[COUNT] = 0
    S[COUNT, C_P_TOP] = d.pool
    F = np.zeros((8, width), dtype=np.float64)
    T = np.zeros((4, d.n_links), dtype=np.int64)
    for g in range(d.n_links):
        T[OUT_SWITCH, g] = out_switch[g]
        T[OUT_INPUT, g] = out_input[g]
        T[G_SW, g] = g // d.k
        T[DIRECT, g] = 1 if not vc.full and g < d.n_in and out_switch[g] == TO_NODE else 0
    ring = vc.rmask + 1
    hd = np.zeros((d.nq, HW), dtype=np.int64)
    for q in range(d.nq):
        hd[q, H_PKT] = -1
    return (S, F, T, np.zeros((d.nq_ring, ring), dtype=np.int64), np.zeros((d.nq_ring, ring), dtype=np.float64),
            hd)


@njit(cache=True, inline="always")
def new_sources(va, vc, d, F):
    """The message sources (§IV-B), after the run's seed: ``(streams, frames, heap_t, heap_c, heap_size,
    be_first)``. ``heap_t``, ``heap_c``, ``heap_size``: the streams' regulators as a heap on cycle x streams +
    stream of their next message (streams due in one cycle leave in stream order); ``F[BE_NEXT]`` is drawn here,
    and ``be_first`` is the earliest of it."""
    n_streams = va.st_src.shape[0]
    streams = np.zeros((7, n_streams + 1), dtype=np.int64)
    streams[ST_SRC, :n_streams] = va.st_src
    streams[ST_DEST, :n_streams] = va.st_dest
    streams[ST_IVC, :n_streams] = va.st_ivc
    streams[ST_DVC, :n_streams] = va.st_dvc
    streams[ST_OFF] = va.st_off[:n_streams + 1]
    streams[ST_ROW, :n_streams] = va.st_off[:n_streams]
    n_frames = va.f_msgs.shape[0]
    frames = np.zeros((4, n_frames), dtype=np.int64)
    frames[FM_START] = va.f_start
    frames[FM_MSGS] = va.f_msgs
    frames[FM_LAST] = va.f_last
    frames[FM_LEFT] = va.f_msgs
    heap_t = np.zeros(n_streams + 1, dtype=np.int64)
    heap_c = np.zeros(n_streams + 1, dtype=np.int64)
    heap_size = np.zeros(1, dtype=np.int64)
    for i in range(n_streams):
        if va.st_off[i + 1] > va.st_off[i]:
            K.heap_push(heap_t, heap_c, heap_size, va.f_start[va.st_off[i]] * n_streams + i, i)
    be_first = np.inf
    for v in range(d.nodes):
        F[BE_NEXT, v] = np.inf
        if vc.be_rate > 0.0:
            F[BE_NEXT, v] = K.start_gap(vc.be_rate, 1)
        be_first = min(be_first, F[BE_NEXT, v])
    return streams, frames, heap_t, heap_c, heap_size, be_first


@njit(cache=True, inline="always")
def hand_over(hd, S, F, per_message, pkt, q, q2):
    """Message ``pkt``'s header takes VC buffer ``q2`` downstream of ``q`` (a router's output VC, or the next
    router's input VC): ``q2`` holds the message (none of its flits sent yet, its length, class and virtual
    time), ``q`` forwards its flits there from now on, and a per-message scheduler starts ``q2`` afresh."""
    hd[q2, H_PKT] = pkt
    hd[q2, H_SENT] = 0
    hd[q2, H_LEN] = hd[q, H_LEN]
    hd[q2, H_BE] = hd[q, H_BE]
    F[H_VT, q2] = F[H_VT, q]
    S[Q_DN, q] = q2
    if per_message:
        F[AUX, q2] = 0.0

