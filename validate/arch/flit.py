"""The flit-level network kernel: cut-through switches moving multi-flit packets flit by flit (paper 000 §3-§5).

One kernel for every buffer organisation of :mod:`switchq.models.flit` and
every topology of :mod:`switchq.solvers.topology` (it reads the wiring and
routing tables and nothing else about the shape). The organisations differ
in four small pieces, each one branch on ``org`` (a constant in the kernel
compiled for that organisation, see :func:`_spec`): where a flit is stored
(:func:`_fits`, and the commit and release steps of step 4), which packet an
idle output may take (step 4's arbitration), and, for the central buffer,
the move from the input FIFO into the shared buffer (step 3). Virtual
channels, router pipelines and rate-based arbitration (paper 004) are meant
to enter the same way: as further queues per input and further arbitration
branches, not as a second kernel.

Time is in cycles; one flit crosses a link per cycle. A packet's presence in
one buffer is an *entry* (flits committed to it, arrived, sent on); a packet
in flight spans a chain of entries, one per buffer from its tail to its
head, which is how cut-through is represented without a record per flit.

Per cycle, in order:

1. new messages join their node's injection queue (unbounded in the paper;
   here ``NIC_PACKETS`` packets, beyond which the run is flagged unstable);
   starts are drawn as gaps (geometric for Bernoulli, exponential for Poisson);
2. flits sent ``link_delay`` cycles ago arrive (a ring per link; with
   1-cycle links a body flit is counted in its next buffer as it is sent,
   not readable there before the next cycle); a header
   becomes eligible to leave ``bypass_cycles`` later if nothing waits ahead of
   it in its queue, at most a packet already streaming out (Fig. 5, Pipe 1),
   ``buffered_cycles`` later if it must be stored behind another packet
   (Pipe 3, usually hidden behind that packet);
3. ``central`` only: each input FIFO's head moves one flit into the shared
   buffer, in k-flit chunks that never mix packets, once the chunks it needs
   are free (``central_admission``);
4. every output with no packet takes one (arbitration among the inputs
   holding an eligible header for it, round-robin or random) and every
   output with a packet sends its next flit if it is there and the next
   buffer has room for it.

A link carries one packet from header to tail (no virtual channels), so the
flits of a packet arrive in order and are never interleaved with another's.

Flow control is flit by flit with the downstream buffer's state known at
once (credits with no return delay; the paper is silent): a flit goes when
its place downstream is free, so a blocked packet is spread over the buffers
behind it (buffered wormhole / cut-through). Routing is one hop ahead: the
sender picks the packet's queue at the next switch when it sends the header,
adaptively where the route offers a choice (going up a BMIN): the candidate
queue in that input's buffer holding the fewest flits, or the output with
the fewest flits queued at the switch (``up_select``). FIFO switches route
at the head of the queue (any free up port) or on arrival (``fifo_routing``).

Storage per organisation (the rules the kernel enforces; ``held`` counts
flits actually stored, independently, for the tests):

- ``fifo``, ``damq``: ``buffer_flits`` per input, any queue; FIFO reads only
  its head packet, DAMQ reads one packet per input at a time (a flag per input);
  one read port, so an input read this cycle starts no packet. SAFC and HIPIQS
  inputs have neither limit: any number of outputs read an input at once and
  may start packets from it in the same cycle ("even if all output ports should
  happen to decide on the same input buffer, transmission can proceed without
  loss of bandwidth", §3).
- ``safc``: ``buffer_flits / k`` per (input, output) partition.
- ``hipiqs``: per (input, output) pair a FIFO unit of ``crosspoint_flits``
  filled first while the pair's queue in the shared buffer is empty; beyond
  it the queue takes k-flit chunks from the input's ``buffer_flits / k``, a
  queue's last chunk refilled by its next packet (the partially-filled-chunk
  rule), a chunk freed when its last flit is read or its queue empties.
- ``central``: input FIFOs of ``central_input_flits``, then ``central_flits``
  in k-flit chunks (one packet a chunk), queues for up ports holding at most
  ``up_share`` of them (deadlock avoidance, see :class:`~switchq.models.flit.FlitSwitch`).

Virtual-channel routers (paper 004 §III, :class:`~switchq.models.wormhole.WormholeNetwork`)
take the same loop with ``vc_on`` (their own compiled kernel): the same queues, packets, routing
tables and counters (entries only for the messages queued at NICs: a VC buffer holds one message,
kept as a record per buffer), with per cycle

V1. messages: each stream's regulator (a heap on the cycle of its next
    message: message k of a frame at ``start + floor(k x spacing)``) and
    Poisson best effort per node join the NIC queue of their input VC;
V2. each router's crossbar. A header that has passed stages 1-3 takes its
    output VC (the message's destination VC on the route's output, the least
    loaded of the parallel links whose VC is free: the fat mesh) if no
    message holds it; a granted message's next flit may cross (the output
    VC buffer holds one message and is at least a message deep, so it always
    has room: see ``_vc_arguments``). ``multiplexed``: a matching in stamp order, each
    free input offering its smallest-stamp flit for a free output (the rate
    scheduler at the input multiplexer A), each output taking its oldest
    offer (B; ``crossbar_output="stamp"``: the smallest stamp), repeated
    while that adds a pair (``crossbar_iterations``); ``full``: every input
    VC at once. A flit crossing at t reaches the VC multiplexer at t + 2
    (stages 4, 5);
V3. every link sends one flit: an output's VC multiplexer (C) or a node's
    NIC takes the VC with the smallest stamp whose next flit is ready and has
    a credit for its downstream VC buffer (a header also needs that VC free:
    a VC holds one message from header to tail). The flit enters the next
    buffer at once, ready ``link_cycles + body_stages - 2`` cycles later
    (a header ``header_stages - body_stages`` more), so a lone message takes
    ``hops x header_stages + (hops + 1) x link_cycles + M - 1`` cycles. An
    output to a node behind a multiplexed crossbar never queues (one flit a
    cycle crosses to it, one leaves, a node returns no credits): each flit
    leaves the cycle it reaches the multiplexer, so it goes through a delay
    line, not through the stamps and the choice of C.

Best effort's VCs (``best_effort_vcs``): ``drawn``, a message's input and
output VC are drawn when it is made and it waits for them (its NIC queue is
its input VC's); ``free``, a node's NIC keeps one best-effort queue whose
head takes a uniformly drawn free best-effort VC (with its credit back) as
its header leaves, and a header at a router output takes a uniformly drawn
free best-effort VC there.

Stamps are computed as a flit enters a buffer: FGVC ``auxVC <- max(arrival,
auxVC) + Vtick`` (auxVC per VC buffer, reset by each header with
``vclock_state="message"``), FGFQ the same with the self-clocked round
number (the stamp last served at that contention point) for the arrival
time (the paper gives no detail of R; SCFQ is the usual implementation),
FIFO the arrival cycle. The stamps feeding A are the scheduler's; those
feeding C are the scheduler's with a full crossbar and arrival order with
a multiplexed one (§III-D: A with a multiplexed crossbar, C with a full one).
A NIC stamps flit j of a message ``created + (j + 1) x Vtick`` (FIFO: by
creation, ties by progress). Best effort has Vtick ``BE_VTICK`` (strict
priority); with ``best_effort_stamp="largest"`` its stamp is ``BE_VTICK`` plus
its arrival (FIFO among best effort, the NIC by creation). Where the paper
is silent: credits return ``link_cycles`` after the flit leaves a buffer,
the output VC buffers are read without a credit delay, a message keeps its
destination VC on every router output, and a node's NIC holds
``NIC_MESSAGES`` messages (more flags the run unstable).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from switchq.models.flit import BUFFER_ORGS

from .. import kernel as K

__all__ = ["replicate", "trace_run", "lone_latency", "LAYOUT", "NIC_PACKETS", "ORG"]

LAYOUT = K.Layout(("flits_offered", "flits_received", "m_flits_offered", "m_flits_received", "backlog_start",
                   "backlog_end", "max_held", "deadlock", "m_packet_latency_sum", "m_packets",
                   # virtual-channel routers (paper 004): best effort, frames (filled in after the loop), PCS
                   "m_be_messages", "m_be_latency_sum", "m_frames", "m_interval_dev_sum", "m_interval_dev_sq",
                   "interval_base", "frames_late", "streams", "attempted", "established", "refused"))
(FLITS_OFFERED, FLITS_RECEIVED, M_FLITS_OFFERED, M_FLITS_RECEIVED, BACKLOG_START, BACKLOG_END, MAX_HELD, DEADLOCK,
 M_PACKET_LATENCY_SUM, M_PACKETS, M_BE_MESSAGES, M_BE_LATENCY_SUM, M_FRAMES, M_INTERVAL_DEV_SUM, M_INTERVAL_DEV_SQ,
 INTERVAL_BASE, FRAMES_LATE, STREAMS, ATTEMPTED, ESTABLISHED, REFUSED) = (LAYOUT.index(n)
                                                                           for n in LAYOUT.names[K.N_CORE:])

ORG = {name: i for i, name in enumerate(BUFFER_ORGS)}
FIFO, SAFC, DAMQ, HIPIQS, CENTRAL = (ORG[n] for n in BUFFER_ORGS)

# Packets an injection queue holds; reaching it means the network cannot carry the load.
NIC_PACKETS = 1 << 10
# Cycles with a backlog and not one flit moving: a deadlock (the run stops and is flagged).
STALL_CYCLES = 20_000
TO_NODE, UNWIRED = -1, -2
# An output's record in the paper-000 kernel (fields of a row of LKW).
LK_E, LK_D, LK_Q, LK_GI, LK_Q2, LK_GI2, LK_OIE, LK_OID, LK_LEN, LK_SENT, LK_RPOS, LK_PKT = range(12)
LKW = 16
# A pair queue's storage state (HIPIQS: flits in the FIFO unit, in the shared queue, in its last chunk, read from
# its head chunk) and an input buffer's (flits held, chunks taken, flits stored, the cycle last read).
Q_FIFO, Q_SH, Q_WP, Q_RP = range(4)
QW = 4
I_HELD, I_CHUNKS, I_USED, I_LAST = range(4)
IW = 4

Tab = namedtuple("Tab", "out_switch out_input route groups up")
Sw = namedtuple("Sw", "org k cap part_cap n_chunks xp_cap c_chunks c_up_chunks c_whole bypass buffered link_delay "
                       "rnd up_output fifo_arrival")
Tr = namedtuple("Tr", "p_msg poisson msg_flits pkt_flits perm uniform_all active")
# Virtual-channel routers: the router and workload as scalars (on = 0: a paper-000 switch), and the streams'
# frames as arrays (StreamFrames' CSR table with the placement's columns; frame_done is written by the kernel).
Vc = namedtuple("Vc", "on m cap rmask body_wait header_extra credit link full sched per_message be_vtick m_rt "
                      "be_rate be_all msg_flits nic_messages iterations b_stamp be_free be_bits be_flat")
Va = namedtuple("Va", "st_off st_src st_dest st_ivc st_dvc f_start f_msgs f_last f_spacing frame_done")
SCHED = {"fifo": 0, "fgvc": 1, "fgfq": 2}
SCHED_FIFO, SCHED_FGVC, SCHED_FGFQ = 0, 1, 2
# Best-effort messages a node's NIC holds across its VCs (video may add as many): beyond, arrivals are refused
# and the run is flagged unstable.
NIC_MESSAGES = 1 << 13
# Best-effort Vtick when the router's is None: beyond any real-time stamp (strict priority, §III-D).
BE_VTICK = 1e12
TRACE_COLUMNS = 5
# The FIFO NIC's tie-break between messages created in the same cycle: the one with fewer flits sent first.
FIFO_TICK = 1e-9


def _no_vc():
    z = np.zeros(1, dtype=np.int64)
    return (Vc(0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0.0, 0, 0.0, 0, 1, 1, 1, 0, 0, 0, 0),
            Va(z, np.zeros(0, dtype=np.int64), z[:0], z[:0], z[:0], z[:0], z[:0], z[:0], np.zeros(0), z[:0].copy()))


def _tables(net):
    t = net.tables()
    k = t.ports
    switches = t.switches
    stage = t.stage
    up = np.zeros(switches * k + t.nodes, dtype=np.int64)
    for g in range(switches * k):
        target = t.out_switch[g]
        up[g] = 1 if target >= 0 and stage[target] > stage[g // k] else 0
    return Tab(t.out_switch, t.out_input, t.route.astype(np.int64), t.groups, up)


def _switch(net):
    s = net.switch
    k = s.ports
    c_chunks = s.central_flits // k
    return Sw(ORG[s.buffer_org], k, s.central_input_flits if s.buffer_org == "central" else s.buffer_flits,
              s.buffer_flits // k, s.shared_flits // k, s.crosspoint_flits, c_chunks,
              max(1, int(s.up_share * c_chunks)), 1 if s.central_admission == "packet" else 0, s.bypass_cycles, s.buffered_cycles, net.link_delay,
              1 if s.arbitration == "random" else 0, 1 if s.up_select == "output" else 0,
              1 if s.fifo_routing == "arrival" else 0)


def _traffic(net, tr):
    n = net.nodes
    if tr.pattern == "uniform":
        perm = np.full(n, -1, dtype=np.int64)
    else:
        from switchq.models.traffic import Traffic

        perm = Traffic(0.0, pattern=tr.pattern).permutation(n).astype(np.int64)
    pkt = tr.message_flits if tr.packet_flits is None else tr.packet_flits
    return Tr(tr.messages_per_cycle, 1 if tr.arrivals == "poisson" else 0, tr.message_flits, pkt, perm,
              1 if tr.uniform_over == "all" else 0, np.ones(n, dtype=np.int64))


# --------------------------------------------------------------------------- storage rules

@njit(cache=True, inline="always")
def _fits(org, q_flits, part_cap, q_shared, q_fifo, xp_cap, q_wpos, b_chunks, n_chunks, b_used, cap):
    """Whether a queue can take one more flit, from its state as scalars. The storage rules are written out in
    the kernel rather than in helpers taking arrays: every array passed to a function costs Numba an atomic
    reference-count increment and decrement, which took three quarters of the run time.

    SAFC: room in the queue's partition. HIPIQS: the FIFO unit while the shared queue is empty, else the
    queue's partly filled last chunk, else a free chunk. Others: room in the input buffer."""
    if org == SAFC:
        return q_flits < part_cap
    if org == HIPIQS:
        return (q_shared == 0 and q_fifo < xp_cap) or q_wpos != 0 or b_chunks < n_chunks
    return b_used < cap


@njit(cache=True, inline="always")
def _least_loaded(mask, base, counts, k, width, second):
    """The port o of ``mask`` whose queue ``base + o`` holds the fewest flits (ties: a random one): the count is
    ``counts[(base + o) * width]``, plus the field ``second`` of that row if it is not 0 (HIPIQS: a pair queue's
    FIFO unit and shared queue, the rows of ``qst``)."""
    best = -1
    best_flits = 1 << 62
    ties = 0
    for o in range(k):
        if (mask >> o) & 1:
            f = counts[(base + o) * width]
            if second:
                f += counts[(base + o) * width + second]
            if f < best_flits:
                best, best_flits, ties = o, f, 1
            elif f == best_flits:
                ties += 1
                if np.random.random() * ties < 1.0:
                    best = o
    return best


@njit(cache=True, inline="always")
def _gap(p, poisson):
    """Cycles to the next message start: exponential (Poisson starts, mean p per cycle, in continuous time,
    counted in the cycle they fall in), or geometric on 1, 2, ... (Bernoulli starts with probability p)."""
    if poisson:
        return -np.log(1.0 - np.random.random()) / p
    if p >= 1.0:
        return 1.0
    return 1.0 + np.floor(np.log(1.0 - np.random.random()) / np.log(1.0 - p))


@njit(cache=True, inline="always")
def _draw_bit(bits):
    """The index of a uniformly drawn set bit of ``bits`` (not 0)."""
    n = 0
    b = bits
    while b:
        b &= b - 1
        n += 1
    j = int(np.random.random() * n)
    while j:
        bits &= bits - 1
        j -= 1
    return trailing_zeros(bits)


@njit(cache=True, inline="always")
def _nic_stamp(gen, sent, vtick, best_effort, fifo, be_flat, be_vtick):
    """A NIC's stamp for the next flit of a message created at ``gen`` with ``sent`` flits gone (module
    docstring): ``gen + (sent + 1) x Vtick``; FIFO: by creation, ties by progress (as FGVC with a vanishing
    Vtick orders them); best effort with ``be_flat``: ``be_vtick + gen``."""
    if be_flat and not fifo and best_effort:
        return be_vtick + gen
    return gen + (sent + 1) * (FIFO_TICK if fifo else vtick)


@njit(cache=True, inline="always")
def _stamp(order, at, aux_q, round_number, vtick, flat, be_vtick):
    """The stamp of a flit entering a VC buffer at cycle ``at`` and the buffer's auxVC after it (module
    docstring): arrival order (``SCHED_FIFO``); best effort's flat ``be_vtick + at``; FGVC ``max(at, auxVC) +
    Vtick``; FGFQ the same with the contention point's round number for ``at``."""
    if order == SCHED_FIFO:
        return float(at), aux_q
    if flat:
        return be_vtick + at, aux_q
    st = max(round_number if order == SCHED_FGFQ else float(at), aux_q) + vtick
    return st, st


@njit(cache=True, inline="always")
def _precedes(stamp, c, other_stamp, other_c):
    """Whether VC ``c`` with ``stamp`` goes before VC ``other_c``: the smaller stamp, ties to the lower VC."""
    return stamp < other_stamp or (stamp == other_stamp and c < other_c)


# --------------------------------------------------------------------------- the kernel

@njit(cache=True)
def _run(tab, sw, tr, run, stats, trace, vc, va, spec):
    """The kernel: paper-000 switches (steps 1-4 of the module docstring), or with ``vc_on`` virtual-channel
    routers (steps V1-V3) on the same queues, packets, tables and counters.

    What it does per cycle for paper-000 switches is what the steps say; how, for speed (each flit-hop is one
    arrival and one send): steps 2 and 4 walk only the links of a bitmask (the links with a flit arriving in
    this ring slot; the links with a packet or a candidate, cleared when an idle output finds none), step 4 in
    the same rotated order; an output keeps a record of what it sends (``lk``), so a flit is sent without
    going through the entries; with 1-cycle links a body flit is counted in its next buffer as it is sent
    (``e_lt``), not through the ring; a pair queue's and an input buffer's storage state sit in one row each
    (``qst``, ``inb``); and an idle output of a pair-queue switch skips its arbitration until a header at the
    head of one of its queues can be ready (``wake``). Arbitration draws random numbers only for eligible
    headers, so none of this changes a result. For virtual-channel routers the crossbar and the links scan only
    the VC buffers whose next flit is there and ready (``rdy``, kept by a wheel of the cycles at which a
    buffer's next flit will be), not every VC holding a message; the crossbar keeps its candidates and each
    (input, output)'s smallest-stamp one as they change (``xg``, ``xt``, ``xc``, ``xs``, ``xo``), and a
    header with no free output VC leaves ``rdy`` until an output of its route frees one (``parked``). The
    message a VC buffer holds is a record per buffer (``h_*``), read by each flit without going through
    entries and packets, and a node's output behind a multiplexed crossbar is a 2-cycle delay line (``dl``).
    None of this changes a result: counters and traces are those of the plain loop."""
    # Arrays are taken out of the tuples once: reading one from a tuple inside the loop costs Numba an atomic
    # reference-count increment and decrement each time, which dominated the run time.
    out_switch = tab.out_switch
    out_input = tab.out_input
    route = tab.route
    groups = tab.groups
    up_link = tab.up
    perm = tr.perm
    active = tr.active
    org = len(spec) - 1            # a compile-time constant: see _spec
    vc_on = org < 0
    cap = sw.cap
    part_cap = sw.part_cap
    n_chunks = sw.n_chunks
    xp_cap = sw.xp_cap
    K.seed_rng(run.seed)
    k = sw.k
    n_sw = route.shape[0]
    nodes = route.shape[1]
    n_in = n_sw * k
    n_links = n_in + nodes
    g_sw = np.arange(n_links) // k     # a switch output's (or input's) switch, looked up rather than divided
    qp = n_in * k                      # pair (or input) queues: (input gi, output o) -> gi * k + o
    qc = qp + n_in                     # central queues: (switch s, output o) -> qp + s * k + o
    nq = qc + nodes                    # injection queues: node v -> qc + v
    net_flits = n_in * (sw.cap + k * sw.xp_cap + 2) + n_sw * sw.c_chunks * k
    pool = nodes * NIC_PACKETS + net_flits + 4 * n_links + 64
    if vc_on:
        # VC buffers (inputs, outputs) and NIC queues per VC; a VC buffer holds one message at a time
        nq = 2 * n_in * vc.m + nodes * vc.m
        pool = 2 * nodes * vc.nic_messages + 2 * n_in * vc.m + 4 * n_links + 64
    # Entries (a packet's presence in one buffer) and packets, from free stacks.
    e_pkt = np.zeros(pool, dtype=np.int64)
    e_next = np.full(pool, -1, dtype=np.int64)
    e_q = np.zeros(pool, dtype=np.int64)
    e_len = np.zeros(pool, dtype=np.int64)         # its packet's flits
    e_gi = np.full(pool, -1, dtype=np.int64)       # its input buffer (central-buffer entries: the switch)
    e_oi = np.full(pool, -1, dtype=np.int64)       # the switch output it queues for, s * k + o (-1: none)
    e_wpos = np.zeros(pool, dtype=np.int64)        # central buffer: flits in its last chunk
    e_arr = np.zeros(pool, dtype=np.int64)         # flits arrived
    # 1-cycle links: a body flit is counted into its entry as it is sent, and e_lt is that cycle, so a reader
    # in the same cycle discounts it (arrived = e_arr - (e_lt == t)); only headers and flits to nodes take the ring
    e_lt = np.full(pool, -1, dtype=np.int64)
    e_sent = np.zeros(pool, dtype=np.int64)        # flits sent on
    e_ready = np.zeros(pool, dtype=np.int64)       # cycle the header may leave
    e_claim = np.full(pool, -1, dtype=np.int64)    # output sending it
    e_down = np.full(pool, -1, dtype=np.int64)     # its entry at the next buffer
    e_port = np.zeros(pool, dtype=np.int64)        # FIFO routed on arrival: the output it waits for
    e_free = np.arange(pool - 1, -1, -1, dtype=np.int64)
    e_top = pool
    p_dest = np.zeros(pool, dtype=np.int64)
    p_len = np.zeros(pool, dtype=np.int64)
    p_msg = np.zeros(pool, dtype=np.int64)
    p_rcv = np.zeros(pool, dtype=np.int64)
    p_gen = np.zeros(pool, dtype=np.int64)
    p_free = np.arange(pool - 1, -1, -1, dtype=np.int64)
    p_top = pool
    m_gen = np.zeros(pool, dtype=np.int64)
    m_left = np.zeros(pool, dtype=np.int64)
    m_free = np.arange(pool - 1, -1, -1, dtype=np.int64)
    m_top = pool
    # Queues (linked lists of entries) and storage state.
    q_head = np.full(nq, -1, dtype=np.int64)
    q_tail = np.full(nq, -1, dtype=np.int64)
    qflits = np.zeros(nq, dtype=np.int64)
    # Per pair queue (HIPIQS) and per input buffer, their storage state packed in a row each (QW, IW fields):
    # one cache line, not one per array, where a flit is committed and released.
    qst = np.zeros(qp * QW, dtype=np.int64)
    inb = np.zeros(n_in * IW, dtype=np.int64)
    for gi in range(n_in):
        inb[gi * IW + I_LAST] = -1
    rd_busy = np.zeros(n_in, dtype=np.int64)
    c_used = np.zeros(n_sw, dtype=np.int64)
    c_up = np.zeros(n_sw, dtype=np.int64)
    waiting = np.zeros(n_sw, dtype=np.int64)       # FIFO: entries at a switch no output has taken yet
    cand = np.zeros(n_links, dtype=np.int64)       # others: entries queued for an output, not yet taken
    out_load = np.zeros(n_links, dtype=np.int64)   # flits queued at a switch for each of its outputs
    nic_count = np.zeros(nodes, dtype=np.int64)
    rr = np.zeros(n_links, dtype=np.int64)
    ring_len = K.pow2_at_least(sw.link_delay + 1)
    ring_mask = ring_len - 1
    ring = np.full(ring_len * n_links, -1, dtype=np.int64)    # slot * n_links + link
    # Link bitmasks, 64 links a word: the links with a flit arriving in each ring slot, and the links that may
    # have something to do in step 4 (a packet, or a candidate for an idle output; set when a candidate
    # appears, cleared when an idle output finds none).
    n_w = (n_links + 63) >> 6
    arr_bits = np.zeros((ring_len, n_w), dtype=np.int64)
    act = np.zeros(n_w, dtype=np.int64)
    # Per output, what it is sending (LK_* fields, LKW a link): entry e (-1: none), e's queue and buffer, its
    # entry downstream and theirs, the outputs they queue for, the packet's flits, flits sent, central read
    # position, the packet (to a node).
    lk = np.zeros(n_links * LKW, dtype=np.int64)
    # Pair queues (SAFC, DAMQ, HIPIQS): an idle output whose arbitration found no header ready skips it until
    # wake, the cycle the earliest header at the head of its queues is ready (lowered as headers arrive: the
    # heads change only when the output itself sends a tail).
    pairs = org != FIFO and org != CENTRAL
    wake = np.zeros(n_links, dtype=np.int64)
    for g in range(n_links):
        lk[g * LKW + LK_E] = -1

    # Virtual-channel routers (paper 004): VC buffers 0..2 n_in m - 1 (inputs gi * m + c, then outputs
    # n_in m + g * m + c), each a ring of flits with their ready cycle and scheduling stamp; once a flit has left
    # an input buffer its slot's cycle is the one its credit is back upstream (the ring is at least cap long, so
    # the slot is not reused before that is read); NIC queues follow, node v's VC c at nq_ring + v * m + c.
    m = vc.m
    rmask = vc.rmask
    nq_ring = 2 * n_in * m if vc_on else 1
    qo_base = n_in * m
    fr_t = np.zeros((nq_ring, rmask + 1), dtype=np.int64)
    fr_s = np.zeros((nq_ring, rmask + 1), dtype=np.float64)
    # per input VC buffer, the cycle from which the flit upstream may send its next flit: the place that flit
    # needs is the one flit qin - cap left, whose credit is back as its slot says (never, while it is there)
    credit_at = np.zeros(nq_ring, dtype=np.int64)
    qin = np.zeros(nq_ring, dtype=np.int64)        # flits sent into the buffer (cumulative)
    qout = np.zeros(nq_ring, dtype=np.int64)       # flits sent out of it
    aux = np.zeros(nq_ring, dtype=np.float64)      # FGVC's auxVC / FGFQ's finish number, per VC buffer
    r_in = np.zeros(n_in, dtype=np.float64)        # FGFQ's round number (self-clocked) at each crossbar input
    r_link = np.zeros(n_links, dtype=np.float64)   # ... and at each VC multiplexer
    in_mask = np.zeros(n_in, dtype=np.int64)       # VCs of an input holding a message
    # the buffer a VC buffer's (or NIC queue's) message goes to next, once its header has taken it (-1: not yet):
    # read for every flit, so kept here rather than reached through the entries
    q_dn = np.full(nq if vc_on else 1, -1, dtype=np.int64)
    q_go = np.zeros(nq_ring, dtype=np.int64)       # ... and (input VC buffers) the router output link it crosses to
    # the stamp of the next flit a VC buffer (NIC queue) would send, kept as it changes rather than looked up
    # for every VC the crossbars and links scan
    q_st = np.zeros(nq if vc_on else 1, dtype=np.float64)
    q_rt = np.zeros(nq_ring, dtype=np.int64)       # ... and (VC buffers) its ready cycle
    # the message a VC buffer holds (a NIC queue: the one at its head), kept per buffer because every flit
    # reads it: its packet (-1: none), flits sent on, flits, best effort (1) or video, Vtick and (NIC queues)
    # creation cycle. A VC buffer's one message needs no entry; NIC queues keep theirs as linked lists.
    n_h = nq if vc_on else 1
    h_pkt = np.full(n_h, -1, dtype=np.int64)
    h_sent = np.zeros(n_h, dtype=np.int64)
    h_len = np.zeros(n_h, dtype=np.int64)
    h_be = np.zeros(n_h, dtype=np.int64)
    h_vt = np.zeros(n_h, dtype=np.float64)
    h_gen = np.zeros(n_h, dtype=np.int64)
    nic_fifo = vc.sched == SCHED_FIFO
    # VC buffers whose next flit is there and ready, a bit per VC of each input (gi) and output (n_in + g), and
    # a wheel of the cycles at which a buffer's next flit will be: the crossbar and the links scan only these,
    # not every VC holding a message (most wait for flits that the links bring one a cycle)
    rdy = np.zeros(2 * n_in if vc_on else 1, dtype=np.int64)
    wmask = K.pow2_at_least(max(2, vc.link + vc.body_wait + vc.header_extra) + 1) - 1 if vc_on else 0
    wheel = np.zeros((wmask + 1, rdy.shape[0]), dtype=np.int64)
    out_mask = np.zeros(n_in, dtype=np.int64)      # VCs of an output holding a message
    # An output to a node behind a multiplexed crossbar cannot queue: one flit a cycle crosses to it (B), one
    # leaves, and a node returns no credits, so each flit leaves the cycle it is ready, 2 cycles after crossing.
    # Its flits go through a delay line (dl: per cycle mod 4, the output VC buffer whose flit leaves), not
    # through its VC buffers' rings, stamps and the multiplexer's choice (their qin, qout, q_st, q_rt stay 0).
    direct = np.zeros(n_links, dtype=np.bool_)
    if vc_on and not vc.full:
        for g in range(n_in):
            direct[g] = out_switch[g] == TO_NODE
    dl = np.full((4, n_links), -1, dtype=np.int64)
    # headers that found no free output VC on their route, out of rdy until one of the route's outputs frees a VC
    # (nothing else can let them go): per (output g, input i of its switch) the VCs of i parked on g, and per
    # input the VCs parked (a header parked on several outputs is woken once)
    parked = np.zeros(n_in * k if vc_on else 1, dtype=np.int64)
    park_in = np.zeros(n_in if vc_on else 1, dtype=np.int64)
    nic_mask = np.zeros(nodes, dtype=np.int64)     # VCs of a node's NIC with messages queued
    prog = np.zeros(n_links, dtype=np.int64)       # VCs of a link whose message has started on it
    xq = np.zeros(max(1, k * m), dtype=np.int64)  # input VC buffers granted the crossbar this cycle (one router)
    xq_gi = np.zeros(max(1, k * m), dtype=np.int64)   # ... and their inputs (no division by m per flit)
    bo_i = np.zeros(k, dtype=np.int64)             # multiplexed crossbar: per output, the input of its best offer
    bo_q = np.full(k, -1, dtype=np.int64)          # multiplexed crossbar: per output, the best offer
    bo_s = np.zeros(k, dtype=np.float64)
    # The crossbar's candidates, an input VC whose next flit is ready (rdy) and whose message holds an output
    # VC (xg; that buffer always has room for it), kept as they change: per input the VCs granted, per (input
    # gi, its switch's output o) the VCs granted to o (xt) and the candidate with the smallest stamp, ties to the lower
    # VC (xc, its stamp xs), and per input the outputs with a candidate (xo).
    n_x = n_in if vc_on else 1
    xg = np.zeros(n_x, dtype=np.int64)
    xo = np.zeros(n_x, dtype=np.int64)
    xt = np.zeros(n_x * k, dtype=np.int64)
    xc = np.zeros(n_x * k, dtype=np.int64)
    xs = np.zeros(n_x * k, dtype=np.float64)
    xnew = np.zeros(n_x, dtype=np.int64)           # ... VCs of an input that may have become candidates
    p_vt = np.zeros(pool, dtype=np.float64)        # Vtick, cycles per flit
    p_dvc = np.zeros(pool, dtype=np.int64)         # the VC it takes on every router output
    n_streams = va.st_src.shape[0]
    s_row = va.st_off[:n_streams].copy()           # a stream's current frame
    s_k = np.zeros(n_streams, dtype=np.int64)      # its next message in that frame
    h_t = np.zeros(n_streams + 1, dtype=np.int64)
    h_c = np.zeros(n_streams + 1, dtype=np.int64)
    h_size = np.zeros(1, dtype=np.int64)
    f_left = va.f_msgs.copy()
    frame_done = va.frame_done
    be_next = np.full(nodes, np.inf)
    if vc_on:
        for i in range(n_streams):
            if va.st_off[i + 1] > va.st_off[i]:
                K.heap_push(h_t, h_c, h_size, va.f_start[va.st_off[i]] * n_streams + i, i)
        if vc.be_rate > 0.0:
            for v in range(nodes):
                be_next[v] = _gap(vc.be_rate, 1)
    be_first = be_next.min() if nodes > 0 else np.inf   # the next best-effort start at any node


    end_measure = run.warmup + run.slots
    total = end_measure + run.drain
    offered_flits = 0
    received_flits = 0
    stalled = 0
    n_trace = 0
    max_held = 0
    next_at = np.full(nodes, np.inf)
    # Stability by part: flits to each destination node; on routers, real time (parts [0, nodes)) and best
    # effort ([nodes, 2 nodes)) apart, since best effort can starve behind video that the whole backlog hides.
    parts = K.parts(2 * nodes)
    for v in range(nodes):
        if active[v] and tr.p_msg > 0.0:
            next_at[v] = _gap(tr.p_msg, tr.poisson) - (0.0 if tr.poisson else 1.0)
    lazy = sw.link_delay == 1
    lazy_next = 0                  # body flits counted in at send: they move (arrive) next cycle
    for t in range(total):
        if run.batches > 1:
            K.mark_batch(stats, t, run)
        if t == run.warmup:
            stats[BACKLOG_START] = offered_flits - received_flits
        if t == end_measure:
            stats[BACKLOG_END] = offered_flits - received_flits
        measuring = t >= run.warmup and t < end_measure
        moved = 0

        if vc_on:
            # V1. messages: the streams' regulators (a heap on the next message's cycle), then best-effort
            # Poisson starts per node; each joins its NIC queue for its input VC.
            while t < end_measure:
                if h_size[0] > 0 and h_t[0] < (t + 1) * n_streams:
                    _, i = K.heap_pop(h_t, h_c, h_size)
                    r = s_row[i]
                    j = s_k[i]
                    flits = vc.msg_flits if j < va.f_msgs[r] - 1 else va.f_last[r]
                    src = va.st_src[i]
                    dest = va.st_dest[i]
                    c_in = va.st_ivc[i]
                    dvc = va.st_dvc[i]
                    vt = va.f_spacing[r] / flits        # Vtick: message interval / its flits (§III-D)
                    row = r
                    # keyed cycle x streams + stream: streams due in one cycle leave in stream order; the
                    # 1e-9 keeps floor(k x spacing) exact where the product lands a hair below a whole cycle
                    if j + 1 < va.f_msgs[r]:
                        s_k[i] = j + 1
                        due = va.f_start[r] + int((j + 1) * va.f_spacing[r] + 1e-9)
                        K.heap_push(h_t, h_c, h_size, due * n_streams + i, i)
                    elif r + 1 < va.st_off[i + 1]:
                        s_row[i] = r + 1
                        s_k[i] = 0
                        K.heap_push(h_t, h_c, h_size, va.f_start[r + 1] * n_streams + i, i)
                else:
                    if be_first >= t + 1:
                        break
                    src = -1
                    for v in range(nodes):
                        if be_next[v] < t + 1:
                            src = v
                            break
                    be_next[src] += _gap(vc.be_rate, 1)
                    be_first = be_next[0]
                    for v in range(1, nodes):
                        be_first = min(be_first, be_next[v])
                    if vc.be_all:
                        dest = int(np.random.random() * nodes)
                    else:
                        dest = int(np.random.random() * (nodes - 1))
                        if dest >= src:
                            dest += 1
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
                if not K.admit(stats, t, run.warmup, nic_count[src] < (2 if row >= 0 else 1) * vc.nic_messages, True):
                    if row >= 0:
                        f_left[row] = -1 << 40      # a message lost: its frame is never delivered
                    continue
                p_top -= 1
                pkt = p_free[p_top]
                p_dest[pkt] = dest
                p_len[pkt] = flits
                p_msg[pkt] = row
                p_gen[pkt] = t
                p_vt[pkt] = vt
                p_dvc[pkt] = dvc
                offered_flits += flits
                stats[FLITS_OFFERED] += flits
                if measuring:
                    stats[M_FLITS_OFFERED] += flits
                    part = dest if row >= 0 else nodes + dest
                    parts[0, part] += flits
                    parts[1, part] += flits
                q = nq_ring + src * m + c_in
                e_top -= 1
                e = e_free[e_top]
                e_pkt[e] = pkt
                e_next[e] = -1
                if q_tail[q] >= 0:
                    e_next[q_tail[q]] = e
                else:
                    q_head[q] = e
                    h_pkt[q] = pkt
                    h_sent[q] = 0
                    h_len[q] = flits
                    h_be[q] = 1 if row < 0 else 0
                    h_vt[q] = vt
                    h_gen[q] = t
                    q_st[q] = _nic_stamp(t, 0, vt, row < 0, nic_fifo, vc.be_flat, vc.be_vtick)
                q_tail[q] = e
                nic_count[src] += 1
                nic_mask[src] |= 1 << c_in

            ws = t & wmask
            for p in range(2 * n_in):
                b = wheel[ws, p]
                if b:
                    wheel[ws, p] = 0
                    rdy[p] |= b
                    if p < n_in:
                        xnew[p] |= b        # flits now ready at an input

            # V2. crossbars, one router at a time. Per input VC: a header that has passed routing and
            # arbitration takes its output VC if free (message-level, the route's least loaded output whose
            # VC is free); a granted message's next flit may go (its output VC buffer has room). Multiplexed:
            # one flit per crossbar input (A, the scheduler's smallest stamp) and per crossbar output (B, the
            # smallest stamp again); full: every input VC at once. The candidates (ready, granted) are kept
            # as they change (xg, xt, xc, xs, xo), not rebuilt each cycle: most wait several cycles.
            for s in range(n_sw):
                nx = 0
                live = 0
                for i in range(k):
                    gi = s * k + i
                    mask = rdy[gi] & ~xg[gi]
                    while mask:
                        # a header: its output VC
                        c = trailing_zeros(mask)
                        mask &= mask - 1
                        q = gi * m + c
                        pkt = h_pkt[q]
                        dvc = p_dvc[pkt]
                        route_mask = groups[s, route[s, p_dest[pkt]]]
                        choice = route_mask
                        go = -1
                        least = 1 << 62
                        while choice:
                            g2 = s * k + trailing_zeros(choice)
                            choice &= choice - 1
                            if dvc >= 0:
                                free = h_pkt[qo_base + g2 * m + dvc] < 0
                            else:
                                free = (vc.be_bits & ~out_mask[g2]) != 0
                            if free and out_load[g2] < least:
                                go = g2
                                least = out_load[g2]
                        bit = 1 << c
                        if go < 0:
                            rdy[gi] &= ~bit
                            park_in[gi] |= bit
                            while route_mask:
                                parked[(s * k + trailing_zeros(route_mask)) * k + i] |= bit
                                route_mask &= route_mask - 1
                            continue
                        if dvc < 0:
                            dvc = _draw_bit(vc.be_bits & ~out_mask[go])
                        qo = qo_base + go * m + dvc
                        # the message in the output VC (a VC buffer's one message needs no entry)
                        h_pkt[qo] = pkt
                        h_sent[qo] = 0
                        h_len[qo] = h_len[q]
                        h_be[qo] = h_be[q]
                        h_vt[qo] = h_vt[q]
                        q_dn[q] = qo
                        q_go[q] = go
                        out_mask[go] |= 1 << dvc
                        if vc.per_message:
                            aux[qo] = 0.0
                        # a candidate at once
                        xg[gi] |= bit
                        xt[gi * k + go - s * k] |= bit
                        xnew[gi] |= bit
                    # VCs that may have become candidates (a flit ready, an output VC taken) join their (input,
                    # output)'s best
                    b = xnew[gi] & rdy[gi] & xg[gi]
                    xnew[gi] = 0
                    while b:
                        c = trailing_zeros(b)
                        b &= b - 1
                        q = gi * m + c
                        o = q_go[q] - s * k
                        if (xo[gi] >> o) & 1 == 0 or _precedes(q_st[q], c, xs[gi * k + o], xc[gi * k + o]):
                            xc[gi * k + o] = c
                            xs[gi * k + o] = q_st[q]
                            xo[gi] |= 1 << o
                    if vc.full:
                        mask = rdy[gi] & xg[gi]
                        while mask:
                            xq[nx] = gi * m + trailing_zeros(mask)
                            xq_gi[nx] = gi
                            nx += 1
                            mask &= mask - 1
                    elif xo[gi]:
                        live |= 1 << i     # inputs with a flit to offer, not yet matched
                if not vc.full and live:
                    # Matching in stamp order: every free input offers its smallest-stamp flit for a free output
                    # (A), every output takes its smallest offer (B); repeat while that adds a pair. An input's
                    # offer is the smallest of its per-output bests (xc, xs), ties to the lower VC.
                    out_used = 0
                    for _ in range(vc.iterations):
                        offered = 0
                        b = live
                        while b:
                            i = trailing_zeros(b)
                            b &= b - 1
                            gi = s * k + i
                            avail = xo[gi] & ~out_used
                            if avail == 0:
                                live &= ~(1 << i)       # its outputs are all taken: it cannot offer again
                                continue
                            o = trailing_zeros(avail)
                            avail &= avail - 1
                            best_s = xs[gi * k + o]
                            best_c = xc[gi * k + o]
                            while avail:
                                o2 = trailing_zeros(avail)
                                avail &= avail - 1
                                if _precedes(xs[gi * k + o2], xc[gi * k + o2], best_s, best_c):
                                    o = o2
                                    best_s = xs[gi * k + o2]
                                    best_c = xc[gi * k + o2]
                            key = best_s if vc.b_stamp else q_rt[gi * m + best_c]
                            if (offered >> o) & 1 == 0 or key < bo_s[o]:
                                bo_q[o] = gi * m + best_c
                                bo_s[o] = key
                                bo_i[o] = i
                                offered |= 1 << o
                        if offered == 0:
                            break
                        while offered:
                            o = trailing_zeros(offered)
                            offered &= offered - 1
                            xq[nx] = bo_q[o]
                            xq_gi[nx] = s * k + bo_i[o]
                            nx += 1
                            live &= ~(1 << bo_i[o])
                            out_used |= 1 << o
                        if live == 0:
                            break
                for x in range(nx):
                    # one flit across the crossbar: its input slot's credit goes back upstream, it reaches
                    # the VC multiplexer (stage 5) in 2 cycles, stamped for it (a node's output behind a
                    # multiplexed crossbar: into its delay line, unstamped)
                    q = xq[x]
                    gi = xq_gi[x]
                    qo = q_dn[q]
                    go = q_go[q]
                    n_out = qout[q]
                    slot = n_out & rmask
                    fr_t[q, slot] = t + vc.credit
                    if n_out == qin[q] - vc.cap:
                        credit_at[q] = t + vc.credit
                    if vc.sched == SCHED_FGFQ:
                        r_in[gi] = fr_s[q, slot]
                    n_out += 1
                    qout[q] = n_out
                    bit = 1 << (q - gi * m)
                    if n_out == qin[q]:
                        rdy[gi] &= ~bit
                    else:
                        ready = fr_t[q, n_out & rmask]
                        q_st[q] = fr_s[q, n_out & rmask]
                        q_rt[q] = ready
                        if ready > t + 1:
                            rdy[gi] &= ~bit
                            wheel[ready & wmask, gi] |= bit
                    sent = h_sent[q] + 1
                    h_sent[q] = sent
                    if direct[go]:
                        dl[(t + 2) & 3, go] = qo
                    else:
                        slot = qin[qo] & rmask
                        fr_t[qo, slot] = t + 2
                        # the VC multiplexer's stamps: the scheduler's with a full crossbar, else arrival order
                        st, aux[qo] = _stamp(vc.sched if vc.full else SCHED_FIFO, t, aux[qo], r_link[go], h_vt[q],
                                             vc.be_flat and h_be[q], vc.be_vtick)
                        fr_s[qo, slot] = st
                        if qin[qo] == qout[qo]:
                            wheel[(t + 2) & wmask, n_in + go] |= 1 << (qo - qo_base - go * m)
                            q_st[qo] = st
                        qin[qo] += 1
                    out_load[go] += 1
                    moved += 1
                    o = go - s * k
                    if sent == h_len[q]:
                        h_pkt[q] = -1
                        q_dn[q] = -1
                        in_mask[gi] &= ~bit
                        xg[gi] &= ~bit
                        xt[gi * k + o] &= ~bit
                    # its (input, output)'s best candidate again: it was that best, and its stamp changed or it left
                    b = rdy[gi] & xg[gi] & xt[gi * k + o]
                    if b == 0:
                        xo[gi] &= ~(1 << o)
                    else:
                        c = trailing_zeros(b)
                        b &= b - 1
                        best_s = q_st[gi * m + c]
                        best_c = c
                        while b:
                            c = trailing_zeros(b)
                            b &= b - 1
                            if q_st[gi * m + c] < best_s:
                                best_s = q_st[gi * m + c]
                                best_c = c
                        xc[gi * k + o] = best_c
                        xs[gi * k + o] = best_s

            # V3. links: each output's VC multiplexer (C) and each node's NIC sends one flit, from the VC with
            # the smallest stamp whose next flit is ready and has a credit downstream (a header also needs the
            # downstream VC free: a VC holds one message from header to tail).
            for g in range(n_links):
                target = out_switch[g]
                if target == UNWIRED:
                    continue
                if g < n_in and direct[g]:
                    # a node's link behind a multiplexed crossbar: the flit that crossed 2 cycles ago, if one did
                    q = dl[t & 3, g]
                    if q < 0:
                        continue
                    dl[t & 3, g] = -1
                    c = q - qo_base - g * m
                    gi2 = -1
                    shared = m
                    shared_ok = 0
                else:
                    if g < n_in:
                        mask = rdy[n_in + g]
                        base = qo_base + g * m
                    else:
                        mask = nic_mask[g - n_in]
                        base = nq_ring + (g - n_in) * m
                    if mask == 0:
                        continue
                    gi2 = target * k + out_input[g] if target >= 0 else -1
                    # a NIC's best-effort queue when best effort takes any free VC (its head's downstream VC:
                    # drawn as its header goes, kept in q_dn)
                    shared = m if g < n_in or not vc.be_free else vc.m_rt
                    shared_ok = 0
                    if gi2 >= 0:
                        # a VC whose next message has not started waits while the downstream VC is held (the
                        # shared queue: while every best-effort VC is)
                        held = in_mask[gi2]
                        if shared < m and (vc.be_bits & ~held) != 0:
                            held &= ~(1 << shared)
                        mask &= prog[g] | ~held
                        if mask == 0:
                            continue
                    best_q = -1
                    best_s = np.inf
                    while mask:
                        c = trailing_zeros(mask)
                        mask &= mask - 1
                        q = base + c
                        if c == shared and (prog[g] >> c) & 1 == 0:
                            # the free best-effort VCs downstream whose first slot's credit is back
                            free = vc.be_bits & ~in_mask[gi2]
                            shared_ok = 0
                            while free:
                                c2 = trailing_zeros(free)
                                free &= free - 1
                                q2 = gi2 * m + c2
                                if credit_at[q2] <= t:
                                    shared_ok |= 1 << c2
                            if shared_ok == 0:
                                continue
                        elif gi2 >= 0:
                            q2 = gi2 * m + c if c != shared else q_dn[q]
                            if credit_at[q2] > t:
                                continue
                        st = q_st[q]
                        if st >= best_s:
                            continue
                        best_s = st
                        best_q = q
                    if best_q < 0:
                        continue
                    q = best_q
                    c = q - base
                    if vc.sched == SCHED_FGFQ:
                        r_link[g] = best_s
                    if g < n_in:
                        n_out = qout[q] + 1
                        qout[q] = n_out
                        bit = 1 << c
                        if n_out == qin[q]:
                            rdy[n_in + g] &= ~bit
                        else:
                            ready = fr_t[q, n_out & rmask]
                            q_st[q] = fr_s[q, n_out & rmask]
                            if ready > t + 1:
                                rdy[n_in + g] &= ~bit
                                wheel[ready & wmask, n_in + g] |= bit
                if g < n_in:
                    out_load[g] -= 1
                pkt = h_pkt[q]
                sent = h_sent[q] + 1
                h_sent[q] = sent
                if g >= n_in and sent < h_len[q]:
                    q_st[q] = _nic_stamp(h_gen[q], sent, h_vt[q], h_be[q], nic_fifo, vc.be_flat, vc.be_vtick)
                moved += 1
                arrive = t + vc.link
                if target == TO_NODE:
                    # a message reaches its node in order on one VC: its flits received are those sent
                    received_flits += 1
                    stats[FLITS_RECEIVED] += 1
                    if measuring:
                        stats[M_FLITS_RECEIVED] += 1
                        parts[1, out_input[g] + nodes * h_be[q]] -= 1
                    if trace.shape[0] > 1 and n_trace < trace.shape[0]:
                        trace[n_trace, 0] = arrive
                        trace[n_trace, 1] = out_input[g]
                        trace[n_trace, 2] = pkt
                        trace[n_trace, 3] = sent
                        trace[n_trace, 4] = c
                        n_trace += 1
                    if sent == h_len[q]:
                        stats[K.STAT_DELIVERED] += 1
                        row = p_msg[pkt]
                        if row >= 0:
                            f_left[row] -= 1
                            if f_left[row] == 0:
                                frame_done[row] = arrive
                        elif t >= run.warmup:
                            stats[M_BE_MESSAGES] += 1
                            stats[M_BE_LATENCY_SUM] += arrive - p_gen[pkt]
                        if t >= run.warmup:
                            stats[K.STAT_M_DELIVERED] += 1
                            stats[K.STAT_M_LATENCY_SUM] += arrive - p_gen[pkt]
                            stats[K.STAT_M_LATENCY_COUNT] += 1
                        p_free[p_top] = pkt
                        p_top += 1
                else:
                    q2 = q_dn[q]
                    if q2 < 0:
                        # the header: the message in the downstream VC
                        c2 = _draw_bit(shared_ok) if c == shared else c
                        q2 = gi2 * m + c2
                        h_pkt[q2] = pkt
                        h_sent[q2] = 0
                        h_len[q2] = h_len[q]
                        h_be[q2] = h_be[q]
                        h_vt[q2] = h_vt[q]
                        q_dn[q] = q2
                        in_mask[gi2] |= 1 << c2
                        prog[g] |= 1 << c
                        if vc.per_message:
                            aux[q2] = 0.0
                    slot = qin[q2] & rmask
                    # stage 1 (and, for a header, routing and arbitration) before the crossbar
                    ready = arrive + vc.body_wait + (vc.header_extra if sent == 1 else 0)
                    fr_t[q2, slot] = ready
                    st, aux[q2] = _stamp(vc.sched, arrive, aux[q2], r_in[gi2], h_vt[q], vc.be_flat and h_be[q],
                                         vc.be_vtick)
                    fr_s[q2, slot] = st
                    if qin[q2] == qout[q2]:
                        wheel[ready & wmask, gi2] |= 1 << (q2 - gi2 * m)
                        q_st[q2] = st
                        q_rt[q2] = ready
                    n2 = qin[q2] + 1
                    qin[q2] = n2
                    if n2 - qout[q2] >= vc.cap:
                        credit_at[q2] = 1 << 62
                    elif n2 >= vc.cap:
                        credit_at[q2] = fr_t[q2, (n2 - vc.cap) & rmask]
                    if qin[q2] - qout[q2] > max_held:
                        max_held = qin[q2] - qout[q2]
                if sent == h_len[q]:
                    prog[g] &= ~(1 << c)
                    q_dn[q] = -1
                    if g < n_in:
                        h_pkt[q] = -1
                        out_mask[g] &= ~(1 << c)
                        s = g_sw[g]
                        for i in range(k):
                            b = parked[g * k + i] & park_in[s * k + i]
                            parked[g * k + i] = 0
                            if b:
                                rdy[s * k + i] |= b
                                park_in[s * k + i] &= ~b
                    else:
                        # a NIC queue: its next message, if any, becomes the head
                        nic_count[g - n_in] -= 1
                        e = q_head[q]
                        h = e_next[e]
                        e_free[e_top] = e
                        e_top += 1
                        q_head[q] = h
                        if h < 0:
                            q_tail[q] = -1
                            h_pkt[q] = -1
                            nic_mask[g - n_in] &= ~(1 << c)
                        else:
                            p2 = e_pkt[h]
                            h_pkt[q] = p2
                            h_sent[q] = 0
                            h_len[q] = p_len[p2]
                            h_be[q] = 1 if p_msg[p2] < 0 else 0
                            h_vt[q] = p_vt[p2]
                            h_gen[q] = p_gen[p2]
                            q_st[q] = _nic_stamp(h_gen[q], 0, h_vt[q], h_be[q], nic_fifo, vc.be_flat, vc.be_vtick)
        else:
            moved += lazy_next
            lazy_next = 0
            # 1. new messages (drawn as gaps between starts, not a coin per node per cycle)
            if t < end_measure:
                for v in range(nodes):
                    while next_at[v] < t + 1:
                        next_at[v] += _gap(tr.p_msg, tr.poisson)
                        ppm = (tr.msg_flits + tr.pkt_flits - 1) // tr.pkt_flits
                        room = nic_count[v] + ppm <= NIC_PACKETS
                        if not K.admit(stats, t, run.warmup, room, True):
                            continue
                        if perm[0] >= 0:
                            dest = perm[v]
                        elif tr.uniform_all:
                            dest = int(np.random.random() * nodes)
                        else:
                            dest = int(np.random.random() * (nodes - 1))
                            if dest >= v:
                                dest += 1
                        m_top -= 1
                        m = m_free[m_top]
                        m_gen[m] = t
                        m_left[m] = ppm
                        offered_flits += tr.msg_flits
                        stats[FLITS_OFFERED] += tr.msg_flits
                        if measuring:
                            stats[M_FLITS_OFFERED] += tr.msg_flits
                            parts[0, dest] += tr.msg_flits
                            parts[1, dest] += tr.msg_flits
                        q = qc + v
                        for j in range(ppm):
                            p_top -= 1
                            pkt = p_free[p_top]
                            p_dest[pkt] = dest
                            p_len[pkt] = min(tr.pkt_flits, tr.msg_flits - j * tr.pkt_flits)
                            p_msg[pkt] = m
                            p_rcv[pkt] = 0
                            p_gen[pkt] = t
                            # A new entry, appended to its queue. Written out here and at the two other places
                            # entries are made: a helper taking the entry arrays would cost two atomic reference-
                            # count operations per array per call (see _fits).
                            e_top -= 1
                            e = e_free[e_top]
                            e_pkt[e] = pkt
                            e_q[e] = q
                            e_len[e] = p_len[pkt]
                            e_gi[e] = -1
                            e_oi[e] = -1
                            e_arr[e] = p_len[pkt]
                            e_sent[e] = 0
                            e_ready[e] = t
                            e_claim[e] = -1
                            e_down[e] = -1
                            e_next[e] = -1
                            if q_tail[q] >= 0:
                                e_next[q_tail[q]] = e
                            else:
                                q_head[q] = e
                            q_tail[q] = e
                            nic_count[v] += 1
                            act[(n_in + v) >> 6] |= 1 << ((n_in + v) & 63)

            # 2. flits arriving
            slot = t & ring_mask
            in_base = slot * n_links
            for w in range(n_w):
                bits = arr_bits[slot, w]
                if bits == 0:
                    continue
                arr_bits[slot, w] = 0
                while bits:
                    g = (w << 6) + trailing_zeros(bits)
                    bits &= bits - 1
                    x = ring[in_base + g]
                    moved += 1
                    if out_switch[g] == TO_NODE:
                        # a packet's flits reach its node in order over one link; its tail comes as ~packet
                        tail = x < 0
                        pkt = ~x if tail else x
                        received_flits += 1
                        stats[FLITS_RECEIVED] += 1
                        if measuring:
                            stats[M_FLITS_RECEIVED] += 1
                            parts[1, out_input[g]] -= 1     # the node this link delivers to: its destination
                        if trace.shape[0] > 1 and n_trace < trace.shape[0]:
                            p_rcv[pkt] += 1
                            trace[n_trace, 0] = t
                            trace[n_trace, 1] = out_input[g]
                            trace[n_trace, 2] = pkt
                            trace[n_trace, 3] = p_rcv[pkt]
                            n_trace += 1
                        if tail:
                            m = p_msg[pkt]
                            if measuring:
                                stats[M_PACKETS] += 1
                                stats[M_PACKET_LATENCY_SUM] += t - p_gen[pkt]
                            p_free[p_top] = pkt
                            p_top += 1
                            m_left[m] -= 1
                            if m_left[m] == 0:
                                # Latency: cycles from the message's creation to its last flit's arrival.
                                stats[K.STAT_DELIVERED] += 1
                                if t >= run.warmup:
                                    stats[K.STAT_M_DELIVERED] += 1
                                    stats[K.STAT_M_LATENCY_SUM] += t - m_gen[m]
                                    stats[K.STAT_M_LATENCY_COUNT] += 1
                                m_free[m_top] = m
                                m_top += 1
                    else:
                        e = x
                        e_arr[e] += 1
                        if e_arr[e] == 1:
                            # Pipe 1 when nothing waits ahead of it in its queue (at most a packet already
                            # streaming out), Pipe 3 when it must be stored behind another packet.
                            h = q_head[e_q[e]]
                            clear = h == e or (e_claim[h] >= 0 and e_next[h] == e)
                            e_ready[e] = t + (sw.bypass if clear else sw.buffered)
                            if pairs and e_ready[e] < wake[e_oi[e]]:
                                wake[e_oi[e]] = e_ready[e]

            # 3. central buffer: each input FIFO's head moves a flit into the shared buffer
            if org == CENTRAL:
                for gi in range(n_in):
                    q = gi * k
                    e = q_head[q]
                    if e < 0 or e_arr[e] - (e_lt[e] == t) <= e_sent[e] or e_ready[e] > t:
                        continue
                    s = g_sw[gi]
                    d = e_down[e]
                    if d < 0:
                        pkt = e_pkt[e]
                        o = _least_loaded(groups[s, route[s, p_dest[pkt]]], qp + s * k, qflits, k, 1, 0)
                        # Admission: a packet enters the central buffer only when the chunks it needs are free
                        # (all of them, or as many as its direction may hold), else it waits in the input FIFO.
                        need = (p_len[pkt] + k - 1) // k if sw.c_whole else 1
                        if up_link[s * k + o]:
                            if min(sw.c_chunks - c_used[s], sw.c_up_chunks - c_up[s]) < min(need, sw.c_up_chunks):
                                continue
                        elif sw.c_chunks - c_used[s] < min(need, sw.c_chunks - sw.c_up_chunks):
                            continue
                        e_top -= 1
                        d = e_free[e_top]
                        cq = qp + s * k + o
                        e_pkt[d] = pkt
                        e_q[d] = cq
                        e_len[d] = e_len[e]
                        e_gi[d] = s
                        e_oi[d] = s * k + o
                        e_wpos[d] = 0
                        e_arr[d] = 0
                        e_sent[d] = 0
                        e_ready[d] = t
                        e_claim[d] = -1
                        e_down[d] = -1
                        e_next[d] = -1
                        if q_tail[cq] >= 0:
                            e_next[q_tail[cq]] = d
                        else:
                            q_head[cq] = d
                        q_tail[cq] = d
                        e_down[e] = d
                        cand[s * k + o] += 1
                        act[(s * k + o) >> 6] |= 1 << ((s * k + o) & 63)
                    cq = e_q[d]
                    up = up_link[e_oi[d]]
                    if e_wpos[d] == 0:
                        if c_used[s] >= sw.c_chunks or (up and c_up[s] >= sw.c_up_chunks):
                            continue
                        c_used[s] += 1
                        if up:
                            c_up[s] += 1
                    e_wpos[d] += 1
                    if e_wpos[d] == k:
                        e_wpos[d] = 0
                    e_arr[d] += 1
                    qflits[cq] += 1
                    qflits[q] -= 1          # out of the input FIFO
                    inb[gi * IW + I_HELD] -= 1
                    inb[gi * IW + I_USED] -= 1
                    e_sent[e] += 1
                    moved += 1
                    if e_sent[e] == e_len[e]:
                        q_head[q] = e_next[e]
                        if q_head[q] < 0:
                            q_tail[q] = -1
                        e_free[e_top] = e
                        e_top += 1

            # 4. outputs: take a packet if idle, then send a flit. The scan starts one output later each cycle:
            # a FIFO head that may take any free up port would otherwise always find the lowest one first.
            rot = t % n_links
            w0 = rot >> 6
            out_slot = (t + sw.link_delay) & ring_mask
            out_base = out_slot * n_links
            for step in range(n_w + 1):
                # the set bits from rot up, then those below it (kernel.rotated_word's walk, written out: the
                # call measured 2-4 % slower in this loop)
                if step == 0:
                    w = w0
                    bits = act[w] & (-1 << (rot & 63))
                elif step < n_w:
                    w = w0 + step
                    if w >= n_w:
                        w -= n_w
                    bits = act[w]
                else:
                    w = w0
                    bits = act[w] & ((1 << (rot & 63)) - 1)
                sending = 0                 # the links of word w sending a flit this cycle
                while bits:
                    g = (w << 6) + trailing_zeros(bits)
                    bits &= bits - 1
                    target = out_switch[g]
                    if target == UNWIRED:
                        continue
                    gb = g * LKW
                    e = lk[gb + LK_E]
                    if e < 0:
                        # --- arbitration: an eligible header for this output whose next buffer has room
                        if g < n_in:
                            s = g_sw[g]
                            if (waiting[s] == 0) if org == FIFO else (cand[g] == 0):
                                act[w] &= ~(1 << (g & 63))
                                continue
                            if pairs and wake[g] > t:
                                continue
                            o = g - s * k
                            if org == CENTRAL:
                                first, count = 0, 1
                            else:
                                first = 0 if sw.rnd else rr[g]
                                count = k
                        else:
                            if q_head[qc + (g - n_in)] < 0:
                                act[w] &= ~(1 << (g & 63))
                                continue
                            s = -1
                            o = 0
                            first, count = 0, 1
                        # Pass 1: the eligible header (first in round-robin order, or uniformly at random among
                        # all eligible, Karol's rule) and its queue at the next switch; pass 2 takes it.
                        chosen = -1
                        chosen_q2 = -1
                        chosen_i = 0
                        eligible = 0
                        nxt = 1 << 62
                        for j in range(count):
                            i = first + j
                            if i >= k:
                                i -= k
                            if g >= n_in:
                                q = qc + (g - n_in)
                            elif org == CENTRAL:
                                q = qp + s * k + o
                            elif org == FIFO:
                                q = (s * k + i) * k
                            else:
                                q = (s * k + i) * k + o
                            c = q_head[q]
                            if c < 0:
                                continue
                            if e_claim[c] >= 0 or e_arr[c] == 0 or e_ready[c] > t:
                                if e_claim[c] >= 0:
                                    nxt = t + 1
                                elif e_arr[c] > 0 and e_ready[c] < nxt:
                                    nxt = e_ready[c]
                                continue
                            nxt = t + 1
                            if g < n_in and (org == FIFO or org == DAMQ):
                                # one read port: an input read this cycle starts no packet (HIPIQS's banks
                                # and SAFC's partitions serve every output at once, §3)
                                gi = s * k + i
                                if inb[gi * IW + I_LAST] == t or (org == DAMQ and rd_busy[gi]):
                                    continue
                                if org == FIFO:
                                    if sw.fifo_arrival:
                                        if e_port[c] != o:
                                            continue
                                    elif not (groups[s, route[s, p_dest[e_pkt[c]]]] >> o) & 1:
                                        continue
                            q2 = -1
                            if target >= 0:
                                gi2 = target * k + out_input[g]
                                if org == FIFO or org == CENTRAL:
                                    q2 = gi2 * k
                                else:
                                    mask = groups[target, route[target, p_dest[e_pkt[c]]]]
                                    if sw.up_output:
                                        q2 = gi2 * k + _least_loaded(mask, target * k, out_load, k, 1, 0)
                                    elif org == HIPIQS:
                                        q2 = gi2 * k + _least_loaded(mask, gi2 * k, qst, k, QW, Q_SH)
                                    else:
                                        q2 = gi2 * k + _least_loaded(mask, gi2 * k, qflits, k, 1, 0)
                                if not _fits(org, qflits[q2], part_cap, qst[q2 * QW + Q_SH], qst[q2 * QW + Q_FIFO], xp_cap,
                                             qst[q2 * QW + Q_WP], inb[gi2 * IW + I_CHUNKS], n_chunks, inb[gi2 * IW + I_USED],
                                             cap):
                                    continue
                            eligible += 1
                            if eligible == 1 or np.random.random() * eligible < 1.0:
                                chosen, chosen_q2, chosen_i = c, q2, i
                            if not sw.rnd:
                                break
                        if chosen < 0:
                            if pairs and g < n_in:
                                wake[g] = nxt
                            continue
                        c = chosen
                        d = -1
                        if chosen_q2 >= 0:
                            q2 = chosen_q2
                            e_top -= 1
                            d = e_free[e_top]
                            e_pkt[d] = e_pkt[c]
                            e_q[d] = q2
                            e_len[d] = e_len[c]
                            e_gi[d] = q2 // k
                            e_oi[d] = target * k + q2 % k if org != FIFO and org != CENTRAL else -1
                            e_arr[d] = 0
                            e_lt[d] = -1
                            e_sent[d] = 0
                            e_ready[d] = 1 << 62
                            e_claim[d] = -1
                            e_down[d] = -1
                            e_next[d] = -1
                            if q_tail[q2] >= 0:
                                e_next[q_tail[q2]] = d
                            else:
                                q_head[q2] = d
                            q_tail[q2] = d
                            if org == FIFO:
                                waiting[target] += 1
                                for g2 in range(target * k, target * k + k):
                                    act[g2 >> 6] |= 1 << (g2 & 63)
                                if sw.fifo_arrival:
                                    # routed on arrival: the port with the fewest headers waiting for it
                                    mask = groups[target, route[target, p_dest[e_pkt[c]]]]
                                    e_port[d] = _least_loaded(mask, target * k, cand, k, 1, 0)
                                    cand[target * k + e_port[d]] += 1
                            elif org != CENTRAL:
                                cand[target * k + q2 % k] += 1
                                act[(target * k + q2 % k) >> 6] |= 1 << ((target * k + q2 % k) & 63)
                        e_down[c] = d
                        e_claim[c] = g
                        # the output's record of what it sends: read each flit without going through the entries
                        lk[gb + LK_E] = c
                        lk[gb + LK_D] = d
                        lk[gb + LK_Q] = e_q[c]
                        lk[gb + LK_GI] = e_gi[c]
                        lk[gb + LK_OIE] = e_oi[c]
                        lk[gb + LK_LEN] = e_len[c]
                        lk[gb + LK_SENT] = 0
                        lk[gb + LK_RPOS] = 0
                        if d >= 0:
                            lk[gb + LK_Q2] = e_q[d]
                            lk[gb + LK_GI2] = e_gi[d]
                            lk[gb + LK_OID] = e_oi[d]
                        else:
                            lk[gb + LK_PKT] = e_pkt[c]
                        if s >= 0:
                            if org == FIFO:
                                waiting[s] -= 1
                                if sw.fifo_arrival:
                                    cand[g] -= 1
                            else:
                                cand[g] -= 1
                            rr[g] = chosen_i + 1 if chosen_i + 1 < k else 0
                            if org == DAMQ:
                                rd_busy[s * k + chosen_i] = 1
                        e = c
                    # --- send one flit of entry e
                    sent = lk[gb + LK_SENT]
                    if e_arr[e] - (e_lt[e] == t) <= sent:
                        continue
                    q = lk[gb + LK_Q]
                    gi = lk[gb + LK_GI]
                    in_buffer = q < qp
                    if in_buffer and org != HIPIQS and org != SAFC and inb[gi * IW + I_LAST] == t:
                        continue
                    d = lk[gb + LK_D]
                    if d >= 0:
                        q2 = lk[gb + LK_Q2]
                        gi2 = lk[gb + LK_GI2]
                        # the flit goes if it fits downstream (the rules of _fits), committed there (HIPIQS: FIFO
                        # unit first, then the queue's last chunk)
                        if org == HIPIQS:
                            sh = qst[q2 * QW + Q_SH]
                            fc = qst[q2 * QW + Q_FIFO]
                            if sh == 0 and fc < xp_cap:
                                qst[q2 * QW + Q_FIFO] = fc + 1
                            else:
                                wp = qst[q2 * QW + Q_WP]
                                if wp == 0:
                                    if inb[gi2 * IW + I_CHUNKS] >= n_chunks:
                                        continue
                                    inb[gi2 * IW + I_CHUNKS] += 1
                                wp += 1
                                qst[q2 * QW + Q_WP] = 0 if wp == k else wp
                                qst[q2 * QW + Q_SH] = sh + 1
                        elif org == SAFC:
                            if qflits[q2] >= part_cap:
                                continue
                        else:
                            if inb[gi2 * IW + I_USED] >= cap:
                                continue
                            inb[gi2 * IW + I_USED] += 1
                        if org != HIPIQS:
                            qflits[q2] += 1
                        h = inb[gi2 * IW + I_HELD] + 1
                        inb[gi2 * IW + I_HELD] = h
                        if h > max_held:
                            max_held = h
                        if sw.up_output:        # out_load is read only to choose an up port by output
                            oi = lk[gb + LK_OID]
                            if oi >= 0:
                                out_load[oi] += 1
                        if sent > 0 and lazy:
                            e_arr[d] += 1
                            e_lt[d] = t
                            lazy_next += 1
                        else:
                            ring[out_base + g] = d
                            sending |= 1 << (g & 63)
                    else:
                        ring[out_base + g] = lk[gb + LK_PKT] if sent + 1 < lk[gb + LK_LEN] else ~lk[gb + LK_PKT]
                        sending |= 1 << (g & 63)
                    sent += 1
                    lk[gb + LK_SENT] = sent
                    moved += 1
                    if in_buffer:
                        # release it upstream (HIPIQS: refill the FIFO unit from the shared queue, freeing a chunk when
                        # its last flit is read or the queue empties)
                        if org != HIPIQS:
                            qflits[q] -= 1
                        inb[gi * IW + I_HELD] -= 1
                        if org == HIPIQS:
                            sh = qst[q * QW + Q_SH]
                            if sh > 0:
                                # the FIFO unit refilled from the shared queue: its count stays
                                qst[q * QW + Q_SH] = sh - 1
                                rp = qst[q * QW + Q_RP] + 1
                                if rp == k:
                                    rp = 0
                                    inb[gi * IW + I_CHUNKS] -= 1
                                if sh == 1:
                                    if rp != 0:
                                        inb[gi * IW + I_CHUNKS] -= 1
                                    qst[q * QW + Q_WP] = 0
                                    rp = 0
                                qst[q * QW + Q_RP] = rp
                            else:
                                qst[q * QW + Q_FIFO] -= 1
                        elif org != SAFC:
                            inb[gi * IW + I_USED] -= 1
                        inb[gi * IW + I_LAST] = t
                        if sw.up_output:
                            oi = lk[gb + LK_OIE]
                            if oi >= 0:
                                out_load[oi] -= 1
                    elif q < qc:
                        qflits[q] -= 1
                        rpos = lk[gb + LK_RPOS] + 1
                        if rpos == k or sent == lk[gb + LK_LEN]:
                            rpos = 0
                            c_used[gi] -= 1
                            if up_link[lk[gb + LK_OIE]]:
                                c_up[gi] -= 1
                        lk[gb + LK_RPOS] = rpos
                    if sent == lk[gb + LK_LEN]:
                        # tail gone: the output is free, the entry leaves its queue (always the head)
                        lk[gb + LK_E] = -1
                        q_head[q] = e_next[e]
                        if q_head[q] < 0:
                            q_tail[q] = -1
                        if in_buffer and org == DAMQ:
                            rd_busy[gi] = 0
                        if q >= qc:
                            nic_count[q - qc] -= 1
                        e_free[e_top] = e
                        e_top += 1
                arr_bits[out_slot, w] |= sending


        if moved == 0 and offered_flits > received_flits:
            stalled += 1
            if stalled >= STALL_CYCLES:
                stats[DEADLOCK] = 1
                stats[K.STAT_OVERFLOW] += 1
                stats[BACKLOG_END] = offered_flits - received_flits
                break
        else:
            stalled = 0
    if run.drain == 0 and stats[DEADLOCK] == 0:
        stats[BACKLOG_END] = offered_flits - received_flits      # the loop ended with the measured window
    stats[MAX_HELD] = max_held
    stats[K.STAT_QUEUED] = stats[K.STAT_ARRIVED] - stats[K.STAT_DELIVERED]
    K.keep_worst_part(stats, parts, vc.msg_flits if vc_on else tr.msg_flits)
    return n_trace


def _spec(sw):
    """The kernel's specialisation: a tuple whose length is the buffer organisation + 1 (0: a virtual-channel
    router). Numba types a tuple by its length, so each organisation gets a kernel of its own in which ``org``
    is a constant and the branches of the others are compiled away."""
    return (0,) * (sw.org + 1)


def _arguments(net, traffic):
    net.check_traffic(traffic)
    return _tables(net), _switch(net), _traffic(net, traffic)


# --------------------------------------------------------------------------- virtual-channel routers (paper 004)

def _is_vc(net) -> bool:
    from switchq.models.wormhole import WormholeNetwork

    return isinstance(net, WormholeNetwork)


def _vc_arguments(net, traffic, seed: int):
    """Tables, switch, traffic and VC tuples of a :class:`~switchq.models.wormhole.WormholeNetwork` run, the
    streams placed and their frames drawn from ``seed``; also the cycle counts and PCS figures."""
    from dataclasses import replace

    from switchq.errors import InputError
    from switchq.solvers import wormhole_traffic as wt

    net.check_traffic(traffic)
    r = net.router
    if r.vcs > 64:
        raise InputError("vcs", r.vcs, "at most 64 for the simulator (a VC set is one 64-bit mask)")
    if r.body_stages < 2:
        raise InputError("body_stages", r.body_stages, "at least 2 for the simulator (stages 4 and 5 follow the "
                                                       "input buffer)")
    pcs = r.switching == "pcs"
    if pcs and net.topology != "switch":
        raise InputError("topology", net.topology, "switch with --switching pcs (§V-F compares one router)")
    if pcs and traffic.streams.kind == "mpeg2":
        raise InputError("streams", "mpeg2", "cbr or vbr with --switching pcs")
    if pcs and traffic.placement != "uniform":
        raise InputError("placement", traffic.placement, "uniform with --switching pcs (its probes draw their own "
                                                         "destinations, §III-F)")
    tab = _tables(net)
    nodes = net.nodes
    k = (len(tab.out_switch) - nodes) // tab.route.shape[0]       # ports per router, from the one tables() call
    cps = r.cycles_per_second
    warm = int(round(traffic.warmup * cps))
    measure = max(1, int(round(traffic.seconds * cps)))
    rng = np.random.default_rng(seed)
    attempted = established = dropped = 0
    if pcs:
        placement, attempted, established, dropped = wt.pcs_placement(nodes, r, traffic, rng)
        framed = replace(traffic, header="payload")     # a circuit's flits all carry video
    else:
        placement = wt.place_streams(nodes, r, traffic, rng)
        framed = traffic
    frames = wt.stream_frames(placement, r, framed, warm + measure, rng)
    m_rt = traffic.realtime_vcs(r.vcs)
    # a VC buffer's flits: buffer_messages whole messages. No message is longer than message_flits (a frame's
    # last one may be shorter), so the output VC a message holds always has room for its next flit: the
    # crossbar checks only the input side's credits
    cap = r.buffer_messages * traffic.message_flits
    be_rate = traffic.best_effort_messages_per_cycle if r.vcs - m_rt > 0 else 0.0
    vc = Vc(1, r.vcs, cap, K.pow2_at_least(cap) - 1, r.body_stages - 2, 0 if pcs else r.header_stages - r.body_stages,
            r.link_cycles, r.link_cycles, 1 if r.crossbar == "full" else 0, SCHED[r.scheduler],
            1 if r.vclock_state == "message" else 0,
            BE_VTICK if r.best_effort_vtick is None else float(r.best_effort_vtick),
            m_rt, float(be_rate), 1 if traffic.destinations == "all" else 0, traffic.message_flits, NIC_MESSAGES,
            r.crossbar_iterations or k, 1 if r.crossbar_output == "stamp" else 0,
            1 if r.best_effort_vcs == "free" else 0, _bits(m_rt, r.vcs), 1 if r.best_effort_stamp == "largest" else 0)
    va = Va(frames.offset, placement.source, placement.dest, placement.input_vc, placement.dest_vc, frames.start,
            frames.messages, frames.last_flits, frames.spacing, np.full(frames.frames, -1, dtype=np.int64))
    sw = Sw(-1, k, 0, 0, 0, 0, 0, 1, 0, 0, 0, r.link_cycles, 0, 0, 0)
    tr = Tr(0.0, 0, traffic.message_flits, traffic.message_flits, np.full(nodes, -1, dtype=np.int64), 0,
            np.zeros(nodes, dtype=np.int64))
    period = traffic.streams.frame_period * cps
    return tab, sw, tr, vc, va, warm, measure, period, (attempted, established, dropped)


def _bits(low: int, high: int) -> int:
    """Bits low..high - 1 set, as a signed 64-bit integer (bit 63 the sign)."""
    bits = ((1 << high) - 1) ^ ((1 << low) - 1)
    return bits - (1 << 64) if bits >= 1 << 63 else bits


def _frame_counters(stats, va, warm: int, end: int, period: float, pcs) -> None:
    """Frame delivery intervals of consecutive frames of a stream, both delivered, the first started after the
    warm-up: their count, and their sum and sum of squares as deviations from the frame period in whole
    cycles (exact integers); frames that started at least two periods before the end and never arrived."""
    rows = len(va.f_start)
    stream = np.repeat(np.arange(len(va.st_src)), np.diff(va.st_off))
    done = va.frame_done
    base = int(round(period))
    if rows > 1:
        ok = ((stream[:-1] == stream[1:]) & (done[:-1] >= 0) & (done[1:] >= 0) & (va.f_start[:-1] >= warm))
        dev = (done[1:] - done[:-1])[ok] - base
        stats[M_FRAMES] = len(dev)
        stats[M_INTERVAL_DEV_SUM] = int(dev.sum())
        stats[M_INTERVAL_DEV_SQ] = int((dev * dev).sum())
    stats[INTERVAL_BASE] = base
    stats[FRAMES_LATE] = int(np.sum((done < 0) & (va.f_start >= warm) & (va.f_start + 2 * period <= end)))
    stats[STREAMS] = len(va.st_src)
    stats[ATTEMPTED], stats[ESTABLISHED], stats[REFUSED] = pcs


def _vc_replicate(net, traffic, run, trace):
    tab, sw, tr, vc, va, warm, measure, period, pcs = _vc_arguments(net, traffic, run.seed)
    run = K.Run(measure, warm, 0, run.seed, run.batches)      # batches: the harness's trend segments
    stats = LAYOUT.zeros(run)
    n = _run(tab, sw, tr, run, stats, trace, vc, va, _spec(sw))
    _frame_counters(stats, va, warm, warm + measure, period, pcs)
    return stats, n


def replicate(net, traffic, run) -> np.ndarray:
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`, slots = cycles; for a
    :class:`~switchq.models.wormhole.WormholeNetwork` the workload's seconds set the cycles and ``run`` gives the
    seed); return its counters (``LAYOUT``)."""
    if _is_vc(net):
        return _vc_replicate(net, traffic, run, np.zeros((1, TRACE_COLUMNS), dtype=np.int64))[0]
    tab, sw, tr = _arguments(net, traffic)
    stats = LAYOUT.zeros(run)
    _run(tab, sw, tr, run, stats, np.zeros((1, TRACE_COLUMNS), dtype=np.int64), *_no_vc(), _spec(sw))
    return stats


def trace_run(net, traffic, run, max_flits: int = 1 << 20):
    """One replication with every flit reaching a node logged: ``(counters, trace)``, a row per flit
    ``(cycle, node, packet, flits of that packet received so far, VC)`` (for the property tests; VC 0 on
    paper-000 switches).

    Examples
    --------
    >>> from switchq.models.flit import FlitNetwork, FlitSwitch, MessageTraffic
    >>> net = FlitNetwork.bmin(16, FlitSwitch(8, "fifo", 64))
    >>> stats, trace = trace_run(net, MessageTraffic(0.2, 8), K.Run(500, 0, 2000, 3))
    >>> counts = LAYOUT.named(stats)
    >>> counts["flits_offered"] == counts["flits_received"] == len(trace)
    True
    """
    trace = np.zeros((max_flits, TRACE_COLUMNS), dtype=np.int64)
    if _is_vc(net):
        stats, n = _vc_replicate(net, traffic, run, trace)
        return stats, trace[:n]
    tab, sw, tr = _arguments(net, traffic)
    stats = LAYOUT.zeros(run)
    n = _run(tab, sw, tr, run, stats, trace, *_no_vc(), _spec(sw))
    return stats, trace[:n]


def lone_latency(net, source: int, dest: int, message_flits: int, packet_flits: int | None = None) -> int:
    """Cycles from creation to last flit of one message from ``source`` to ``dest`` in an otherwise empty network.

    Examples
    --------
    >>> from switchq.models.flit import FlitNetwork
    >>> lone_latency(FlitNetwork.bmin(16), 0, 15, 64)      # 3 switches x 2 cycles + 4 links + 63 flits
    73
    """
    from switchq.models.flit import MessageTraffic

    tab, sw, tr = _arguments(net, MessageTraffic(1.0, message_flits, packet_flits))
    perm = np.full(net.nodes, dest, dtype=np.int64)
    active = np.zeros(net.nodes, dtype=np.int64)
    active[source] = 1
    stats = LAYOUT.zeros()
    _run(tab, sw, tr._replace(p_msg=1.0, perm=perm, active=active), K.Run(1, 0, 100 * message_flits + 1000, 1), stats,
         np.zeros((1, TRACE_COLUMNS), dtype=np.int64), *_no_vc(), _spec(sw))
    return int(stats[K.STAT_M_LATENCY_SUM])
