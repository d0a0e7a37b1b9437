"""Every analytic answer of the MediaWorm router for one configuration (``switchq solve wormhole``; paper 004).

The table gathers the pipeline and rate figures of :mod:`switchq.solvers.wormhole` and the contention
figures of :mod:`switchq.solvers.wormhole_contention`; it is its own module because the contention
figures are built on the pipeline's, so the gathering cannot live in either without a circle.
"""

from __future__ import annotations

from . import wormhole_traffic as wt
from .wormhole import fgvc_delay_bound, mean_hops, pcs_setup_cycles, zero_load_latency
from .wormhole_contention import best_effort_latency, overcommit, overcommit_frame_interval, pcs_fill

__all__ = ["answers"]


def answers(network, traffic) -> dict:
    """Every analytic answer for one configuration, named, with a ``units`` object (``switchq solve wormhole``).

    Hops are the mean over uniform destinations (1 on one router; 2 on the fat mesh, whose links between
    routers carry on average the node links' load under dimension-order routing, so the best-effort model's
    servers are alike); the over-commitment figures are for the node outputs (the links between routers
    carry a random subset of the streams, which the simulator measures), with mpeg2 streams of different
    sequences counted at their mean rate; with ``placement="capped"`` every output receives what a node sends,
    so none or all are over-committed. PCS adds the loss model for its established streams.

    Examples
    --------
    >>> from switchq.models.wormhole import WormholeNetwork, WormholeTraffic
    >>> a = answers(WormholeNetwork(), WormholeTraffic(0.96, (80, 20)))
    >>> a["zero_load_latency_us"], a["streams_total"], a["streams_per_input"], round(a["fgvc_bound_us"], 1)
    (2.08, 614, 77, 158.4)
    >>> round(a["effective_load"], 4)                  # 614 streams x 0.0099996 / 8 + 0.192
    0.9595
    >>> round(a["p_overcommit_any"], 3), round(a["frame_interval_mean_ms"], 3), a["best_effort_saturated"]
    (0.135, 33.355, True)
    >>> 614 / 8 * a["stream_wire_rate"] + 0.192 > 1            # video on the wire plus best effort: over the link
    True
    >>> round(a["p_best_effort_saturated"], 3)
    1.0
    """
    router = network.router
    st = traffic.streams
    hops = mean_hops(network, traffic.destinations)
    h_int = max(1, int(round(hops)))
    z = zero_load_latency(router, traffic.message_flits, hops)
    out = {"hops": hops, "cycle_ns": router.cycle_seconds * 1e9, "zero_load_latency_cycles": z.cycles,
           "zero_load_latency_us": round(z.seconds * 1e6, 9)}
    n = network.nodes
    total = wt.stream_total(n, router, traffic)
    s = wt.streams_per_input(router, traffic, nodes=n)
    out["streams_total"] = total
    out["streams_per_input"] = s
    if st.kind != "mpeg2":          # mpeg2 draws its sequences per input at random: the run says its load
        out["effective_load"] = wt.effective_load(n, router, traffic)
    out["realtime_vcs"] = traffic.realtime_vcs(router.vcs)
    out["sigma_d_floor_ms"] = wt.regulator_interval_sd(st, traffic, router.flit_bits) * 1e3
    if s:
        rate = sum(wt.wire_rate(st, traffic, router, q) for q in st.sequences) / len(st.sequences) \
            if st.kind == "mpeg2" else wt.wire_rate(st, traffic, router)
        b = fgvc_delay_bound(router, traffic, h_int, nodes=n)
        out.update(stream_wire_rate=rate, vtick_cycles=b.vtick, fgvc_bound_cycles=b.bound_cycles,
                   fgvc_bound_us=b.bound_seconds * 1e6, jitter_bound_ms=b.jitter_bound_seconds * 1e3,
                   reserved_input_load=b.reserved_input_load)
        cap = 1.0 if router.scheduler != "fifo" else max(1e-9, 1.0 - traffic.best_effort_load)
        if traffic.placement == "capped":
            # every output receives the s streams a node sends (one more at most, where a source may not send to
            # itself): over-committed at every output or at none, d = T max(1, s r / c) alike for every stream
            over = s * rate > cap + 1e-12
            out.update(max_streams_per_output=s, p_overcommit_output=float(over), p_overcommit_any=float(over),
                       frame_interval_mean_ms=st.frame_period * max(1.0, s * rate / cap) * 1e3,
                       frame_interval_sd_between_ms=0.0, share_jitter_free=float(not over))
            if traffic.best_effort_load > 0:
                out["p_best_effort_saturated"] = float(s * rate > 1.0 - traffic.best_effort_load + 1e-12)
        else:
            o = overcommit(n, s, rate, cap, traffic.destinations, streams=total)
            f = overcommit_frame_interval(n, s, rate, st.frame_period, cap, traffic.destinations, streams=total)
            out.update(max_streams_per_output=o.max_streams, p_overcommit_output=o.p_output,
                       p_overcommit_any=o.p_any, frame_interval_mean_ms=f.d_mean * 1e3,
                       frame_interval_sd_between_ms=f.d_sd_between * 1e3, share_jitter_free=f.share_jitter_free)
            if traffic.best_effort_load > 0:
                be = overcommit(n, s, rate, max(1e-9, 1.0 - traffic.best_effort_load), traffic.destinations,
                                streams=total)
                out["p_best_effort_saturated"] = be.p_any
    if traffic.best_effort_load > 0:
        be = best_effort_latency(router, traffic, h_int)
        out.update(best_effort_latency_us=be.seconds * 1e6, best_effort_saturated=be.saturated)
    if router.switching == "pcs" and s:
        m_rt = traffic.realtime_vcs(router.vcs)
        est = min(sum(min(int(c), m_rt) for c in wt.stream_counts(n, router, traffic)), n * router.vcs - 1)
        f = pcs_fill(est, network.nodes, router.vcs)
        out.update(pcs_established=est, pcs_attempts=f.attempts, pcs_dropped=f.dropped,
                   pcs_setup_cycles=pcs_setup_cycles(router, h_int))
    out["units"] = {k: u for k, u in _UNITS.items() if k in out}
    return out


_UNITS = {"hops": "routers", "cycle_ns": "ns", "zero_load_latency_cycles": "cycles", "zero_load_latency_us": "us",
          "streams_total": "streams", "effective_load": "1", "streams_per_input": "streams", "realtime_vcs": "VCs",
          "sigma_d_floor_ms": "ms",
          "stream_wire_rate": "flits/cycle", "vtick_cycles": "cycles/flit", "fgvc_bound_cycles": "cycles",
          "fgvc_bound_us": "us", "jitter_bound_ms": "ms", "reserved_input_load": "flits/cycle",
          "max_streams_per_output": "streams", "p_overcommit_output": "1", "p_overcommit_any": "1",
          "frame_interval_mean_ms": "ms", "frame_interval_sd_between_ms": "ms", "share_jitter_free": "1",
          "p_best_effort_saturated": "1", "best_effort_latency_us": "us", "best_effort_saturated": "",
          "pcs_established": "connections", "pcs_attempts": "attempts", "pcs_dropped": "attempts",
          "pcs_setup_cycles": "cycles"}
