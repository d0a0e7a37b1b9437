"""Link-level flow control buffers: credit, grant, ACK/NAK, SFC and buffered-crossbar memory (paper 002 §2-§6).

Answered by ``switchq size credit|grant|acknak|sfc|cicq`` (and ``switchq sweep
size-...``) from the link rate, the round trip (or cable) and the cell size,
with units. The credit loop's simulated twin is the buffered crossbar
(``switchq simulate cicq``); a link-level twin comes with the PFC and
InfiniBand sizing.
"""

from __future__ import annotations

from switchq.declaration import Answer, Architecture
from switchq.params import Above, Param

PROTOCOL_NOTES = {
    "credit": ("Credit flow control: tau cells per buffer for lossless full-rate links (Minkenberg & Gusat "
               "2.3, 2.5).\n\ntau = ceil(link rate x RTT / cell). buffer_cells = links x buffers x tau; "
               "buffer_bytes rounds to whole cells, bandwidth_delay_bytes (rate x RTT / 8) does not.",
               "credit flow control sizing: tau cells per buffer (as switchq size credit)"),
    "grant": ("Grant (on/off) flow control: 2 tau cells per buffer (Minkenberg & Gusat 2.3).",
              "grant (on/off) flow control sizing: 2 tau per buffer (as switchq size grant)"),
    "acknak": ("ACK/NAK flow control: Q_R = 1 per buffer plus Q_RTX = tau per link (Minkenberg & Gusat 2.4, 2.5).",
               "ACK/NAK flow control sizing: 1 per buffer + tau per link (as switchq size acknak)"),
}

LINK = (
    Param("link_rate", "link_rate", "rate", None, low=0, low_open=True, unit="bit/s", aliases=("link_rate_bps",),
          help="Link rate with a unit: 10Gb/s, 10Gbps, 1GB/s (b = bit, B = byte)."),
    Param("rtt", "rtt", "time", None, low=0, low_open=True, unit="s", aliases=("rtt_s",),
          help="Round-trip time with a unit: 200ns, 1.5us (or give --cable)."),
    Param("cable", "cable", "length", None, low=0, unit="m",
          help="Cable length with a unit: 20m, 100ft; RTT = 2 x cable / speed + fixed delay."),
    Param("fixed_delay", "fixed_delay", "time", None, low=0, unit="s", default_text="0ns",
          help="With --cable: non-cable part of the RTT (SerDes, logic).", applies=("cable", Above())),
    Param("propagation_speed", "propagation_speed", "speed", None, low=0, low_open=True, unit="m/s",
          default_text="2e8m/s, i.e. 5 ns/m", help="With --cable: signal speed.", applies=("cable", Above())),
)
CELL = Param("cell", "cell", "size", None, low=1, unit="bits", aliases=("cell_bits",),
             help="Cell size with a unit: 256B, 2048bit, 1KiB (1B gives byte-granular answers).")
XBAR_CELL = Param("cell", "cell", "size", None, low=1, unit="bits", aliases=("cell_bits",),
                  help="Cell size with a unit (needed with --link-rate; with --rtt-slots it adds bytes).")
VCS = Param("vcs", "vcs", "int", 1, low=1, unit="buffers/crosspoint",
            help="P: virtual channels, each with its own buffer per crosspoint.")
SIZE_PORTS = Param("ports", "ports", "int", None, low=1, unit="ports", aliases=("n_ports", "-n"),
                   help="N, switch size (needed with --per port|switch).")
PER = Param("per", "per", "choice", "crosspoint", choices=("crosspoint", "port", "switch"),
            help="crosspoint: P buffers behind one link; port: N x P behind one link; switch: N links, "
                 "N^2 x P buffers (CICQ).")
BUFFER = Param("buffer", "buffer", "cells", None, low=1, unit="cells",
               help="Ask the utilization one buffer reaches: cells (8) or a size (512B); rho = min(Q_R / tau, 1).")
XBAR_PORTS = Param("ports", "ports", "int", low=1, unit="ports", aliases=("n_ports", "-n"), help="N, switch size.")
RTT_SLOTS = Param("rtt_slots", "rtt_slots", "int", None, low=1, unit="slots", aliases=("tau",),
                  help="tau in cell times (instead of the link options).")
CROSSPOINT = Param("crosspoint_cells", "crosspoint_cells", "int", None, low=1, unit="cells", aliases=("q_r",),
                   help="Q_R per crosspoint (per priority), overriding --qr-rule.")
QR_RULE = Param("qr_rule", "qr_rule", "choice", "ceil", choices=("ceil", "ideal", "paper"), aliases=("rule",),
                help="Q_R = ceil(K tau/N), K tau/N (the paper's ideal) or floor(K tau/N)+2 (its simulations).",
                applies=("crosspoint_cells", (None,)))
PRIORITIES = Param("priorities", "priorities", "int", 1, low=1, unit="buffers/crosspoint",
                   help="P: buffers per crosspoint.")
RTTS = Param("rtts", "rtts", "int", 1, low=1, unit="round trips", help="K: buffer multiple of the round trip.")

UNITS = {"link_rate_bps": "bit/s", "rtt_ns": "ns", "cable_m": "m", "fixed_delay_ns": "ns",
         "propagation_speed_m_per_s": "m/s", "cell_bits": "bits", "cell_bytes": "B", "n_ports": "ports", "round_trip_slots": "slots", "slot_ns": "ns", "bandwidth_delay_bytes": "B", "links": "links",
         "downstream_buffers": "buffers", "receiver_cells_per_buffer": "cells",
         "retransmission_cells_per_link": "cells", "buffer_cells": "cells", "buffer_bytes": "B",
         "offered_buffer_cells": "cells", "utilization": "1", "q_r": "cells",
         "q_rtx": "cells", "row_cells_sfc": "cells", "total_cells_sfc": "cells", "total_cells_credit": "cells",
         "total_bytes_sfc": "B", "total_bytes_credit": "B", "crossbar_cells_sfc": "cells",
         "linecard_cells_sfc": "cells", "reduction_factor": "1", "crosspoint_cells_credit": "cells",
         "crosspoint_bytes_credit": "B", "crosspoint_bytes_credit_exact": "B", "total_bytes_credit_exact": "B",
         "crosspoint_cells_sfc": "cells", "crosspoint_bytes_sfc": "B", "sequence_bits": "bits",
         "acknak_bits": "bits"}
LINK_RESULTS = ("round_trip_slots", "slot_ns", "bandwidth_delay_bytes", "links", "downstream_buffers",
                "receiver_cells_per_buffer", "retransmission_cells_per_link", "buffer_cells", "buffer_bytes",
                "utilization", "terms", "term_sources", "formula", "source")
SFC_RESULTS = ("round_trip_slots", "q_r", "q_rtx", "row_cells_sfc", "crossbar_cells_sfc", "linecard_cells_sfc",
               "total_cells_sfc", "total_cells_credit", "total_bytes_sfc", "total_bytes_credit", "reduction_factor",
               "row_covers_rtt", "sequence_bits", "acknak_bits", "slot_ns", "bandwidth_delay_bytes", "terms",
               "term_sources", "formula", "source")
CICQ_RESULTS = ("round_trip_slots", "crosspoint_cells_credit", "total_cells_credit", "crosspoint_bytes_credit",
                "total_bytes_credit", "crosspoint_bytes_credit_exact", "total_bytes_credit_exact", "q_r", "q_rtx",
                "crosspoint_cells_sfc", "total_cells_sfc", "crosspoint_bytes_sfc", "total_bytes_sfc",
                "reduction_factor", "slot_ns", "bandwidth_delay_bytes", "formula", "source")


def _link(p):
    from switchq.models.link import Link

    return Link.resolve(p["link_rate"], p["rtt"], p["cable"], p["fixed_delay"], p["propagation_speed"], p["cell"])


def _offered_cells(value, cell_bits: int) -> int | None:
    """``--buffer``: a number of cells, or a size with a unit taken as whole cells of it."""
    if value is None:
        return None
    if isinstance(value, int):
        return value
    from switchq.errors import InputError
    from switchq.units import parse_quantity

    cells = int(parse_quantity(value, "size", "buffer") // cell_bits)
    if cells < 1:
        raise InputError("buffer", value, f"at least one cell ({cell_bits} bit), as cells or a size with a unit")
    return cells


def _split(payload_and_inputs):
    payload, inputs = payload_and_inputs
    return ({k: payload[k] for k in inputs}, {k: v for k, v in payload.items() if k not in inputs})


_SOURCE = "Minkenberg & Gusat, 'Speculative Flow Control for High-Radix Datacenter Interconnect Routers', "


def _with_terms(results: dict, terms: dict, sources: dict) -> dict:
    """The answer's figure as the sum of its terms, each with its source (the page stacks them)."""
    return {**results, "terms": terms, "term_sources": sources}


# What each protocol's receiver holds per downstream buffer, and where the paper says so.
_RECEIVER = {"credit": "a round trip's cells (tau), each waiting for its credit; section 2.3",
             "grant": "two round trips' cells (2 tau): a grant must reach the sender before it sends; section 2.3",
             "acknak": "one cell: the receiver forwards or drops, the sender keeps the copies; section 2.4"}


def _link_terms(protocol: str, r: dict) -> dict:
    """A link's buffer in cells, links x (M x receiver + retransmission): the receivers' cells per downstream
    buffer, plus the ACK/NAK retransmission buffer per link."""
    return _with_terms(r, {"receivers": r["downstream_buffers"] * r["receiver_cells_per_buffer"],
                           "retransmission": r["links"] * r["retransmission_cells_per_link"]},
                       {"receivers": "per downstream buffer, " + _RECEIVER[protocol] + ", " + _SOURCE.rstrip(", "),
                        "retransmission": "copies kept for resending until acknowledged (ACK/NAK: tau per link; "
                                          "none with credits or grants); " + _SOURCE + "section 2.5"})


def _sfc_terms(r: dict, crossbar_cells: int, linecard_cells: int) -> dict:
    """SFC's total in cells: N^2 P Q_R crosspoint cells plus N linecard retransmission buffers of Q_RTX."""
    return _with_terms(r, {"crosspoints": crossbar_cells, "retransmission": linecard_cells},
                       {"crosspoints": "N^2 P Q_R cells in the crossbar's crosspoints; " + _SOURCE + "section 4.2",
                        "retransmission": "N Q_RTX cells, Q_RTX = max(K tau, N P Q_R), in the linecards' "
                                          "retransmission buffers; " + _SOURCE + "sections 4.2, 6.1"})


def _link_answer(protocol):
    def solve(p):
        from switchq.solvers.sizing import link_buffer

        link = _link(p)
        inputs, results = _split(link_buffer(protocol, link, p["vcs"], p["ports"], p["per"],
                                             _offered_cells(p.get("buffer"), link.cell_bits)))
        return inputs, _link_terms(protocol, results)
    return solve


def _round_trip(p):
    """``--rtt-slots``, or the link options (then ``--cell`` is required): (tau, link or None, cell or None)."""
    from switchq.errors import InputError

    given = [q.name for q in LINK if p[q.name] is not None]
    if p["rtt_slots"] is not None and given:
        raise InputError("rtt_slots", p["rtt_slots"], "either --rtt-slots or the link options ("
                         + ", ".join("--" + k.replace("_", "-") for k in given) + "), not both")
    if p["rtt_slots"] is not None:
        return p["rtt_slots"], None, p["cell"]
    if not given:
        raise InputError("rtt_slots", None, "an integer >= 1, or the link options --link-rate, --rtt "
                                            "(or --cable) and --cell")
    link = _link(p)
    return None, link, link.cell_bits


def _sfc(p):
    from switchq.solvers.sizing import sfc_crossbar

    tau, link, cell = _round_trip(p)
    inputs, r = _split(sfc_crossbar(p["ports"], tau, link, cell, p["crosspoint_cells"], p["qr_rule"]))
    return inputs, _sfc_terms(r, r["crossbar_cells_sfc"], r["linecard_cells_sfc"])


def _cicq(p):
    from switchq.solvers.sizing import cicq_crossbar

    tau, link, cell = _round_trip(p)
    return _split(cicq_crossbar(p["ports"], tau, p["priorities"], p["rtts"], link, cell, p["crosspoint_cells"],
                                p["qr_rule"]))


_VARY = {"credit": "cable=10m:100m:10m --link-rate 100Gb/s --cell 256B",
         "grant": "cable=10m:100m:10m --link-rate 100Gb/s --cell 256B",
         "acknak": "vcs=1:8 --link-rate 100Gb/s --rtt 1us --cell 256B --ports 16 --per port"}


def _size_link(protocol, examples):
    description, summary = PROTOCOL_NOTES[protocol]
    params = (*LINK, CELL, VCS, SIZE_PORTS, PER) + ((BUFFER,) if protocol == "credit" else ())
    return Answer(f"size-{protocol}", f"{protocol} flow control: buffer", summary, params=params,
                  solve=_link_answer(protocol), results=LINK_RESULTS, units={**UNITS, "terms": "cells"},
                  main="buffer_cells",
                  table=("round_trip_slots", "buffer_cells", "buffer_bytes", "utilization"), verb="size",
                  description=description, examples=examples, vary_example=_VARY[protocol])


DECLARATION = Architecture(
    name="link", family="link", order=90,
    title="Link-level flow control buffers",
    summary="credit, grant, ACK/NAK and SFC buffer sizing, with units (switchq size)",
    answers=(
        _size_link("credit", ("switchq size credit --link-rate 10Gb/s --rtt 200ns --cell 64B --json",
                              "switchq size credit --link-rate 10Gb/s --cable 20m --cell 256B --vcs 2 --ports 8 "
                              "--per switch",
                              "switchq size credit --link-rate 100Gb/s --rtt 1us --cell 256B --buffer 4KiB")),
        _size_link("grant", ("switchq size grant --link-rate 10Gb/s --rtt 200ns --cell 64B --json",)),
        _size_link("acknak", ("switchq size acknak --link-rate 10Gb/s --rtt 200ns --cell 64B --ports 16 --per port "
                              "--json",)),
        Answer("size-sfc", "Speculative flow control: buffered crossbar",
               "SFC buffered crossbar sizing vs credits (as switchq size sfc)",
               params=(XBAR_PORTS, RTT_SLOTS, CROSSPOINT, QR_RULE, *LINK, XBAR_CELL), solve=_sfc,
               results=SFC_RESULTS, units={**UNITS, "terms": "cells"}, main="total_cells_sfc",
               table=("round_trip_slots", "q_r", "q_rtx", "total_cells_sfc", "total_cells_credit", "reduction_factor"),
               verb="size",
               description="Speculative flow control for an N-port buffered crossbar (Minkenberg & Gusat 4.2, "
                           "6.1).\n\nQ_RTX = max(tau, N Q_R); total N (N Q_R + Q_RTX) cells vs N^2 tau with credits "
                           "(N/2 less when Q_R = tau/N). Also the sequence-number and ACK/NAK widths.",
               examples=("switchq size sfc --ports 16 --rtt-slots 64 --json",
                         "switchq size sfc --ports 64 --link-rate 10Gb/s --cable 100m --cell 64B"),
               vary_example="ports=4:256:*2 --vary rtt_slots=16,64"),
        Answer("size-cicq", "Buffered crossbar (CICQ): crosspoint memory",
               "whole buffered crossbar crosspoint memory, credits vs SFC (as switchq size cicq)",
               params=(XBAR_PORTS, RTT_SLOTS, PRIORITIES, RTTS, CROSSPOINT, QR_RULE, *LINK, XBAR_CELL), solve=_cicq,
               results=CICQ_RESULTS, units=UNITS, main="total_cells_credit",
               table=("round_trip_slots", "total_cells_credit", "total_cells_sfc", "reduction_factor"), verb="size",
               description="Crosspoint memory of a whole buffered crossbar (CICQ): credits vs SFC, per crosspoint "
                           "and total.\n\nCredits: P K tau per crosspoint, N^2 P K tau in all. SFC: Q_R per priority "
                           "per crosspoint plus a retransmission buffer per input, max(K tau, N P Q_R).",
               examples=("switchq size cicq --ports 8 --rtts 4 --link-rate 10Gb/s --rtt 200ns --cell 64B --json",
                         "switchq size cicq --ports 32 --rtt-slots 16 --priorities 2"),
               vary_example="ports=4:64:*2 --rtt-slots 64"),
    ),
)
