"""What MediaWorm's mechanism, as switchq models it, allows of the paper's Tables II and V (paper 004 §III-D,
§IV-B): figures that bound or explain what a run can show.

Each is computed, never asserted: a closed form or a Monte Carlo of the mechanism, with the random draws from the
``numpy.random.Generator`` passed in.

- :func:`frame_interval_limits` (Table II): a frame's delivery time is its start, the regulator's offset of
  its last message and that message's delay. Consecutive intervals are ``T + (L_(k+1) - L_k)``, so over a
  stream's ``n`` intervals ``d-bar = T + (L_last - L_first) / n``: no steady state delivers faster than frames
  are made. Where no output is over-committed, the FGVC bound keeps every delay within ``J`` = bound -
  zero-load of the zero-load latency, so ``|d - T| <= |offset difference| + J`` and ``sigma_d <= floor + J``
  (``floor`` the regulator's, :func:`~switchq.models.wormhole_frames.regulator_interval_sd`); a Monte Carlo with the delays
  chosen adversarially within ``[0, J]`` gives the smallest d-bar and the largest sigma_d a run can show.
- :func:`best_effort_saturation` (Table V): the share of the simulator's own stream placements
  (:func:`~switchq.models.wormhole_placement.place_streams`) leaving some output with video (on the wire) plus best effort
  above its link, where best effort has no finite latency; beside the exact multinomial of
  :func:`~.wormhole_contention.overcommit`.

Neither is a derivation a report's verdict may rest on (issue 33: "not reproducible" needs rules the paper
states): the first assumes the input regulator, which §III-D brings in only after Table II ("In order to avoid
traffic burstiness, we regulate the traffic injection as described in Section IV"), and a delay bound for FGVC the
paper never states (Goyal, Lam & Vin's, :func:`~.wormhole.fgvc_delay_bound`), over our run's length; the second
gives a chance (0.72-1.00 at Table V's loads 0.9 and 0.96 with finite latencies), not what the paper's rules
force. ``switchq report mediaworm`` no longer uses them; they stay, tested (``tests/test_wormhole_evidence.py``),
for whoever re-judges those cells.

Examples
--------
>>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
>>> f = frame_interval_limits(WormholeRouter(), WormholeTraffic(0.8, (80, 20)), 7, np.random.default_rng(1), runs=20)
>>> f.streams, round(f.period_ms, 2), round(f.sd_bound_ms, 3)
(512, 33.33, 0.208)
>>> bool(f.d_min_ms > 33.3 and f.sd_max_ms < f.sd_bound_ms)
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from switchq.models import _check

from . import wormhole_traffic as wt

__all__ = ["FrameIntervalLimits", "frame_interval_limits", "best_effort_saturation"]


@dataclass(frozen=True)
class FrameIntervalLimits:
    """The frame delivery interval a run of ``streams`` streams with ``intervals`` intervals each can show when
    every message's delay stays within ``jitter_ms`` of the zero-load latency (ms): ``d_min_ms``, the smallest
    pooled d-bar of ``runs`` Monte Carlo runs (each stream's first frame ``jitter_ms`` late, its last on time);
    ``sd_max_ms``, the largest pooled sigma_d (delays alternating 0, ``jitter_ms``); ``sd_bound_ms`` = floor +
    jitter, the closed-form bound."""

    streams: int
    intervals: int
    runs: int
    period_ms: float
    jitter_ms: float
    floor_ms: float
    sd_bound_ms: float
    d_min_ms: float
    sd_max_ms: float
    method: str = ("d = T + (L_(k+1) - L_k), L = the regulator's offset of the last message (span (1 - 1/messages), "
                   "frame sizes of the model's law) + a delay in [0, J], J = FGVC bound - zero-load")


def frame_interval_limits(router, traffic, intervals: int, rng: np.random.Generator,
                          runs: int = 200) -> FrameIntervalLimits:
    """The smallest d-bar and the largest sigma_d the mechanism of §III-D and §IV-B.1 allows a run of
    ``intervals`` frame intervals per stream (see the module docstring), cbr or vbr streams.

    Cost: ``runs x streams x (intervals + 1)`` frames drawn, about 0.1 s for 200 runs of 512 streams x 8.
    """
    from .wormhole import fgvc_delay_bound

    n = _check.integer("intervals", intervals, 1, 10_000)
    r = _check.integer("runs", runs, 1, 100_000)
    st = traffic.streams
    s = max(1, wt.stream_total(router.n_ports, router, traffic))
    span_ms, period_ms = st.regulator_span * 1e3, st.frame_period * 1e3
    jitter = fgvc_delay_bound(router, traffic).jitter_bound_seconds * 1e3
    floor = wt.regulator_interval_sd(st, traffic, router.flit_bits) * 1e3
    # delays alternating 0, J, 0, ...: every interval moved by J, the widest spread the bound allows
    alternate = jitter * (np.arange(n + 1) % 2)
    d_min, sd_max = np.inf, 0.0
    for _ in range(r):
        bits = wt.frame_sizes(st, s * (n + 1), rng)
        messages, _ = wt.frame_messages(bits, traffic.message_flits, router.flit_bits, traffic.header)
        offset = (span_ms * (1.0 - 1.0 / messages)).reshape(s, n + 1)
        # d-bar: each stream's first frame J late, its last on time
        d_min = min(d_min, period_ms + float(np.mean(offset[:, -1] - offset[:, 0] - jitter)) / n)
        dev = np.diff(offset + alternate, axis=1)
        sd_max = max(sd_max, float(np.sqrt(np.mean(dev ** 2) - np.mean(dev) ** 2)))
    return FrameIntervalLimits(s, n, r, period_ms, jitter, floor, floor + jitter, d_min, sd_max)


def best_effort_saturation(router, traffic, rng: np.random.Generator, placements: int = 200,
                           nodes: int | None = None) -> float:
    """Share of ``placements`` stream placements by the simulator's own :func:`~switchq.models.wormhole_placement.place_streams`
    leaving some output with video on the wire (its streams x :func:`~switchq.models.wormhole_frames.wire_rate`) above the link
    less the best-effort load: there best effort is offered more than is left to it and has no finite latency.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeRouter, WormholeTraffic
    >>> best_effort_saturation(WormholeRouter(), WormholeTraffic(0.96, (50, 50)), np.random.default_rng(2), 50)
    1.0
    """
    k = _check.integer("placements", placements, 1, 1_000_000)
    n = router.n_ports if nodes is None else nodes
    rate = wt.wire_rate(traffic.streams, traffic, router)
    room = 1.0 - traffic.best_effort_load
    over = 0
    for _ in range(k):
        p = wt.place_streams(n, router, traffic, rng)
        over += bool(p.per_output(n).max() * rate > room + 1e-12)
    return over / k
