"""Circuit-switched HIPPI LANs of paper 001 (Ma & Steenkiste, §2.1-§2.2, §4-§7), event by event.

Each adapter is saturated and keeps ``slots`` packets it may try: the first
W packets of its FIFO (``fifo``: W = 1; ``window``), or the heads of its L
logical channels (``channels``; channel c carries the destinations whose
rank in the adapter's own random order of the other nodes is c mod L), each
always backlogged, or a pool of P packets of which only each channel's
oldest may go (``--pool P``). Round robins start at a random place and every
adapter scans the destinations in an order of its own: adapters scanning in
the same order fall into step and all try the same output at once.

Time (``--resolution``): the paper's 1 us clock by default (§2.2): every
duration is rounded to whole microseconds (a packet lasts at least one)
and the events of one tick are handled one at a time in random order (an
event's heap key is its time, then a random rank); or nanoseconds
(``ns``), where the events of one instant are handled in the heap's order
and the circuits ending at one nanosecond are matched together. Events live in the binary heap of
:mod:`switchq.validate.events`, at most one per input.

Distributed control (§2.1, §6): an adapter selects the packet its round
robin points at (``select_ns``), sends a set-up request, and learns the
outcome ``setup_ns`` later; the output is checked (and held, if free) when
the request reaches the switch (``claim`` = request) or when the set-up
completes (``connect``). A rejection moves the round robin on and the next
attempt starts at once; a success holds input and output for the set-up
and the transfer (size x 8 / link rate), after which the next attempt starts.

Central control, and the ideal switch (no overhead, where §2.1 says both
controls coincide): whenever ports free up, the free outputs in random
order each pick uniformly one packet addressed to them among the slots of
the free inputs; a pick holds both ports for ``charge_ns`` (central
control's 2 us per packet) plus the transfer. Under the 1 us clock each
circuit's end is matched on its own (a tick's ends in random order); at
``ns`` all of one instant's ends come first, then one matching, so with
fixed sizes, every transfer ending together, this is the slotted
``fifo --window-policy random`` switch.

Throughput is the paper's: bits sent while measuring (transfers cut at the
window's edges) over ports x link rate x measured time. A packet's delay
runs from when it became eligible (entered the window, reached its
channel's head) to its last bit. A trace of the first circuits (input,
output, held from, until, bytes) can be kept for tests.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from .. import kernel as K
from .phase_pipeline import PhasePipeline

__all__ = ["replicate", "run_once", "LAYOUT", "Trace"]

LAYOUT = K.Layout(("m_attempts", "m_busy_ns", "m_delay_sum_ns", "m_server_send_ns", "m_server_receive_ns",
                   "m_client_client_ns", "bytes_arrived", "bytes_delivered", "bytes_queued"))
_ATTEMPTS, _BUSY, _DELAY, _SRV_TX, _SRV_RX, _CC, _B_ARR, _B_DEL, _B_Q = (LAYOUT.index(n) for n in LAYOUT.names[-9:])

# The switch and its run as the kernel reads them (times in ns).
# ``tick_ns``: the clock's tick (1000: the paper's 1 us; 1: ns); ``order_bits``: bits of random rank after an
# event's time in its heap key (10 under the 1 us clock: a tick's events in random order; 0: heap order);
# ``batch``: all ends of one instant before one matching (ns) or each end matched on its own (1 us).
CircuitArgs = namedtuple("CircuitArgs", "n slots channel_mode pooled matched check_ns after_ns charge_ns "
                                        "ns_per_byte pointer_head servers warm_ns end_ns seed tick_ns order_bits "
                                        "batch")
# Where each input's packets go and how big they are: per input and group g (a traffic class in a window,
# a channel), the chance of the group (windows), its destinations and its size law (a row of `sizes`:
# kind, a, b, p_long, train), and each destination's logical channel (``channel[i, d]``; pooled channels).
Mix = namedtuple("Mix", "group_cdf group_dest group_ndest group_size sizes channel")
Trace = namedtuple("Trace", "inp out held_from until size count")

EV_CHECK, EV_END = 0, 1
ORDER_BITS = 10      # random ranks among one tick's events: ties between two of them 1 in 1024, in heap order


@njit(cache=True, inline="always")
def _key(t, bits):
    """An event's heap key: its time, then (``bits`` > 0) a random rank among the events of the same time."""
    if bits == 0:
        return t
    return (t << bits) | np.int64(np.random.random() * (1 << bits))


@njit(cache=True, inline="always")
def _transfer(size, sw):
    """A transfer's duration: size x 8 / link rate, rounded to the nearest tick; under the 1 us clock a packet
    of a byte or more lasts at least one tick (else time could stand still, every transfer ending at once)."""
    ticks = np.int64(size * sw.ns_per_byte / sw.tick_ns + 0.5)
    if ticks == 0 and size > 0 and sw.tick_ns > 1:
        ticks = 1
    return ticks * sw.tick_ns


@njit(cache=True, inline="always")
def _refill(i, k, group, t, mix, tr_left, tr_dest, tr_size, sd, ss, se, stats):
    """Put a new packet in slot k of input i (``group`` >= 0: its channel; -1: draw a class). Arrays are given
    one by one, not in tuples: a tuple unpacked in the event loop costs a reference count per event."""
    col = group if group >= 0 else 0
    se[i, k] = t
    if tr_left[i, col] > 0:
        tr_left[i, col] -= 1
        sd[i, k] = tr_dest[i, col]
        ss[i, k] = tr_size[i, col]
    else:
        g = group
        if g < 0:
            u = np.random.random()
            g = 0
            while g < mix.group_cdf.shape[1] - 1 and mix.group_cdf[i, g] <= u:
                g += 1
        nd = mix.group_ndest[i, g]
        if nd == 0:   # a channel with no destination for this input
            sd[i, k] = -1
            ss[i, k] = 0
            return
        d = mix.group_dest[i, g, int(np.random.random() * nd)]
        law = mix.group_size[i, g]
        kind = int(mix.sizes[law, 0])
        k_train = np.int64(mix.sizes[law, 4])
        size, long = K.packet_size(kind, np.int64(mix.sizes[law, 1]), np.int64(mix.sizes[law, 2]), mix.sizes[law, 3],
                                   k_train)
        if long and kind == K.SIZE_TRAIN and k_train > 1:
            tr_left[i, col] = k_train - 1
            tr_dest[i, col] = d
            tr_size[i, col] = size
        sd[i, k] = d
        ss[i, k] = size
    stats[K.STAT_ARRIVED] += 1
    stats[_B_ARR] += ss[i, k]


@njit(cache=True, inline="always")
def _next_slot(sd, i, k, slots):
    """The round robin's next non-empty slot after k (-1: from slot 0); k if there is none."""
    for s in range(1, slots + 1):
        c = (k + s) % slots
        if sd[i, c] >= 0:
            return c
    return k


@njit(cache=True, inline="always")
def _pool_pick(sd, channel, i, ptr, slots, lanes):
    """Pooled channels: the oldest packet of the first of the ``lanes`` channels, from ``ptr`` on, that holds one."""
    best = 0
    best_gap = lanes
    for k in range(slots):
        gap = (channel[i, sd[i, k]] - ptr) % lanes
        if gap < best_gap:
            best_gap = gap
            best = k
    return best


@njit(cache=True, inline="always")
def _account(sw, stats, i, j, start, end):
    """Transfer time of i -> j inside the measured window, overall and by file-server stream."""
    lo = max(start, sw.warm_ns)
    hi = min(end, sw.end_ns)
    if hi <= lo:
        return
    stats[_BUSY] += hi - lo
    if sw.servers > 0:
        if i < sw.servers:
            stats[_SRV_TX] += hi - lo
        elif j < sw.servers:
            stats[_SRV_RX] += hi - lo
        else:
            stats[_CC] += hi - lo


@njit(cache=True, inline="always")
def _record(trace, i, j, held_from, until, size):
    """The trace record of circuit i -> j, held from ``held_from`` until ``until`` for ``size`` bytes, kept while
    the trace has room: the one place a circuit is written to the trace."""
    c = trace.count[0]
    if c < trace.inp.shape[0]:
        trace.inp[c] = i
        trace.out[c] = j
        trace.held_from[c] = held_from
        trace.until[c] = until
        trace.size[c] = size
        trace.count[0] = c + 1


@njit(cache=True, inline="always")
def _hold(sw, i, j, k, t, start, ss, out_busy, out_of, cur, tr_start, out_until, trace):
    """Input i holds output j from t for slot k's packet, whose transfer starts at ``start``; returns when the
    transfer ends (the adapter's end event)."""
    out_busy[j] = True
    out_of[i] = j
    cur[i] = k
    tr_start[i] = start
    end = start + _transfer(ss[i, k], sw)
    out_until[j] = end
    _record(trace, i, j, t, end, ss[i, k])
    return end


@njit(cache=True)
def _match(sw, t, pk, ports, heap, trace, scratch, stats, channel, stamp):
    """Central control: free outputs in random order each pick a random packet for them of a free input."""
    sd, ss, se = pk
    out_busy, out_of, cur, tr_start, out_until = ports
    bucket_start, bucket_fill, cand_input, cand_slot, order, taken, eligible, seen = scratch
    heap_t, heap_c, size = heap
    n = sw.n
    bucket_start[:] = 0
    for i in range(n):
        taken[i] = stamp if out_of[i] >= 0 else -1    # an input holding an output is taken in this matching
        if taken[i] != stamp:
            for k in range(sw.slots):
                d = sd[i, k]
                eligible[i, k] = d >= 0 and not out_busy[d]
                if sw.pooled:   # only a channel's head may go
                    c = channel[i, d]
                    if seen[c] == i + 1 + n * stamp:
                        eligible[i, k] = False
                    seen[c] = i + 1 + n * stamp
                if eligible[i, k]:
                    bucket_start[d + 1] += 1
    for j in range(n):
        bucket_start[j + 1] += bucket_start[j]
        bucket_fill[j] = bucket_start[j]
    if bucket_start[n] == 0:
        return
    for i in range(n):
        if taken[i] != stamp:
            for k in range(sw.slots):
                d = sd[i, k]
                if eligible[i, k]:
                    cand_input[bucket_fill[d]] = i
                    cand_slot[bucket_fill[d]] = k
                    bucket_fill[d] += 1
    m = 0
    for j in range(n):
        if bucket_start[j + 1] > bucket_start[j]:
            order[m] = j
            m += 1
    K.shuffle(order, m)
    for x in range(m):
        j = order[x]
        y = K.draw_free(cand_input, cand_slot, bucket_start, j, taken, stamp)
        if y >= 0:
            i = cand_input[y]
            end = _hold(sw, i, j, cand_slot[y], t, t + sw.charge_ns, ss, out_busy, out_of, cur, tr_start,
                        out_until, trace)
            K.heap_push(heap_t, heap_c, size, _key(end, sw.order_bits), i * 2 + EV_END)   # matched modes pop
            if t >= sw.warm_ns:
                stats[_ATTEMPTS] += 1   # a central set-up is never rejected: one per packet


@njit(cache=True, inline="always")
def _start(sw, mix, train, pk, ptr, heap, stats):
    """Time 0: every adapter's slots filled, its round robin at a random place (adapters in step would all try
    the same output at once) and, under distributed control, its first set-up attempt due at ``check_ns``."""
    sd, ss, se = pk
    tr_left, tr_dest, tr_size = train
    heap_t, heap_c, size = heap
    slots = sw.slots
    lanes = max(sw.pooled, slots)
    for i in range(sw.n):
        for k in range(slots):
            _refill(i, k, k if sw.channel_mode else -1, 0, mix, tr_left, tr_dest, tr_size, sd, ss, se, stats)
        ptr[i] = int(np.random.random() * lanes)
        if sw.channel_mode and sd[i, ptr[i]] < 0:
            ptr[i] = _next_slot(sd, i, ptr[i], slots)
        if not sw.matched:
            K.heap_push(heap_t, heap_c, size, _key(sw.check_ns, sw.order_bits), i * 2 + EV_CHECK)


@njit(cache=True, inline="always")
def _finish(sw, pk, ports, stats):
    """At ``end_ns``: the measured part of the circuits still held, and the packets (and bytes) still queued."""
    sd, ss = pk[0], pk[1]
    out_of, tr_start = ports[1], ports[3]
    queued = 0
    for i in range(sw.n):
        if out_of[i] >= 0:
            _account(sw, stats, i, out_of[i], tr_start[i], sw.end_ns)
        for k in range(sw.slots):
            if sd[i, k] >= 0:
                queued += 1
                stats[_B_Q] += ss[i, k]
    stats[K.STAT_QUEUED] = queued


@njit(cache=True, inline="always")
def _attempt(sw, t, i, sd, ss, ptr, channel, out_busy, out_of, cur, tr_start, out_until, stats, trace):
    """Distributed control: input i's set-up attempt at t, for the packet its round robin points at. Held: the
    circuit from t, its transfer after the set-up; rejected: the round robin moves on, the next attempt a
    select-and-set-up later. Returns the adapter's next event (time, code)."""
    slots = sw.slots
    k = _pool_pick(sd, channel, i, ptr[i], slots, sw.pooled) if sw.pooled else ptr[i]
    j = sd[i, k]
    if t >= sw.warm_ns:
        stats[_ATTEMPTS] += 1
    if not out_busy[j]:
        end = _hold(sw, i, j, k, t, t + sw.after_ns, ss, out_busy, out_of, cur, tr_start, out_until, trace)
        return end, i * 2 + EV_END
    period = sw.after_ns + sw.check_ns
    nxt = t + period
    if sw.pooled:
        ptr[i] = (channel[i, j] + 1) % sw.pooled
    elif slots > 1:
        ptr[i] = _next_slot(sd, i, k, slots)
    elif nxt < out_until[j]:
        # FIFO retries the same packet, and its output cannot free before out_until: those attempts all
        # fail, so skip to the first that can succeed and count the ones between.
        skip = (out_until[j] - t + period - 1) // period
        lo = max(np.int64(1), (sw.warm_ns - t + period - 1) // period)
        hi = min(skip - 1, (sw.end_ns - 1 - t) // period)
        if hi >= lo:
            stats[_ATTEMPTS] += hi - lo + 1
        nxt = t + skip * period
    return nxt, i * 2 + EV_CHECK


@njit(cache=True, inline="always")
def _release(sw, t, i, mix, tr_left, tr_dest, tr_size, sd, ss, se, ptr, channel, out_busy, out_of, cur, tr_start,
             stats):
    """The circuit of input i ends at t: both ports free, the packet delivered, a new one takes its place (a
    window's packets move up; a channel's slot is refilled) and the round robin moves on or back to the head."""
    slots = sw.slots
    j = out_of[i]
    k = cur[i]
    out_busy[j] = False
    out_of[i] = -1
    _account(sw, stats, i, j, tr_start[i], t)
    stats[K.STAT_DELIVERED] += 1
    stats[_B_DEL] += ss[i, k]
    if t >= sw.warm_ns:
        stats[K.STAT_M_DELIVERED] += 1
        stats[_DELAY] += t - se[i, k]
    if sw.channel_mode:
        _refill(i, k, k, t, mix, tr_left, tr_dest, tr_size, sd, ss, se, stats)
        ptr[i] = _next_slot(sd, i, -1 if sw.pointer_head else k, slots)
        return
    for x in range(k, slots - 1):
        sd[i, x] = sd[i, x + 1]
        ss[i, x] = ss[i, x + 1]
        se[i, x] = se[i, x + 1]
    _refill(i, slots - 1, -1, t, mix, tr_left, tr_dest, tr_size, sd, ss, se, stats)
    if sw.pooled:
        ptr[i] = 0 if sw.pointer_head else (channel[i, j] + 1) % sw.pooled
    else:
        ptr[i] = 0 if sw.pointer_head else k


@njit(cache=True, pipeline_class=PhasePipeline)
def _run(sw, mix, trace, stats):
    """One replication: ``_start``, then event by event a set-up attempt (``_attempt``) or a circuit's end
    (``_release``, then under central control a matching), then ``_finish`` (module docstring). Compiled with
    :class:`.phase_pipeline.PhasePipeline`: the phases' arrays are the loop's own, with no reference count per
    event (which made these phases 1.2-1.8x slower under Numba's own pipeline)."""
    K.seed_rng(sw.seed)
    n, slots = sw.n, sw.slots
    pk = (np.full((n, slots), -1, np.int64), np.zeros((n, slots), np.int64), np.zeros((n, slots), np.int64))
    sd, ss, se = pk
    groups = mix.group_cdf.shape[1]
    train = (np.zeros((n, groups), np.int64), np.zeros((n, groups), np.int64), np.zeros((n, groups), np.int64))
    tr_left, tr_dest, tr_size = train
    ports = (np.zeros(n, np.bool_), np.full(n, -1, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
             np.zeros(n, np.int64))
    out_busy, out_of, cur, tr_start, out_until = ports
    heap = (np.zeros(n + 1, np.int64), np.zeros(n + 1, np.int64), np.zeros(1, np.int64))
    heap_t, heap_c, size = heap
    scratch = (np.zeros(n + 1, np.int64), np.zeros(n, np.int64), np.zeros(n * slots, np.int64),
               np.zeros(n * slots, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
               np.zeros((n, slots), np.bool_), np.zeros(n, np.int64))
    ptr = np.zeros(n, np.int64)
    channel = mix.channel
    matchings = 0
    _start(sw, mix, train, pk, ptr, heap, stats)
    if sw.matched:
        _match(sw, 0, pk, ports, heap, trace, scratch, stats, channel, matchings)
        matchings += 1
    # An adapter's next event replaces the one just handled: (new_t, new_code), one sift-down at the end.
    bits = sw.order_bits
    while size[0] > 0 and (heap_t[0] >> bits) < sw.end_ns:
        t = heap_t[0] >> bits
        code = heap_c[0]
        i = code >> 1
        if code & 1 == EV_CHECK:
            new_t, new_code = _attempt(sw, t, i, sd, ss, ptr, channel, out_busy, out_of, cur, tr_start, out_until,
                                       stats, trace)
        elif sw.matched:
            K.heap_pop(heap_t, heap_c, size)
            _release(sw, t, i, mix, tr_left, tr_dest, tr_size, sd, ss, se, ptr, channel, out_busy, out_of, cur,
                     tr_start, stats)
            # ns: all of this instant's ends first, then one matching; 1 us: each end matched on its own
            if not sw.batch or size[0] == 0 or (heap_t[0] >> bits) > t:
                _match(sw, t, pk, ports, heap, trace, scratch, stats, channel, matchings)
                matchings += 1
            continue
        else:
            _release(sw, t, i, mix, tr_left, tr_dest, tr_size, sd, ss, se, ptr, channel, out_busy, out_of, cur,
                     tr_start, stats)
            new_t, new_code = t + sw.check_ns, i * 2 + EV_CHECK
        K.heap_replace_top(heap_t, heap_c, size[0], _key(new_t, bits), new_code)
    _finish(sw, pk, ports, stats)


def _mix(switch, traffic, seed: int) -> Mix:
    """Destination groups and size laws of every input (module docstring), as arrays. Each adapter's logical
    channels take the other nodes in an order of its own, drawn from ``seed``."""
    n = switch.n_ports

    def law(long_bytes):
        kind = {"fixed": K.SIZE_FIXED, "uniform": K.SIZE_UNIFORM, "bimodal": K.SIZE_BIMODAL,
                "train": K.SIZE_TRAIN}[traffic.sizes]
        if kind == K.SIZE_FIXED:
            return (kind, traffic.size, traffic.size, 0.0, 1)
        if kind == K.SIZE_UNIFORM:
            return (kind, traffic.size_min, traffic.size_max, 0.0, 1)
        return (kind, traffic.short, traffic.long, traffic.long_packet_share(long_bytes),
                traffic.train if kind == K.SIZE_TRAIN else 1)

    sizes = np.array([law(traffic.long_bytes), law(traffic.server_long_bytes)], dtype=np.float64)
    others = [[j for j in range(n) if traffic.destinations == "all" or j != i] for i in range(n)]
    # The order in which adapter i's channels take its destinations (channel of rank r: r mod L), its own: in
    # one order shared by all, round robins in step try the same outputs at once (issue 25, item 11).
    rng = np.random.default_rng(int(seed))
    scan = [[int(d) for d in rng.permutation(others[i])] for i in range(n)]
    f = traffic.file_servers
    if switch.scheduling == "channels" and switch.pool is None:
        groups = [[[d for r, d in enumerate(scan[i]) if r % switch.channels == c] for c in range(switch.channels)]
                  for i in range(n)]
        cdf = np.ones((n, switch.channels))
        which = np.zeros((n, switch.channels), np.int64)
    elif f:
        servers, clients = list(range(f)), list(range(f, n))
        groups, cdf, which = [], np.ones((n, 2)), np.zeros((n, 2), np.int64)
        # Packets to the servers, chosen so that server_share of a client's bytes go to them.
        m_srv, m_cli = traffic.mean_bytes(traffic.server_long_bytes), traffic.mean_bytes(traffic.long_bytes)
        q = traffic.server_share / m_srv / (traffic.server_share / m_srv + (1 - traffic.server_share) / m_cli)
        for i in range(n):
            if i < f:
                groups.append([clients, []])
                which[i, 0] = 1
            else:
                peers = [j for j in clients if j != i]
                groups.append([servers, peers])
                # A lone client has no other client to send to: all its packets go to the servers (an empty
                # group would leave its FIFO holding no packet).
                cdf[i, 0] = q if peers else 1.0
                which[i, 0] = 1
    else:
        groups = [[others[i]] for i in range(n)]
        cdf = np.ones((n, 1))
        which = np.zeros((n, 1), np.int64)
    channel = np.zeros((n, n), np.int64)
    for i in range(n):
        for r, d in enumerate(scan[i]):
            channel[i, d] = r % switch.channels
    g = cdf.shape[1]
    dest = np.zeros((n, g, n), np.int64)
    ndest = np.zeros((n, g), np.int64)
    for i in range(n):
        for c in range(g):
            dest[i, c, :len(groups[i][c])] = groups[i][c]
            ndest[i, c] = len(groups[i][c])
    return Mix(group_cdf=cdf, group_dest=dest, group_ndest=ndest, group_size=which, sizes=sizes, channel=channel)


def _args(switch, traffic, seed) -> CircuitArgs:
    tick = 1000 if switch.resolution == "1us" else 1
    ns = lambda s: int(round(s * 1e9))   # noqa: E731
    on_tick = lambda s: int(math.floor(s * 1e9 / tick + 0.5)) * tick   # noqa: E731  (whole ticks, half up)
    select, setup = on_tick(switch.select_time), on_tick(switch.setup_time)
    request = switch.claim == "request"
    warm = ns(traffic.warmup_seconds)
    channels = switch.scheduling == "channels"
    return CircuitArgs(n=switch.n_ports, slots=switch.slots, channel_mode=channels and switch.pool is None,
                       pooled=switch.channels if channels and switch.pool is not None else 0, matched=switch.matched,
                       check_ns=select if request else select + setup, after_ns=setup if request else 0,
                       charge_ns=select if switch.control == "central" else 0, ns_per_byte=8e9 / switch.link_rate,
                       pointer_head=switch.pointer == "head", servers=traffic.file_servers, warm_ns=warm,
                       end_ns=warm + ns(traffic.seconds), seed=int(seed), tick_ns=tick,
                       order_bits=ORDER_BITS if switch.resolution == "1us" else 0,
                       batch=switch.resolution == "ns")


def run_once(switch, traffic, seed: int, trace: int = 0):
    """One replication: its counters (``LAYOUT``) and the trace of its first ``trace`` circuits.

    Examples
    --------
    >>> from switchq.models.circuit import CircuitSwitch, CircuitTraffic
    >>> stats, tr = run_once(CircuitSwitch(2, select_time=0, setup_time=0), CircuitTraffic(seconds=0.001), 1, 5)
    >>> LAYOUT.named(stats)["m_busy_ns"], int(tr.count[0])  # N = 2, ideal: both links busy all the time
    (2000000, 5)
    """
    stats = LAYOUT.zeros()
    tr = Trace(inp=np.zeros(trace, np.int64), out=np.zeros(trace, np.int64), held_from=np.zeros(trace, np.int64),
               until=np.zeros(trace, np.int64), size=np.zeros(trace, np.int64), count=np.zeros(1, np.int64))
    _run(_args(switch, traffic, seed), _mix(switch, traffic, seed), tr, stats)
    return stats, tr


def replicate(switch, traffic, run):
    """One replication of ``traffic.seconds`` after ``traffic.warmup_seconds``; ``run`` gives only the seed
    (the run length is simulated time, not slots)."""
    return run_once(switch, traffic, run.seed)[0]
