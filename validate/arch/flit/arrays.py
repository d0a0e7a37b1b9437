"""Each flit kernel's arrays, made once per replication, and what each holds (paper 000 §3-§5, paper 004 §III).

The kernels unpack them once, before their cycle loop: an array read from a record inside the loop, or passed
to a helper there, costs Numba reference counting. Each function returns fresh arrays in a fixed order.

Paper 000 (:mod:`.cut_through`): queues are numbered by what they hold, a pair (or input) queue (input gi,
output o) at ``gi * k + o``, a central queue (switch s, output o) at ``n_in k + s * k + o``, node v's
injection queue at ``n_in (k + 1) + v``. Paper 004 (:mod:`.vc`): VC buffers are numbered 0..2 n_in m - 1
(input VC c of input link gi at ``gi * m + c``, then output VC c of output link g at ``n_in m + g * m + c``);
node v's NIC queue for VC c follows at ``2 n_in m + v * m + c`` (``q_head``, ``q_tail``: its first and last packet,
linked through ``P_NEXT``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ... import kernel as K
from .records import H_PKT, HW, I_LAST, IW, LK_E, LKW, QW, TO_NODE


@njit(cache=True)
def switch_arrays(n_sw, nodes, sw):
    """Per queue, input buffer, switch and link of a paper-000 network:

    - ``q_head``, ``q_tail``: a queue's first and last entry (-1: empty; linked through ``E_NEXT``), and
      ``qflits`` the flits it holds;
    - ``qst``, ``inb``: a pair queue's (HIPIQS) and an input buffer's storage state, one row each (``QW``,
      ``IW`` fields, one cache line where a flit is committed and released); ``rd_busy``: DAMQ, an input
      being read;
    - ``c_used``, ``c_up``: a central buffer's chunks taken, and taken by queues for up ports;
    - ``waiting``: FIFO, entries at a switch no output has taken yet; ``cand``: others, entries queued for an
      output, not yet taken; ``out_load``: flits queued at a switch for each of its outputs; ``nic_count``:
      packets at a node's injection queue; ``rr``: an output's round-robin pointer;
    - ``ring``: per ring slot and link, the entry (to a node: the packet, its tail as ~packet) of the flit
      arriving then; ``arr_bits``: per slot, the links with a flit arriving, 64 a word; ``act``: the links that
      may have something to do in step 4 (set when a candidate appears, cleared when an idle output finds
      none);
    - ``lk``: per output, what it is sending (``LK_*`` fields, ``LKW`` a link), read by each flit without
      going through the entries;
    - ``wake``: pair queues, an idle output that found no header ready skips arbitration until this cycle,
      when the earliest header at the head of its queues is (lowered as headers arrive; only the output's
      own tail moves a head)."""
    k = sw.k
    n_in = n_sw * k
    n_links = n_in + nodes
    qp = n_in * k
    nq = qp + n_in + nodes
    inb = np.zeros(n_in * IW, dtype=np.int64)
    for gi in range(n_in):
        inb[gi * IW + I_LAST] = -1
    ring_len = K.pow2_at_least(sw.link_delay + 1)
    n_w = (n_links + 63) >> 6
    lk = np.zeros(n_links * LKW, dtype=np.int64)
    for g in range(n_links):
        lk[g * LKW + LK_E] = -1
    return (np.full(nq, -1, dtype=np.int64), np.full(nq, -1, dtype=np.int64), np.zeros(nq, dtype=np.int64),
            np.zeros(qp * QW, dtype=np.int64), inb, np.zeros(n_in, dtype=np.int64), np.zeros(n_sw, dtype=np.int64),
            np.zeros(n_sw, dtype=np.int64), np.zeros(n_sw, dtype=np.int64), np.zeros(n_links, dtype=np.int64),
            np.zeros(n_links, dtype=np.int64), np.zeros(nodes, dtype=np.int64), np.zeros(n_links, dtype=np.int64),
            np.full(ring_len * n_links, -1, dtype=np.int64), np.zeros((ring_len, n_w), dtype=np.int64),
            np.zeros(n_w, dtype=np.int64), lk, np.zeros(n_links, dtype=np.int64))


@njit(cache=True)
def vc_buffers(n_in, nodes, vc):
    """Per VC buffer (and NIC queue, for the fields that have one):

    - ``fr_t``, ``fr_s``: a ring of its flits (``vc.rmask + 1`` long, at least ``vc.cap``) with their ready
      cycle and scheduling stamp; once a flit has left an input buffer its slot's cycle is the one its credit
      is back upstream (the slot is not reused before that is read);
    - ``credit_at``: the cycle from which the flit upstream may send its next flit (the place it needs is the
      one flit ``qin - cap`` left, whose credit is back as its slot says; never, while it is there);
    - ``qin``, ``qout``: flits sent into it and out of it (cumulative);
    - ``aux``: FGVC's auxVC / FGFQ's finish number;
    - ``q_dn``: the buffer its message goes to next, once its header has taken it (-1: not yet), and ``q_go``
      (input VC buffers) the router output link it crosses to;
    - ``q_st``, ``q_rt``: the stamp and ready cycle of the next flit it would send;
    - ``hd``: the message it holds (a NIC queue: the one at its head), a row of ``H_*`` fields read by every
      flit without going through entries and packets, and ``h_vt`` its Vtick."""
    m = vc.m
    nq_ring = 2 * n_in * m
    nq = nq_ring + nodes * m
    ring = vc.rmask + 1
    hd = np.zeros((nq, HW), dtype=np.int64)
    for q in range(nq):
        hd[q, H_PKT] = -1
    return (np.zeros((nq_ring, ring), dtype=np.int64), np.zeros((nq_ring, ring), dtype=np.float64),
            np.zeros(nq_ring, dtype=np.int64), np.zeros(nq_ring, dtype=np.int64), np.zeros(nq_ring, dtype=np.int64),
            np.zeros(nq_ring, dtype=np.float64), np.full(nq, -1, dtype=np.int64), np.zeros(nq_ring, dtype=np.int64),
            np.zeros(nq, dtype=np.float64), np.zeros(nq_ring, dtype=np.int64),
            hd, np.zeros(nq, dtype=np.float64))


@njit(cache=True)
def vc_links(n_in, nodes, vc, out_switch):
    """Per input, output and link, as VC bitmasks where they are sets of VCs:

    - ``rdy``: the VC buffers whose next flit is there and ready, of each input (gi) and output (n_in + g),
      and ``wheel`` (``wmask + 1`` rows): per cycle mod its length, those whose next flit becomes ready then
      (the crossbar and the links scan only ``rdy``: most VCs wait for flits the links bring one a cycle);
    - ``in_mask``, ``out_mask``: the VCs of an input and of an output holding a message;
    - ``direct``: the outputs to a node behind a multiplexed crossbar. One flit a cycle crosses to such an
      output, one leaves, and a node returns no credits, so each flit leaves the cycle it is ready, 2 cycles
      after crossing: it goes through the delay line ``dl`` (per cycle mod 4, the output VC buffer whose flit
      leaves), not through the rings, stamps and the multiplexer's choice;
    - ``parked``: headers that found no free output VC on their route, per (output g, input i of its switch)
      the VCs of i parked on g, and ``park_in`` per input (a header parked on several outputs is woken once);
    - ``nic_mask``: the VCs of a node's NIC with messages queued; ``prog``: the VCs of a link whose message
      has started on it;
    - ``r_in``, ``r_link``: FGFQ's round number (self-clocked) at each crossbar input and VC multiplexer;
    - ``out_load``: flits queued at a router for each of its outputs; ``nic_count``: messages at a NIC."""
    n_links = n_in + nodes
    wmask = K.pow2_at_least(max(2, vc.link + vc.body_wait + vc.header_extra) + 1) - 1
    direct = np.zeros(n_links, dtype=np.bool_)
    if not vc.full:
        for g in range(n_in):
            direct[g] = out_switch[g] == TO_NODE
    return (np.zeros(2 * n_in, dtype=np.int64), np.zeros((wmask + 1, 2 * n_in), dtype=np.int64), wmask,
            np.zeros(n_in, dtype=np.int64), np.zeros(n_in, dtype=np.int64), direct,
            np.full((4, n_links), -1, dtype=np.int64), np.zeros(n_in * vc.k, dtype=np.int64),
            np.zeros(n_in, dtype=np.int64), np.zeros(nodes, dtype=np.int64), np.zeros(n_links, dtype=np.int64),
            np.zeros(n_in, dtype=np.float64), np.zeros(n_links, dtype=np.float64),
            np.zeros(n_links, dtype=np.int64), np.zeros(nodes, dtype=np.int64))


@njit(cache=True)
def vc_crossbar(n_in, vc):
    """The crossbars' working state:

    - ``xq``, ``xq_gi``: the input VC buffers granted the crossbar this cycle (one router) and their inputs;
    - ``bo_i``, ``bo_q``, ``bo_s``: multiplexed crossbar, per output, the input of its best offer, the offer
      and its key;
    - the candidates, an input VC whose next flit is ready and whose message holds an output VC (that buffer
      always has room for it), kept as they change: per input the VCs granted (``xg``), per (input gi, its
      switch's output o) the VCs granted to o (``xt``) and the candidate with the smallest stamp, ties to the
      lower VC (``xc``, its stamp ``xs``), per input the outputs with a candidate (``xo``) and the VCs that may
      have become candidates (``xnew``)."""
    k = vc.k
    xk = max(1, k * vc.m)
    return (np.zeros(xk, dtype=np.int64), np.zeros(xk, dtype=np.int64), np.zeros(k, dtype=np.int64),
            np.full(k, -1, dtype=np.int64), np.zeros(k, dtype=np.float64),
            np.zeros(n_in, dtype=np.int64), np.zeros(n_in, dtype=np.int64), np.zeros(n_in * k, dtype=np.int64),
            np.zeros(n_in * k, dtype=np.int64), np.zeros(n_in * k, dtype=np.float64), np.zeros(n_in, dtype=np.int64))


@njit(cache=True)
def vc_sources(va, vc, nodes):
    """The message sources (§IV-B), after the run's seed: ``s_row``, ``s_k``, a stream's current frame
    and its next message in it; ``heap_t``, ``heap_c``, ``heap_size``: the streams' regulators as a heap on
    cycle x streams + stream of their next message (streams due in one cycle leave in stream order);
    ``f_left``: messages of a frame not yet delivered; ``be_next``: each node's next best-effort start
    (Poisson), and ``be_first`` the earliest of them."""
    n_streams = va.st_src.shape[0]
    heap_t = np.zeros(n_streams + 1, dtype=np.int64)
    heap_c = np.zeros(n_streams + 1, dtype=np.int64)
    heap_size = np.zeros(1, dtype=np.int64)
    for i in range(n_streams):
        if va.st_off[i + 1] > va.st_off[i]:
            K.heap_push(heap_t, heap_c, heap_size, va.f_start[va.st_off[i]] * n_streams + i, i)
    be_next = np.full(nodes, np.inf)
    if vc.be_rate > 0.0:
        for v in range(nodes):
            be_next[v] = K.start_gap(vc.be_rate, 1)
    be_first = be_next.min() if nodes > 0 else np.inf
    return (va.st_off[:n_streams].copy(), np.zeros(n_streams, dtype=np.int64), heap_t, heap_c, heap_size,
            va.f_msgs.copy(), be_next, be_first)
