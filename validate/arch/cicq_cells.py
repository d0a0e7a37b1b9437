"""The line cards' cell memory of the buffered crossbar (paper 002 §2-§3): one pool of cells shared by all flows.

A flow's cells at its line card, from the oldest not yet acknowledged to the newest arrived, are a ring indexed
by sequence number (R4 and R7 resend a cell by its number; the output reads a delivered cell's arrival by it).
The ring is a block of the pool the flow owns only while it holds cells: :data:`cicq_state.C0` cells when its
first cell arrives, twice as many each time it fills (:func:`make_room`, copying its cells), given back when
its last cell is acknowledged (:func:`release`); its next cell takes back a block of the size it gave (a burst
does not grow it again, copying, from C0). Free blocks wait on a list per size for the next flow to need
one, else a block is carved from the pool's unused rows. Before each slot's arrivals the pool keeps a reserve of
unused rows for the largest blocks they could take (:func:`short_of_reserve`; the slot loop then stops and
the pool doubles, :func:`grow_pool`), so the pool array is never replaced inside the slot loop.

Why: a ring per flow of the most it may hold (``storage``, 1024 cells and more) is N^2 P x 40 KB and more,
43 GB at 1024 ports (issue 38), nearly all of it never touched. The pool's rows are, for each block size, the most
blocks of that size owned at once; a flow owns one only while it holds cells, of at most twice the most cells
it has held (C0 at least). Memory follows the cells in the switch, as a line card's shared memory does.
Nothing is allocated in the slot loop except when the pool doubles, and the reserve's rows are never written
(nor, allocated by ``np.empty``, given pages) until used. Where the blocks lie changes no number: the cells,
their order and the random draws are those of the rings they replace.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cicq_state import ACKED, BASE, C0, CELL_FIELDS, H_LARGEST, H_NEED, H_TOP, RING, TAIL

__all__ = ["at", "make_room", "release", "reserve_rows", "short_of_reserve", "grow_pool"]


@njit(cache=True, inline="always")
def at(flows, f, s):
    """The pool row holding cell ``s`` (sequence number) of flow ``f``, which owns a block."""
    return flows[BASE, f] + (s & flows[RING, f])


@njit(cache=True, inline="always")
def _size_class(cells_in_block):
    """k of a block of C0 << k cells."""
    k = 0
    while (C0 << k) < cells_in_block:
        k += 1
    return k


@njit(cache=True, inline="always")
def _give_block(cells, heap, first, size):
    """The block of ``size`` cells at row ``first`` back on its free list (its first cell keeps the next)."""
    k = _size_class(size)
    cells[first, 0] = heap[k]
    heap[k] = first


@njit(cache=True, inline="always")
def release(cells, flows, heap, f):
    """Flow ``f`` has no cell left to acknowledge: its block goes back to the pool."""
    size = flows[RING, f] + 1
    _give_block(cells, heap, flows[BASE, f], size)
    flows[RING, f] = -size      # no block; the size it takes back with its next cell


@njit(cache=True, inline="always")
def reserve_rows(sw, heap):
    """Unused rows the pool keeps before a slot's arrivals: each input's one cell may carve its flow a block
    twice the largest yet (a flow takes back the size it gave, or doubles its own), never past ``sw.storage``."""
    return sw.n_ports * min(sw.storage, 2 * heap[H_LARGEST])


@njit(cache=True, inline="always")
def short_of_reserve(sw, cells, heap):
    """Whether the pool has fewer than :func:`reserve_rows` unused rows (checked before a slot's arrivals)."""
    return cells.shape[0] - heap[H_TOP] < reserve_rows(sw, heap)


@njit(cache=True)
def grow_pool(sw, cells, heap):
    """The pool grown to keep its reserve (:func:`_grow`; ``heap[H_NEED]`` set if it would pass
    ``sw.pool_limit``)."""
    return _grow(sw, cells, heap, heap[H_TOP] + reserve_rows(sw, heap))


@njit(cache=True)
def _grow(sw, cells, heap, need):
    """The pool with at least ``need`` rows: twice its size (more if a block needs it), its carved rows copied,
    or, if that and the old pool together pass ``sw.pool_limit`` rows, the largest that fits beside it. If even
    that is short of ``need``, ``cells`` unchanged and ``heap[H_NEED]`` set to the rows the two pools would have
    taken together: the caller stops the run."""
    size = cells.shape[0]
    new = max(2 * size, need)
    if size + new > sw.pool_limit:      # both live while the rows are copied
        new = sw.pool_limit - size
        if new < need:
            heap[H_NEED] = size + need
            return cells
    bigger = np.empty((new, CELL_FIELDS), dtype=np.int64)   # rows are written before read, as in new_state
    bigger[:heap[H_TOP]] = cells[:heap[H_TOP]]
    return bigger


@njit(cache=True, inline="always")
def make_room(sw, cells, flows, heap, f):
    """Flow ``f``'s ring is full, or it has none: give it one twice the size, or, if it has none, of the size it
    gave back (C0 cells at first; never past ``sw.storage``): a free block of that size or one carved from the
    pool's reserve, its cells copied to their places."""
    old = flows[RING, f] + 1
    size = 2 * old if old > 0 else -flows[RING, f]
    k = _size_class(size)
    first = heap[k]
    if first >= 0:
        heap[k] = cells[first, 0]
    else:
        first = heap[H_TOP]
        heap[H_TOP] = first + size
        heap[H_LARGEST] = max(heap[H_LARGEST], size)
    if old > 0:
        base = flows[BASE, f]
        for s in range(flows[ACKED, f], flows[TAIL, f]):
            src = base + (s & (old - 1))
            dst = first + (s & (size - 1))
            for field in range(CELL_FIELDS):
                cells[dst, field] = cells[src, field]
        _give_block(cells, heap, base, old)
    flows[BASE, f] = first
    flows[RING, f] = size - 1
