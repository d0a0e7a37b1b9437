"""The toolkit every simulation kernel is built from.

Each architecture module (``switchq.validate.arch.*``) writes its own
``@njit`` loop out of the pieces here, so the pieces are written once and
every architecture measures in the same way:

- a counter **layout**: the core counters every slotted kernel keeps
  (``STAT_*``), then the architecture's own, appended and named
  (:class:`Layout`); the harness reads counters by name, never by position;
- traffic: the arrival, destination and size laws of :mod:`.arrivals`
  (Bernoulli, Poisson, on-off bursts, the regulator; uniform, permutation or
  any destination matrix), drawn from NumPy's generator inside Numba,
  seeded once per replication, so a seed fixes the whole run; the
  destination codes ``DEST_*`` are the only ones any kernel uses;
- ring-buffer queues in preallocated 2-D arrays (one row a queue, a power
  of two long so positions wrap with a mask), with removal from inside the
  window for look-ahead scheduling;
- a cell's life in the counters: admitted or dropped, departed, and the
  run's end with its worst part for the stability rule;
- the binary event heap of :mod:`.events` for event-driven kernels;
- round robins, VOQ matching and central control's pick, from
  :mod:`.arbitration`; popcount for port masks.

Everything of :mod:`.arrivals`, :mod:`.events` and :mod:`.arbitration` is
reached through this module, so a kernel imports one toolkit.

Conventions (the solvers use the same ones):

- arrivals happen at the start of a slot and may leave in the same slot;
- a cell's *wait* is the number of whole slots before the slot it is sent in,
  its *latency* is wait + 1 (the slot on the link);
- slots ``[0, warmup)`` are discarded; throughput counts cells leaving in the
  measured slots, waits count cells that arrived and left in them.

Nothing here allocates inside a slot loop.
"""

from __future__ import annotations

import importlib
import sys
from collections import namedtuple

import numpy as np
from numba import njit
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic


def _without_optional_probes() -> None:
    """Load Numba's NumPy and CFFI typing with its probes for SciPy's BLAS and for CFFI answered "absent".

    The first kernel a process runs makes Numba import ``numba.np.arraymath``, which imports
    ``scipy.linalg.cython_blas`` only to learn whether ``np.dot`` may call BLAS (0.15-0.2 s), and
    ``numba.core.typing.cffi_utils``, which builds a ``cffi.FFI()`` in case a kernel calls C through CFFI
    (0.05 s): together a third of a tiny run's 0.8 s (issue 26). No kernel does either (one that did
    would fail to compile, saying so). The stand-ins are removed at once, so SciPy and CFFI import
    normally afterwards; where one is already loaded, Numba finds it as before.
    """
    probes = {"numba.np.arraymath": "scipy.linalg.cython_blas", "numba.core.typing.cffi_utils": "cffi"}
    for module, probe in probes.items():
        if probe in sys.modules or module in sys.modules:
            continue
        sys.modules[probe] = None    # makes `import <probe>` raise ImportError
        try:
            importlib.import_module(module)
        finally:
            del sys.modules[probe]


_without_optional_probes()

# Reached through this module (K.bernoulli, K.heap_push, K.match_words): a kernel imports one toolkit.
from .arbitration import (MATCH_ISLIP, MATCH_PIM, draw_free,  # noqa: F401
                          pop_member, rotated_members, rotated_word, rr_at, rr_next, shuffle)
from .arbitration import (ACCEPT_PTR, GRANT_PTR, IN_MATCH, OUT_MATCH, bit_count, match_words,  # noqa: F401
                          request, withdraw, word_matching_state)
from .arrivals import (DEST_MATRIX, DEST_MULTICAST, DEST_PERMUTATION, DEST_UNIFORM,  # noqa: F401
                       SIZE_BIMODAL, SIZE_FIXED, SIZE_TRAIN, SIZE_UNIFORM, TrafficArrays, bernoulli,
                       draw_arrivals, draw_destination, draw_index, draw_node, packet_size, regulator_offset,
                       slot_count, start_gap, traffic_arrays)
from .events import heap_pop, heap_push, heap_replace_top  # noqa: F401

__all__ = ["Layout", "CORE", "Run", "TrafficArrays", "traffic_arrays", "queue_limit", "ring_storage"]

# The core counters of every slotted kernel, in this order at the start of its counter vector.
CORE = ("arrived",            # cells accepted into the system, all slots
        "delivered",          # cells sent to an output link, all slots
        "dropped",            # cells lost (a full buffer, or by design: see admit), all slots
        "queued",             # cells still inside at the end
        "m_offered",          # cells offered (accepted or dropped) in measured slots
        "m_delivered",        # cells sent in measured slots
        "m_dropped",          # cells dropped in measured slots
        "m_wait_sum",         # sum of waits of cells that arrived and left in measured slots
        "m_wait_count",       # number of such cells
        "overflow",           # arrivals refused because an "unbounded" queue hit its storage
        "m_latency_sum",      # sum of latencies (per cell, or per burst/packet where the architecture says so)
        "m_latency_count",
        "part",               # the part (see parts) whose backlog grew most beyond its allowance, -1: none kept
        "part_growth",        # its backlog's growth while measuring
        "part_offered")       # what was offered to it while measuring
(STAT_ARRIVED, STAT_DELIVERED, STAT_DROPPED, STAT_QUEUED, STAT_M_OFFERED, STAT_M_DELIVERED, STAT_M_DROPPED,
 STAT_M_WAIT_SUM, STAT_M_WAIT_COUNT, STAT_OVERFLOW, STAT_M_LATENCY_SUM, STAT_M_LATENCY_COUNT,
 STAT_PART, STAT_PART_GROWTH, STAT_PART_OFFERED) = range(len(CORE))
N_CORE = len(CORE)


class Layout:
    """Names of the columns of a kernel's counter vector: the core counters, then the kernel's own.

    Examples
    --------
    >>> lay = Layout(("copies", "copies_owed"))
    >>> lay.index("arrived"), lay.index("copies_owed"), lay.size
    (0, 16, 17)
    >>> lay.named(np.arange(17))["copies"]
    15
    >>> Layout(("completion_ps",), core=False).size
    1
    """

    def __init__(self, extra=(), core: bool = True):
        self.names = (CORE if core else ()) + tuple(extra)
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"duplicate counter names in {self.names}")
        self._index = {name: i for i, name in enumerate(self.names)}

    @property
    def size(self) -> int:
        return len(self.names)

    def index(self, name: str) -> int:
        return self._index[name]

    def __contains__(self, name) -> bool:
        return name in self._index

    def zeros(self, run=None, dtype=np.int64) -> np.ndarray:
        """A fresh counter vector; with batch means (``run.batches`` > 1), room after it for the
        counters at the start of each batch (:func:`mark_batch`)."""
        blocks = 1 if run is None or run.batches < 2 else run.batches + 1
        out = np.zeros(self.size * blocks, dtype=dtype)
        if "part" in self._index:
            out[self._index["part"]] = -1
        return out

    def named(self, row) -> dict:
        """One counter vector as ``{name: value}`` (Python numbers); batch blocks left out."""
        return {name: row[i].item() for i, name in enumerate(self.names)}

    def column(self, rows: np.ndarray, name: str) -> np.ndarray:
        """Column ``name`` of a replications x counters array."""
        return rows[:, self._index[name]]


# What a slotted kernel is told about the run: measured slots, discarded warm-up, slots run on without
# arrivals afterwards (to drain, for conservation checks), the replication's seed, and how many batches
# the measured slots form for batch means (1: none; see mark_batch).
Run = namedtuple("Run", "slots warmup drain seed batches", defaults=(1,))


def batch_slots(slots: int, batches: int) -> np.ndarray:
    """Measured slots of each batch: equal, the last taking the remainder (as :func:`mark_batch` cuts them)."""
    out = np.full(batches, slots // batches, dtype=np.int64)
    out[-1] += slots - out.sum()
    return out


@njit(cache=True, inline="always")
def mark_batch(stats, t, run):
    """Batch means: at the start of measured slot ``t`` that begins batch b, copy the counters into block b + 1.

    Called once per slot by every slotted kernel. Block 0 of ``stats`` is the
    live counter vector; the harness takes batch b's counters as block b + 2
    minus block b + 1 (block 0 for the last), so a kernel counts as usual.
    """
    if run.batches > 1:
        k = t - run.warmup
        length = run.slots // run.batches
        if k >= 0 and k % length == 0 and k // length < run.batches:
            size = stats.size // (run.batches + 1)
            b = k // length + 1
            stats[b * size:(b + 1) * size] = stats[:size]


# Storage of an "unbounded" queue. Reaching it means the offered load exceeds what the architecture
# can carry (the queue would grow without limit); the harness then reports the run as unstable
# instead of quietly truncating.
UNBOUNDED_CELLS = 1 << 12
# A warm-up that never ends: nothing is measured while a kernel drains.
NEVER = 1 << 62


@intrinsic
def borrowed(typingctx, arr):
    """A view of the array ``arr`` that Numba does not reference-count, for a kernel's hot loop.

    Every call or inlined phase a Numba array crosses, where the callee has a branch or a loop, costs an
    atomic increment and decrement of its reference count (about 5 ns an array a call: issue 38 found 40 % of
    the iq router's time in ``NRT_incref``/``NRT_decref``). A borrowed view carries no reference, so those
    become a test of a null pointer. It is valid only while ``arr`` is alive: take it of a compiled function's
    arguments (its caller holds them for the call), never of an array the function allocated.
    """
    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, args[0])
        view = context.make_array(sig.return_type)(context, builder)
        for field in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(view, field, getattr(src, field))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return arr(arr), codegen


@njit(cache=True)
def seed_rng(seed):
    """Seed Numba's generator (separate from NumPy's outside the kernel)."""
    np.random.seed(seed)


@njit(cache=True)
def pow2_at_least(n):
    """The smallest power of two >= n (>= 1): ring sizes, so positions wrap with a mask."""
    size = 1
    while size < n:
        size *= 2
    return size


def ring_storage(limit):
    """Ring size for a queue of at most ``limit`` cells (a power of two), outside the kernels."""
    return 1 << max(0, int(limit) - 1).bit_length()


def queue_limit(buffer_cells):
    """``(unbounded, limit, storage)`` of a queue configured with ``buffer_cells`` (None: unbounded)."""
    unbounded = buffer_cells is None
    limit = UNBOUNDED_CELLS if unbounded else buffer_cells
    return unbounded, limit, ring_storage(limit)


@njit(cache=True)
def popcount(x):
    """Number of set bits of a non-negative int64 (a port or destination mask)."""
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@intrinsic
def _trailing_zeros(typingctx, x):
    """LLVM's cttz: one instruction (tzcnt) where a loop over the bits took one step a bit."""
    def codegen(context, builder, sig, args):
        i64 = ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64, ir.IntType(1)]),
                                            "llvm.cttz.i64")
        value = context.cast(builder, args[0], sig.args[0], types.int64)
        return builder.call(fn, [value, ir.Constant(ir.IntType(1), 1)])

    return types.int64(x), codegen


@njit(cache=True, inline="always")
def lowest_bit(m):
    """Index of the lowest set bit of a non-zero mask."""
    return _trailing_zeros(m)


@njit(cache=True)
def ring_push(q_val, q_head, q_len, row, value):
    """Append ``value`` to queue ``row``; the caller has checked there is room."""
    mask = q_val.shape[1] - 1
    q_val[row, (q_head[row] + q_len[row]) & mask] = value
    q_len[row] += 1


@njit(cache=True)
def ring_pop(q_val, q_head, q_len, row):
    """Remove and return the head of queue ``row``; the caller has checked it is not empty."""
    mask = q_val.shape[1] - 1
    v = q_val[row, q_head[row]]
    q_head[row] = (q_head[row] + 1) & mask
    q_len[row] -= 1
    return v


@njit(cache=True)
def ring_remove_at(q_vals, n_arrays, q_head, q_len, row, pos):
    """Remove position ``pos`` of queue ``row`` from each of the parallel rings in ``q_vals``.

    Cells ahead of ``pos`` move back by one, so order is kept; costs O(pos),
    at most the scheduling window.
    """
    mask = q_vals.shape[2] - 1
    h = q_head[row]
    for k in range(pos, 0, -1):
        dst = (h + k) & mask
        src = (h + k - 1) & mask
        for a in range(n_arrays):
            q_vals[a, row, dst] = q_vals[a, row, src]
    q_head[row] = (h + 1) & mask
    q_len[row] -= 1


@njit(cache=True)
def rings(rows, size):
    """``rows`` empty ring queues of ``size`` (a power of two) int64 slots: (values, heads, lengths)."""
    return (np.zeros((rows, size), dtype=np.int64), np.zeros(rows, dtype=np.int64),
            np.zeros(rows, dtype=np.int64))


@njit(cache=True)
def voqs(n, size):
    """The VOQs of an ``n``-port switch: ring row ``i * n + j`` is VOQ (i, j), ``size`` slots each, and the
    cells each input holds: (values, heads, lengths, held)."""
    q, q_head, q_len = rings(n * n, size)
    return q, q_head, q_len, np.zeros(n, dtype=np.int64)


@njit(cache=True)
def sources(n):
    """Per-input source state: the destination of the burst in progress (-1: idle) and this slot's arrival."""
    return np.full(n, -1, dtype=np.int64), np.empty(n, dtype=np.int64)


@njit(cache=True)
def admit(stats, t, warmup, room, overflow):
    """Count a cell offered in slot ``t``; return True if it is accepted (``room``), else count the drop.

    ``overflow`` says what a refusal is. True at a queue configured unbounded (:func:`queue_limit` of None:
    its ``UNBOUNDED_CELLS`` of storage only size the arrays): a refusal there means the queue outgrew its
    storage, so it is counted in ``overflow`` too; the harness then fails the run's ``storage`` stability
    check (unstable) and gives every ``lossy_on_overflow`` metric as none, since no loss was configured.
    False for a loss the model makes by design (a full finite buffer, a cell a knockout concentrator turns
    away), even in front of an unbounded queue: it is counted in ``dropped`` only, and the run is judged as
    usual::

        K.admit(stats, t, warmup, q_len[d] < limit, unbounded)   # the queue's refusal: an overflow if unbounded
        K.admit(stats, t, warmup, False, False)                   # a cell lost by design
    """
    if t >= warmup:
        stats[STAT_M_OFFERED] += 1
    if room:
        stats[STAT_ARRIVED] += 1
        return True
    stats[STAT_DROPPED] += 1
    if t >= warmup:
        stats[STAT_M_DROPPED] += 1
    if overflow:
        stats[STAT_OVERFLOW] += 1
    return False


@njit(cache=True)
def count_departure(stats, t, arrival, warmup):
    """A cell leaves in slot ``t``: throughput, and, if it leaves in the measured window, its wait and latency.

    Waits are measured on the departures in the window, wherever the cell
    arrived: once warm, their sequence is stationary, so its mean is unbiased.
    Keeping only cells that also arrived in the window would leave out the
    ones waiting across its start, which are the long waits (length bias),
    and read low by about latency / window (6 % for 420-slot bursts in a
    5000-slot window).
    """
    stats[STAT_DELIVERED] += 1
    if t >= warmup:
        stats[STAT_M_DELIVERED] += 1
        stats[STAT_M_WAIT_SUM] += t - arrival
        stats[STAT_M_WAIT_COUNT] += 1
        stats[STAT_M_LATENCY_SUM] += t - arrival + 1
        stats[STAT_M_LATENCY_COUNT] += 1


@njit(cache=True, inline="always")
def depart(stats, parts, j, t, arrival, warmup):
    """A cell of part ``j`` that arrived in slot ``arrival`` leaves in slot ``t`` (:func:`count_departure`)."""
    count_departure(stats, t, arrival, warmup)
    part_left(parts, j, t, warmup)


@njit(cache=True, inline="always")
def finish(stats, parts, queued, tr):
    """The end of a slotted run: the cells still inside, and its worst part (:func:`keep_worst_part`) for
    sources ``tr``."""
    stats[STAT_QUEUED] = queued
    keep_worst_part(stats, parts, burst_granule(tr))


# --------------------------------------------------------------------------- stability by part

# Backlog growth (share of the offered cells) that marks a run unstable. Stable runs measured here grow
# by under 0.1 % once warm (VOQ iSLIP at 0.95: 0.6 %, still warming); FIFO 32 x 32 at 0.6, 2 % over its
# saturation load, grows by 1.1 %, a crosspoint switch offered 10 % more than it carries by 10 %.
UNSTABLE_GROWTH = 0.01
# Random-walk allowance, in standard deviations sqrt(offered): judged per part and per replication, 64
# parts x 8 replications are 512 tests, and 4 sigmas keep a critically loaded but stable queue from being
# flagged (a one-sided normal tail of 3e-5 per test).
NOISE_SIGMAS = 4.0
# (Here, not in the harness that applies them, because keep_worst_part compiles them in: the kernels'
# cache is keyed on this file.)

# A system is only as stable as its worst part: one overloaded output of 32 grows by 1/32 of what the
# whole switch is offered, inside any whole-system allowance. So kernels also count, per part (an output,
# a destination node, a traffic class at a destination), what was offered to it and how far its backlog
# grew while measuring, and keep the part furthest beyond the allowance that the harness then judges
# (switchq.validate.harness.Backlog).


@njit(cache=True)
def parts(n):
    """Per-part counts while measuring: row 0 offered, row 1 backlog growth (admitted - left)."""
    return np.zeros((2, n), dtype=np.int64)


@njit(cache=True, inline="always")
def burst_granule(tr):
    """E[B^2] / E[B] of a source's geometric bursts (mean 1 / p_end): 2 x mean - 1, 1 for single cells."""
    return 2.0 / tr.p_end - 1.0


@njit(cache=True, inline="always")
def part_offered(parts, j, t, warmup, admitted):
    """One unit offered to part ``j`` in slot ``t`` (``admitted``: it joined the backlog, not dropped).

    Kernels call it after :func:`admit`, each written out in the arrival loop: one inline helper doing both
    made the OQ 32 x 32 kernel 1.7x slower (20,000 slots at load 0.9: 58 -> 99 ms, measured in one process).
    """
    if t >= warmup:
        parts[0, j] += 1
        if admitted:
            parts[1, j] += 1


@njit(cache=True, inline="always")
def part_left(parts, j, t, warmup, count=1):
    """``count`` units of part ``j`` delivered in slot ``t``."""
    if t >= warmup:
        parts[1, j] -= count


@njit(cache=True)
def keep_worst_part(stats, parts, granule):
    """Write the part whose growth is furthest beyond ``UNSTABLE_GROWTH`` x offered + ``NOISE_SIGMAS`` x
    sqrt(offered x granule) into the ``part*`` counters (the harness's rule, less its per-part constant;
    ``granule``: E[B^2] / E[B] of the batches units arrive in, see harness.backlog_allowed)."""
    best = -np.inf
    for j in range(parts.shape[1]):
        off = parts[0, j]
        if off == 0 and parts[1, j] <= 0:
            continue        # a part nothing was offered to (a node outside a permutation, a class unused)
        excess = parts[1, j] - UNSTABLE_GROWTH * off - NOISE_SIGMAS * np.sqrt(off * granule)
        if excess > best:
            best = excess
            stats[STAT_PART] = j
            stats[STAT_PART_GROWTH] = parts[1, j]
            stats[STAT_PART_OFFERED] = off
