"""A shared-memory switch's thresholds in closed form: the overload equilibrium, incast absorption, sizing.

**Overload** (Choudhury & Hahne, "Dynamic queue length thresholds for shared-memory packet switches", IEEE/ACM
ToN 6(2), 1998). Under the dynamic threshold a queue admits while it is shorter than alpha times the free
memory, T = alpha (B - Q). When S queues are overloaded each settles at its threshold: q = alpha (B - S q), so

    q = alpha B / (1 + alpha S),    free = B - S q = B / (1 + alpha S).

Queues with their own alphas settle at q_i = alpha_i F with F = B / (1 + sum_j alpha_j) free, shares in
proportion to their alphas (the same fixed point, queue by queue, derived here; it is the fixed point of Hahne &
Choudhury's multi-class thresholds, IEEE/ACM ToN 10(3), 2002, each class thresholded at its own alpha times the
same free memory). With P priorities per port the k-th congested queue is of priority k mod P (its alpha). A guaranteed minimum r per queue is set
aside first: B_s = B - N r is shared, and each queue holds r plus its share of B_s. The other policies'
overload is the same fluid balance: complete sharing and pushout give B_s / S each, a static threshold
min(T, B_s / S), complete partitioning floor(B / (N P)).

**Incast absorption** (derived here). N senders each send b cells, one a slot, to one empty queue that sends
one a slot; other queues hold G cells of the shared memory throughout. In the burst's k-th slot the queue
holds (k - 1)(N - 1) cells before its N arrivals, so the last of them finds k (N - 1). A cell
finding q cells is admitted while q < c, the queue's cap:

    dt:  q - r < alpha (B_s - G - (q - r))   <=>   q < c = r + alpha (B_s - G) / (1 + alpha)
    st:  c = r + min(T, B_s - G);   cs:  c = r + B_s - G;   pushout:  c = B - G;   cp:  c = floor(B / (N P)),

alpha being that of the incast's priority.

So the whole burst is admitted iff b (N - 1) < c: the largest burst per sender absorbed without a drop is
the integer b* = ceil(c / (N - 1)) - 1, within a cell of the fluid c / (N - 1), and the queue reaches its cap
after c / (N - 1) slots (the time to fill). The memory a burst needs inverts the cap.

**PFC under a sustained incast** (derived here). A lossless class's input group sends XOFF once it holds X
cells and its sender stops D slots later (the cells in flight meanwhile, D of them at a cell a slot, land in
its headroom: the worst-case demand is D cells, and a headroom of D - 1 loses a cell at every pause). N
senders with data always waiting share one output that sends a cell a slot; no cell being lost and the
senders alike, each gets 1/N of it in the long run, so each is paused 1 - 1/N of the time (the pause duty),
as long as the output never runs dry (X less the XON offset leaves cells queued for the D slots a resumed
sender takes to reach it): X, the offset and D then set how often it pauses, not for how long in all. From
empty, each
group gains N - 1 cells in N slots, so the first XOFF comes after about X N / (N - 1) slots. A shared headroom
pool of H cells beside private headrooms of h cells holds floor(H / (D - h)) groups in headroom at once.

**A lossless incast without XOFF** (derived here). The same N senders' cells are counted by ingress group. The
output's FIFO holds each slot's N cells as a block, one of each group, and sends one cell a slot; so when slot
k's cells (k = 0 .. b - 1) are admitted it has sent k cells, at least floor(k / N) of each group's, and a group
holds at most k + 1 - floor(k / N): most at its last cell, M = b - floor((b - 1) / N). A static XOFF threshold X
(XOFF once a group holds X) is never reached iff M < X; the memory holds the queue's b N - (b - 1) cells at the
last admission iff B >= b (N - 1) + 1. A dynamic threshold (alpha times the memory left free) is not reached if
M < alpha (B - b (N - 1) - 1), the group's most against the memory's least: sufficient, within N - 1 cells of
the least memory, as the group holding M may be admitted before the slot's last cell. Should XOFF fire, each
of the N groups takes D cells (the pause's flight) beyond its private headroom h: a pool of N max(0, D - h)
holds them all at once.

>>> a = overload(32, 1000, 256, "dt", 2.0, 4)
>>> round(a.queue_cells, 1), round(a.queue_bytes), round(a.free_cells, 1)
(222.2, 56889, 111.1)
>>> incast(32, 1000, 256, "dt", 1.0, 8).burst_whole
71
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from switchq.models import _check
from switchq.models.shared_buffer import MAX_BUFFER_CELLS, SharedBufferSwitch

from .figures import figure, given

__all__ = ["OverloadAnswer", "IncastAnswer", "BufferNeed", "PfcIncastAnswer", "LosslessBufferNeed", "overload",
           "incast", "buffer_for_incast", "queue_cap", "pfc_incast", "lossless_buffer_for_incast"]

OVERLOAD_SOURCE = ("Choudhury & Hahne, 'Dynamic queue length thresholds for shared-memory packet switches', "
                   "IEEE/ACM ToN 6(2), 1998: q = alpha B / (1 + alpha S), B / (1 + alpha S) free")
PFC_SOURCE = ("derived (switchq.solvers.shared_buffer): IEEE 802.1Qbb PFC with ingress accounting; N backlogged "
              "senders share one output, so each is paused 1 - 1/N of the time; the headroom demand is the D cells "
              "in flight")
LOSSLESS_SIZE_SOURCE = ("derived (switchq.solvers.shared_buffer): a group holds at most M = b - floor((b - 1) / N) "
                        "of an N:1 burst of b cells; no XOFF iff M < X, and the queue's b (N - 1) + 1 cells fit")
INCAST_SOURCE = ("derived (switchq.solvers.shared_buffer): a burst of b cells from each of N senders is absorbed "
                 "iff b (N - 1) < the queue's cap; dt's cap r + alpha (B_s - G) / (1 + alpha)")


def _switch(n_ports, buffer_cells, cell_bytes, policy, alpha, threshold_cells, reserved_cells, priorities=1,
            priority_alphas=None):
    return SharedBufferSwitch(n_ports, buffer_cells, cell_bytes, policy, 1.0 if alpha is None else alpha,
                              threshold_cells, reserved_cells, priorities=priorities,
                              priority_alphas=None if priority_alphas is None else tuple(priority_alphas))


@dataclass(frozen=True)
class OverloadAnswer:
    n_ports: int = given("ports")
    buffer_cells: int = given("cells")
    cell_bytes: int = given("B")
    policy: str = given()
    alpha: float | None = given("1")
    congested: int = given("queues")
    queue_cells: float = figure("cells", main=True)
    queue_bytes: float = figure("B")
    free_cells: float = figure("cells")
    free_bytes: float = figure("B")
    priority_queue_cells: tuple | None = figure("cells")
    source: str = figure(default=OVERLOAD_SOURCE)


def overload(n_ports: int, buffer_cells: int, cell_bytes: int, policy: str, alpha: float | None, congested: int,
             threshold_cells: int | None = None, reserved_cells: int = 0, priorities: int = 1,
             priority_alphas: tuple | None = None) -> OverloadAnswer:
    """Each of ``congested`` overloaded queues' occupancy (the mean over them, ``queue_cells``), and the memory
    left free, at equilibrium. With ``priorities`` P > 1, ``priority_queue_cells`` gives a congested queue of
    each priority (the k-th being of priority k mod P; None for a priority with none).

    >>> a = overload(8, 1100, 256, "dt", None, 4, priorities=2, priority_alphas=(4.0, 1.0))
    >>> a.priority_queue_cells, a.free_cells        # F = 1100 / (1 + 4 + 1 + 4 + 1) = 100
    ((400.0, 100.0), 100.0)
    """
    sw = _switch(n_ports, buffer_cells, cell_bytes, policy, alpha, threshold_cells, reserved_cells, priorities,
                 priority_alphas)
    s = _check.integer("congested", congested, 1, sw.n_ports)
    p = sw.priorities
    each = shares(sw, tuple(sw.alphas[k % p] for k in range(s))) if policy == "dt" else (_fluid_share(sw, s),) * s
    used = sum(each)
    by_priority = None if p == 1 else tuple(each[k] if k < s else None for k in range(p))
    one_alpha = policy == "dt" and sw.priority_alphas is None
    return OverloadAnswer(sw.n_ports, sw.buffer_cells, sw.cell_bytes, sw.policy, sw.alpha if one_alpha else None,
                          s, used / s, used / s * sw.cell_bytes, sw.buffer_cells - used,
                          (sw.buffer_cells - used) * sw.cell_bytes, by_priority)


def shares(sw: SharedBufferSwitch, alphas) -> tuple:
    """Cells each overloaded queue of factor ``alphas[i]`` holds under the dynamic threshold: r + alpha_i F,
    F = B_s / (1 + sum alpha) of the shared memory left free.

    >>> sw = SharedBufferSwitch(8, 1100, 256, "dt", 1.0)
    >>> shares(sw, (1.0, 2.0, 4.0, 3.0))        # F = 1100 / 11 = 100
    (100.0, 200.0, 400.0, 300.0)
    """
    free = sw.shared_cells / (1.0 + sum(alphas))
    return tuple(sw.reserved_cells + a * free for a in alphas)


def _fluid_share(sw: SharedBufferSwitch, s: int) -> float:
    if sw.policy == "cp":
        return float(sw.partition_cells)
    if sw.policy == "st":
        return sw.reserved_cells + min(float(sw.threshold_cells), sw.shared_cells / s)
    return sw.reserved_cells + sw.shared_cells / s       # cs, pushout: the memory split evenly


def queue_cap(sw: SharedBufferSwitch, background_cells: float = 0.0, priority: int = 0) -> float:
    """The occupancy c at which one queue (of ``priority``) starts refusing cells while the others hold
    ``background_cells`` of the shared memory: a cell finding q cells is admitted iff q < c (see the module's
    derivation)."""
    room = sw.shared_cells - background_cells
    if sw.policy == "dt":
        a = sw.alphas[priority]
        return sw.reserved_cells + a * room / (1.0 + a)
    if sw.policy == "st":
        return sw.reserved_cells + min(float(sw.threshold_cells), room)
    if sw.policy == "cp":
        return float(sw.partition_cells)
    return sw.reserved_cells + room                     # cs; pushout (reserves are refused there: r = 0)


@dataclass(frozen=True)
class IncastAnswer:
    n_ports: int = given("ports")
    buffer_cells: int = given("cells")
    cell_bytes: int = given("B")
    policy: str = given()
    alpha: float | None = given("1")
    incast: int = given("senders")
    background_cells: float = given("cells")
    burst_cells: float = figure("cells/sender", main=True)
    burst_whole: int = figure("cells/sender")
    burst_bytes: float = figure("B/sender")
    cap_cells: float = figure("cells")
    fill_slots: float = figure("slots")
    fill_seconds: float | None = figure("s")
    source: str = figure(default=INCAST_SOURCE)


def incast(n_ports: int, buffer_cells: int, cell_bytes: int, policy: str, alpha: float | None, degree: int,
           background_cells: float = 0.0, threshold_cells: int | None = None,
           reserved_cells: int = 0, link_rate: float | None = None, priorities: int = 1,
           priority_alphas: tuple | None = None, priority: int = 0) -> IncastAnswer:
    """The largest burst per sender an N:1 incast lands in one empty queue (of ``priority``) without a drop.

    ``burst_cells`` is the fluid c / (N - 1); ``burst_whole`` the slotted switch's integer, ceil(c/(N-1)) - 1
    (a cell under the fluid value at most); ``fill_slots`` the slots until the queue reaches its cap c, and with
    ``link_rate`` (bit/s) ``fill_seconds``, a slot being a cell's time on the link.

    >>> a = incast(32, 1000, 256, "dt", 4.0, 32)
    >>> round(a.cap_cells, 1), round(a.burst_cells, 3), a.burst_whole
    (800.0, 25.806, 25)
    """
    sw = _switch(n_ports, buffer_cells, cell_bytes, policy, alpha, threshold_cells, reserved_cells, priorities,
                 priority_alphas)
    n = _check.integer("incast", degree, 2, sw.n_ports)
    k = _check.integer("incast_priority", priority, 0, sw.priorities - 1)
    g = _check.real("background_cells", background_cells, 0.0, float(sw.shared_cells - 1))
    cap = queue_cap(sw, g, k)
    burst = cap / (n - 1)
    seconds = None
    if link_rate is not None:
        seconds = burst * sw.cell_bytes * 8 / _check.real("link_rate", link_rate, 0.0, low_open=True)
    return IncastAnswer(sw.n_ports, sw.buffer_cells, sw.cell_bytes, sw.policy,
                        sw.alphas[k] if policy == "dt" else None, n, g, burst, max(0, math.ceil(burst) - 1),
                        burst * sw.cell_bytes, cap, burst, seconds)


@dataclass(frozen=True)
class BufferNeed:
    n_ports: int = given("ports")
    cell_bytes: int = given("B")
    policy: str = given()
    alpha: float | None = given("1")
    incast: int = given("senders")
    burst_cells: int = given("cells/sender")
    background_cells: float = given("cells")
    buffer_cells: int = figure("cells", main=True)
    buffer_bytes: int = figure("B")
    source: str = figure(default=INCAST_SOURCE)


def buffer_for_incast(n_ports: int, cell_bytes: int, policy: str, alpha: float | None, degree: int,
                      burst_cells: int, background_cells: float = 0.0, reserved_cells: int = 0,
                      priorities: int = 1) -> BufferNeed:
    """The smallest shared memory (whole cells) whose queue absorbs ``degree`` senders' ``burst_cells`` each,
    with ``background_cells`` held by the other queues: the least B with b (N - 1) < c(B). ``alpha`` is the
    incast's priority's; ``priorities`` P count the N P reserves and partitions.

    >>> buffer_for_incast(32, 256, "dt", 1.0, 8, 71).buffer_cells       # incast(...).burst_whole is 71 at 1000
    995
    """
    if policy not in ("dt", "cs", "pushout", "cp"):
        raise _check.InputError("policy", policy, "dt, cs, pushout or cp for sizing (st's cap does not grow "
                                                  "with the memory past its threshold)")
    n_ports = _check.integer("n_ports", n_ports, 1)
    n = _check.integer("incast", degree, 2, n_ports)
    b = _check.integer("burst_cells", burst_cells, 1)
    g = _check.real("background_cells", background_cells, 0.0)
    r = _check.integer("reserved_cells", reserved_cells, 0)
    queues = n_ports * _check.integer("priorities", priorities, 1)
    need = b * (n - 1)                                   # the burst's last cell finds need cells: c > need,
    if policy == "dt":                                   # i.e. alpha (B_s - G) / (1 + alpha) > need - r
        a = _check.real("alpha", alpha, 2.0 ** -8, 2.0 ** 8)
        shared = math.floor(g + (need - r) * (1.0 + a) / a) + 1 if need > r else math.floor(g) + 1
        cells = queues * r + shared
    elif policy == "cp":
        cells = queues * (need + 1)                     # floor(B / (N P)) > need
    else:
        cells = queues * r + math.floor(g + need - r) + 1
    # Check the inversion on the model's own cap (and round up past any float tie).
    def memory(cells):
        return SharedBufferSwitch(n_ports, cells, cell_bytes, policy, alpha if policy == "dt" else 1.0,
                                  reserved_cells=r, priorities=priorities)

    sw = memory(cells)
    while queue_cap(sw, g) <= need:
        sw = memory(sw.buffer_cells + 1)
    return BufferNeed(n_ports, sw.cell_bytes, policy, alpha if policy == "dt" else None, n, b, g, sw.buffer_cells,
                      sw.buffer_bytes)


@dataclass(frozen=True)
class PfcIncastAnswer:
    n_ports: int = given("ports")
    incast: int = given("senders")
    xoff_cells: float = given("cells")
    pause_slots: int = given("slots")
    headroom_cells: int = given("cells")
    headroom_pool_cells: int = given("cells")
    pause_duty: float = figure("1", main=True)
    first_xoff_slots: float = figure("slots")
    headroom_demand_cells: int = figure("cells")
    headroom_short_cells: int = figure("cells")
    groups_in_pool: int = figure("groups")
    source: str = figure(default=PFC_SOURCE)


def pfc_incast(n_ports: int, degree: int, xoff_cells: int | None, pause_slots: int, headroom_cells: int = 0,
               headroom_pool_cells: int = 0, xoff_alpha: float | None = None,
               buffer_cells: int | None = None, groups: int | None = None) -> PfcIncastAnswer:
    """A lossless class under a sustained N:1 incast: the pause duty, the first XOFF, the headroom a group needs
    and how many groups the shared headroom pool holds at once (see the module's derivation).

    ``groups``: the lossless ingress groups that may be in headroom at once (N per lossless priority; N when
    None). A dynamic XOFF threshold (``xoff_alpha`` of the ``buffer_cells`` still free) settles, with the N groups
    each at it, where the dynamic threshold settles under overload: X = alpha B / (1 + alpha N).

    >>> a = pfc_incast(32, 8, 100, 40, headroom_cells=10, headroom_pool_cells=200)
    >>> a.pause_duty, round(a.first_xoff_slots, 2), a.headroom_demand_cells, a.groups_in_pool
    (0.875, 114.29, 40, 6)
    >>> pfc_incast(32, 8, None, 40, xoff_alpha=1.0, buffer_cells=900).xoff_cells     # 900 / 9
    100.0
    """
    if (xoff_cells is None) == (xoff_alpha is None):
        raise _check.InputError("xoff_cells", xoff_cells, "a static threshold, or none with xoff_alpha: exactly one")
    if xoff_alpha is not None:
        a = _check.real("xoff_alpha", xoff_alpha, 2.0 ** -8, 2.0 ** 8)
        b = _check.integer("buffer_cells", buffer_cells, 1)
        xoff_cells = a * b / (1.0 + a * _check.integer("incast", degree, 2))
    n_ports = _check.integer("n_ports", n_ports, 1)
    n = _check.integer("incast", degree, 2, n_ports)
    x = xoff_cells if xoff_alpha is not None else _check.integer("xoff_cells", xoff_cells, 1)
    d = _check.integer("pause_slots", pause_slots, 0)
    h = _check.integer("headroom_cells", headroom_cells, 0)
    pool = _check.integer("headroom_pool_cells", headroom_pool_cells, 0)
    short = max(0, d - h)
    most = n_ports if groups is None else _check.integer("groups", groups, n_ports)
    groups = most if short == 0 else min(most, pool // short)
    return PfcIncastAnswer(n_ports, n, x, d, h, pool, 1.0 - 1.0 / n, x * n / (n - 1), d, short, groups)


@dataclass(frozen=True)
class LosslessBufferNeed:
    n_ports: int = given("ports")
    cell_bytes: int = given("B")
    incast: int = given("senders")
    burst_cells: int = given("cells/sender")
    xoff_alpha: float | None = given("1")
    pause_slots: int = given("slots")
    headroom_cells: int = given("cells")
    buffer_cells: int = figure("cells", main=True)
    buffer_bytes: int = figure("B")
    peak_group_cells: int = figure("cells")
    xoff_cells: int | None = figure("cells")
    xoff_bytes: int | None = figure("B")
    headroom_pool_cells: int = figure("cells")
    headroom_pool_bytes: int = figure("B")
    source: str = figure(default=LOSSLESS_SIZE_SOURCE)


def lossless_buffer_for_incast(n_ports: int, cell_bytes: int, degree: int, burst_cells: int, pause_slots: int,
                               xoff_alpha: float | None = None, headroom_cells: int | None = None
                               ) -> LosslessBufferNeed:
    """The memory (and, with a static threshold, the least XOFF threshold) in which an N:1 burst of a lossless
    class lands without any group sending XOFF, and the headroom pool its N groups need should XOFF fire (see the
    module's derivation). ``headroom_cells``: each group's private headroom (None: the D cells in flight, so the
    pool needs none).

    >>> a = lossless_buffer_for_incast(32, 256, 8, 71, 30, headroom_cells=0)
    >>> a.peak_group_cells, a.xoff_cells, a.buffer_cells, a.headroom_pool_cells    # 71 - floor(70 / 8) = 63
    (63, 64, 498, 240)
    >>> lossless_buffer_for_incast(32, 256, 8, 71, 30, xoff_alpha=1.0).buffer_cells   # more than 498 + 63 / 1
    562
    """
    n_ports = _check.integer("n_ports", n_ports, 1)
    n = _check.integer("incast", degree, 2, n_ports)
    b = _check.integer("burst_cells", burst_cells, 1)
    d = _check.integer("pause_slots", pause_slots, 0)
    h = d if headroom_cells is None else _check.integer("headroom_cells", headroom_cells, 0)
    peak = b - (b - 1) // n
    queue = b * (n - 1) + 1
    if xoff_alpha is None:
        cells, xoff = queue, peak + 1
    else:
        a = _check.real("xoff_alpha", xoff_alpha, 2.0 ** -8, 2.0 ** 8)
        cells, xoff = math.floor(queue + peak / a) + 1, None
        while peak >= a * (cells - queue):           # past any float tie
            cells += 1
    if cells > MAX_BUFFER_CELLS:
        raise _check.InputError("burst_cells", b, f"a burst whose memory fits in {MAX_BUFFER_CELLS} cells "
                                                  f"({cells} needed)")
    pool = n * max(0, d - h)
    return LosslessBufferNeed(n_ports, cell_bytes, n, b, xoff_alpha, d, h, cells, cells * cell_bytes, peak, xoff,
                              None if xoff is None else xoff * cell_bytes, pool, pool * cell_bytes)
