"""Who goes first: round robins, request-grant-accept matching of VOQs, and central control's random pick.

- Round robin: the port after a pointer, and a walk over a set of ports
  kept as 64-bit words in round-robin order (paper 002's arbiters).
- VOQ matching (paper 000 §2.1): PIM (Anderson, Owicki, Saxe & Thacker
  1993), random grants and accepts; iSLIP (McKeown 1999), round-robin
  grants and accepts from per-port pointers. :func:`match_words` keeps the
  request and grant sets as 64-bit words (what the kernels run);
  :func:`match_voqs` scans every VOQ, the reference it is tested against.
- Central control (paper 001 §2.1): each output, in a random order, picks
  uniformly one of the cells addressed to it at inputs still free.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core.extending import intrinsic
from numba.cpython.unsafe.numbers import trailing_zeros

__all__ = ["rr_next", "rr_at", "rotated_word", "rotated_members", "pop_member", "matching_state", "match_voqs",
           "word_matching_state", "match_words", "request", "withdraw", "bit_count", "shuffle", "draw_free",
           "MATCH_PIM", "MATCH_ISLIP", "GRANT_PTR", "ACCEPT_PTR", "IN_MATCH", "OUT_MATCH"]

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


@intrinsic
def bit_count(typingctx, src):
    """Number of set bits of an integer (LLVM's ctpop: one instruction where the CPU has it)."""
    if not isinstance(src, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return src(src), codegen


# Rows of a word matching's port record (word_matching_state).
GRANT_PTR, ACCEPT_PTR, IN_MATCH, OUT_MATCH = range(4)


@njit(cache=True)
def word_matching_state(n):
    """Fresh :func:`match_words` state of an ``n``-port switch: ``(ports, sets)``.

    ``ports`` (4 x n): iSLIP's grant and accept pointers (rows ``GRANT_PTR``,
    ``ACCEPT_PTR``, at 0) and the match (``IN_MATCH``: output of each input,
    ``OUT_MATCH``: input of each output; -1 free). ``sets`` (2n + 2 rows of
    ceil(n / 64) words): rows 0 .. n - 1 the requests to each output (inputs
    whose VOQ for it holds a cell, kept by the caller with :func:`request`
    and :func:`withdraw`), then the matching's scratch: the grants each input
    got, the unmatched inputs, the inputs granted.
    """
    ports = np.zeros((4, n), dtype=np.int64)
    ports[IN_MATCH] = -1
    ports[OUT_MATCH] = -1
    return ports, np.zeros((2 * n + 2, (n + 63) >> 6), dtype=np.int64)


@njit(cache=True, inline="always")
def request(sets, j, i):
    """Input ``i`` has a cell for output ``j``."""
    sets[j, i >> 6] |= 1 << (i & 63)


@njit(cache=True, inline="always")
def withdraw(sets, j, i):
    """Input ``i`` has no cell left for output ``j``."""
    sets[j, i >> 6] &= ~(1 << (i & 63))


@njit(cache=True, inline="always")
def _first_bit(bits, start):
    """The first member of the one-word set ``bits`` from ``start`` in round-robin order, or -1."""
    high = bits & (-1 << start)
    if high:
        return trailing_zeros(high)
    return trailing_zeros(bits) if bits else -1


@njit(cache=True)
def _first_member(sets, row, mask_row, start):
    """The first member of ``sets[row] & sets[mask_row]`` from ``start`` in round-robin order, or -1."""
    nw = sets.shape[1]
    for step in range(nw + 1):
        w, bits = rotated_word(step, start, nw)
        bits &= sets[row, w] & sets[mask_row, w]
        if bits:
            return (w << 6) + trailing_zeros(bits)
    return -1


def _select_in_byte():
    """``table[r * 256 + b]``: the position of the r-th (from 0) set bit of byte ``b``."""
    table = np.zeros(8 * 256, dtype=np.int64)
    for b in range(256):
        ones = [p for p in range(8) if b >> p & 1]
        for r, p in enumerate(ones):
            table[r * 256 + b] = p
    return table


SELECT_IN_BYTE = _select_in_byte()
_ONES_8 = 0x0101010101010101             # 1 in every byte
_HIGH_8 = -0x7F7F7F7F7F7F7F80            # 0x80 in every byte, as an int64


@njit(cache=True, inline="always")
def select_member(x, k):
    """The position of member ``k`` (from 0, in index order) of the 64-bit set ``x``, ``k`` < its size.

    Broadword (Vigna, "Broadword implementation of rank/select queries", 2008): byte counts and their prefix
    sums in one multiply find the byte, a table the bit. No branch depends on ``k``: a loop clearing k members
    mispredicts its exit on a random k, 43 ns a pick among 32 members against 12 ns, the draw included.

    >>> [select_member(0b1011000, k) for k in range(3)]
    [3, 4, 6]
    """
    s = x - ((x >> 1) & 0x5555555555555555)
    s = (s & 0x3333333333333333) + ((s >> 2) & 0x3333333333333333)
    s = (s + (s >> 4)) & 0x0F0F0F0F0F0F0F0F
    sums = s * _ONES_8                  # byte b: members in bytes 0 .. b
    place = bit_count((((k * _ONES_8) | _HIGH_8) - sums) & _HIGH_8) * 8   # bytes whose sum <= k, x 8
    rank = k - (((sums << 8) >> place) & 0xFF)
    return place + SELECT_IN_BYTE[(rank << 8) | ((x >> place) & 0xFF)]


@njit(cache=True, inline="always")
def _random_bit(bits):
    """A member of the one-word set ``bits`` drawn uniformly (the k-th in index order, k from one draw; no draw
    for a lone member), or -1 if it is empty."""
    c = bit_count(bits)
    if c < 2:
        return trailing_zeros(bits) if c else -1
    return select_member(bits, int(np.random.random() * c))


@njit(cache=True)
def _random_member(sets, row, mask_row):
    """A member of ``sets[row] & sets[mask_row]`` drawn as :func:`_random_bit` draws it, or -1 if there is none."""
    nw = sets.shape[1]
    c = 0
    for w in range(nw):
        c += bit_count(sets[row, w] & sets[mask_row, w])
    if c == 0:
        return -1
    k = int(np.random.random() * c) if c > 1 else 0
    for w in range(nw):
        bits = sets[row, w] & sets[mask_row, w]
        m = bit_count(bits)
        if k < m:
            return (w << 6) + select_member(bits, k)
        k -= m
    return -1


@njit(cache=True)
def match_words(ports, sets, n, matching, iterations):
    """One request-grant-accept matching of inputs to outputs, as :func:`match_voqs`, over request sets kept as
    words (``(ports, sets)`` of :func:`word_matching_state`; the caller clears the match rows, or marks an output
    it must not grant with any value >= 0).

    PIM: each unmatched output grants a requesting unmatched input at random,
    each input accepts a grant at random, one draw a pick among two or more
    (the k-th candidate in index order; :func:`match_voqs` draws once per
    candidate: the same law from another stream). iSLIP: both round robin
    from pointers that move one past the partner only when a grant is
    accepted in the first iteration; the same matches and pointers as
    :func:`match_voqs`. Costs O(n x words) an iteration, where scanning the
    VOQs costs O(n^2).
    """
    nw = sets.shape[1]
    free = 2 * n          # the unmatched inputs
    granted = free + 1    # the inputs granted in this iteration
    islip = matching == MATCH_ISLIP
    # Rows are indexed in place, never taken as views: a view is reference-counted (an atomic add and
    # subtract per use), which cost more than the matching itself.
    for w in range(nw):
        sets[free, w] = 0
    for i in range(n):
        if ports[IN_MATCH, i] < 0:
            sets[free, i >> 6] |= 1 << (i & 63)
    for it in range(iterations):
        # Grant: each unmatched output picks among unmatched inputs with a cell for it.
        any_grant = False
        for j in range(n):
            if ports[OUT_MATCH, j] >= 0:
                continue
            if nw == 1:
                bits = sets[j, 0] & sets[free, 0]
                i = _first_bit(bits, ports[GRANT_PTR, j]) if islip else _random_bit(bits)
            else:
                i = _first_member(sets, j, free, ports[GRANT_PTR, j]) if islip else _random_member(sets, j, free)
            if i >= 0:
                sets[n + i, j >> 6] |= 1 << (j & 63)
                sets[granted, i >> 6] |= 1 << (i & 63)
                any_grant = True
        if not any_grant:
            break
        # Accept: each input granted, in index order, picks one output; its grant row is left empty.
        for wi in range(nw):
            todo = sets[granted, wi]
            sets[granted, wi] = 0
            while todo:
                i, todo = pop_member(wi, todo)
                row = n + i
                if nw == 1:
                    bits = sets[row, 0]
                    pick = _first_bit(bits, ports[ACCEPT_PTR, i]) if islip else _random_bit(bits)
                else:
                    pick = _first_member(sets, row, row, ports[ACCEPT_PTR, i]) if islip else \
                        _random_member(sets, row, row)
                for w in range(nw):
                    sets[row, w] = 0
                ports[IN_MATCH, i] = pick
                ports[OUT_MATCH, pick] = i
                sets[free, wi] &= ~(1 << (i & 63))
                if islip and it == 0:
                    ports[ACCEPT_PTR, i] = rr_next(pick, n)
                    ports[GRANT_PTR, pick] = rr_next(i, n)


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
