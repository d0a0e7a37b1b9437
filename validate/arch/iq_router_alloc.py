"""The iq router's allocators (issue 38): iSLIP and the separable input-first and output-first allocators, over a
router's requests as a list of (input, output) pairs, as BookSim2's sparse allocators take them.

Read from the allocators' definitions (McKeown's iSLIP; separable allocation with round-robin arbiters, Dally &
Towles ch. 19) as BookSim2 applies them: every request has the same priority, so an arbiter picks the requester
nearest after its pointer; iSLIP's pointers move only on a grant accepted in the first iteration, one past the
match; a separable allocator's two arbiters move only for a matched pair, one past the winner.

``req`` rows 0 and 1 hold the pairs (``m`` of them); ``match_in`` and ``match_out`` receive the matching (-1:
unmatched); ``work`` is scratch of at least ``max(nin, nout)`` entries. ``in_ptr`` and ``out_ptr`` are the
pointers of the inputs and outputs.
"""

from __future__ import annotations

from numba import njit

ISLIP, SEPARABLE_INPUT_FIRST, SEPARABLE_OUTPUT_FIRST = 0, 1, 2
ALLOCATORS = {"islip": ISLIP, "separable_input_first": SEPARABLE_INPUT_FIRST,
              "separable_output_first": SEPARABLE_OUTPUT_FIRST}


@njit(cache=True, inline="always")
def _after(x, ptr, size):
    """How far ``x`` comes after the pointer ``ptr``, cyclically: the round-robin arbiter's order."""
    d = x - ptr
    return d + size if d < 0 else d


@njit(cache=True)
def islip(req, m, nin, nout, in_ptr, out_ptr, iters, match_in, match_out, work):
    """iSLIP with ``iters`` iterations: each unmatched output grants the first unmatched requester at or after its
    pointer; each input accepts the first granting output at or after its own."""
    for i in range(nin):
        match_in[i] = -1
    for o in range(nout):
        match_out[o] = -1
    for it in range(iters):
        for o in range(nout):
            work[o] = -1                      # the input output o grants
        for j in range(m):
            i, o = req[0, j], req[1, j]
            if match_in[i] >= 0 or match_out[o] >= 0:
                continue
            g = work[o]
            if g < 0 or _after(i, out_ptr[o], nin) < _after(g, out_ptr[o], nin):
                work[o] = i
        progress = False
        for j in range(m):
            i, o = req[0, j], req[1, j]
            if work[o] != i or match_in[i] >= 0:
                continue
            # Input i accepts the granting output nearest after its pointer: scan its grants.
            best = o
            for j2 in range(j + 1, m):
                if req[0, j2] == i and work[req[1, j2]] == i and \
                        _after(req[1, j2], in_ptr[i], nout) < _after(best, in_ptr[i], nout):
                    best = req[1, j2]
            match_in[i] = best
            match_out[best] = i
            progress = True
            if it == 0:
                out_ptr[best] = (i + 1) % nin
                in_ptr[i] = (best + 1) % nout
        if not progress:
            break


@njit(cache=True)
def separable(req, m, nin, nout, in_ptr, out_ptr, input_first, match_in, match_out, work):
    """A separable allocator: input-first, each input's arbiter picks one of its requests and each output's
    arbiter one of the inputs that picked it; output-first, the mirror. Pointers move for matched pairs only."""
    for i in range(nin):
        match_in[i] = -1
    for o in range(nout):
        match_out[o] = -1
    if input_first:
        _two_arbiters(req, m, 0, nin, nout, in_ptr, out_ptr, match_in, match_out, work)
    else:
        _two_arbiters(req, m, 1, nout, nin, out_ptr, in_ptr, match_out, match_in, work)


@njit(cache=True, inline="always")
def _two_arbiters(req, m, a, na, nb, a_ptr, b_ptr, match_a, match_b, work):
    """The first side's (row ``a`` of ``req``) arbiters pick one request each; the other side's pick among those
    picked: separable allocation from side a (a = 0: inputs first; 1: outputs first)."""
    b = 1 - a
    for x in range(na):
        work[x] = -1                          # what x's arbiter picks
    for j in range(m):
        x, y = req[a, j], req[b, j]
        c = work[x]
        if c < 0 or _after(y, a_ptr[x], nb) < _after(c, a_ptr[x], nb):
            work[x] = y
    for j in range(m):
        x, y = req[a, j], req[b, j]
        if work[x] != y or match_b[y] >= 0:
            continue
        best = x                              # y's arbiter among those that picked it
        for j2 in range(j + 1, m):
            x2 = req[a, j2]
            if req[b, j2] == y and work[x2] == y and _after(x2, b_ptr[y], na) < _after(best, b_ptr[y], na):
                best = x2
        match_b[y] = best
        match_a[best] = y
        b_ptr[y] = (best + 1) % na
        a_ptr[best] = (y + 1) % nb


@njit(cache=True)
def allocate(kind, iters, req, m, nin, nout, in_ptr, out_ptr, match_in, match_out, work):
    """The allocator ``kind`` (:data:`ALLOCATORS`) over the ``m`` requests."""
    if kind == ISLIP:
        islip(req, m, nin, nout, in_ptr, out_ptr, iters, match_in, match_out, work)
    else:
        separable(req, m, nin, nout, in_ptr, out_ptr, kind == SEPARABLE_INPUT_FIRST, match_in, match_out, work)
