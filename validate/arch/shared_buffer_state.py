"""The shared-memory switch's state (issue 37): counters, the packed records the phases share, the run's arguments.

:mod:`switchq.validate.arch.shared_buffer` runs the slots; :mod:`switchq.validate.arch.shared_buffer_phases`
holds the steps of a slot. They share what is here: the counter layout and a few packed int64 records with
named rows (:func:`new_state`), so a phase takes one record and unpacks a few arrays.

- ``cell`` (rows NEXT, PREV, STAMP, SRC; one column per cell of the memory): the memory as built, a free list
  and each queue a doubly linked list through it; a cell's arrival slot and ingress group.
- ``qs`` (HEAD, TAIL, LEN; a column per queue, output o's of priority p at o P + p).
- ``grp`` (a column per ingress group, input i's of priority p at i P + p): its cells counted where they sit
  (up to XOFF in the shared memory, above it in the private headroom, then the pool), its PFC state (XOFF
  sent, the slots its sender stops and resumes).
- ``ports`` (a column per input): its incast cells still to send, its source's burst, this slot's arrival
  and its priority.
- ``hist``: how many measured slot ends found a watched queue at each length (its 99th percentile).
- ``g``: the switch's scalars (free-list head, cells in the memory, shared cells beyond reserves, headroom
  pool in use, the rotation, the incast event in progress).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .. import kernel as K
from .cell_lists import new_memory

MAX_PRIORITIES = 8      # models.shared_buffer's (a kernel imports no model)

LAYOUT = K.Layout(("m_occupancy_sum",     # cells in the watched queues at each measured slot's end, summed
                   "m_free_sum",          # cells free in the shared memory at each measured slot's end, summed
                   "occupancy_max",       # the longest watched queue at a measured slot's end
                   "m_events",            # incast events begun while measuring whose burst was fully offered
                   "m_absorbed_sum",      # cells per sender each admitted before its first drop, summed
                   "m_dropping_events",   # events that dropped a cell
                   "m_completion_sum",    # slots from an event's start until its queue emptied, summed
                   "m_completed",         # events whose queue emptied before the next began
                   "m_background_offered",
                   "m_background_delivered",
                   "pushed_out",          # cells a pushout dropped from a queue (in dropped too)
                   "m_xoffs",             # PFC XOFFs sent while measuring
                   "m_paused_slots",      # measured slots a watched sender was paused, summed over them
                   "headroom_peak",       # most cells one input group held in headroom (private and pool)
                   "pool_peak",           # most cells of the shared headroom pool in use
                   "m_lossless_drops",    # lossless cells lost while measuring: headroom and pool full (in dropped too)
                   "occupancy_p99",       # the 99th percentile of the watched queues at measured slots' ends
                   # per priority p (8 of each, 802.1Q's classes): watched queues' cells at slot end, summed;
                   # cells offered and dropped while measuring
                   *(f"m_occupancy_p{p}" for p in range(MAX_PRIORITIES)),
                   *(f"m_offered_p{p}" for p in range(MAX_PRIORITIES)),
                   *(f"m_dropped_p{p}" for p in range(MAX_PRIORITIES))))
(M_OCC, M_FREE, OCC_MAX, M_EVENTS, M_ABSORBED, M_DROPPING, M_COMPLETION, M_COMPLETED, M_BG_OFFERED,
 M_BG_DELIVERED, PUSHED_OUT, M_XOFFS, M_PAUSED, HR_PEAK, POOL_PEAK, LOSSLESS_DROPS, OCC_P99) = (
    LAYOUT.index(n) for n in LAYOUT.names[K.N_CORE:K.N_CORE + 17])
M_OCC_P, M_OFFERED_P, M_DROPPED_P = (LAYOUT.index(f"m_{n}_p0") for n in ("occupancy", "offered", "dropped"))

DT, ST, CS, CP, PUSHOUT = 0, 1, 2, 3, 4
POLICY_CODES = {"dt": DT, "st": ST, "cs": CS, "cp": CP, "pushout": PUSHOUT}
TRAFFIC, OVERLOAD, INCAST = 0, 1, 2
NIL = -1
NEVER = K.NEVER

NEXT, PREV, STAMP, SRC = range(4)                    # rows of ``cell`` (NEXT, PREV: cell_lists')
IN_SHARED, IN_PRIVATE, IN_POOL = 0, 1, 2             # where a lossless cell is counted
HEAD, TAIL, LEN = range(3)                           # rows of ``qs`` (cell_lists')
# rows of ``grp``: the group's cells in the shared memory, in its private headroom, in the pool; XOFF sent
# (0/1); the first slot its sender is stopped and the first it sends again.
ING, PRIVATE, POOL, XOFF, STOP_AT, RESUME_AT = range(6)
# rows of ``ports``: incast cells left to send; the source's burst destination; this slot's arrival (its output,
# -1: none) and its priority.
LEFT, BURST, ARRIVAL, PRIO = range(4)
# slots of ``g``
FREE, TOTAL, USED, POOL_USED, FIRST, EV_START, EV_DROP, EV_OPEN = range(8)    # FREE: cell_lists'.FREE

# The switch and its workload as the kernel sees them: built by keyword, read by name.
# ``alphas`` (float) and ``lossless_p`` (0/1) are per priority; ``lossless``: any priority is.
SharedArgs = namedtuple("SharedArgs", "n_ports priorities cells shared reserved policy alphas threshold partition "
                                      "lossless lossless_p xoff xoff_alpha xon_offset xon headroom pool pause_slots")
# ``priority``: the incast's; ``classes``: the groups a watched sender's pause is counted over (P for unicast
# traffic, whose cells take every priority; 1 for an overload's feeder or an incast's sender).
LoadArgs = namedtuple("LoadArgs", "kind congested feeders degree burst period background priority senders classes")
State = namedtuple("State", "cell qs grp ports g hist")


@njit(cache=True)
def new_state(sw):
    """An empty switch: every cell of the memory (shared, private headrooms, pool) on the free list."""
    groups = sw.n_ports * sw.priorities
    size = sw.cells + sw.n_ports * sw.lossless_p.sum() * sw.headroom + sw.pool
    cell, qs = new_memory(4, size, groups, 3)
    hist = np.zeros(size + 1, dtype=np.int64)      # watched queues' lengths at slot end (no queue holds more)
    grp = np.zeros((6, groups), dtype=np.int64)
    grp[STOP_AT, :] = NEVER
    grp[RESUME_AT, :] = NEVER
    ports = np.zeros((4, sw.n_ports), dtype=np.int64)
    ports[BURST, :] = -1
    g = np.zeros(8, dtype=np.int64)
    g[EV_START] = -1
    g[EV_DROP] = -1
    return State(cell, qs, grp, ports, g, hist)
