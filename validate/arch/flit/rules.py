"""The scalar rules of paper 004's VC router, each inlined where it is used (§III-D).

A uniformly drawn free VC (:func:`draw_bit`), and the scheduling stamps of the NICs and VC buffers
(:func:`nic_stamp`, :func:`stamp`, :func:`precedes`); message starts are ``kernel.start_gap``. Where a flit
of paper 000's cut-through switches may be stored is its organisation's (:mod:`.cut_through_orgs`), and which
queue an adaptive route takes :func:`.cut_through_state.least_loaded`. They take
scalars (or one array read at a few places) and are ``inline="always"``: a call that passes arrays costs Numba
an atomic reference-count increment and decrement per array, which in the cycle loop dominated the run time.

Stamps are computed as a flit enters a buffer: FGVC ``auxVC <- max(arrival, auxVC) + Vtick`` (auxVC per VC
buffer, reset by each header with ``vclock_state="message"``), FGFQ the same with the self-clocked round
number (the stamp last served at that contention point; the paper gives no detail of R, SCFQ is the usual
implementation), FIFO the arrival cycle. A NIC stamps flit j of a message ``created + (j + 1) x Vtick`` (FIFO:
by creation, ties by progress). Best effort has Vtick ``BE_VTICK`` (strict priority) or, with
``best_effort_stamp="largest"``, ``BE_VTICK`` plus its arrival (FIFO among best effort, the NIC by creation).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .records import FIFO_TICK, SCHED_FGFQ, SCHED_FIFO


@njit(cache=True, inline="always")
def draw_bit(bits):
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
def nic_stamp(gen, sent, vtick, best_effort, fifo, be_flat, be_vtick):
    """A NIC's stamp for the next flit of a message created at ``gen`` with ``sent`` flits gone (module
    docstring): ``gen + (sent + 1) x Vtick``; FIFO: by creation, ties by progress (as FGVC with a vanishing
    Vtick orders them); best effort with ``be_flat``: ``be_vtick + gen``."""
    if be_flat and not fifo and best_effort:
        return be_vtick + gen
    return gen + (sent + 1) * (FIFO_TICK if fifo else vtick)


@njit(cache=True, inline="always")
def stamp(order, at, aux_q, round_number, vtick, flat, be_vtick):
    """The stamp of a flit entering a VC buffer at cycle ``at`` and the buffer's auxVC after it (module
    docstring): arrival order (``SCHED_FIFO``); best effort's flat ``be_vtick + at``; FGVC ``max(at, auxVC) +
    Vtick``; FGFQ the same with the contention point's round number for ``at``."""
    if order == SCHED_FIFO:
        return float(at), aux_q
    if flat:
        return be_vtick + at, aux_q
    base = round_number if order == SCHED_FGFQ else float(at)
    # max() as a select: Numba calls its builtin, once per flit entering a buffer
    st = (aux_q if aux_q > base else base) + vtick
    return st, st


@njit(cache=True, inline="always")
def precedes(st, c, other_st, other_c):
    """Whether VC ``c`` with stamp ``st`` goes before VC ``other_c``: the smaller stamp, ties to the lower VC.
    Bitwise, not short-circuit: no branch for the kernels' selects to mispredict."""
    return (st < other_st) | ((st == other_st) & (c < other_c))
