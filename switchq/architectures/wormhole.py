"""Wormhole virtual-channel routers with rate-based scheduling: MediaWorm (paper 004), analytic side.

Answered as ``wormhole`` (``switchq solve wormhole``): zero-load message
latency through the 5-stage pipeline, the FGVC delay bound on an admissible
load, over-commitment of outputs by random stream placement and its effect on
the frame delivery interval, best-effort latency under strict priority, PCS
set-up and loss figures (:mod:`switchq.solvers.wormhole`,
:mod:`switchq.solvers.wormhole_contention`). The simulated twin extends the
flit-level kernel (:mod:`switchq.validate.arch.flit`) with virtual channels;
until it lands this declaration has no kernel.
"""

from __future__ import annotations

from switchq.declaration import Answer, Architecture
from switchq.models.wormhole import (CROSSBARS, DESTINATIONS, HEADERS, LOAD_BASES, SCHEDULERS, STREAM_KINDS,
                                     SWITCHING, TOPOLOGIES, VCLOCK_STATES, VideoStreams, WormholeNetwork,
                                     WormholeRouter, WormholeTraffic)
from switchq.params import REQUIRED, Param

PARAMS = (
    Param("ports", "n_ports", "int", 8, low=2, high=64, unit="ports", aliases=("-n",),
          help="n, physical channels in and out of a router (8 in paper 004)."),
    Param("vcs", "vcs", "int", 16, low=1, high=64, unit="VCs", help="m, virtual channels per physical channel."),
    Param("flit_bits", "flit_bits", "size", 32, low=1, unit="bits", aliases=("flit",),
          help="Flit width with a unit: 32bit, 16B (32 bits at 400 Mbit/s, 128 at 1.6 Gbit/s: Table IV)."),
    Param("link_rate", "link_rate", "rate", 400e6, low=0, low_open=True, unit="bit/s",
          help="Physical channel bandwidth: 100Mb/s, 400Mb/s, 1.6Gb/s."),
    Param("crossbar", "crossbar", "choice", "multiplexed", choices=CROSSBARS,
          help="multiplexed (n x n) or full (nm x nm) crossbar."),
    Param("scheduler", "scheduler", "choice", "fgvc", choices=SCHEDULERS,
          help="fgvc (Fine-Grained VirtualClock), fgfq, or fifo (the traditional router)."),
    Param("switching", "switching", "choice", "wormhole", choices=SWITCHING,
          help="wormhole, or pcs (pipelined circuit switching: one stream per VC)."),
    Param("vclock_state", "vclock_state", "choice", "message", choices=VCLOCK_STATES,
          help="FGVC's auxVC kept per message (the default) or per VC."),
    Param("topology", "topology", "choice", "switch", choices=TOPOLOGIES,
          help="One router (node v on port v) or the 2 x 2 fat mesh (Fig. 4)."),
    Param("load", "load", "float", REQUIRED, low=0, high=1, low_open=True, unit="1", aliases=("-p",),
          help="Offered load as a fraction of the link bandwidth."),
    Param("mix", "mix", "floats", (80.0, 20.0), unit="1",
          help="Real-time : best-effort mix x,y (80,20 in Fig. 5)."),
    Param("message_flits", "message_flits", "int", 20, low=2, high=1 << 16, unit="flits", aliases=("message",),
          help="Message size M in flits (header included)."),
    Param("streams", "streams", "choice", "vbr", choices=STREAM_KINDS,
          help="cbr (16,666 B frames), vbr (normal, s.d. 3,333 B) or mpeg2 (Table III surrogate)."),
    Param("header", "header", "choice", "overhead", choices=HEADERS,
          help="The header flit carries no video (overhead) or every flit does (payload)."),
    Param("load_basis", "load_basis", "choice", "nominal", choices=LOAD_BASES,
          help="Streams counted at their nominal 4 Mbit/s or at their wire rate with headers."),
    Param("destinations", "destinations", "choice", "all", choices=DESTINATIONS,
          help="Stream and best-effort destinations over all nodes or the other nodes."),
)

UNITS = {"n_ports": "ports", "vcs": "VCs", "flit_bits": "bits", "link_rate": "bit/s", "load": "1", "mix": "1",
         "message_flits": "flits"}


def _solve(p):
    from switchq.solvers.wormhole import answers

    router = WormholeRouter(p["ports"], p["vcs"], p["flit_bits"], p["link_rate"], p["crossbar"], p["scheduler"],
                            p["switching"], vclock_state=p["vclock_state"])
    network = WormholeNetwork(router, p["topology"])
    traffic = WormholeTraffic(p["load"], tuple(p["mix"]), p["message_flits"], VideoStreams(p["streams"]),
                              p["header"], p["load_basis"], p["destinations"])
    network.check_traffic(traffic)
    results = answers(network, traffic)
    results.pop("units")   # the declaration states them
    inputs = {"n_ports": router.n_ports, "vcs": router.vcs, "flit_bits": router.flit_bits,
              "link_rate": router.link_rate, "crossbar": router.crossbar, "scheduler": router.scheduler,
              "switching": router.switching, "topology": network.topology, "load": traffic.load,
              "mix": list(traffic.mix), "message_flits": traffic.message_flits, "streams": traffic.streams.kind}
    results["source"] = ("paper 004 (MediaWorm) §III-IV, Tables III-VI; VirtualClock bound: Figueira & Pasquale "
                         "1995, Goyal, Lam & Vin 1997; priority queueing: Cobham 1954; PCS: Erlang B")
    return inputs, results


RESULTS = ("zero_load_latency_cycles", "zero_load_latency_us", "streams_per_input", "fgvc_bound_us",
           "jitter_bound_ms", "p_overcommit_any", "frame_interval_mean_ms", "share_jitter_free",
           "best_effort_latency_us", "source")

DECLARATION = Architecture(
    name="wormhole", family="network", order=70,
    title="Wormhole VC router with rate-based scheduling (MediaWorm)",
    summary="paper 004: zero-load latency, FGVC delay bound, output over-commitment, best effort, PCS "
            "(analytic; the simulator extends the flit-level kernel next)",
    answers=(
        Answer("wormhole", "MediaWorm router: analytic answers",
               "paper 004's router analytically: pipeline latency, FGVC bound, over-commitment, best effort, PCS",
               params=PARAMS, solve=_solve, results=RESULTS,
               units={**UNITS, "zero_load_latency_cycles": "cycles", "zero_load_latency_us": "us",
                      "streams_per_input": "streams", "fgvc_bound_us": "us", "jitter_bound_ms": "ms",
                      "p_overcommit_any": "1", "frame_interval_mean_ms": "ms", "share_jitter_free": "1",
                      "best_effort_latency_us": "us", "hops": "routers", "cycle_ns": "ns", "realtime_vcs": "VCs",
                      "sigma_d_floor_ms": "ms", "stream_wire_rate": "flits/cycle", "vtick_cycles": "cycles/flit",
                      "fgvc_bound_cycles": "cycles", "reserved_input_load": "flits/cycle",
                      "max_streams_per_output": "streams", "p_overcommit_output": "1",
                      "frame_interval_sd_between_ms": "ms", "p_best_effort_saturated": "1",
                      "pcs_established": "connections", "pcs_attempts": "attempts", "pcs_dropped": "attempts",
                      "pcs_setup_cycles": "cycles", "topology": "", "crossbar": "", "scheduler": "",
                      "switching": "", "streams": "", "best_effort_saturated": ""},
               main="fgvc_bound_us", table=("zero_load_latency_us", "fgvc_bound_us", "p_overcommit_any",
                                            "best_effort_latency_us"),
               description="Analytic answers for paper 004's MediaWorm router: the zero-load message latency "
                           "through the pipeline, the FGVC (VirtualClock) delay bound of an admissible stream, the "
                           "probability that random stream placement over-commits an output and the frame "
                           "delivery interval that follows, best-effort latency under strict priority (an M/G/1 "
                           "approximation whose error is to be measured by the simulator), and PCS set-up and "
                           "loss figures.",
               examples=("switchq solve wormhole --load 0.96 --mix 80,20 --json",
                         "switchq solve wormhole --load 0.8 --mix 50,50 --streams cbr --crossbar full"),
               vary_example="load=0.5:0.95:0.05 --mix 80,20"),
    ),
)
