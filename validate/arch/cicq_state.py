"""The buffered crossbar's state (paper 002, Minkenberg & Gusat §2-§5): counters, cell states, records.

:mod:`switchq.validate.arch.cicq` runs the slots; :mod:`switchq.validate.arch.cicq_phases` holds the steps
of a slot. They share what is here: the counter layout, the cell states at the line card, the message kinds
on a row's NAK lane, and the packed arrays the phases read and write (:func:`new_state`: a CicqState,
named fields of int64 arrays with named rows), so a phase takes one record and unpacks a few arrays.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .. import kernel as K

# Per-priority latencies (priority 0 first), then the flow-control counters, after the core ones.
LAYOUT = K.Layout((*(f"m_latency_sum_p{p}" for p in range(4)), *(f"m_latency_count_p{p}" for p in range(4)),
                   "transmissions",               # cells put on the links (all slots, as those below)
                   "speculative_transmissions",
                   "retransmissions",             # credited resends (after a NAK, or of a speculative cell)
                   "naks",                        # cells dropped at a crosspoint (full, out of order, replaced)
                   "duplicates",                  # duplicate copies dropped silently
                   "replacements",                # cells replaced by higher-priority arrivals
                   "order_errors",                # cells delivered out of order or twice (must stay 0)
                   "credit_min", "credit_max",    # smallest and largest credit count seen
                   "retransmission_max",          # largest retransmission-buffer occupancy seen
                   "credited_drops",              # credited cells dropped for lack of room (must stay 0)
                   "out_of_order_drops",          # cells dropped (NAKed) for arriving out of order
                   "credits_out"))                # credits not back at the end (0 once a run has drained)
(LAT_SUM_P, LAT_COUNT_P, TRANSMISSIONS, SPECULATIVE, RETRANSMISSIONS, NAKS, DUPLICATES, REPLACEMENTS, ORDER_ERRORS, CREDIT_MIN,
 CREDIT_MAX, RTX_MAX, CREDITED_DROPS, OUT_OF_ORDER, CREDITS_OUT) = (LAYOUT.index(name) for name in (
    "m_latency_sum_p0", "m_latency_count_p0", "transmissions", "speculative_transmissions", "retransmissions", "naks", "duplicates",
    "replacements", "order_errors", "credit_min", "credit_max", "retransmission_max", "credited_drops",
    "out_of_order_drops", "credits_out"))

# Cell states at the line card.
UNSENT = 0
SPEC = 1     # sent speculatively once, unacknowledged, no credited copy since
CRED = 2     # a credited copy is outstanding
NAKED = 3    # negatively acknowledged, waiting for a credited retransmission

# Message kinds on the NAK lane.
NO_MSG = 0
NAK = 1          # the cell was dropped on arrival (full or out of order)
DUP_CREDIT = 2   # a duplicate was dropped silently; only its credit comes back
REPLACED = 3     # the cell, once accepted, was replaced by a higher-priority one

# The crossbar as the kernel sees it.
# ``storage``: the most cells a flow may hold at its line card (a power of two; a cell finding it full is refused,
# see :func:`enqueue_arrivals`); ``pool_limit``: the most cells the line cards' pool may take, while it grows
# (:mod:`switchq.validate.arch.cicq_cells`), from the memory available.
CicqArgs = namedtuple("CicqArgs", "n_ports priorities q_r data_delay credit_delay sfc speculate eager rtx_limit "
                                  "replacement lqf storage pool_limit")

# Flows are numbered f = (i * n + j) * P + p (input i, output j, priority p); crosspoints x = i * n + j = f // P.
# The state is a few int64 arrays, each a record of named rows (``flows[TAIL, f]``) or fields
# (``cells[c, C_STATE]``), so a phase unpacks a few arrays, never tens.
# cells (row, field): the line cards' cells, one pool for all flows (:mod:`switchq.validate.arch.cicq_cells`):
# a flow holding cells owns a block of it, a ring indexed by sequence number (cell seq s of flow f at row
# flows[BASE, f] + (s & flows[RING, f]), :func:`cicq_cells.at`), twice as large each time it fills and given
# back when the flow has nothing left to acknowledge. A ring per flow of the most it may hold was 40 KB a flow,
# 43 GB at 1024 ports (issue 38). A cell's fields side by side (measured: 15 % faster than field-major):
# arrival slot, its burst's first slot, last of burst 1/0, state (UNSENT ...), copies sent.
C_ARRIVAL, C_FIRST, C_LAST, C_STATE, C_COPY = range(5)
CELL_FIELDS = 5
# flows (row, f) per flow, and (row, x) per crosspoint for the last two rows. Line card: next seq to assign,
# every seq below acknowledged, every seq below sent at least once, no seq below needing a credited resend,
# the §6.2 speculation block (-1: none), its block of the pool (first row, and its size - 1; with no block, minus
# the size its next cell takes). Crosspoint: next in-order seq it accepts, next seq the output must see, its ring's
# head and length. Per crosspoint: the line card's credits for it, the cells it holds.
(TAIL, ACKED, SENT_HW, RETX_PTR, BLOCK_SEQ, BASE, RING, EXPECTED, DELIV_NEXT, XP_HEAD, XP_LEN, CREDITS,
 XP_TOTAL) = range(13)
FLOW_ROWS = 13
# ports (row, port): per input its retransmission-buffer occupancy and round-robin pointer; per output its
# round-robin pointer; per row its ACK queue's head and length; per source last slot's burst destination
# (-1: idle), the burst's first slot and priority.
# Row EXTREMES holds the running extremes (EXT_*), written to the counters at the end.
RTX_COUNT, RR_IN, RR_OUT, ACKQ_HEAD, ACKQ_LEN, PREV_BURST, BURST_FIRST, BURST_PRIO, EXTREMES = range(9)
PORT_ROWS = 9
EXT_CREDIT_MIN, EXT_CREDIT_MAX, EXT_RTX_MAX = range(3)
# masks (port, word), 64 ports a word, so the arbiters visit only what may have a cell: row i < n the outputs whose
# flows (any priority) may have a cell unsent or due for a resend at input i (a superset: a bit is set whenever
# that becomes true and cleared when a scan finds it false); row n + j the inputs whose crosspoint holds a cell
# for output j.
# xp (row, f, position): each flow's ring at its crosspoint (Q_R cells at most per crosspoint, shared by its
# priorities): the cells' seq and copy.
XP_SEQ, XP_COPY = range(2)
# links (row, i, position): row i's data delay line (delta_d + 1 places, one cell a slot: flow (-1: none), seq,
# copy, credited 1/0) and its ACK and NAK lanes (delta_c places).
DATA_FLOW, DATA_SEQ, DATA_COPY, DATA_CREDITED, ACK_FLOW, ACK_SEQ, NAK_KIND, NAK_FLOW, NAK_SEQ, NAK_COPY = range(10)
# ackq (row, i, position): the ACKs waiting at row i for their lane (§6.1: one a row a slot).
AQ_FLOW, AQ_SEQ = range(2)
# heap (slot): the pool's free lists, one per block size (C0 << k cells: the head block's first row, -1: empty; a
# free block keeps the next one's row in its first cell), the rows carved from the pool so far (H_TOP), the
# rows a run needed beyond ``pool_limit`` (H_NEED, 0: none; the run stops there) and the largest block handed
# out (H_LARGEST: a slot's arrivals take at most twice that each, :func:`cicq_cells.reserve_rows`).
C0 = 4                     # the smallest block: a flow's first cells
CLASSES = 56               # block sizes C0 << k, k < CLASSES (up to 2^57 cells: past any flow's storage)
H_TOP, H_NEED, H_LARGEST = CLASSES, CLASSES + 1, CLASSES + 2
HEAP_SIZE = CLASSES + 3
# The pool's first size: a few blocks an input, grown by doubling as the flows holding cells need more.
FIRST_POOL_BLOCKS = 8
# The whole state; burst and arrivals are the sources' (:func:`kernel.sources`).
CicqState = namedtuple("CicqState", "cells flows ports masks xp links ackq heap burst arrivals")


@njit(cache=True, inline="always")
def new_state(sw):
    """Empty switch, all credits home: the CicqState of ``sw`` (CicqArgs)."""
    n, P, q_r, dd, dc = sw.n_ports, sw.priorities, sw.q_r, sw.data_delay, sw.credit_delay
    X = n * n
    F = X * P
    # Not zeroed: every field of a cell is written as it arrives, before any is read.
    cells = np.empty((first_pool_cells(n), CELL_FIELDS), dtype=np.int64)
    flows = np.zeros((FLOW_ROWS, F), dtype=np.int64)
    flows[BLOCK_SEQ] = -1
    flows[RING] = -min(C0, sw.storage)
    flows[CREDITS, :X] = q_r
    ports = np.zeros((PORT_ROWS, max(n, 3)), dtype=np.int64)
    ports[PREV_BURST] = -1
    ports[EXTREMES, EXT_CREDIT_MIN] = q_r
    ports[EXTREMES, EXT_CREDIT_MAX] = q_r
    masks = np.zeros((2 * n, (n + 63) >> 6), dtype=np.int64)
    xp = np.zeros((2, F, K.pow2_at_least(q_r)), dtype=np.int64)
    links = np.zeros((10, n, max(dd + 1, dc)), dtype=np.int64)
    links[DATA_FLOW] = -1
    links[ACK_FLOW] = -1
    ackq = np.zeros((2, n, K.pow2_at_least(n * q_r + 2)), dtype=np.int64)
    heap = np.full(HEAP_SIZE, -1, dtype=np.int64)
    heap[H_TOP] = 0
    heap[H_NEED] = 0
    heap[H_LARGEST] = min(C0, sw.storage)
    burst, arrivals = K.sources(n)
    return CicqState(cells=cells, flows=flows, ports=ports, masks=masks, xp=xp, links=links, ackq=ackq, heap=heap,
                     burst=burst, arrivals=arrivals)


@njit(cache=True)
def first_pool_cells(n):
    """Rows of the line cards' pool at the start: :data:`FIRST_POOL_BLOCKS` smallest blocks an input and the
    reserve of a slot's arrivals (:func:`cicq_cells.reserve_rows`, 2 C0 an input at first)."""
    return K.pow2_at_least((FIRST_POOL_BLOCKS + 2) * C0 * n)


def start_bytes(sw) -> dict:
    """Bytes of each array :func:`new_state` allocates for ``sw`` (CicqArgs), by what it holds: the figure a run
    needs before its line cards hold a cell (the pool then grows with the cells held, within ``sw.pool_limit``)."""
    n, P = sw.n_ports, sw.priorities
    F = n * n * P
    words = {"flows": FLOW_ROWS * F,
             "crosspoints": 2 * F * int(K.pow2_at_least(sw.q_r)),
             "ack_queues": 2 * n * int(K.pow2_at_least(n * sw.q_r + 2)),
             "line_card_pool": int(first_pool_cells(n)) * CELL_FIELDS,
             "other": PORT_ROWS * max(n, 3) + 2 * n * ((n + 63) >> 6) + 10 * n * max(sw.data_delay + 1, sw.credit_delay)
             + HEAP_SIZE + 2 * n}
    return {k: 8 * v for k, v in words.items()}
