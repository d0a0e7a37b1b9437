"""InfiniBand credit buffers per virtual lane (IBA Vol. 1 §7.9; paper 002 §2.3, credit flow control).

Answered by ``switchq size infiniband``: the credits (64-byte blocks) a VL
needs for full rate over a cable, term by term, and with ``--buffer`` the
share of the rate a given buffer carries (:mod:`switchq.solvers.pfc`).
Simulated as ``infiniband``: one VL byte by byte with credits
(:mod:`switchq.validate.arch.infiniband`); ``switchq validate infiniband``
checks full rate at the sized credits and the recursion's throughput below.
"""

from __future__ import annotations

from switchq.declaration import Answer, Architecture, Case, Counter, Metric
from switchq.models.pfc import CreditLink, InfinibandLink, Saturated
from switchq.params import Param
from switchq.solved import solved

from .pfc import CABLE, _bytes, twin_buffer

IB_RATE = Param("link_rate", "link_rate", "rate", None, low=0, low_open=True, unit="bit/s",
                aliases=("link_rate_bps",), help="Data rate with a unit (200Gb/s), or give --speed and --width.")
IB_SPEED = Param("speed", "speed", "choice", None, choices=("SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR",
                                                           "XDR"),
                 help="Lane speed by name (with --width).")
IB_WIDTH = Param("width", "width", "choice", None, choices=("1x", "2x", "4x", "8x", "12x"), help="Lanes.")
IB_MTU = Param("mtu", "mtu", "size", 4096 * 8, low=256 * 8, high=4096 * 8, unit="bits", aliases=("mtu_bytes",),
               default_text="4096B", help="Path MTU: 256B, 512B, 1024B, 2048B or 4096B.")
VLS = Param("vls", "vls", "int", 1, low=1, high=15, unit="VLs", help="Data virtual lanes, each with its own buffer.")
IB_PROPAGATION = Param("propagation_speed", "propagation_speed", "speed", None, low=0, low_open=True, unit="m/s",
                       default_text="2e8m/s, i.e. 5 ns/m", help="Signal speed in the cable.")
FIXED = Param("fixed_delay", "fixed_delay", "time", 0.0, low=0, unit="s", default_text="0ns",
              help="Non-cable part of the credit round trip (SerDes, FEC, pipeline, credit turnaround); 0 leaves "
                   "them out, so the credits are a lower bound.")
CREDIT_UPDATE = Param("credit_update", "credit_update", "time", 0.0, low=0, unit="s", default_text="0ns",
                      help="Longest a freed credit waits for the next flow-control packet, counted whole in the "
                           "round trip; 0 takes credit updates as instant (a lower bound).")

BUFFER = Param("buffer", "buffer", "size", None, low=64 * 8, unit="bits",
               help="Ask the share of the rate this buffer per VL carries, with a unit (8KiB); whole 64-byte credits.")
TWIN_BUFFER = Param("buffer", "buffer", "size", None, low=64 * 8, unit="bits", default_text="as sized",
                    help="Buffer per VL with a unit (8KiB); default: the credits switchq size infiniband gives.")
SHORTFALL = Param("shortfall", "shortfall", "size", 0, low=0, unit="bits", default_text="0B",
                  help="Bytes taken off the buffer (4096B: one MTU short).")

PARAMS = (IB_RATE, IB_SPEED, IB_WIDTH, CABLE, IB_MTU, VLS, IB_PROPAGATION, FIXED, CREDIT_UPDATE)
UNITS = {"link_rate_bps": "bit/s", "cable_m": "m", "mtu_bytes": "B", "fixed_delay_ns": "ns",
         "credit_update_ns": "ns",
         "width": "lanes", "signalling_bps": "bit/s", "buffer_bytes": "B", "credits": "credits", "total_bytes": "B",
         "terms": "B", "round_trip_bytes": "B", "offered_buffer_bytes": "B", "utilization": "1",
         "shortfall_bytes": "B"}
RESULTS = ("signalling_bps", "encoding", "round_trip_bytes", "buffer_bytes", "credits", "total_bytes", "terms",
           "term_sources", "utilization", "utilization_method", "note", "formula", "source")


def _link(p):
    from switchq.models.pfc import InfinibandLink

    width = None if p["width"] is None else int(p["width"][:-1])
    return InfinibandLink(p["link_rate"], p["cable"], _bytes("mtu", p["mtu"]), p["speed"], width, p["vls"],
                          p["propagation_speed"], p["fixed_delay"], p["credit_update"])


def _size(p):
    from switchq.solvers.pfc import infiniband

    link = _link(p)
    b = infiniband(link, _bytes("buffer", p.get("buffer")))
    inputs = {"link_rate_bps": b.link_rate_bps, "speed": link.speed, "width": link.width, "cable_m": link.cable_m,
              "mtu_bytes": link.mtu_bytes, "vls": link.vls, "fixed_delay_ns": link.fixed_delay_s * 1e9,
              "credit_update_ns": link.credit_update_s * 1e9,
              "offered_buffer_bytes": b.extra.get("offered_buffer_bytes")}
    results = {"signalling_bps": b.signalling_bps, "encoding": b.encoding, "round_trip_bytes": b.round_trip_bytes,
               "buffer_bytes": b.buffer_bytes, "credits": b.credits, "total_bytes": b.total_bytes, "terms": b.terms,
               "term_sources": b.term_sources, "utilization": b.extra.get("utilization"),
               "utilization_method": b.extra.get("utilization_method"), "note": b.note or None,
               "formula": b.formula, "source": b.source}
    return ({k: v for k, v in inputs.items() if v is not None}, {k: v for k, v in results.items() if v is not None})


def build(p):
    """The twin's VL: a buffer below one packet's credits is refused as ``size infiniband`` refuses it (no
    packet could go: a throughput of 0 would say nothing of the round trip), by --buffer as given, or by
    --shortfall when that is what takes it there."""
    from switchq.solvers.pfc import check_buffer, infiniband, packet_blocks

    link = _link(p)
    b = infiniband(link)
    given = _bytes("buffer", p.get("buffer"))
    if given is not None:
        check_buffer(link.mtu_bytes, given)
    room, short = twin_buffer(p, "buffer", lambda: b.buffer_bytes, 64 * packet_blocks(link.mtu_bytes))
    return CreditLink(link, room, b.round_trip_bytes, short), Saturated()


METRICS = (Metric("throughput", "1", lambda c: c["m_offered"] / c.slots, "share of the link rate the VL carries",
                  bounds=(0.0, 1.0)),
           Metric("stalled_share", "1", lambda c: c["stalled"] / c.slots,
                  "share of the slots the sender waited for credits", bounds=(0.0, 1.0)))
COUNTERS = (Counter("delivered", "B"), Counter("stalled", "slots"))

# 4x HDR over 30 m, 4096 B MTU: 184 credits (11776 B), a credit round trip of 7506 byte times.
_VL = {"speed": "HDR", "width": "4x", "cable": 30.0}


def _case(label, shortfall):
    return Case("infiniband", label, {**_VL, "shortfall": shortfall * 8}, "throughput",
                solved("pfc.shortfall_throughput", InfinibandLink(None, 30.0, 4096, "HDR", 4), shortfall),
                slots=160_000, replications=5, tolerance_slots=4122, saturated=True,
                why="The recursion's cycle is exact; the window cuts a cycle at each end, at most a packet "
                    "(4122 B) of slots.")


DECLARATION = Architecture(
    name="infiniband", family="link", order=92,
    title="InfiniBand credit buffer per VL",
    summary="InfiniBand credits per virtual lane for full rate, term by term (switchq size infiniband); its twin",
    description="One InfiniBand VL byte by byte: the sender always has a packet and sends it only with credits for "
                "all its 64-byte blocks; the receiver forwards at link rate and returns each block's credit in a "
                "6-byte flow-control packet.\n\nthroughput is the share of the link rate carried: 1 with the "
                "sized credits, less below (--buffer, --shortfall).",
    config=(CreditLink,), accepts=(Saturated,), params=(*PARAMS, TWIN_BUFFER, SHORTFALL), build=build,
    kernel="switchq.validate.arch.infiniband", metrics=METRICS, counters=COUNTERS, units=UNITS,
    main="throughput", table=("throughput", "stalled_share"),
    bounded="lossless by credits: the sender holds what the receiver has no credit for, so no queue grows without "
            "bound",
    cases=(_case("4x HDR, 30 m, 4096 B: full rate at the sized 184 credits", 0),
           _case("4x HDR, 30 m: one credit (64 B) short", 64),
           _case("4x HDR, 30 m: one MTU (4096 B) short", 4096)),
    sample={"speed": "EDR", "width": "4x", "cable": "10m", "mtu": "1024B"},
    examples=("switchq simulate infiniband --speed HDR --width 4x --cable 30m --shortfall 4096B --slots 400000 "
              "--json",),
    vary_example="shortfall=0B,64B,4096B --speed HDR --width 4x --cable 30m --slots 400000",
    answers=(
        Answer("size-infiniband", "InfiniBand credit buffer per VL", "InfiniBand credits per virtual lane for full "
                                                                     "rate, term by term",
               params=(*PARAMS, BUFFER), solve=_size, results=RESULTS, units=UNITS, main="buffer_bytes",
               table=("buffer_bytes", "credits", "total_bytes", "utilization"), verb="size",
               description="Credit buffer per InfiniBand virtual lane for full rate over a cable (credits in "
                           "64-byte blocks).\n\nThe credit round trip (cable both ways, fixed delay, credit-update "
                           "interval, the 6-byte credit packet) plus one whole packet, counted in blocks each freed "
                           "with its last byte; --fixed-delay and --credit-update default to 0, and the answer's "
                           "note then says its credits are a lower bound; "
                           "speeds by name (SDR..XDR) with their encodings, or a data rate. --buffer: the share of "
                           "the rate a smaller buffer carries (exact max-plus recursion).",
               examples=("switchq size infiniband --link-rate 200Gb/s --cable 30m --mtu 4096B --json",
                         "switchq size infiniband --speed NDR --width 4x --cable 100m --vls 8",
                         "switchq size infiniband --speed HDR --width 4x --cable 30m --buffer 7680B"),
               vary_example="cable=10m:100m:10m --speed HDR --width 4x"),
    ),
)
