"""What a sender knows of the next switch in paper 000's cut-through network: two readings of what §3-§5 leave
unsaid, both off by default (the most literal reading: the state is known at once).

- ``credit_delay`` (:func:`free_later`, :func:`return_credits`): a place freed in an input buffer (a flit read,
  or a central switch's input FIFO emptied into its shared buffer) is usable by the link feeding it
  ``credit_delay`` cycles later, a credit's return trip; until then its sender counts it as taken. The place is
  freed in the buffer's own organisation (:func:`.cut_through_orgs.release`) when the credit arrives, so a pair
  queue's length read by the adaptive choice is the sender's count too.
- ``routing_age`` (:func:`remember_loads`, :func:`aged_base`): the adaptive choice of the next switch's queue
  reads the queue lengths (or, ``up_select="output"``, the outputs' loads) as they were at the start of cycle
  t - ``routing_age``, kept in a ring of snapshots (before time 0 the network is empty).

With both at 0 the kernel runs as before: the per-cycle phases are compiled only into a kernel specialised
for the readings (:func:`switchq.validate.arch.flit.spec`; compiled in and skipped they cost the 64-node
central-buffer network 8-13 %), and a flit's release is one branch on a value of the run.
"""

from __future__ import annotations

from numba import njit

from .cut_through_orgs import release
from .cut_through_state import CREDIT, LOADS, OUT_LOAD, QFLITS, QST
from .records import HIPIQS, Q_SH, QW


@njit(cache=True, inline="always")
def free_later(t, org, sw, dm, S, q, gi, sender):
    """A flit leaves queue ``q`` of input ``gi`` through ``sender``: its place is free now (no credit delay) or
    when the credit sent now arrives, ``credit_delay`` cycles on (a sender frees at most one place a cycle)."""
    if sw.credit_delay == 0:
        release(org, sw, S, q, gi)
    else:
        S[CREDIT, ((t + sw.credit_delay) & dm.credit_mask) * dm.senders + sender] = q + 1


@njit(cache=True, inline="always")
def return_credits(t, org, sw, dm, S):
    """At the start of cycle ``t``: the credits sent at ``t - credit_delay`` arrive, their places are free."""
    base = (t & dm.credit_mask) * dm.senders
    for j in range(dm.senders):
        q1 = S[CREDIT, base + j]
        if q1 != 0:
            release(org, sw, S, q1 - 1, (q1 - 1) // dm.k)
            S[CREDIT, base + j] = 0


@njit(cache=True, inline="always")
def load_field(org, sw):
    """Where the adaptive choice reads a queue's load in ``S``, as (row, fields a queue, second field or 0):
    ``up_select="output"`` the flits queued for each output at its switch; HIPIQS a pair queue's FIFO unit plus
    its shared queue; otherwise the flits a queue holds. The one definition, read live or aged."""
    if sw.up_output:
        return OUT_LOAD, 1, 0
    if org == HIPIQS:
        return QST, QW, Q_SH
    return QFLITS, 1, 0


@njit(cache=True, inline="always")
def remember_loads(t, org, sw, dm, S):
    """At the start of cycle ``t``: the loads the adaptive choice reads (:func:`load_field`), as they are now,
    into slot ``t & loads_mask`` (a ring longer than ``routing_age``)."""
    base = (t & dm.loads_mask) * dm.qp
    row, width, second = load_field(org, sw)
    for q in range(dm.n_in if sw.up_output else dm.qp):
        load = S[row, q * width]
        if second:
            load += S[row, q * width + second]
        S[LOADS, base + q] = load


@njit(cache=True, inline="always")
def aged_base(t, sw, dm):
    """Where in ``LOADS`` the snapshot of the start of cycle ``t - routing_age`` begins (before time 0: a slot
    not yet written, the empty network's zeros, as the ring is longer than ``routing_age``)."""
    return ((t - sw.routing_age) & dm.loads_mask) * dm.qp
