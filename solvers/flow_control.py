"""Link-level flow control: round trips, buffer sizes, restart times, burst latency (paper 002 §2).

Closed forms from Minkenberg & Gusat's speculative flow control (SFC) paper,
in canonical numbers only: bit/s, seconds and bits on the way in, slots and
cells on the way out (unit parsing is the CLI's, :mod:`switchq.units`).

What is modelled
----------------
A sender S feeds one or more buffers of a receiver R over a link carrying one
cell per slot. RTT = delta_d + delta_c, the data-path plus the control-path
latency, normalised to cell times (section 2.2):

.. math:: \\tau = \\left\\lceil \\frac{B_d W_d\\, \\mathrm{RTT}}{L_d} \\right\\rceil,

B_d W_d being the link rate in bit/s and L_d the cell length in bits. The
ceiling forgives binary rounding (relative 1e-9), so 10 Gb/s x 204.8 ns /
2048 bit is 1 slot, not 2.

* Credit FC (section 2.3): a buffer of Q_R cells sustains
  min(Q_R / tau, 1) of the link; lossless and full rate needs Q_R = tau;
  restart time delta_c.
* Grant (on/off) FC (section 2.3): 2 tau per buffer; worst-case restart tau + delta_c.
* ACK/NAK FC (section 2.4): Q_R = 1 per buffer and a retransmission buffer
  Q_RTX >= tau per link, 1 + tau in all; restart time 0.
* M buffers per link (section 2.5): M tau with credits, tau + M with ACK/NAK
  (one retransmission buffer covers every buffer behind the link);
  grants, by the same argument as credits, 2 M tau.
* Burst latency with Q_R < tau (section 2.3, Fig. 1): the paper counts
  ceil(B / Q_R) round trips; :func:`burst_latency` also gives the exact slot
  count of the slot model below.
* The buffered crossbar's memory with credits and with SFC, and SFC's field
  widths (sections 4.1, 4.2, 6.1), are :mod:`.crossbar_memory`.

Burst slot model
----------------
Credits and cells are whole slots. Cell m (0-based) is sent in slot s_m,
reaches the downstream buffer in slot s_m + delta_d and leaves it in that same
slot (the output is idle), which issues its credit; the credit is usable from
slot s_m + delta_d + delta_c = s_m + tau. With ready_m the slot cell m reaches
the sender and one cell per slot on the link,

.. math:: s_m = \\max(\\mathrm{ready}_m,\\ s_{m-1} + 1,\\ s_{m-Q_R} + \\tau).

If the whole burst is there at slot 0 this solves to
s_m = floor(m / Q_R) max(Q_R, tau) + (m mod Q_R), and the burst latency, from
the first cell's arrival to the end of the last cell's departure slot, is
s_{B-1} + delta_d + 1. Fig. 1 (B = 6, Q_R = 2, tau = 4, delta_d = 2):
s_5 = 9, 12 slots = 3 RTT. Cells arriving one per slot (ready_m = m) never
outrun a one-cell-per-slot link, so s_m and the burst latency are the same;
what changes is each cell's own latency (``mean_cell_latency_slots``).

References
----------
C. Minkenberg and M. Gusat, "Speculative Flow Control for High-Radix
Datacenter Interconnect Routers", IBM Research Zurich, sections 2.2-2.5,
4.1-4.2, 5 and 6.1.

Examples
--------
>>> round_trip_slots(10e9, 200e-9, 512).rtt_slots     # 10 Gb/s, 200 ns, 64 B cells
4
>>> max_utilization(2, 4).utilization
0.5
>>> burst_latency(6, 2, 4, 2).latency_slots           # Fig. 1: 3 RTT
12
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from switchq.models import _check

__all__ = [
    "RoundTrip",
    "Utilization",
    "BufferRequirement",
    "RestartTime",
    "BurstLatency",
    "PROTOCOLS",
    "ARRIVALS",
    "Q_R_RULES",
    "SOURCE",
    "slot_seconds",
    "round_trip_slots",
    "max_utilization",
    "buffer_requirement",
    "restart_time",
    "burst_latency",
    "expressions",
]

SOURCE = ("Minkenberg & Gusat, 'Speculative Flow Control for High-Radix Datacenter Interconnect "
          "Routers', IBM Research Zurich")
PROTOCOLS = ("credit", "grant", "acknak")
ARRIVALS = ("together", "one_per_slot")
Q_R_RULES = ("ceil", "ideal", "paper")

# Rates and RTTs come from decimal text ("200ns"), so tau = 1.0000000000000002
# must count as 1 slot: anything within this relative distance of an integer is it.
_INTEGER_TOLERANCE = 1e-9


def _ceil(x: float) -> int:
    nearest = round(x)
    if abs(x - nearest) <= _INTEGER_TOLERANCE * max(1.0, abs(x)):
        return int(nearest)
    return math.ceil(x)


def _log2_bits(n) -> int:
    """Bits to number n things: ceil(log2 n), exact for integers (no float log)."""
    return (math.ceil(n) - 1).bit_length()


# --------------------------------------------------------------------------- round trip

@dataclass(frozen=True)
class RoundTrip:
    """The normalised round trip tau of one link.

    Attributes
    ----------
    link_rate_bps : float
        B_d W_d, bit/s.
    rtt_s : float
        delta_d + delta_c, seconds.
    cell_bits : int
        L_d, bits.
    slot_s : float
        One cell time, cell_bits / link_rate_bps.
    rtt_bits : float
        The exact bandwidth-delay product link_rate_bps * rtt_s (bits in flight).
    rtt_slots : int
        tau = ceil(rtt_bits / cell_bits), at least 1.
    formula, source : str
    """

    link_rate_bps: float
    rtt_s: float
    cell_bits: int
    slot_s: float
    rtt_bits: float
    rtt_slots: int
    formula: str
    source: str


def slot_seconds(link_rate_bps: float, cell_bits: int) -> float:
    """One cell time L_d / (B_d W_d) in seconds (a plain float: there is nothing else to say).

    Examples
    --------
    >>> slot_seconds(10e9, 2048)
    2.048e-07
    """
    rate = _check.real("link_rate_bps", link_rate_bps, 0, low_open=True)
    cell = _check.integer("cell_bits", cell_bits, 1)
    return cell / rate


def round_trip_slots(link_rate_bps: float, rtt_s: float, cell_bits: int) -> RoundTrip:
    """tau = ceil(B_d W_d RTT / L_d), the round trip in cell times (section 2.2).

    Parameters
    ----------
    link_rate_bps : float
        Link rate in bit/s, > 0.
    rtt_s : float
        Round-trip time in seconds, > 0.
    cell_bits : int
        Cell length in bits, a whole number >= 1.

    Returns
    -------
    RoundTrip

    Examples
    --------
    >>> r = round_trip_slots(10e9, 200e-9, 8)   # 1-byte cells: byte-granular
    >>> r.rtt_slots, r.rtt_bits
    (250, 2000.0)
    >>> round_trip_slots(10e9, 204.8e-9, 2048).rtt_slots
    1
    """
    rate = _check.real("link_rate_bps", link_rate_bps, 0, low_open=True)
    rtt = _check.real("rtt_s", rtt_s, 0, low_open=True)
    cell = _check.integer("cell_bits", cell_bits, 1)
    bits = rate * rtt
    return RoundTrip(link_rate_bps=rate, rtt_s=rtt, cell_bits=cell, slot_s=cell / rate, rtt_bits=bits,
                     rtt_slots=max(1, _ceil(bits / cell)),
                     formula="tau = ceil(link_rate * RTT / cell_bits)", source=SOURCE + ", section 2.2")


# --------------------------------------------------------------------------- one link

@dataclass(frozen=True)
class Utilization:
    """Highest link utilization credit FC reaches with a buffer of ``q_r`` cells.

    Attributes
    ----------
    q_r : int
        Receiver buffer, cells.
    rtt_slots : int
        tau.
    utilization : float
        rho_max = min(q_r / tau, 1).
    formula, source : str
    """

    q_r: int
    rtt_slots: int
    utilization: float
    formula: str
    source: str


def max_utilization(q_r: int, rtt_slots: int) -> Utilization:
    """rho_max = min(Q_R / tau, 1) for credit flow control (section 2.3).

    Q_R credits circulate, each taking one round trip, so at most Q_R cells
    are sent per tau slots.

    Examples
    --------
    >>> max_utilization(3, 4).utilization, max_utilization(9, 4).utilization
    (0.75, 1.0)
    """
    q = _check.integer("q_r", q_r, 1)
    tau = _check.integer("rtt_slots", rtt_slots, 1)
    return Utilization(q_r=q, rtt_slots=tau, utilization=min(q / tau, 1.0),
                       formula="rho_max = min(Q_R / tau, 1)", source=SOURCE + ", section 2.3")


@dataclass(frozen=True)
class BufferRequirement:
    """Cells needed for lossless, full-rate operation of ``links`` links.

    Attributes
    ----------
    protocol : {"credit", "grant", "acknak"}
    rtt_slots : int
        tau.
    buffers_per_link : int
        M, independently flow-controlled downstream buffers behind each link
        (virtual channels, crosspoints of a crossbar row, or both).
    links : int
    receiver_cells_per_buffer : int
        tau (credit), 2 tau (grant), 1 (ACK/NAK).
    retransmission_cells_per_link : int
        Q_RTX: tau for ACK/NAK, 0 otherwise.
    total_cells : int
        links * (M * receiver_cells_per_buffer + retransmission_cells_per_link).
    formula, source : str
    """

    protocol: str
    rtt_slots: int
    buffers_per_link: int
    links: int
    receiver_cells_per_buffer: int
    retransmission_cells_per_link: int
    total_cells: int
    formula: str
    source: str


def buffer_requirement(protocol: str, rtt_slots: int, buffers_per_link: int = 1,
                       links: int = 1) -> BufferRequirement:
    """Buffer for losslessness and full link rate (sections 2.3-2.5).

    Credit: tau per buffer (M tau per link); grant (on/off): 2 tau per buffer;
    ACK/NAK: 1 cell per buffer plus one retransmission buffer of tau cells per
    link (tau + M), because only tau cells are ever in flight on a link
    whatever the number of buffers behind it.

    Examples
    --------
    >>> [buffer_requirement(p, 8).total_cells for p in PROTOCOLS]
    [8, 16, 9]
    >>> buffer_requirement("credit", 8, 16).total_cells, buffer_requirement("acknak", 8, 16).total_cells
    (128, 24)
    """
    protocol = _check.choice("protocol", protocol, PROTOCOLS)
    tau = _check.integer("rtt_slots", rtt_slots, 1)
    m = _check.integer("buffers_per_link", buffers_per_link, 1)
    links = _check.integer("links", links, 1)
    receiver, retransmission, formula, section = {
        "credit": (tau, 0, "links * M * tau", "sections 2.3, 2.5"),
        "grant": (2 * tau, 0, "links * M * 2 tau", "section 2.3"),
        "acknak": (1, tau, "links * (tau + M)  (Q_R = 1 per buffer, Q_RTX = tau per link)", "sections 2.4, 2.5"),
    }[protocol]
    return BufferRequirement(protocol=protocol, rtt_slots=tau, buffers_per_link=m, links=links,
                             receiver_cells_per_buffer=receiver, retransmission_cells_per_link=retransmission,
                             total_cells=links * (m * receiver + retransmission), formula=formula,
                             source=f"{SOURCE}, {section}")


@dataclass(frozen=True)
class RestartTime:
    """Slots from a full receiver freeing a cell to the sender sending again.

    Attributes
    ----------
    protocol : {"credit", "grant", "acknak"}
    rtt_slots : int
        tau.
    control_delay_slots : int
        delta_c, the control (credit/grant) path latency.
    restart_slots : int
        delta_c (credit), tau + delta_c worst case (grant), 0 (ACK/NAK).
    formula, source : str
    """

    protocol: str
    rtt_slots: int
    control_delay_slots: int
    restart_slots: int
    formula: str
    source: str


def restart_time(protocol: str, rtt_slots: int, control_delay_slots: int) -> RestartTime:
    """Restart time of each protocol (sections 2.3, 2.4).

    ACK/NAK restarts at once because sending never waits for the receiver.

    Examples
    --------
    >>> [restart_time(p, 8, 3).restart_slots for p in PROTOCOLS]
    [3, 11, 0]
    """
    protocol = _check.choice("protocol", protocol, PROTOCOLS)
    tau = _check.integer("rtt_slots", rtt_slots, 1)
    delta_c = _check.integer("control_delay_slots", control_delay_slots, 0, tau)
    restart, formula = {"credit": (delta_c, "delta_c"), "grant": (tau + delta_c, "tau + delta_c (worst case)"),
                        "acknak": (0, "0")}[protocol]
    return RestartTime(protocol=protocol, rtt_slots=tau, control_delay_slots=delta_c, restart_slots=restart,
                       formula=formula, source=SOURCE + ", sections 2.3, 2.4")


# --------------------------------------------------------------------------- burst latency

@dataclass(frozen=True)
class BurstLatency:
    """An isolated burst through a credit-controlled buffer on an idle link.

    Attributes
    ----------
    burst_cells : int
        B.
    q_r : int
        Receiver buffer (credits), cells.
    rtt_slots : int
        tau.
    data_delay_slots : int
        delta_d, slots from sending a cell to its arrival downstream.
    arrivals : {"together", "one_per_slot"}
        The whole burst at slot 0, or cell m at slot m.
    last_send_slot : int
        s_{B-1}.
    latency_slots : int
        From the first cell's arrival to the end of the last cell's
        departure slot: s_{B-1} + delta_d + 1.
    latency_rtts : float
        latency_slots / tau.
    round_trips : int
        The paper's count ceil(B / Q_R) (meaningful when Q_R < tau). Section 5
        typesets floor(B / Q_R), but every value it quotes (5, 4, 3, 2 for
        B = 10 and Q_R = 2, 3, 4, 6) is the ceiling.
    mean_cell_latency_slots : float
        Mean over cells of (end of departure slot - own arrival slot).
    formula, source : str
    """

    burst_cells: int
    q_r: int
    rtt_slots: int
    data_delay_slots: int
    arrivals: str
    last_send_slot: int
    latency_slots: int
    latency_rtts: float
    round_trips: int
    mean_cell_latency_slots: float
    formula: str
    source: str


def burst_latency(burst_cells: int, q_r: int, rtt_slots: int, data_delay_slots: int,
                  arrivals: str = "together") -> BurstLatency:
    """Latency of a B-cell burst through a Q_R-credit buffer (section 2.3, Fig. 1).

    Closed form of the slot model in the module docstring:
    s_m = floor(m / Q_R) max(Q_R, tau) + (m mod Q_R).

    Parameters
    ----------
    burst_cells : int
        B >= 1.
    q_r : int
        Q_R >= 1 credits.
    rtt_slots : int
        tau >= 1.
    data_delay_slots : int
        delta_d in [0, tau] (delta_c = tau - delta_d).
    arrivals : {"together", "one_per_slot"}

    Examples
    --------
    >>> b = burst_latency(6, 2, 4, 2)
    >>> b.last_send_slot, b.latency_slots, b.latency_rtts, b.round_trips
    (9, 12, 3.0, 3)
    >>> burst_latency(6, 2, 4, 2, "one_per_slot").mean_cell_latency_slots
    5.0
    """
    b = _check.integer("burst_cells", burst_cells, 1)
    q = _check.integer("q_r", q_r, 1)
    tau = _check.integer("rtt_slots", rtt_slots, 1)
    delta_d = _check.integer("data_delay_slots", data_delay_slots, 0, tau)
    arrivals = _check.choice("arrivals", arrivals, ARRIVALS)
    period = max(q, tau)              # slots between the starts of successive groups of Q_R cells
    last = ((b - 1) // q) * period + (b - 1) % q
    k, r = divmod(b, q)               # k full groups of Q_R cells, then r cells
    send_sum = period * (q * k * (k - 1) // 2 + r * k) + k * q * (q - 1) // 2 + r * (r - 1) // 2
    if arrivals == "one_per_slot":
        send_sum -= b * (b - 1) // 2  # cell m's own latency starts at slot m
    latency = last + delta_d + 1
    return BurstLatency(burst_cells=b, q_r=q, rtt_slots=tau, data_delay_slots=delta_d, arrivals=arrivals,
                        last_send_slot=last, latency_slots=latency, latency_rtts=latency / tau,
                        round_trips=-(-b // q), mean_cell_latency_slots=send_sum / b + delta_d + 1,
                        formula="floor((B-1)/Q_R) * max(Q_R, tau) + (B-1) mod Q_R + delta_d + 1 slots; "
                                "paper: ceil(B/Q_R) round trips",
                        source=SOURCE + ", section 2.3, Fig. 1")


# --------------------------------------------------------------------------- symbolic

def expressions() -> dict:
    """SymPy expressions of every closed form above, by name (SymPy is imported here, not at import).

    Symbols: R (link rate, bit/s), RTT (s), L (cell bits), tau, Q_R, M (buffers
    per link), links, delta_c, delta_d, B (burst cells), N, P, K, Q_RTX, C
    (credit-count bits).

    Examples
    --------
    >>> import sympy
    >>> e = expressions()
    >>> sorted(e)[:4]
    ['acknak_bits', 'acknak_restart_slots', 'acknak_total_cells', 'burst_latency_slots']
    >>> s = {x.name: x for x in e["burst_latency_slots"].free_symbols}
    >>> e["burst_latency_slots"].subs({s["B"]: 6, s["Q_R"]: 2, s["tau"]: 4, s["delta_d"]: 2})
    12
    >>> r = e["sfc_reduction_factor"]
    >>> q_r = next(x for x in r.free_symbols if x.name == "Q_R")
    >>> sympy.simplify(r.subs(q_r, e["sfc_q_r_ideal"]))       # section 4.2: N / 2
    N/2
    """
    import sympy as sp

    pos = {"positive": True}
    ints = {"positive": True, "integer": True}
    rate, rtt, cell = sp.symbols("R RTT L", **pos)
    tau, q_r, m, links, b, n, p, k, q_rtx = sp.symbols("tau Q_R M links B N P K Q_RTX", **ints)
    delta_c, delta_d, c = sp.symbols("delta_c delta_d C", nonnegative=True, integer=True)
    target = k * tau

    def mean_send(offset):
        # sum of s_m over the burst, closed form (see burst_latency), divided by B
        groups, rest = sp.floor(b / q_r), b - q_r * sp.floor(b / q_r)
        period = sp.Max(q_r, tau)
        total = (period * (q_r * groups * (groups - 1) / 2 + rest * groups) + groups * q_r * (q_r - 1) / 2
                 + rest * (rest - 1) / 2 - offset)
        return total / b + delta_d + 1

    def bits(x):
        return sp.ceiling(sp.log(x, 2))

    sfc_total = n * (n * p * q_r + sp.Max(target, n * p * q_r))
    return {
        "slot_seconds": cell / rate,
        "round_trip_slots": sp.ceiling(rate * rtt / cell),
        "max_utilization": sp.Min(q_r / tau, 1),
        "credit_total_cells": links * m * tau,
        "grant_total_cells": links * m * 2 * tau,
        "acknak_total_cells": links * (tau + m),
        "credit_restart_slots": delta_c,
        "grant_restart_slots": tau + delta_c,
        "acknak_restart_slots": sp.Integer(0),
        "burst_round_trips": sp.ceiling(b / q_r),
        "burst_latency_slots": (sp.floor((b - 1) / q_r) * sp.Max(q_r, tau) + sp.Mod(b - 1, q_r) + delta_d + 1),
        "burst_mean_cell_latency_together": mean_send(0),
        "burst_mean_cell_latency_one_per_slot": mean_send(b * (b - 1) / 2),
        "cicq_credit_total_cells": n ** 2 * p * target,
        "sfc_q_r_ceil": sp.ceiling(target / n),
        "sfc_q_r_ideal": target / n,
        "sfc_q_r_paper": sp.floor(target / n) + 2,
        "sfc_q_rtx": sp.Max(target, n * p * q_r),
        "sfc_total_cells": sfc_total,
        "sfc_reduction_factor": n ** 2 * p * target / sfc_total,
        "sequence_bits": bits(q_rtx),
        "acknak_bits": 1 + bits(m) + bits(q_rtx) + c,
    }
