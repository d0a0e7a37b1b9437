"""Buffer sizing answers: one link's flow-control buffers, and a buffered crossbar's memory, credits vs SFC.

Paper 002 (Minkenberg & Gusat) §2.3-§2.5 (credit, grant, ACK/NAK), §4.1,
§4.2, §5 and §6.1 (SFC and the CICQ); paper 003 §2 (crosspoint memory of
10 Gb/s, 200 ns links). The closed forms are :mod:`.flow_control` and :mod:`.crossbar_memory`; this
module turns a :class:`~switchq.models.link.Link` (or a round trip in cell
slots) and the buffer layout into the answer ``switchq size`` prints: inputs
echoed, then results, as one dict, and the list of its input keys.

Figures: ``round_trip_slots`` (tau), ``slot_ns``, ``bandwidth_delay_bytes``
(the exact rate x RTT / 8, one link, no cell rounding) and per question the
buffer figures; ``buffer_bytes`` and the other ``*_bytes`` are whole cells
times the cell size, ``*_bytes_exact`` the same need without cell rounding.

Examples
--------
>>> from switchq.models.link import Link
>>> link = Link.resolve(10e9, 2e-7, None, None, None, 512)
>>> p, _ = link_buffer("credit", link, vcs=2, ports=8, per="switch", offered_cells=2)
>>> p["buffer_cells"], p["offered_buffer_cells"], p["utilization"]
(512, 2, 0.5)
>>> p, _ = sfc_crossbar(16, rtt_slots=64)
>>> p["q_r"], p["q_rtx"], p["total_cells_sfc"], p["total_cells_credit"], p["reduction_factor"]
(4, 64, 2048, 16384, 8.0)
"""

from __future__ import annotations

from switchq.models import _check
from switchq.models.link import Link, _sig

from . import crossbar_memory as xm
from . import flow_control as fc

__all__ = ["link_buffer", "sfc_crossbar", "cicq_crossbar", "PER_LEVELS"]

PER_LEVELS = ("crosspoint", "port", "switch")


def _cell_inputs(cell_bits: int | None) -> dict:
    return {} if cell_bits is None else {"cell_bits": cell_bits, "cell_bytes": cell_bits / 8}


def _round_trip(link: Link) -> tuple[int, dict]:
    r = fc.round_trip_slots(link.link_rate_bps, link.rtt_s, link.cell_bits)
    return r.rtt_slots, {"round_trip_slots": r.rtt_slots, "slot_ns": _sig(r.slot_s * 1e9),
                         "bandwidth_delay_bytes": _sig(r.rtt_bits / 8)}


def link_buffer(protocol: str, link: Link, vcs: int = 1, ports: int | None = None, per: str = "crosspoint",
                offered_cells: int | None = None) -> tuple[dict, list[str]]:
    """Buffers for lossless full rate on ``link`` with credit, grant or ACK/NAK flow control.

    ``per``: crosspoint = one link feeding P buffers (one per VC); port = one
    link feeding N crosspoints x P; switch = N such links (N^2 P buffers, the
    CICQ). ACK/NAK's retransmission buffer belongs to the link, so it is
    counted whole at every level. ``offered_cells``: a buffer (of one VC)
    whose utilisation min(Q_R / tau, 1) is asked too.
    """
    vcs = _check.integer("vcs", vcs, 1)
    if ports is not None:
        ports = _check.integer("ports", ports, 1)
    _check.choice("per", per, PER_LEVELS)
    if per != "crosspoint" and ports is None:
        raise _check.InputError("ports", None, f"an integer >= 1 (needed with --per {per})")
    links, buffers = {"crosspoint": (1, vcs), "port": (1, (ports or 1) * vcs),
                      "switch": (ports or 1, (ports or 1) * vcs)}[per]
    tau, trip = _round_trip(link)
    need = fc.buffer_requirement(protocol, tau, buffers, links)
    payload = {"protocol": protocol, **link.inputs(), **_cell_inputs(link.cell_bits), "vcs": vcs}
    if ports is not None:
        payload["n_ports"] = ports
    payload["per"] = per
    if offered_cells is not None:
        payload["offered_buffer_cells"] = offered_cells
    inputs = list(payload)
    payload.update(trip, links=links, downstream_buffers=links * buffers,
                   receiver_cells_per_buffer=need.receiver_cells_per_buffer,
                   retransmission_cells_per_link=need.retransmission_cells_per_link,
                   buffer_cells=need.total_cells, buffer_bytes=need.total_cells * link.cell_bits / 8)
    formula = f"{need.formula}; here links = {links}, M = {buffers}"
    if offered_cells is not None:
        use = fc.max_utilization(offered_cells, tau)
        payload["utilization"] = use.utilization
        formula += f"; with --buffer (one buffer): {use.formula}"
    payload.update(formula=formula, source=need.source)
    return payload, inputs


def _crossbar_inputs(ports, rtt_slots, link, cell_bits, crosspoint_cells, qr_rule, **extra):
    """tau, the round-trip results and the input part of a crossbar payload."""
    if link is not None:
        tau, trip = _round_trip(link)
    else:
        tau, trip = rtt_slots, {"round_trip_slots": rtt_slots}
    payload = {"n_ports": ports, **({"rtt_slots": rtt_slots} if link is None else link.inputs()),
               **_cell_inputs(cell_bits), **extra, "q_r_rule": "given" if crosspoint_cells is not None else qr_rule}
    if crosspoint_cells is not None:
        payload["crosspoint_cells"] = crosspoint_cells
    return tau, trip, payload


def sfc_crossbar(ports: int, rtt_slots: int | None = None, link: Link | None = None, cell_bits: int | None = None,
                 crosspoint_cells: int | None = None, qr_rule: str = "ceil") -> tuple[dict, list[str]]:
    """One link's SFC sizing and the switch totals vs credits (paper 002 §4.2, §6.1).

    The round trip is ``rtt_slots``, or ``link``'s (then its cell is the cell).
    """
    tau, trip, payload = _crossbar_inputs(ports, rtt_slots, link, cell_bits, crosspoint_cells, qr_rule)
    inputs = list(payload)
    s = xm.sfc_cicq(ports, tau, 1, 1, q_r=crosspoint_cells, rule=qr_rule)
    payload.update(trip, q_r=s.q_r, q_rtx=s.q_rtx, row_cells_sfc=s.row_cells, crossbar_cells_sfc=s.crossbar_cells,
                   linecard_cells_sfc=s.linecard_cells, total_cells_sfc=s.total_cells,
                   total_cells_credit=s.credit_total_cells)
    if cell_bits is not None:
        payload.update(total_bytes_sfc=s.total_cells * cell_bits / 8,
                       total_bytes_credit=s.credit_total_cells * cell_bits / 8)
    payload.update(reduction_factor=s.reduction_factor, row_covers_rtt=s.row_covers_rtt,
                   sequence_bits=s.sequence_bits, acknak_bits=s.acknak_bits, formula=s.formula, source=s.source)
    return payload, inputs


def cicq_crossbar(ports: int, rtt_slots: int | None = None, priorities: int = 1, rtts: int = 1,
                  link: Link | None = None, cell_bits: int | None = None, crosspoint_cells: int | None = None,
                  qr_rule: str = "ceil") -> tuple[dict, list[str]]:
    """Crosspoint memory of a whole buffered crossbar, credits vs SFC (paper 002 §4.1, §4.2, §5, §6.1).

    Examples
    --------
    >>> link = Link.resolve(10e9, 2e-7, None, None, None, 512)
    >>> p, _ = cicq_crossbar(8, rtts=4, link=link, cell_bits=512)
    >>> p["crosspoint_bytes_credit_exact"], p["total_bytes_credit_exact"], p["total_bytes_credit"]
    (1000.0, 64000.0, 65536.0)
    """
    tau, trip, payload = _crossbar_inputs(ports, rtt_slots, link, cell_bits, crosspoint_cells, qr_rule,
                                          priorities=priorities, rtts=rtts)
    inputs = list(payload)
    c = xm.credit_cicq(ports, tau, priorities, rtts)
    s = xm.sfc_cicq(ports, tau, priorities, rtts, q_r=crosspoint_cells, rule=qr_rule)
    payload.update(trip, crosspoint_cells_credit=c.crosspoint_cells, total_cells_credit=c.total_cells)
    if cell_bits is not None:
        payload.update(crosspoint_bytes_credit=c.crosspoint_cells * cell_bits / 8,
                       total_bytes_credit=c.total_cells * cell_bits / 8)
    if link is not None:
        exact = priorities * rtts * link.link_rate_bps * link.rtt_s / 8   # rate x RTT, no cell rounding
        payload.update(crosspoint_bytes_credit_exact=_sig(exact), total_bytes_credit_exact=_sig(ports ** 2 * exact))
    payload.update(q_r=s.q_r, q_rtx=s.q_rtx, crosspoint_cells_sfc=s.crosspoint_cells, total_cells_sfc=s.total_cells)
    if cell_bits is not None:
        payload.update(crosspoint_bytes_sfc=s.crosspoint_cells * cell_bits / 8,
                       total_bytes_sfc=s.total_cells * cell_bits / 8)
    payload.update(reduction_factor=s.reduction_factor,
                   formula=f"credit: {c.formula} cells; SFC: {s.formula}",
                   source=f"{fc.SOURCE}, sections 4.1, 4.2, 5, 6.1")
    return payload, inputs
