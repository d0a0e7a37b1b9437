"""Who goes first: round robins, request-grant-accept matching of VOQs, and central control's random pick.

- Round robin: the port after a pointer, and a walk over a set of ports
  kept as 64-bit words in round-robin order (paper 002's arbiters).
- VOQ matching (paper 000 §2.1): PIM (Anderson, Owicki, Saxe & Thacker
  1993), random grants and accepts; iSLIP (McKeown 1999), round-robin
  grants and accepts from per-port pointers.
- Central control (paper 001 §2.1): each output, in a random order, picks
  uniformly one of the cells addressed to it at inputs still free.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

__all__ = ["rr_next", "rr_at", "rotated_word", "rotated_members", "pop_member", "matching_state", "match_voqs",
           "shuffle", "draw_free", "MATCH_PIM", "MATCH_ISLIP"]

MATCH_PIM = 0      # Anderson, Owicki, Saxe & Thacker 1993: random grants, random accepts
MATCH_ISLIP = 1    # McKeown 1999: round-robin grants and accepts from per-port pointers


@njit(cache=True, inline="always")
def rr_at(start, k, n):
    """Step ``k`` (0 .. n - 1) of a round robin over ``n`` ports from ``start``."""
    i = start + k
    return i - n if i >= n else i


@njit(cache=True, inline="always")
def rr_next(i, n):
    """The port after ``i`` in round-robin order."""
    return i + 1 if i + 1 < n else 0


@njit(cache=True, inline="always")
def rotated_word(step, start, n_words):
    """Step ``step`` (0 .. n_words) of a round-robin walk over a set kept as ``n_words`` 64-bit words, from
    bit ``start`` up and around: the word to read and the bits of it this step covers. Walking the set bits
    of ``word & bits`` for each step in turn visits members in the order ``start, start + 1, ...`` mod the size.

    >>> [rotated_word(s, 70, 2) for s in range(3)] == [(1, -1 << 6), (0, -1), (1, (1 << 6) - 1)]
    True
    """
    w0 = start >> 6
    if step == 0:
        return w0, -1 << (start & 63)
    if step < n_words:
        w = w0 + step
        return (w - n_words if w >= n_words else w), -1
    return w0, (1 << (start & 63)) - 1


@njit(cache=True, inline="always")
def rotated_members(step, start, sets, row):
    """Step ``step`` of the round-robin walk from ``start`` (:func:`rotated_word`) over set ``row`` of ``sets``
    (a row a set, 64 members a word): the word it reads and the members there this step visits."""
    w, bits = rotated_word(step, start, sets.shape[1])
    return w, bits & sets[row, w]


@njit(cache=True, inline="always")
def pop_member(w, bits):
    """The lowest member among ``bits`` of word ``w`` of a set, and the bits left after it."""
    return (w << 6) + trailing_zeros(bits), bits & (bits - 1)


@njit(cache=True)
def matching_state(n):
    """Fresh :func:`match_voqs` state of an ``n``-port switch (pointers at 0, nothing matched)."""
    return (np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.full(n, -1, dtype=np.int64),
            np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64))


@njit(cache=True)
def match_voqs(q_len, n, matching, iterations, state):
    """One request-grant-accept matching of inputs to outputs over VOQ lengths ``q_len[i * n + j]``.

    ``state = (grant_ptr, accept_ptr, in_match, out_match, grant)``: iSLIP's
    pointers (kept across calls), the match (``in_match[i]``: output of input
    i, ``out_match[j]``: input of output j; -1 free; the caller clears them,
    or marks an output it must not grant with any value >= 0) and scratch.
    PIM: each unmatched output grants a requesting unmatched input at
    random, each input accepts a grant at random. iSLIP: both round robin
    from pointers that move one past the partner only when a grant is
    accepted in the first iteration (which desynchronises them under load).
    """
    grant_ptr, accept_ptr, in_match, out_match, grant = state
    # One scan per phase for both rules: iSLIP keeps the first eligible port from its pointer, PIM each with
    # probability 1 / c (reservoir sampling: the one kept is uniform over all c). Scanning PIM's ports as
    # rr_at(0, k, n) and deciding through one shared test cost PIM 12-17 % (VOQ 32x32, 4 iterations).
    islip = matching == MATCH_ISLIP
    for it in range(iterations):
        # Grant: each unmatched output picks among unmatched inputs with a cell for it.
        any_grant = False
        for j in range(n):
            grant[j] = -1
            if out_match[j] >= 0:
                continue
            c = 0
            for k in range(n):
                i = rr_at(grant_ptr[j], k, n) if islip else k
                if in_match[i] < 0 and q_len[i * n + j] > 0:
                    if islip:
                        grant[j] = i
                        break
                    c += 1
                    if np.random.random() * c < 1.0:
                        grant[j] = i
            if grant[j] >= 0:
                any_grant = True
        if not any_grant:
            break
        # Accept: each input that got grants picks one output.
        for i in range(n):
            if in_match[i] >= 0:
                continue
            pick = -1
            c = 0
            for k in range(n):
                j = rr_at(accept_ptr[i], k, n) if islip else k
                if grant[j] == i:
                    if islip:
                        pick = j
                        break
                    c += 1
                    if np.random.random() * c < 1.0:
                        pick = j
            if pick >= 0:
                in_match[i] = pick
                out_match[pick] = i
                if islip and it == 0:
                    accept_ptr[i] = rr_next(pick, n)
                    grant_ptr[pick] = rr_next(i, n)


@njit(cache=True, inline="always")
def shuffle(order, m):
    """Put the first ``m`` entries of ``order`` in a uniformly random order (Fisher-Yates; m - 1 draws)."""
    for a in range(m - 1, 0, -1):
        b = int(np.random.random() * (a + 1))
        order[a], order[b] = order[b], order[a]


@njit(cache=True, inline="always")
def draw_free(cand_input, cand_other, bucket_start, j, mark, stamp):
    """Central control's pick for output ``j``: one of its candidates (``bucket_start[j]`` up to
    ``bucket_start[j + 1]``) drawn uniformly among those whose input is free (``mark[input] != stamp``), and
    its input marked taken; its position, or -1 if no input is free.

    A candidate found taken is swapped (with its ``cand_other`` entry) to the end of the range and the range
    shortened, so every draw is uniform over the candidates still eligible.
    """
    lo = bucket_start[j]
    hi = bucket_start[j + 1]
    while hi > lo:
        y = lo + int(np.random.random() * (hi - lo))
        if mark[cand_input[y]] != stamp:
            mark[cand_input[y]] = stamp
            return y
        hi -= 1
        cand_input[y], cand_input[hi] = cand_input[hi], cand_input[y]
        cand_other[y], cand_other[hi] = cand_other[hi], cand_other[y]
    return -1
