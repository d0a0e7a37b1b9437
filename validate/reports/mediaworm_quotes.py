"""Report ``mediaworm``'s quotes of paper 004 (MediaWorm): the words of each claim it judges, and for each reading
it runs beside the default, the sentence that allows both (what the verdict engine needs to call a default's
disagreement an ambiguity, :mod:`switchq.validate.verdict`).

Every text is verbatim from the paper (its plain-text copy loses the ligatures fi, ff and fl, so a quote is the part
of a sentence before or after such a word). A reading with no sentence allowing it (the header flit carrying video:
§V-E calls the header overhead) or a pair of readings (one quote cannot allow both) maps to None: a default's
disagreement that only such a reading resolves stays a defect, and says so.
"""

from __future__ import annotations

from .claims import Quote
from .readings import Reading

__all__ = ["SAYS", "ALLOWS", "CHOICES", "CROSSBAR_FIFO", "SECTION", "table_ii_row", "table_v_row",
           "table_vi_row"]

# The paper's words of the claims judged, by a short key.
SAYS = {k: Quote(*q) for k, q in {
    "fig5 mr": ("§V-A", "the MR can provide jitter-free delivery even up to a link load of 0.96"),
    "fig5 rt": ("§V-A", "the load of the real-time component is around 0.75"),
    "fig5 tr": ("§V-A", "start growing beyond a load of 0.8"),
    "table2": ("§III-D", "are quite similar in both cases as depicted in Table II"),
    "fig6 same": ("§V-B", "exhibit nearly identical performance"),
    "fig6 higher": ("§V-B", "experiencing jitter-free performance for a slightly higher load"),
    "fig6 better": ("§V-B", "are also intuitively expected to experience better jitter tolerance"),
    "adverse": ("§I", "that the former does not really interfere with the latter"),
    "fig7 knee": ("§V-C", "It can be observed that up to an input load of 0.80, there is no jitter for VBR"),
    "fig7 beyond": ("§V-C", "becomes a dominant component, does the jitter become"),
    "table5 load": ("§V-C", "For a given mix, the latency degrades with an increase in the load."),
    "table5 mix": ("§V-C", "also increases the latency of the best-"),
    "fig8 vcs": ("§V-D", "the 16 VC case gives jitter-free performance up to a higher load compared to the 4 and 8 VC "
                         "cases"),
    "fig8 full": ("§V-D", "which shows better performance than 8 VCs with the multiplexed crossbar, and competitive "
                          "performance compared to the 16 VC results"),
    "fig9": ("§V-E", "except for very small message sizes, there is little impact on QoS for real-time"),
    "fig10": ("§V-F", "the MediaWorm router can support jitter-free performance only up to a load of about 0.7 "
                      "compared to over 0.8 in the case of PCS"),
    "table6 drops": ("§V-F", "a very high number of dropped connections"),
    "fig11": ("§V-G", "The results with realistic VBR are almost identical to those with synthetic VBR"),
    "fig11 tr": ("§V-G", "is slightly better at 90% load"),
    "fig12": ("§V-G", "Again we can observe similar results as shown in Figure 7"),
    "fig13 good": ("§V-H", "(40% and 60 %) even for a total input load of 0.9 of PC bandwidth capacity"),
    "fig13 degrade": ("§V-H", "being VBR, does VBR performance degrade"),
    "fig13 be": ("§V-H", "increases with increasing proportion of VBR"),
    "single": ("§V-H", "a single switch can provide jitter-free performance, while the fat-mesh cannot"),
    "mesh lower": ("§V-H", "is lower in the fat-mesh than in the case of a single switch"),
}.items()}

# §III-D's crossbar output (B) by arrival, the reading beside the default's smallest stamp (Table II, Fig. 5, Table V).
CROSSBAR_FIFO = "crossbar output takes the oldest offer"
# Each reading run beside the default: the paper's sentence that allows it as well as the default (None: none does).
ALLOWS = {
    "auxVC kept per VC": Quote("§III-D", "there is a state variable associated with each channel i to monitor and "
                                         "enforce the rate for that channel"),
    CROSSBAR_FIFO: Quote("§III-D", "We rule out contentions at (B) and (C) for the "
                                                              "following reasons."),
    "header flit carries video": None,
    "streams counted on the wire": Quote("§V-E", "consumes 5% of the stream bandwidth"),
    "frames every 33 ms": Quote("§IV-A", "= 33 msec indicates a frame rate of 30 frames/sec"),
    "no input regulator": Quote("§III-D", "burstiness, we regulate the"),
    "probe takes any free VC": Quote("§III-F", "If no path can be established or if adaptive routing is not "
                                               "permitted, a negative-acknowledgment is sent back and the attempted "
                                               "connection is dropped."),
    "stream destinations capped": Quote("§IV-B.3", "outstanding/incoming streams at each node in the system"),
    "VCs drawn": Quote("§IV-B.2", "The input and output VC for a message are picked from a uniform distribution of "
                                  "the available VCs"),
    "stamps grow by Vtick": Quote("§III-D", "the Vtick is assigned the largest possible value"),
    "VCs drawn, stamps grow": None,
    "destinations capped, header carries video": None,
}

# The report's readings table (issue 36, item 1): each choice, the readings run, the default, the sentences that
# bear on it and why the default. The text decides where it can; where it cannot, the most literal reading.
_Q = Quote
CHOICES = (
    Reading("crossbar output (B)", "the smallest stamp (stamp); the oldest offer (fifo, on Table II, Fig. 5, Table V, "
            "Fig. 8)", "stamp", (_Q("§III-D", "the one with the smallest auxVCi will be chosen for transmission"),
                                 ALLOWS[CROSSBAR_FIFO]),
            "the scheduler sits at the input multiplexer (A) and, among flits competing for an output, the smallest "
            "auxVC wins; the oldest offer reads 'we rule out contentions at (B)' as arbitration by arrival there"),
    Reading("auxVC kept", "per message (message); per VC (vc, on Table II and Fig. 5)", "message",
            (_Q("§III-D", "since bandwidth reservation is done at the message-level granularity"),
             ALLOWS["auxVC kept per VC"]),
            "FGVC reserves 'at the message-level granularity'; Table I's per-channel state allows the other"),
    Reading("input regulator", "a frame's messages 33 ms / messages apart (spread); all as the frame starts (none, "
            "on Table II only)", "spread",
            (_Q("§IV-B.1", "an input regulator injects messages of a frame at a regular interval of"),
             ALLOWS["no input regulator"]),
            "§IV's regulator governs every experiment of §V; the sentence bringing it in ('In order to avoid "
            "traffic burstiness, we regulate the traffic injection as described in Section IV') follows Table II's "
            "comparison, so there the unregulated reading is allowed by where that sentence stands"),
    Reading("header flit", "carries no video (overhead); carries video (payload, on Table II, Fig. 5, Fig. 9, "
            "Table V)", "overhead", (ALLOWS["streams counted on the wire"],),
            "decided by the text: the header is overhead; payload is run as a contrast no sentence allows"),
    Reading("load counted", "streams at their nominal 4 Mbit/s (nominal); on the wire with headers (wire, on "
            "Table II, Fig. 5, Fig. 9)", "nominal",
            (_Q("§IV-B.3", "then we can support at most 6 connections per VC to simulate synthetic VBR"),
             ALLOWS["streams counted on the wire"]),
            "a load is 'a fraction of the physical link bandwidth' of streams with 'an average bandwidth of 4 "
            "Mbps', and 6 per VC x 16 VCs of them fill 400 Mbit/s nominally; the header's 5 % allows the wire"),
    Reading("frame period", "1/30 s; 33 ms (on Table II and Fig. 5)", "1/30 s",
            (_Q("§IV-B.1", "Each stream generates 30 frames/sec"), ALLOWS["frames every 33 ms"]),
            "30 frames a second is the rate stated; 33 ms is its rounding"),
    Reading("stream destinations", "uniform over all nodes (uniform); capped at the busiest input VC's streams "
            "(capped, on Table II, Fig. 5, Table V)", "uniform",
            (_Q("§IV-B.1", "the destination is picked randomly using a uniform distribution of all nodes"),
             ALLOWS["stream destinations capped"]),
            "the draw the text gives; the cap reads §IV-B.3's limit at the destination too"),
    Reading("best effort's VCs", "any free one as a message needs it (free); drawn when it is made and waited for "
            "(drawn, on Table V)", "free", (ALLOWS["VCs drawn"],),
            "'available' VCs are those free when a message needs one; drawing up front is the other reading"),
    Reading("best effort's stamps", "all the largest value, FIFO among them (largest); growing by that Vtick "
            "(vclock, on Table V)", "largest", (ALLOWS["stamps grow by Vtick"],),
            "the stamp is 'the largest possible value'; VirtualClock's arithmetic on it is the other reading"),
    Reading("PCS probe", "asks for a drawn output VC, dropped if it is held (named); takes any free one, dropped "
            "if none is (any, on Table VI)", "named",
            (_Q("§IV-B.1", "the destination VC is also drawn randomly from a uniform distribution of the VCs "
                           "available for VBR"), ALLOWS["probe takes any free VC"]),
            "the paper names no rule for when a probe 'cannot progress'; a stream's destination VC is drawn "
            "(§IV-B.1), so the probe asks for that one"),
    Reading("VC buffers", "one message", "one message",
            (_Q("§IV-A", "in the router are one message long, respectively"),), "decided by the text"),
    Reading("Fig. 10's mix and flit", "100:0, 32-bit flits", "100:0, 32-bit flits",
            (_Q("§V-F", "24-25 VBR streams can be supported per link, each with 4Mbps bandwidth requirement"),
             _Q("Table IV", "Flit Size 32 / 128 bits")),
            "neither is given; 24-25 streams fill PCS's 24 VCs with video alone, and Table IV's flit of the "
            "slower links is 32 bits"),
    Reading("MPEG-2 streams (Figs. 11, 12)", "a GOP surrogate with Table III's means per frame type", "surrogate",
            (_Q("§IV-B.1", "is generated from MPEG-2 traces [16] shown in Table III"),),
            "the traces of [16] are not available; the surrogate's bandwidth is within 1.25 % of Table III's "
            "(mpeg2_bandwidth_gap)"),
    Reading("jitter-free", "|d-bar − T| ≤ 1.5 ms, sigma_d ≤ 2.0 ms, ≤ 1 % late; a stricter rule beside Fig. 5",
            "|d-bar − T| ≤ 1.5 ms, sigma_d ≤ 2.0 ms, ≤ 1 % late",
            (_Q("§IV-A", "Coupled with a"), _Q("§IV-A", "= 0, this implies jitter-free delivery")),
            "sigma_d = 0 taken literally rejects every cell of Table II, which Fig. 5 calls jitter-free: the rule is "
            "the paper's own numbers (see the top of the report)"),
    Reading("Fig. 7's 'dominant'", "90:10", "90:10", (SAYS["fig7 beyond"],),
            "§V-H calls the single switch jitter-free at 0.9 and 80:20, so 80:20 is not yet 'dominant'"),
)

# The paper's section of a claim the report files under another heading.
SECTION = {"(analytic)": "§III-D", "Abstract": "Abstract"}


def table_ii_row(load: float) -> Quote:
    """Table II's row at ``load`` (0.6, 0.7 or 0.8), as the paper prints it.

    Examples
    --------
    >>> table_ii_row(0.8).text
    '80% 32.28/1.38 32.33/1.31'
    """
    rows = {0.6: "60% 33.12/0.63 33.14/0.58", 0.7: "70% 32.74/1.25 32.74/1.22", 0.8: "80% 32.28/1.38 32.33/1.31"}
    return Quote("Table II", rows[load])


def table_v_row(mix: str) -> Quote:
    """Table V's row of ``mix`` ("x:y"), as the paper prints it."""
    rows = {"20:80": "20:80 6.3 9.0 16.2 36.9 43.6", "50:50": "50:50 7.7 11.4 25.5 56.1 64.6",
            "80:20": "80:20 10.3 15.8 39.7 106.9 Sat.", "90:10": "90:10 11.9 19.3 106.2 Sat. Sat."}
    return Quote("Table V", rows[mix])


def table_vi_row(load: float, attempted: int, established: int, dropped: int) -> Quote:
    """Table VI's row at ``load``, as the paper prints it (the numbers are the report's TABLE_VI)."""
    return Quote("Table VI", f"{load:.2f} {attempted} {established} {dropped}")
