"""Queues as doubly linked lists through one memory of cells, with its free list: how a shared-memory switch
keeps its queues (issue 37), for the kernels that model one (``shared_buffer``, ``leaf_spine``).

A kernel's cell record has rows NEXT and PREV first (0 and 1), its queue record rows HEAD, TAIL and LEN (0 to
2), and the free list's head is slot 0 of its scalar array ``g``; the rest of each record is the kernel's.
State then grows with the memory asked about, not with the number of queues times it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["NEXT", "PREV", "HEAD", "TAIL", "LEN", "NIL", "FREE", "new_memory", "take", "give", "append", "remove"]

NEXT, PREV = 0, 1           # rows of the cell record
HEAD, TAIL, LEN = 0, 1, 2   # rows of the queue record
FREE = 0                    # the free list's head, in the kernel's scalars
NIL = -1


@njit(cache=True)
def new_memory(rows, size, queues, queue_rows):
    """A memory of ``size`` cells (``rows`` int64 rows each), all on the free list, and ``queues`` empty queues."""
    cells = np.zeros((rows, size), dtype=np.int64)
    cells[NEXT, :] = np.arange(1, size + 1)
    cells[NEXT, size - 1] = NIL
    qs = np.zeros((queue_rows, queues), dtype=np.int64)
    qs[HEAD, :] = NIL
    qs[TAIL, :] = NIL
    return cells, qs


@njit(cache=True, inline="always")
def take(cells, g):
    """The free list's first cell, taken off it."""
    c = g[FREE]
    g[FREE] = cells[NEXT, c]
    return c


@njit(cache=True, inline="always")
def give(cells, g, c):
    """Cell ``c`` back on the free list."""
    cells[NEXT, c] = g[FREE]
    g[FREE] = c


@njit(cache=True)
def append(cells, qs, q, c):
    """Cell ``c`` joins the tail of queue ``q``."""
    cells[NEXT, c] = NIL
    cells[PREV, c] = qs[TAIL, q]
    if qs[TAIL, q] == NIL:
        qs[HEAD, q] = c
    else:
        cells[NEXT, qs[TAIL, q]] = c
    qs[TAIL, q] = c
    qs[LEN, q] += 1


@njit(cache=True)
def remove(cells, qs, q, c):
    """Cell ``c`` leaves queue ``q``, wherever it is in it (the head as a cell is sent, the tail as pushout
    drops it)."""
    nxt, prv = cells[NEXT, c], cells[PREV, c]
    if prv == NIL:
        qs[HEAD, q] = nxt
    else:
        cells[NEXT, prv] = nxt
    if nxt == NIL:
        qs[TAIL, q] = prv
    else:
        cells[PREV, nxt] = prv
    qs[LEN, q] -= 1
