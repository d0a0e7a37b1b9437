"""The cut-through kernel's pools of entries, packets and messages, grown as the load fills them (issue 38).

:mod:`.cut_through` takes an entry, packet or message row from a free stack and returns it there. The most the
network could ever hold (``Dims.pool_max``: an entry for every flit every buffer holds, and every injection
queue full) is millions of rows at 1024 nodes, of which a run below saturation uses a few per link; so the
pools start small (``Dims.pool``) and are replaced by larger copies when a cycle could run short.

Growth keeps every result: a stack made with ``rows`` rows holds the unused rows ``rows - 1 .. h`` at its
bottom (``h`` the rows ever taken) under those given back, and pops them lowest first. :func:`grown` puts the
new rows ``rows - 1 .. cap`` below the old stack, which is the stack ``rows`` rows would have been at this
point, so every row is taken in the order of a pool made at ``pool_max`` rows from the start; the new rows are
cleared as :func:`.state.entries` clears them. The kernel grows them at a cycle's start when fewer than
``Dims.reserve`` entries are free (steps 2-4 take at most one per output and central input), and step 1 stops
before a message that would leave fewer, to be entered again at the same node once they are grown: no random
number is drawn twice and none is skipped.

The pools never grow past ``Sw.mem_rows``, the rows the machine's memory holds beside the network's tables
(:func:`memory_rows`, checked before the run allocates anything): a run that needs more stops and is
refused by name.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from switchq.errors import InputError

from ..memory import check_fits, readable_bytes
from .cut_through_state import E_FREE, M_FREE, N_S, P_FREE, dims, state_width, tables_rows
from .records import EW, PW
from .state import clear_entries

# Bytes a pool row costs: its entry, its packet and its five stack rows (stk), int64 each.
ROW_BYTES = 8 * (EW + PW + 5)


def first_parts(tab, sw) -> dict:
    """Bytes a run of the network of ``tab`` allocates before its first cycle, by array: ``S``, ``T`` and the
    pools' first rows (the tables ``tab`` are already made)."""
    dm = dims(tab, sw)
    return {"state": 8 * N_S * state_width(dm, sw), "tables": 8 * tables_rows(dm) * dm.t_width,
            "pools": ROW_BYTES * dm.pool}


def memory_rows(tab, sw, nodes: int) -> int:
    """The rows the pools may grow to in the memory available (``Sw.mem_rows``); refuses, naming the figure,
    a network whose arrays at the start do not fit. A growth copies the pools, so a pool of ``r`` rows needs
    room for ``1.5 r`` while it is made (the old half and the new)."""
    left = check_fits("nodes", nodes, first_parts(tab, sw), f"{nodes} nodes' network before its first cycle")
    return int(min(left / (1.5 * ROW_BYTES), 1 << 62))


def refusal(rows: int, mem_rows: int, load: float) -> InputError:
    """The error of a run stopped because its pools would outgrow the memory available: what they needed."""
    return InputError("load", load, f"a load whose packets in flight fit in memory: the entry and packet pools "
                                    f"needed {rows} rows ({readable_bytes(1.5 * rows * ROW_BYTES)} while growing), "
                                    f"more than the {mem_rows} ({readable_bytes(1.5 * mem_rows * ROW_BYTES)}) the "
                                    f"memory available holds")


@njit(cache=True, inline="always")
def rows_after(cap, need, pool_max):
    """The rows the pools grow to from ``cap`` when ``need`` more are wanted: doubled (so a run grows
    O(log) times), at least the need, never past the worst case."""
    return min(max(2 * cap, cap + need), pool_max)


@njit(cache=True)
def grown(stk, ent, pk, e_top, p_top, m_top, rows):
    """Copies of ``stk``, ``ent`` and ``pk`` with ``rows`` rows, the new rows at the bottom of the three free
    stacks (the order a pool made at ``rows`` would take them in: module docstring). Returns the copies and the
    stacks' new tops."""
    cap = stk.shape[1]
    add = rows - cap
    stk2 = np.zeros((stk.shape[0], rows), dtype=np.int64)
    stk2[:, :cap] = stk           # messages' rows (M_GEN, M_LEFT) keep their index
    for r, top in ((E_FREE, e_top), (P_FREE, p_top), (M_FREE, m_top)):
        for i in range(add):
            stk2[r, i] = rows - 1 - i
        for i in range(top):
            stk2[r, add + i] = stk[r, i]
    ent2 = np.zeros((rows, EW), dtype=np.int64)
    ent2[:cap] = ent
    clear_entries(ent2, cap, rows)
    pk2 = np.zeros((rows, PW), dtype=np.int64)
    pk2[:cap] = pk
    return stk2, ent2, pk2, e_top + add, p_top + add, m_top + add
