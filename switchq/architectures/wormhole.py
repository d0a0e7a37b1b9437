"""Wormhole virtual-channel routers with rate-based scheduling: MediaWorm (paper 004).

Simulated as ``wormhole`` by the flit-level network kernel
(:mod:`switchq.validate.arch.flit`, its virtual-channel path: VC buffers one
message deep with credits, the 5-stage header pipeline, multiplexed or full
crossbar, FGVC / FGFQ / FIFO, PCS connections, the fat mesh); answered as
``wormhole`` (``switchq solve wormhole``): zero-load message latency through
the pipeline, the FGVC delay bound on an admissible load, over-commitment of
outputs by random stream placement and its effect on the frame delivery
interval, best-effort latency under strict priority, PCS set-up and loss
figures (:mod:`switchq.solvers.wormhole`, :mod:`switchq.solvers.wormhole_contention`).
"""

from __future__ import annotations

from switchq.declaration import Answer, Architecture, BenchCase, Case, Counter, Metric, simulated_seconds
from switchq.models.wormhole import (BEST_EFFORT_STAMPS, BEST_EFFORT_VCS, CROSSBAR_OUTPUTS, CROSSBARS, DESTINATIONS,
                                     HEADERS, LOAD_BASES, PLACEMENTS, PROBE_VCS, REGULATOR_SPAN, REGULATORS,
                                     SCHEDULERS, STREAM_KINDS, SWITCHING, TOPOLOGIES, VCLOCK_STATES, VideoStreams,
                                     WormholeNetwork, WormholeRouter, WormholeTraffic)
from switchq.params import REQUIRED, SIM, Param, check_applies
from switchq.solved import solved

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
          help="FGVC's auxVC kept per message (the default) or per VC.", applies=("scheduler", ("fgvc", "fgfq"))),
    Param("topology", "topology", "choice", "switch", choices=TOPOLOGIES,
          help="One router (node v on port v) or the 2 x 2 fat mesh (Fig. 4)."),
    Param("load", "load", "float", REQUIRED, low=0, high=1, low_open=True, unit="1", aliases=("-p",),
          help="Offered load as a fraction of the link bandwidth."),
    Param("mix", "mix", "floats", (80.0, 20.0), unit="1",
          help="Real-time : best-effort mix x,y (80,20 in Fig. 5)."),
    Param("message_flits", "message_flits", "int", 20, low=2, high=1 << 16, unit="flits", aliases=("message",),
          help="Message size M in flits (header included)."),
    Param("streams", "streams", "choice", "vbr", choices=STREAM_KINDS, aliases=("traffic",),
          help="cbr (16,666 B frames), vbr (normal, s.d. 3,333 B) or mpeg2 (Table III surrogate)."),
    Param("frame_period", "frame_period", "float", 1.0 / 30, low=0, high=10, low_open=True, unit="s",
          default_text="1/30 s", help="Seconds between a stream's frames (30 frames/s; the paper also says 33 ms)."),
    Param("header", "header", "choice", "overhead", choices=HEADERS,
          help="The header flit carries no video (overhead) or every flit does (payload)."),
    Param("load_basis", "load_basis", "choice", "nominal", choices=LOAD_BASES,
          help="Streams counted at their nominal 4 Mbit/s or at their wire rate with headers."),
    Param("destinations", "destinations", "choice", "all", choices=DESTINATIONS,
          help="Stream and best-effort destinations over all nodes or the other nodes."),
    # PCS probes draw their own output VCs: a stream is placed where its probe finds one free.
    Param("placement", "placement", "choice", "uniform", choices=PLACEMENTS,
          help="A stream's destination and VC drawn uniformly, or among the (node, VC) pairs holding fewer "
               "streams than the busiest input VC (capped: §IV-B.3's limit on incoming streams).",
          applies=("switching", ("wormhole",))),
)

SIM_PARAMS = (
    Param("crossbar_iterations", "crossbar_iterations", "int", 0, low=0, high=64, unit="rounds", modes=SIM,
          help="Multiplexed crossbar allocator rounds per cycle; 0: until maximal (1: one round, near 0.6 at most).",
          applies=("crossbar", ("multiplexed",))),
    Param("crossbar_output", "crossbar_output", "choice", "stamp", choices=CROSSBAR_OUTPUTS, modes=SIM,
          help="Multiplexed crossbar output (B) takes the flit with the smallest stamp (auxVC, §III-D), or the "
               "oldest flit offered (fifo).",
          applies=("crossbar", ("multiplexed",))),
    Param("best_effort_vcs", "best_effort_vcs", "choice", "free", choices=BEST_EFFORT_VCS, modes=SIM,
          help="Best-effort VCs: any free one taken (free), or drawn when a message is made and waited for."),
    # The FIFO router stamps every flit by its arrival.
    Param("best_effort_stamp", "best_effort_stamp", "choice", "largest", choices=BEST_EFFORT_STAMPS, modes=SIM,
          help="Best-effort stamps all the largest value (FIFO among them), or growing by that Vtick (vclock).",
          applies=("scheduler", ("fgvc", "fgfq"))),
    Param("probe_vc", "probe_vc", "choice", "named", choices=PROBE_VCS, modes=SIM,
          help="PCS: a probe asks for a drawn output VC, dropped if it is held (named), or takes any free one, "
               "dropped only if none is (any).",
          applies=("switching", ("pcs",))),
    # §III-D compares FGVC and FGFQ (Table II) before "In order to avoid traffic burstiness, we regulate the traffic
    # injection as described in Section IV": Table II may have run without it.
    Param("regulator", "regulator", "choice", "spread", choices=REGULATORS, modes=SIM,
          help="A frame's messages spread evenly over 33 ms (spread, §IV-B.1), or all handed to the NIC as the "
               "frame starts (none); the Vtick is the spread's either way.",
          applies=("switching", ("wormhole",))),
    Param("buffer_messages", "buffer_messages", "int", 1, low=1, high=64, unit="messages", modes=SIM,
          help="Depth of every input and output VC buffer (one message in the paper)."),
)
CLOCK = simulated_seconds(1.0, "seconds/10, at least one frame period", "30 frames per stream a second")

UNITS = {"nodes": "nodes", "routers": "routers", "header_stages": "cycles",
         "body_stages": "cycles", "link_cycles": "cycles", "cycle_seconds": "s", "best_effort_vtick": "cycles/flit",
         "frame_bytes": "B", "frame_sd_bytes": "B", "regulator_span": "s", "frame_cv": "1",
         "parallel": "links"}


def _network(p) -> WormholeNetwork:
    router = WormholeRouter(p["ports"], p["vcs"], p["flit_bits"], p["link_rate"], p["crossbar"], p["scheduler"],
                            p["switching"], vclock_state=p["vclock_state"],
                            buffer_messages=p.get("buffer_messages", 1),
                            crossbar_iterations=p.get("crossbar_iterations", 0),
                            crossbar_output=p.get("crossbar_output", "stamp"),
                            best_effort_vcs=p.get("best_effort_vcs", "free"),
                            best_effort_stamp=p.get("best_effort_stamp", "largest"),
                            probe_vc=p.get("probe_vc", "named"))
    return WormholeNetwork(router, p["topology"])


def _traffic(p) -> WormholeTraffic:
    period = p.get("frame_period", 1.0 / 30)
    streams = VideoStreams(p["streams"], frame_period=period, regulator_span=min(REGULATOR_SPAN, period),
                           regulator=p.get("regulator", "spread"))
    return WormholeTraffic(p["load"], tuple(p["mix"]), p["message_flits"], streams,
                           p["header"], p["load_basis"], p["destinations"], p.get("seconds", 1.0),
                           p.get("warmup_seconds"), p.get("placement", "uniform"))


def build(p):
    check_applies(DECLARATION.all_params(), p, p)   # Python callers refused as the CLI refuses them
    net, traffic = _network(p), _traffic(p)
    net.check_traffic(traffic)
    return net, traffic


def _cycle(c) -> float:
    return c.system.router.cycle_seconds


def _measured_cycles(c) -> float:
    return max(1, int(round(c.workload.seconds * c.system.router.cycles_per_second)))


def _timeline(net, traffic) -> tuple:
    """Warm-up and measured cycles, as the kernel rounds them from the workload's seconds."""
    cps = net.router.cycles_per_second
    return int(round(traffic.warmup * cps)), max(1, int(round(traffic.seconds * cps)))


def _interval_mean(c):
    n = c["m_frames"]
    return (c["interval_base"] + c["m_interval_dev_sum"] / n) * _cycle(c) * 1e3


def _interval_sd(c):
    import numpy as np

    n = c["m_frames"]
    mean_dev = c["m_interval_dev_sum"] / n
    return np.sqrt(np.maximum(c["m_interval_dev_sq"] / n - mean_dev ** 2, 0.0)) * _cycle(c) * 1e3


def _stability(c):
    """Growth of the flits offered and not yet delivered (NIC queues, VC buffers) against 1 % of the flits
    offered, plus every VC buffer full once of noise; and of each class's flits to each destination node
    (parts 0 to nodes - 1 real time, nodes to 2 nodes - 1 best effort), plus the VC buffers of one
    destination's path full once."""
    from switchq.validate.harness import Backlog

    r, n = c.system.router, c.system.nodes
    path = 2 * r.vcs * r.buffer_messages * c.workload.message_flits
    return Backlog(c["backlog_end"] - c["backlog_start"], c["m_flits_offered"], c.system.nodes * path, "flits",
                   lambda j: f"{'real-time' if j < n else 'best-effort'} flits to node {j % n}", path,
                   granule=c.workload.message_flits)


def _drawn(c):
    """Streams the run drew in all (cbr, vbr: round(real-time load / stream rate x nodes), one replication's
    value each; mpeg2: the streams placed); with PCS more than were established."""
    import numpy as np

    from switchq.solvers import wormhole_traffic as wt

    placed = np.asarray(c["streams"], dtype=float)
    if c.workload.streams.kind == "mpeg2":
        return placed
    return np.full_like(placed, wt.stream_total(c.system.nodes, c.system.router, c.workload))


def _effective_load(c):
    """The load the run offers as the paper counts load: the streams drawn at their rate plus best effort."""
    import numpy as np

    from switchq.solvers import wormhole_traffic as wt

    if c.workload.streams.kind == "mpeg2":
        return None
    placed = np.asarray(c["streams"], dtype=float)
    return np.full_like(placed, wt.effective_load(c.system.nodes, c.system.router, c.workload))


METRICS = (
    Metric("effective_load", "1", _effective_load,
           "the load offered in whole streams: round(real-time load / stream rate x nodes) streams at their rate "
           "(nominal or wire, as --load-basis) per node, plus best effort; cbr and vbr (mpeg2 draws sequences)",
           bounds=(0.0, None)),
    Metric("streams_drawn", "streams", _drawn,
           "real-time streams drawn in all, per-input counts differing by one at most; pcs: those asked for "
           "(one beyond an input's VCs is refused at the source, and probes may be dropped: see established)"),
    Metric("frame_interval_mean_ms", "ms", _interval_mean,
           "d-bar: mean time between the deliveries of a stream's consecutive frames (its last message's tail), "
           "pooled over the streams; 1000/30 ms is on time"),
    Metric("frame_interval_sd_ms", "ms", _interval_sd,
           "sigma_d: standard deviation of those intervals, pooled over the streams (the paper's jitter)"),
    Metric("best_effort_latency_us", "us", lambda c: c["m_be_latency_sum"] / c["m_be_messages"] * _cycle(c) * 1e6,
           "from a best-effort message's creation (NIC queueing included) to its tail's delivery"),
    Metric("throughput", "1", lambda c: c["m_flits_received"] / (c.system.nodes * _measured_cycles(c)),
           "flits delivered per node per cycle, a share of the link bandwidth", bounds=(0.0, 1.0)),
    Metric("applied_load", "1", lambda c: c["m_flits_offered"] / (c.system.nodes * _measured_cycles(c)),
           "flits offered per node per cycle while measuring, headers included", bounds=(0.0, None)),
    Metric("frames_late_share", "1", lambda c: c["frames_late"] / (c["m_frames"] + c["frames_late"]),
           "frames started two periods before the end and not delivered, over the frames measured",
           bounds=(0.0, 1.0)),
    # Counts of the set-up phase, which ends once every stream has probed: whole measurements, whatever the run's
    # steady state.
    Metric("attempted", "connections", lambda c: c["attempted"] * 1.0, "pcs: connection probes sent",
           steady_state=False),
    Metric("established", "connections", lambda c: c["established"] * 1.0, "pcs: connections set up",
           steady_state=False),
    Metric("dropped", "connections", lambda c: c["refused"] * 1.0, "pcs: probes dropped (output VC held)",
           steady_state=False),
)
COUNTERS = (Counter("streams", "streams"), Counter("frames", "intervals", counter="m_frames"),
            Counter("frames_late", "frames"), Counter("max_held", "flits", "max"), Counter("deadlock", "runs"))


def _zero_load_case():
    analytic = solved("wormhole.zero_load_latency", WormholeRouter(), 20, figure="seconds", scale=1e6,
                      method="zero_load_latency: hops x 5 + (hops + 1) x 1 + M - 1 cycles")
    return Case("wormhole", "8x8 router, best effort only at load 0.002, 20-flit messages: zero-load latency",
                {"load": 0.002, "mix": (0.0, 100.0), "seconds": 0.02, "warmup_seconds": 0.001},
                "best_effort_latency_us", analytic, tolerance=0.02, replications=5,
                why="At load 0.002 a message rarely meets another: measured 2.091 +- 0.015 us over 4 x 0.02 s, "
                    "an eighth of a cycle above the 26-cycle figure; 0.02 us (a quarter cycle) allows that "
                    "queueing.")


def _lone_stream_case(quantity, target, label):
    # No solver: the stream's own period.
    analytic = (lambda: (target, "a CBR stream alone on its input and output is delivered every 1/30 s "
                                 "(sigma_d 0)"))
    return Case("wormhole", f"CBR, one stream per input (load 0.04, 100:0): {label}",
                {"load": 0.04, "mix": (100.0, 0.0), "streams": "cbr", "seconds": 0.3, "warmup_seconds": 0.04},
                quantity, analytic, tolerance=0.0005, replications=5,
                why="Frame starts fall on whole cycles, so consecutive intervals differ by a cycle at most "
                    "(80 ns); 0.0005 ms covers that rounding and nothing else.")


def _pcs_case():
    analytic = solved("wormhole_contention.pcs_fill", 182, 8, 24, figure="attempts",
                      method="pcs_fill: S (H_S - H_(S-n)), S = 8 x 24, n = 182")
    return Case("wormhole", "PCS 8x8, 24 VCs, 100 Mbit/s, load 0.91 (182 streams, 22-23 an input): probes to set up "
                "182",
                {"vcs": 24, "link_rate": 100e6, "switching": "pcs", "load": 0.91, "mix": (100.0, 0.0),
                 "seconds": 0.001, "warmup_seconds": 0.0},
                "attempted", analytic, replications=16, precision=30.0, precision_share=0.0,
                why="The simulator's probes follow the static fill model exactly (uniform output VC, dropped iff "
                    "held), so only sampling differs: a point target. With 182 of the 192 output VCs to fill the "
                    "attempts' s.d. is about 50 (200 placements: mean 556.0 against 558.4); precision 30 attempts "
                    "(5 %) is met within the budget (about 40 replications at validate's level) and is far finer than a "
                    "wrong fill rule moves the mean (a fill in which no probe fails would take 182).")


def _best_effort_case():
    analytic = solved("wormhole_contention.best_effort_latency", WormholeRouter(), WormholeTraffic(0.3, (50.0, 50.0)),
                      figure="seconds", scale=1e6,
                      method="best_effort_latency: strict priority, M/G/1 per link (Cobham), independent links")
    return Case("wormhole", "8x8 router, VBR + best effort 50:50 at load 0.3: best-effort latency",
                # 0.12 s after the 0.034 s warm-up (a frame of every stream): long enough for the latency trend to
                # be judged (the time since the start must grow 3x across the measured segments).
                {"load": 0.3, "mix": (50.0, 50.0), "seconds": 0.12, "warmup_seconds": 0.034},
                "best_effort_latency_us", analytic, tolerance_share=0.2, replications=5,
                why="The approximation's error, measured (default readings, 4 replications): 3.55 us simulated "
                    "against 3.53 at load 0.3 (+1 %), 5.88 against 5.51 at 0.5 (+7 %), 12.3 against 10.4 at 0.7 "
                    "(+18 %): regulated video is smoother than Poisson but the crossbar input is a contention point "
                    "the link model leaves out. 20 % holds at 0.3 with room for the other readings (+13 % with "
                    "VCs drawn and stamps growing).")


SAMPLE = {"load": 0.5, "seconds": 0.01, "warmup_seconds": 0.0034}


def _solve(p):
    from switchq.solvers.wormhole_answers import answers

    network = _network(p)
    router = network.router
    traffic = _traffic(p)
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


RESULTS = ("zero_load_latency_cycles", "zero_load_latency_us", "streams_total", "effective_load", "streams_per_input",
           "fgvc_bound_us",
           "jitter_bound_ms", "p_overcommit_any", "frame_interval_mean_ms", "share_jitter_free",
           "best_effort_latency_us", "source")

DECLARATION = Architecture(
    name="wormhole", family="network", order=70,
    title="Wormhole VC router with rate-based scheduling (MediaWorm)",
    summary="paper 004: 8x8 wormhole VC router, FGVC / FGFQ / FIFO, CBR / VBR / MPEG-2 streams with best "
            "effort, PCS, fat mesh; frame delivery interval and jitter",
    description="Flit-level simulation of paper 004's pipelined wormhole router with virtual channels (the "
                "flit-level network kernel's VC path): video streams of 30 frames/s whose frames are cut into "
                "M-flit messages and spread by a regulator, plus Poisson best-effort messages, at a load that "
                "is a share of the link bandwidth. d-bar and sigma_d are the mean and standard deviation of "
                "the intervals between a stream's frame deliveries, pooled over streams; means over "
                "replications (independent stream placements) with 95 % CIs.",
    sample=SAMPLE, config=(WormholeNetwork,), accepts=(WormholeTraffic,), params=PARAMS[:9] + SIM_PARAMS,
    workload=PARAMS[9:], build=build, clock=CLOCK, kernel="switchq.validate.arch.flit", metrics=METRICS,
    counters=COUNTERS, units=UNITS, stability=_stability,
    timeline=_timeline,
    table=("frame_interval_mean_ms", "frame_interval_sd_ms", "best_effort_latency_us", "unstable"),
    cases=(_zero_load_case(), _lone_stream_case("frame_interval_mean_ms", 1000 / 30, "d-bar"),
           _lone_stream_case("frame_interval_sd_ms", 0.0, "sigma_d"), _pcs_case(), _best_effort_case()),
    bench=(BenchCase("MediaWorm 8x8, 16 VCs, FGVC, VBR + best effort 80:20, load 0.8, 1 s simulated",
                     {"load": 0.8, "seconds": 1.0, "warmup_seconds": 0.0}, 10.0),
           BenchCase("MediaWorm 8x8, 16 VCs, FGVC, VBR + best effort 80:20, load 0.6, 1 s simulated",
                     {"load": 0.6, "seconds": 1.0, "warmup_seconds": 0.0}, 10.0)),
    report=(("mediaworm", "switchq.validate.reports.mediaworm"),),
    vary_example="load=0.5:0.95:0.05 --vary scheduler=fgvc,fifo --seconds 0.3",
    examples=("switchq simulate wormhole --scheduler fgvc --vcs 16 --crossbar multiplexed --streams vbr "
              "--mix 80,20 --load 0.8 --seconds 0.2 -r 2 --seed 1 --json",
              "switchq simulate wormhole --switching pcs --vcs 24 --link-rate 100Mb/s --mix 100,0 --load 0.8 "
              "--seconds 0.2"),
    answers=(
        Answer("wormhole", "MediaWorm router: analytic answers",
               "paper 004's router analytically: pipeline latency, FGVC bound, over-commitment, best effort, PCS",
               params=PARAMS + SIM_PARAMS + CLOCK.params, solve=_solve, results=RESULTS, twin=lambda p: p,
               sim_table=("frame_interval_mean_ms", "frame_interval_sd_ms", "best_effort_latency_us", "unstable"),
               units={**UNITS, "zero_load_latency_cycles": "cycles", "zero_load_latency_us": "us",
                      "streams_total": "streams", "effective_load": "1",
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
