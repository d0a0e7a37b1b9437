"""The iq router's allocators (issue 38): iSLIP and the separable input-first and output-first allocators, over a
router's requests as a list of (input, output) pairs, as BookSim2's sparse allocators take them.

Read from the allocators' definitions (McKeown's iSLIP; separable allocation with round-robin arbiters, Dally &
Towles ch. 19) as BookSim2 applies them: every request has the same priority, so an arbiter picks the requester
nearest after its pointer; iSLIP's pointers move only on a grant accepted in the first iteration, one past the
match; a separable allocator's two arbiters move only for a matched pair, one past the winner.

``req`` rows 0 and 1 hold the pairs (``m`` of them); rows 3 and 4 receive the matching (-1: unmatched), by
input and by output; row 5 is scratch. ``rt[r, ins + i]`` and ``rt[r, outs + o]`` are router r's input and
output pointers. (Whole arrays and offsets, not views: each view made costs Numba a reference count.)
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
def islip(req, m, nin, nout, rt, r, ins, outs, iters):
    """iSLIP with ``iters`` iterations: each unmatched output grants the first unmatched requester at or after its
    pointer; each input accepts the first granting output at or after its own."""
    for i in range(nin):
        req[3, i] = -1
    for o in range(nout):
        req[4, o] = -1
    for it in range(iters):
        for o in range(nout):
            req[5, o] = -1                    # the input output o grants
        for j in range(m):
            i, o = req[0, j], req[1, j]
            if req[3, i] >= 0 or req[4, o] >= 0:
                continue
            g = req[5, o]
            if g < 0 or _after(i, rt[r, outs + o], nin) < _after(g, rt[r, outs + o], nin):
                req[5, o] = i
        progress = False
        for j in range(m):
            i, o = req[0, j], req[1, j]
            if req[5, o] != i or req[3, i] >= 0:
                continue
            # Input i accepts the granting output nearest after its pointer: scan its grants.
            best = o
            for j2 in range(j + 1, m):
                if req[0, j2] == i and req[5, req[1, j2]] == i and \
                        _after(req[1, j2], rt[r, ins + i], nout) < _after(best, rt[r, ins + i], nout):
                    best = req[1, j2]
            req[3, i] = best
            req[4, best] = i
            progress = True
            if it == 0:
                rt[r, outs + best] = (i + 1) % nin
                rt[r, ins + i] = (best + 1) % nout
        if not progress:
            break


@njit(cache=True)
def separable(req, m, nin, nout, rt, r, ins, outs, input_first):
    """A separable allocator: input-first, each input's arbiter picks one of its requests and each output's
    arbiter one of the inputs that picked it; output-first, the mirror. Pointers move for matched pairs only."""
    for i in range(nin):
        req[3, i] = -1
    for o in range(nout):
        req[4, o] = -1
    if input_first:
        _two_arbiters(req, m, 0, nin, nout, rt, r, ins, outs)
    else:
        _two_arbiters(req, m, 1, nout, nin, rt, r, outs, ins)


@njit(cache=True, inline="always")
def _two_arbiters(req, m, a, na, nb, rt, r, a_off, b_off):
    """The first side's (row ``a`` of ``req``) arbiters pick one request each; the other side's pick among those
    picked: separable allocation from side a (a = 0: inputs first; 1: outputs first)."""
    b = 1 - a
    ma, mb = 3 + a, 3 + b                     # the matching's rows: by a's member and by b's
    for x in range(na):
        req[5, x] = -1                        # what x's arbiter picks
    for j in range(m):
        x, y = req[a, j], req[b, j]
        c = req[5, x]
        if c < 0 or _after(y, rt[r, a_off + x], nb) < _after(c, rt[r, a_off + x], nb):
            req[5, x] = y
    for j in range(m):
        x, y = req[a, j], req[b, j]
        if req[5, x] != y or req[mb, y] >= 0:
            continue
        best = x                              # y's arbiter among those that picked it
        for j2 in range(j + 1, m):
            x2 = req[a, j2]
            if req[b, j2] == y and req[5, x2] == y and \
                    _after(x2, rt[r, b_off + y], na) < _after(best, rt[r, b_off + y], na):
                best = x2
        req[mb, y] = best
        req[ma, best] = y
        rt[r, b_off + y] = (best + 1) % na
        rt[r, a_off + best] = (y + 1) % nb


@njit(cache=True)
def allocate(kind, iters, req, m, nin, nout, rt, r, ins, outs):
    """The allocator ``kind`` (:data:`ALLOCATORS`) over the ``m`` requests, with router r's pointers."""
    if kind == ISLIP:
        islip(req, m, nin, nout, rt, r, ins, outs, iters)
    else:
        separable(req, m, nin, nout, rt, r, ins, outs, kind == SEPARABLE_INPUT_FIRST)
