"""The flit kernels' counters, constants and argument records (paper 000 §3-§5, paper 004 §III).

What the two kernels (:mod:`.cut_through`, :mod:`.vc`) are told, as named tuples that Numba types by their
fields (every one built by keyword in :mod:`.arguments`), and the field numbers of the packed state records
they keep: one row per entry, packet, output or buffer, so a helper takes one array, not one per field.
Nothing here imports Numba.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from switchq.models.flit import BUFFER_ORGS

from ... import kernel as K

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
TRACE_COLUMNS = 5

# An entry (a packet's presence in one buffer), a row of the entry record: its packet, the next entry of its
# queue, its queue, its packet's flits, its input buffer (central-buffer entries: the switch), the switch output
# it queues for (s * k + o, -1: none), flits in its last central chunk, flits arrived, the cycle a body flit was
# counted in at send (1-cycle links), flits sent on, the cycle its header may leave, the output sending it, its
# entry at the next buffer, (FIFO routed on arrival) the output it waits for, and (central buffer) the chunks
# reserved for it when it was admitted.
(E_PKT, E_NEXT, E_Q, E_LEN, E_GI, E_OI, E_WPOS, E_ARR, E_LT, E_SENT, E_READY, E_CLAIM, E_DOWN, E_PORT,
 E_RES) = range(15)
EW = 16
# A packet, a row of the packet record: its destination, flits, message (VC routers: its frame row, -1: best
# effort), flits received (traced runs), creation cycle, and (VC routers) the VC it takes on router outputs, the
# next packet of its NIC queue (-1: none) and its Vtick (a float64's bits, read through a float view of the record).
P_DEST, P_LEN, P_MSG, P_RCV, P_GEN, P_DVC, P_NEXT, P_VT = range(8)
PW = 8
# The message a VC buffer holds (a NIC queue: the one at its head), a row of the VC kernel's head record: its
# packet (-1: none), flits sent on, flits, best effort (1) or video, and (NIC queues) creation cycle.
H_PKT, H_SENT, H_LEN, H_BE, H_GEN = range(5)
HW = 8
# An output's record in the cut-through kernel (fields of a row of lk): the entry it sends (-1: none), that
# entry's queue and buffer, its entry downstream and theirs, the outputs they queue for, the packet's flits,
# flits sent, the central read position, the packet (to a node).
LK_E, LK_D, LK_Q, LK_GI, LK_Q2, LK_GI2, LK_OIE, LK_OID, LK_LEN, LK_SENT, LK_RPOS, LK_PKT = range(12)
LKW = 16
# A pair queue's storage state (HIPIQS: flits in the FIFO unit, in the shared queue, in its last chunk, read from
# its head chunk) and an input buffer's (flits held, chunks taken, flits stored, the cycle last read).
Q_FIFO, Q_SH, Q_WP, Q_RP = range(4)
QW = 4
I_HELD, I_CHUNKS, I_USED, I_LAST = range(4)
IW = 4

SCHED = {"fifo": 0, "fgvc": 1, "fgfq": 2}
SCHED_FIFO, SCHED_FGVC, SCHED_FGFQ = 0, 1, 2
# Best-effort messages a node's NIC holds across its VCs (video may add as many): beyond, arrivals are refused
# and the run is flagged unstable.
NIC_MESSAGES = 1 << 13
# Best-effort Vtick when the router's is None: beyond any real-time stamp (strict priority, §III-D).
BE_VTICK = 1e12
# The FIFO NIC's tie-break between messages created in the same cycle: the one with fewer flits sent first.
FIFO_TICK = 1e-9


class Tab(NamedTuple):
    """The wiring and routing tables of :mod:`switchq.models.topology`, and which links go up a stage."""
    out_switch: np.ndarray      # per output link, the switch it feeds (TO_NODE, UNWIRED)
    out_input: np.ndarray       # ... and that switch's input (a node link: the node)
    route: np.ndarray           # (switch, destination) -> route group
    groups: np.ndarray          # (switch, group) -> mask of the outputs it may take
    up: np.ndarray              # per output link, 1 if it goes up a stage


class Sw(NamedTuple):
    """A paper-000 switch (:class:`~switchq.models.flit.FlitSwitch`) and its links, as scalars."""
    org: int                    # buffer organisation (ORG)
    k: int                      # ports
    cap: int                    # flits an input buffer holds (central: its input FIFO)
    part_cap: int               # SAFC: flits a partition holds
    n_chunks: int               # HIPIQS: k-flit chunks of an input's shared buffer
    xp_cap: int                 # HIPIQS: flits of a pair's FIFO unit
    c_chunks: int               # central: chunks of the shared buffer
    c_up_chunks: int            # ... that queues for up ports may hold
    c_whole: int                # central admission: 1 all the packet's chunks free, 0 one
    bypass: int                 # cycles a header waits with nothing ahead of it (Pipe 1)
    buffered: int               # ... stored behind another packet (Pipe 3)
    link_delay: int             # cycles a flit takes on a link
    rnd: int                    # arbitration: 1 random, 0 round robin
    up_output: int              # adaptive routing by the output's load (1) or the input queue's (0)
    fifo_arrival: int           # FIFO routed on arrival (1) or at the head (0)
    credit_delay: int           # cycles before a freed place can be used upstream (0: at once)
    routing_age: int            # cycles old the queue lengths the adaptive choice reads are (0: current)
    mem_rows: int               # rows the entry, packet and message pools may grow to in the memory available


class Tr(NamedTuple):
    """The message workload of a paper-000 network (:class:`~switchq.models.flit.MessageTraffic`)."""
    p_msg: float                # message starts per node per cycle
    poisson: int                # 1 Poisson starts, 0 Bernoulli
    msg_flits: int
    pkt_flits: int
    perm: np.ndarray            # a permutation's destinations (perm[0] < 0: uniform)
    uniform_all: int            # uniform over all nodes (1) or the others (0)
    active: np.ndarray          # 1 for nodes that send


class Vc(NamedTuple):
    """A virtual-channel router (:class:`~switchq.models.wormhole.WormholeRouter`) and its workload, as scalars."""
    k: int                      # ports per router
    m: int                      # VCs per link
    cap: int                    # flits a VC buffer holds
    rmask: int                  # a VC buffer's ring length - 1
    body_wait: int              # cycles a body flit waits after arriving (stages before the crossbar)
    header_extra: int           # ... and a header more (routing, arbitration)
    credit: int                 # cycles a credit takes back upstream
    link: int                   # cycles on a link
    full: int                   # crossbar: 1 full, 0 multiplexed
    sched: int                  # SCHED_*
    per_message: int            # auxVC reset by each header
    be_vtick: float             # best effort's Vtick
    m_rt: int                   # real-time VCs (best effort's are m_rt..m - 1)
    be_rate: float              # best-effort messages per node per cycle
    be_all: int                 # best effort to all nodes (1) or the others (0)
    msg_flits: int
    nic_messages: int           # best-effort messages a NIC holds
    iterations: int             # multiplexed crossbar's matching iterations
    b_stamp: int                # crossbar output B takes the smallest stamp (1) or the oldest (0)
    be_free: int                # best effort takes free VCs on the way (1) or drawn ones (0)
    be_bits: int                # the best-effort VCs as a mask
    be_flat: int                # best effort stamped be_vtick + arrival
    regulated: int              # a frame's messages spread by the regulator (1) or all due as it starts (0)


class Va(NamedTuple):
    """The video streams of a VC run: StreamFrames' CSR table with the placement's columns (``frame_done``
    is written by the kernel)."""
    st_off: np.ndarray          # stream i's frames are rows st_off[i]..st_off[i + 1] - 1
    st_src: np.ndarray
    st_dest: np.ndarray
    st_ivc: np.ndarray          # its input VC at the NIC
    st_dvc: np.ndarray          # its VC on router outputs
    f_start: np.ndarray         # per frame, its first message's cycle
    f_msgs: np.ndarray          # ... messages
    f_last: np.ndarray          # ... its last message's flits
    f_spacing: np.ndarray       # ... cycles between its messages
    frame_done: np.ndarray      # ... the cycle it was delivered (-1: never)
# The cut-through kernel's copy of an entry's packet destination (its free field): read where a header is
# routed without going through the packet record.
E_DEST = 15
