"""Buffered crossbar (CICQ) answers built on the link-level forms of :mod:`.flow_control`.

Paper 002 (Minkenberg & Gusat) §2.3, §5:

- **Low-load burst latency.** At low load a burst crosses an idle switch
  alone. Its cells arrive one per slot; with credits, cell m leaves the line
  card at s_m = max(m, s_{m-Q_R} + tau), so a burst of B cells takes
  floor((B-1)/Q_R) max(Q_R, tau) + (B-1) mod Q_R + delta_d + 1 slots (Fig. 1:
  about ceil(B/Q_R) round trips when Q_R < tau). With geometric bursts of
  mean B the mean latency is the sum of that over the geometric law. With SFC
  every cell leaves the moment it arrives (speculatively once credits are
  gone) and the crosspoint drains one cell per slot, so an undisturbed burst
  takes B + delta_d slots: the mean is B + delta_d. Both ignore other bursts,
  so they are lower bounds that the switch approaches as load -> 0.
- **Throughput under unbalanced traffic with w = 1.** Each input feeds one
  crosspoint, so the link runs at the credit loop's rate min(Q_R / tau, 1)
  with credits (§2.3) and at full rate with SFC, which speculates whenever no
  credit is left (§5, Fig. 4 e-f).
"""

from __future__ import annotations

from dataclasses import dataclass

from switchq.models import _check

from . import flow_control
from .figures import figure, given

__all__ = ["BurstLatencyEstimate", "low_load_burst_latency", "permutation_throughput"]

SOURCE = "Minkenberg & Gusat, speculative flow control (paper 002)"


@dataclass(frozen=True)
class BurstLatencyEstimate:
    protocol: str = given()
    mean_burst: float = given("cells")
    q_r: int = given("cells")
    rtt_slots: int = given("slots")
    data_delay_slots: int = given("slots")
    mean_latency: float = figure("slots/burst", main=True)
    mean_latency_rtts: float = figure("round trips")
    formula: str = figure()
    source: str = figure()


def low_load_burst_latency(protocol: str, mean_burst: float, q_r: int, rtt_slots: int,
                           data_delay_slots: int) -> BurstLatencyEstimate:
    """Mean burst latency (slots) of geometric bursts crossing an idle buffered crossbar.

    Examples
    --------
    >>> e = low_load_burst_latency("credit", 10.0, 2, 8, 4)
    >>> round(e.mean_latency, 2), round(e.mean_latency_rtts, 2)
    (39.58, 4.95)
    >>> low_load_burst_latency("sfc", 10.0, 2, 8, 4).mean_latency
    14.0
    """
    protocol = _check.choice("protocol", protocol, ("credit", "sfc"))
    b_mean = _check.real("mean_burst", mean_burst, 1.0, 1e6)
    q = _check.integer("q_r", q_r, 1)
    tau = _check.integer("rtt_slots", rtt_slots, 1)
    dd = _check.integer("data_delay_slots", data_delay_slots, 0, tau - 1)
    if protocol == "sfc":
        latency = b_mean + dd
        formula = "E[B] + delta_d (cells sent as they arrive; no other burst in the way)"
    else:
        # Sum the isolated-burst latency over P(B = b) = (1 - 1/E[B])^(b-1) / E[B] until the tail is negligible.
        stay = 1.0 - 1.0 / b_mean
        latency, mass, b, p = 0.0, 0.0, 1, 1.0 / b_mean
        while mass < 1.0 - 1e-13 and b < 10**7:
            latency += p * flow_control.burst_latency(b, q, tau, dd, "one_per_slot").latency_slots
            mass += p
            p *= stay
            b += 1
        formula = ("sum over geometric B of floor((B-1)/Q_R) max(Q_R, tau) + (B-1) mod Q_R + delta_d + 1 "
                   "(isolated burst, Fig. 1)")
    return BurstLatencyEstimate(protocol, b_mean, q, tau, dd, latency, latency / tau, formula,
                                SOURCE + ", section 2.3 and Fig. 1; low-load limit of section 5")


def permutation_throughput(protocol: str, q_r: int, rtt_slots: int) -> float:
    """Saturation throughput with one flow per link (unbalanced traffic, w = 1).

    Examples
    --------
    >>> permutation_throughput("credit", 4, 32), permutation_throughput("sfc", 4, 32)
    (0.125, 1.0)
    """
    protocol = _check.choice("protocol", protocol, ("credit", "sfc"))
    if protocol == "sfc":
        return 1.0
    return flow_control.max_utilization(q_r, rtt_slots).utilization
