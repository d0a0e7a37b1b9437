"""The binary event heap of the event-driven kernels (integer times; paper 001's circuits, paper 004's streams).

A min-heap on time kept in two preallocated arrays (times, codes) and a
one-element size array, so nothing allocates while events come and go. An
event whose successor is known when it is handled (an adapter's next
attempt, paper 001 §2.1) replaces the top in one sift-down
(:func:`heap_replace_top`) instead of a pop and a push.
"""

from __future__ import annotations

from numba import njit

__all__ = ["heap_push", "heap_pop", "heap_replace_top"]


@njit(cache=True)
def heap_push(heap_t, heap_c, size, t, code):
    """Insert (t, code) into the binary min-heap on t; ``size`` is a 1-element array. False if full."""
    i = size[0]
    if i >= heap_t.shape[0]:
        return False
    size[0] = i + 1
    while i > 0 and heap_t[(i - 1) >> 1] > t:     # sift up past later parents
        parent = (i - 1) >> 1
        heap_t[i], heap_c[i] = heap_t[parent], heap_c[parent]
        i = parent
    heap_t[i], heap_c[i] = t, code
    return True


@njit(cache=True, inline="always")
def heap_replace_top(heap_t, heap_c, n, t, code):
    """Put (t, code) in place of the top of the ``n``-event heap (the event just handled) and sift it down."""
    i = 0
    child = 1
    while child < n:     # sift down past earlier children, the earlier of two first
        if child + 1 < n and heap_t[child + 1] < heap_t[child]:
            child += 1
        if heap_t[child] >= t:
            break
        heap_t[i], heap_c[i] = heap_t[child], heap_c[child]
        i = child
        child = 2 * i + 1
    heap_t[i], heap_c[i] = t, code


@njit(cache=True)
def heap_pop(heap_t, heap_c, size):
    """Remove and return the earliest (t, code); the caller has checked the heap is not empty.

    >>> import numpy as np
    >>> t, c, size = np.zeros(4, np.int64), np.zeros(4, np.int64), np.zeros(1, np.int64)
    >>> for x in (30, 10, 20):
    ...     _ = heap_push(t, c, size, x, x // 10)
    >>> [tuple(int(v) for v in heap_pop(t, c, size)) for _ in range(3)]
    [(10, 1), (20, 2), (30, 3)]
    """
    t = heap_t[0]
    code = heap_c[0]
    n = size[0] - 1
    size[0] = n
    if n > 0:
        heap_replace_top(heap_t, heap_c, n, heap_t[n], heap_c[n])
    return t, code
