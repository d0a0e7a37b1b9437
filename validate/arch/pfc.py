"""A link with PFC (on/off) flow control, slot by slot: the twin of ``switchq size pfc``.

Paper 002 §2.3 (grant flow control) with IEEE 802.1Qbb Annex N's delays. A
slot is the time one ``granule`` of bytes takes on the link (1 B: byte
times). The sender S always has data and sends frames back to back; a byte
sent in slot t reaches the receiver R in slot t + L (both interfaces,
transceivers and the cable, one way). R's buffer holds the XOFF threshold T
plus the headroom; R's egress is blocked (its own output is paused: the
adversarial case) until a pause has fully taken effect, then drains at
link rate down to the XON level and stops again.

When a byte takes R's queue above T (slot t0), R must finish the frame its
transmitter is sending towards S (``residual`` slots), send the 84-byte PFC
frame, which reaches S L later; S may still start frames up to its response
time later (``RESP``) and finishes the one it started. Bytes reaching R from
t0 on are the *demand* on the headroom; a byte that finds the buffer full is
lost with the rest of its frame. XON reaches S L after R decides it.

Phases: ``worst`` lines every delay up at its bound (R's transmitter starts a
maximum frame as T is crossed, S reacts at its bound and starts a maximum
frame in its last allowed slot, its earlier frames sized to fill exactly up to
it), so the demand is the IEEE sum itself: FR + 84 + 2 L + RESP + FS.
``random``: R's reverse frames run on their own clock, S reacts uniformly
within its bound and restarts after XON with a random gap below one frame.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from switchq.errors import InputError
from switchq.models.pfc_standard import (FRAME_OVERHEAD_BYTES, IEEE_INTERFACE_BIT_TIMES, IEEE_RESPONSE_QUANTA,
                                         MEDIUM_SPEED, PAUSE_QUANTUM_BITS, PFC_FRAME_BYTES)

from .. import kernel as K

LAYOUT = K.Layout(("m_xoff",            # pauses begun in measured slots that ended
                   "m_demand_bytes",     # bytes reaching R from each such pause's trigger on, summed
                   "demand_peak_bytes",  # the largest single demand of the run
                   "m_frames_lost",      # frames losing a byte at a full buffer in those pauses
                   "frames_lost"))
(M_XOFF, M_DEMAND, PEAK, M_FRAMES_LOST, FRAMES_LOST) = (LAYOUT.index(n) for n in LAYOUT.names[K.N_CORE:])

# Everything in slots (granules); buffer sizes in granules.
PfcArgs = namedtuple("PfcArgs", "frame_r frame_s pfc delay resp threshold xon capacity granule worst")

FILL, PAUSING, DRAIN = 0, 1, 2


@njit(cache=True)
def _plan(gap, frame_s):
    """Frames S sends to fill ``gap`` slots exactly before its last one: (count, base size, how many are one
    slot larger); the caller drops the plan when the base is below a minimum frame."""
    if gap <= 0:
        return 0, 0, 0
    n = (gap + frame_s - 1) // frame_s
    return n, gap // n, gap % n


@njit(cache=True)
def _run_pfc(a, run, stats):
    K.seed_rng(run.seed)
    warmup = run.warmup
    never = K.NEVER
    size = K.pow2_at_least(a.delay + 1)
    mask = size - 1
    wire = np.zeros(size, dtype=np.int8)     # what reaches R in slot t: 0 idle, 1 a byte, 2 a frame's first byte
    q = 0
    state = FILL
    demand = 0
    pause_lost = 0
    t0 = 0
    in_flight = 0
    lost_frame = False
    s_left = 0                  # slots left of S's frame in progress
    s_stop = never              # S starts no frame after this slot (pause in effect)
    s_hold = 0                  # nor before this one (XON in transit, restart gap)
    plan_n, plan_base, plan_extra = 0, 0, 0
    r_phase = int(np.random.random() * a.frame_r)
    for t in range(warmup + run.slots):
        K.mark_batch(stats, t, run)
        measured = t >= warmup
        # S: start a frame if allowed, send one granule of it.
        if s_left == 0 and s_hold <= t <= s_stop:
            if plan_n > 0:
                s_left = plan_base + (1 if plan_extra > 0 else 0)
                plan_extra -= 1 if plan_extra > 0 else 0
                plan_n -= 1
            else:
                s_left = a.frame_s
            wire[(t + a.delay) & mask] = 2
        elif s_left > 0:
            wire[(t + a.delay) & mask] = 1
        if s_left > 0:
            s_left -= 1
            in_flight += 1
        # R: what arrives.
        code = wire[t & mask]
        if code:
            wire[t & mask] = 0
            in_flight -= 1
            if measured:
                stats[K.STAT_M_OFFERED] += 1
            if code == 2:
                lost_frame = False
            if state == PAUSING:
                demand += 1
            if not lost_frame and q < a.capacity:
                q += 1
                stats[K.STAT_ARRIVED] += 1
            else:
                if not lost_frame:
                    lost_frame = True
                    stats[FRAMES_LOST] += 1
                    pause_lost += 1
                stats[K.STAT_DROPPED] += 1
                if measured:
                    stats[K.STAT_M_DROPPED] += 1
        # R: egress drains only once a pause has fully taken effect.
        if state == DRAIN:
            if q > 0:
                q -= 1
                stats[K.STAT_DELIVERED] += 1
                if measured:
                    stats[K.STAT_M_DELIVERED] += 1
            if q <= a.xon:
                state = FILL
                s_stop = never
                gap = 0 if a.worst else int(np.random.random() * a.frame_s)
                s_hold = t + a.delay + gap
        elif state == FILL and q > a.threshold:
            state = PAUSING
            t0 = t
            demand = 1 if code else 0
            pause_lost = 0
            if a.worst:
                residual = a.frame_r
                resp = a.resp
            else:
                residual = a.frame_r - 1 - (t + r_phase) % a.frame_r
                resp = int(np.random.random() * (a.resp + 1))
            s_stop = t + residual + a.pfc + a.delay + resp
            if a.worst:
                # S's frames after the one in progress end exactly where its last allowed frame starts.
                gap = s_stop - (t + s_left + 1)
                plan_n, plan_base, plan_extra = _plan(gap, a.frame_s)
                if plan_n > 0 and plan_base < a.pfc:   # a PFC frame is a minimum frame: nothing shorter
                    plan_n = 0
        elif state == PAUSING and t > s_stop and s_left == 0 and in_flight == 0:
            state = DRAIN
            # Counted with the pause they belong to, so a pause begun in the warm-up lends nothing to the window.
            if t0 >= warmup:
                stats[M_XOFF] += 1
                stats[M_DEMAND] += demand * a.granule
                stats[M_FRAMES_LOST] += pause_lost
            if demand * a.granule > stats[PEAK]:
                stats[PEAK] = demand * a.granule
    stats[K.STAT_QUEUED] = q


def _at_rate(table: dict, rate_bps: float, name: str, allowed: str):
    """``table``'s entry for the port's speed (the standard's tables are keyed by whole bit/s), or a one-line
    error naming the option that gives it."""
    whole = round(rate_bps)
    if abs(rate_bps - whole) < 1e-6 * max(1.0, rate_bps) and whole in table:
        return table[whole]
    speeds = ", ".join(f"{k / 1e9:g}Gb/s" for k in table)
    raise InputError(name, None, f"{allowed} for this speed: the standard's table has {speeds}")


def wire_bytes(port) -> dict:
    """What happens on the wire of a :class:`~switchq.models.pfc.PfcPort`, in bytes, by IEEE 802.1Qbb Annex N
    with 802.3's bounds, whatever formula sized its buffer: R's and S's frames in progress and the PFC frame,
    each with its 20 B of gap and preamble; the one-way delay (one end's interface delay, a transceiver and
    the cable at the medium's speed); S's response. A figure the port gives replaces the standard's."""
    rate = port.link_rate_bps
    quanta = port.response_quanta
    if quanta is None:
        quanta = _at_rate(IEEE_RESPONSE_QUANTA, rate, "response", "pause quanta (0..65535)")[0]
    interface_s = port.interface_delay_s
    if interface_s is None:
        interface_s = _at_rate(IEEE_INTERFACE_BIT_TIMES, rate, "interface_delay", "a time with a unit") / rate
    speed = MEDIUM_SPEED[port.medium] if port.propagation_speed is None else port.propagation_speed
    delay = rate * interface_s / 8 + rate * port.transceiver_delay_s / 8 + rate * (port.cable_m / speed) / 8
    return {"frame_r": float(port.mtu_bytes + FRAME_OVERHEAD_BYTES),
            "frame_s": float(port.mtu_sender + FRAME_OVERHEAD_BYTES),
            "pfc": float(PFC_FRAME_BYTES), "delay": delay, "resp": float(quanta * PAUSE_QUANTUM_BITS / 8)}


def args_for(link):
    """The kernel's arguments from a :class:`~switchq.models.pfc.PfcLink`, in slots of its granule (delays
    rounded up, the buffer down: the twin never flatters the headroom)."""
    g = link.granule_bytes
    terms = wire_bytes(link.port)
    frame_r, frame_s, pfc, resp = (-(-int(np.ceil(terms[k] - 1e-9)) // g) for k in ("frame_r", "frame_s", "pfc",
                                                                                    "resp"))
    # The one-way delay is the one fractional term: rounded down to whole slots, so that at 1-byte slots the
    # worst-case demand is within 2 bytes under the sized headroom, never over it by rounding alone.
    delay = int(terms["delay"] // g)
    frame = max(frame_r, frame_s)
    threshold = 4 * frame
    return PfcArgs(frame_r=frame_r, frame_s=frame_s, pfc=pfc, delay=delay, resp=resp, threshold=threshold,
                   xon=2 * frame, capacity=threshold + link.headroom_bytes // g, granule=g, worst=False)


def replicate(link, adversary, run):
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`); return its counters (``LAYOUT``)."""
    stats = LAYOUT.zeros(run)
    _run_pfc(args_for(link)._replace(worst=adversary.phases == "worst"), run, stats)
    return stats
