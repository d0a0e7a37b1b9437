"""The simulated twin of :mod:`switchq.solvers.reduction`: one reduction, packet by packet, event by event.

Paper 003 (Kumar, Kale & Stunkel) §2 (combine units, Figures 2-3), §2.1-2.2
and §3.2 (Figure 16), Table 1. The simulator builds its wiring (paper 003's
spanning tree, combine units, links) and its per-packet durations from the
model with its own code (:mod:`.reduction_plan`), and reads nothing from the
solver: its dynamics are a discrete-event simulation with a binary heap of
events in integer picoseconds, in one ``@njit`` kernel:

- a member's NIC link gets all its packets at ``start + o_s`` and sends
  them one at a time (``LINK_FREE`` after each packet's serialization);
- a packet is delivered to its combine-unit input ``channel + switch``
  delay after its last bit left (``ARRIVE``), or to R ``channel`` after;
- a combine unit is a single server (``UNIT_DONE`` after each packet's
  service): it holds one partial result, index ``cur``, and takes any
  packet of index ``cur`` that has arrived on one of its inputs; after m of
  them it emits partial ``cur`` (a leaf unit straight into its root unit, a
  root or single unit onto the switch's output link) and moves on.

Randomness: each member's start time is uniform in ``[0, skew]`` (integer
ps), drawn by NumPy outside the kernel from the replication's seed (spawned
from ``seed`` with ``SeedSequence``). With zero skew the run is
deterministic and equals the analytic recursion to the picosecond; with
skew the analytic time with every start at 0 is a lower bound and the
analytic time with every start at ``skew`` (the zero-skew time + skew) an
upper bound, since every completion time is non-decreasing in every start.

Simulation practice: no warm-up (one reduction on an idle network is a
transient by definition); replications are independent reductions, and the
figure is their mean with a 95 % Student-t interval.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .. import kernel as K
from .reduction_plan import PS_PER_NS, Wiring, packet_times_ps, start_times_ps, wiring

__all__ = ["replicate", "run_once", "LAYOUT"]

# One number per replication: when the root node holds the result, in integer picoseconds.
LAYOUT = K.Layout(("completion_ps",), core=False)

# The run's times in ps, as the kernel reads them (its wiring: reduction_plan.Wiring).
Times = namedtuple("Times", "ser svc start o_s d_up d_down")

EV_SOURCE, EV_LINK_FREE, EV_ARRIVE, EV_UNIT_DONE = 0, 1, 2, 3
_KIND_SHIFT = 52
_ID_SHIFT = 20
_J_MASK = (1 << _ID_SHIFT) - 1
_ID_MASK = (1 << (_KIND_SHIFT - _ID_SHIFT)) - 1


@njit(cache=True)
def _code(kind, ident, j):
    return (np.int64(kind) << _KIND_SHIFT) | (np.int64(ident) << _ID_SHIFT) | np.int64(j)


@njit(cache=True)
def _run_reduction(w, tm, heap_t, heap_c):
    """One reduction; returns when R has the last bit of the last packet (ps), or -1 on a heap overflow.

    ``w``: the wiring (:data:`.reduction_plan.Wiring`), ``tm`` the times (:data:`Times`).
    State is per unit (partial in progress, packets taken and combined,
    busy), per channel (packets delivered) and per link (packets ready,
    next to send, busy). Equal-time events may be handled in any order:
    every handler re-tries to start the unit or link it touched.
    """
    unit_kind, unit_inputs, unit_in_ptr, unit_in_chan = w.unit_kind, w.unit_inputs, w.unit_in_ptr, w.unit_in_chan
    unit_out_link, unit_out_chan, chan_unit = w.unit_out_link, w.unit_out_chan, w.chan_unit
    link_src_node, link_dst_chan = w.link_src_node, w.link_dst_chan
    ser, svc, start, o_s, d_up, d_down = tm.ser, tm.svc, tm.start, tm.o_s, tm.d_up, tm.d_down
    n_units = unit_kind.shape[0]
    n_links = link_src_node.shape[0]
    n_chans = chan_unit.shape[0]
    n_packets = ser.shape[0]
    cur = np.zeros(n_units, np.int64)        # partial in progress
    ready_now = np.zeros(n_units, np.int64)  # inputs whose packet `cur` has arrived
    taken = np.zeros(n_units, np.int64)      # of those, started
    combined = np.zeros(n_units, np.int64)   # of those, finished
    unit_busy = np.zeros(n_units, np.bool_)
    delivered = np.zeros(n_chans, np.int64)
    link_ready = np.zeros(n_links, np.int64)
    link_next = np.zeros(n_links, np.int64)
    link_busy = np.zeros(n_links, np.bool_)
    size = np.zeros(1, np.int64)
    ok = True
    for link in range(n_links):
        node = link_src_node[link]
        if node >= 0:
            ok &= K.heap_push(heap_t, heap_c, size, start[node] + o_s, _code(EV_SOURCE, link, 0))
    last = np.int64(-1)
    at_root = 0
    while size[0] > 0 and ok:
        t, code = K.heap_pop(heap_t, heap_c, size)
        kind = code >> _KIND_SHIFT
        ident = (code >> _ID_SHIFT) & _ID_MASK
        j = code & _J_MASK
        touched_link = -1
        touched_unit = -1
        if kind == EV_SOURCE:
            link_ready[ident] = n_packets
            touched_link = ident
        elif kind == EV_LINK_FREE:
            link_busy[ident] = False
            touched_link = ident
        elif kind == EV_ARRIVE:
            delivered[ident] += 1
            u = chan_unit[ident]
            if j == cur[u]:
                ready_now[u] += 1
            touched_unit = u
        else:  # EV_UNIT_DONE
            u = ident
            unit_busy[u] = False
            combined[u] += 1
            touched_unit = u
            if combined[u] == unit_inputs[u]:
                done_j = cur[u]
                cur[u] = done_j + 1
                combined[u] = 0
                taken[u] = 0
                count = 0
                for q in range(unit_in_ptr[u], unit_in_ptr[u + 1]):
                    if delivered[unit_in_chan[q]] > cur[u]:
                        count += 1
                ready_now[u] = count
                out_chan = unit_out_chan[u]
                if out_chan >= 0:  # leaf unit: the partial is at the root unit at once
                    delivered[out_chan] += 1
                    ru = chan_unit[out_chan]
                    if done_j == cur[ru]:
                        ready_now[ru] += 1
                    if not unit_busy[ru] and cur[ru] < n_packets and ready_now[ru] > taken[ru]:
                        taken[ru] += 1
                        unit_busy[ru] = True
                        ok &= K.heap_push(heap_t, heap_c, size, t + svc[cur[ru]], _code(EV_UNIT_DONE, ru, cur[ru]))
                else:
                    link_ready[unit_out_link[u]] += 1
                    touched_link = unit_out_link[u]
        if touched_unit >= 0:
            u = touched_unit
            if not unit_busy[u] and cur[u] < n_packets and ready_now[u] > taken[u]:
                taken[u] += 1
                unit_busy[u] = True
                ok &= K.heap_push(heap_t, heap_c, size, t + svc[cur[u]], _code(EV_UNIT_DONE, u, cur[u]))
        if touched_link >= 0:
            link = touched_link
            if not link_busy[link] and link_next[link] < link_ready[link]:
                jj = link_next[link]
                link_next[link] = jj + 1
                link_busy[link] = True
                t_out = t + ser[jj]
                ok &= K.heap_push(heap_t, heap_c, size, t_out, _code(EV_LINK_FREE, link, jj))
                c = link_dst_chan[link]
                if c >= 0:
                    ok &= K.heap_push(heap_t, heap_c, size, t_out + d_up, _code(EV_ARRIVE, c, jj))
                else:
                    at_root += 1
                    last = max(last, t_out + d_down)
    if not ok or at_root != n_packets:
        return np.int64(-1)
    return last


def _heap_capacity(w: Wiring, ser, d_up: int) -> int:
    # Pending events: one UNIT_DONE per unit, one LINK_FREE per link, one SOURCE per node link,
    # and the packets in flight on a link (at most one per serialization time within d_up, and at most P).
    in_flight = min(len(ser), d_up // max(int(ser.min()), 1) + 2)
    return len(w.unit_kind) + len(w.link_src_node) * (2 + in_flight) + 16


def run_once(reduction, start_ns=None) -> float:
    """Simulate one reduction with the given start times (ns, one per node; default all 0); ns.

    Examples
    --------
    >>> from switchq.models.collective import Reduction
    >>> from switchq.models.network import FatTree
    >>> run_once(Reduction(FatTree(4, 2), 8))
    3135.6
    """
    return _run(reduction, start_times_ps(reduction, start_ns)) / PS_PER_NS


def _run(reduction, start_ps: np.ndarray) -> int:
    w = wiring(reduction)
    ser, svc = packet_times_ps(reduction)
    t = reduction.timing
    ps = PS_PER_NS
    o_s, o_r = round(t.nic_send_ns * ps), round(t.nic_recv_ns * ps)
    d_ch, d_sw = round(t.channel_delay_ns * ps), round(t.switch_delay_ns * ps)
    cap = _heap_capacity(w, ser, d_ch + d_sw)
    heap_t = np.empty(cap, np.int64)
    heap_c = np.empty(cap, np.int64)
    times = Times(ser=ser, svc=svc, start=start_ps, o_s=np.int64(o_s), d_up=np.int64(d_ch + d_sw),
                  d_down=np.int64(d_ch))
    last = _run_reduction(w, times, heap_t, heap_c)
    if last < 0:
        raise RuntimeError("reduction simulator: event heap overflow or undelivered packets (a bug)")
    return int(last) + o_r


def replicate(reduction, skew, run) -> np.ndarray:
    """One reduction whose members start uniformly in [0, ``skew.skew_ns``] (integer ps), drawn from
    ``run.seed``; returns its counters (``LAYOUT``: the completion time in ps)."""
    skew_ps = int(round(skew.skew_ns * PS_PER_NS))
    starts = np.random.default_rng(run.seed).integers(0, skew_ps, size=reduction.tree.nodes, endpoint=True,
                                                      dtype=np.int64)
    return np.array([_run(reduction, starts)], dtype=np.int64)
