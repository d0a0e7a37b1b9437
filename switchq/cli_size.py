"""``switchq size``: buffer sizing for link-level flow control and buffered crossbars.

Commands: ``credit``, ``grant``, ``acknak`` (one link, any number of buffers
behind it), ``sfc`` (speculative flow control for a crossbar row) and
``cicq`` (a whole buffered crossbar, credits vs SFC). The closed forms are
:mod:`switchq.solvers.flow_control`; this module reads quantities with units
(:func:`switchq.units.parse_quantity`), checks them and prints the answer
like every other verb: a table, or with ``--json`` one object of inputs,
then results, then ``units``.

Link options, shared by every command: ``--link-rate`` (``10Gb/s``), the round
trip as ``--rtt`` (``200ns``) or as ``--cable`` (``20m``, RTT = 2 x cable /
``--propagation-speed`` [2e8 m/s] + ``--fixed-delay`` [0 ns]), and ``--cell``
(``256B``). Bad input raises :class:`~switchq.errors.InputError` naming the
option as typed (``--link-rate``), which ``switchq.cli.main`` prints as one
line with exit code 2.

JSON fields (``units`` names the unit of each): ``link_rate_bps``, ``rtt_ns``,
``cell_bits``, ``cell_bytes``, ``round_trip_slots`` (tau), ``slot_ns``,
``bandwidth_delay_bytes`` (the exact rate x RTT / 8, one link, no cell
rounding) and per command the buffer figures; ``buffer_bytes`` and the other
``*_bytes`` are whole cells times the cell size, ``*_bytes_exact`` the same
need without cell rounding (rate x RTT, as paper 003 counts it).

Examples
--------
>>> import json
>>> from click.testing import CliRunner
>>> out = CliRunner().invoke(size_group, ["credit", "--link-rate", "10Gb/s", "--rtt", "200ns",
...                                       "--cell", "64B", "--json"]).output
>>> r = json.loads(out)
>>> r["round_trip_slots"], r["buffer_cells"], r["buffer_bytes"], r["bandwidth_delay_bytes"]
(4, 4, 256.0, 250.0)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import click

from .errors import InputError, named_by_option
from .units import DEFAULT_PROPAGATION_SPEED, KINDS, parse_quantity

__all__ = ["size_group", "Link", "resolve_link", "link_buffer_payload", "sfc_payload", "cicq_payload",
           "PER_LEVELS"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
PER_LEVELS = ("crosspoint", "port", "switch")
Q_R_RULES = ("ceil", "ideal", "paper")  # as flow_control.Q_R_RULES, spelled here to keep the solver lazy

# Solver parameter -> the option that set it, so a solver's InputError names what was typed.
# (Link quantities are checked here, with the text as typed, before any solver sees them.)
_OPTION_OF = {"n_ports": "--ports", "rtt_slots": "--rtt-slots", "priorities": "--priorities", "rtts": "--rtts",
              "q_r": "--crosspoint-cells", "rule": "--qr-rule"}


def _sig(x: float) -> float:
    # Display only: 12 significant digits hide binary noise (2.0000000000000002e-07 * 1e9)
    # that no input, typed with at most a few digits, can carry.
    return float(f"{x:.12g}")


# --------------------------------------------------------------------------- link

@dataclass(frozen=True)
class Link:
    """A link as the user described it, in canonical units.

    Attributes
    ----------
    link_rate_bps : float
    rtt_s : float
        Given, or 2 cable / speed + fixed delay.
    cell_bits : int
    cable_m, fixed_delay_s, propagation_speed : float or None
        Set only when the RTT came from --cable.
    """

    link_rate_bps: float
    rtt_s: float
    cell_bits: int
    cable_m: float | None = None
    fixed_delay_s: float | None = None
    propagation_speed: float | None = None

    def inputs(self) -> dict:
        """The link's fields for a payload, named and scaled as printed."""
        out = {"link_rate_bps": self.link_rate_bps, "rtt_ns": _sig(self.rtt_s * 1e9)}
        if self.cable_m is not None:
            out.update(cable_m=self.cable_m, fixed_delay_ns=_sig(self.fixed_delay_s * 1e9),
                       propagation_speed_m_per_s=self.propagation_speed)
        return out


def _quantity(option: str, text: str, kind: str, allow_zero: bool = False) -> float:
    value = parse_quantity(text, kind, option)
    if value < 0 or (value == 0 and not allow_zero):
        raise InputError(option, text, f"a {kind} {'>= 0' if allow_zero else '> 0'} with a unit, "
                                       f"e.g. {KINDS[kind][2]}")
    return value


def _cell_bits(text: str) -> int:
    bits = _quantity("--cell", text, "size")
    if bits != int(bits):
        raise InputError("--cell", text, "a whole number of bits, e.g. 256B or 2048 bit")
    return int(bits)


def resolve_link(link_rate: str | None = None, rtt: str | None = None, cable: str | None = None,
                 fixed_delay: str | None = None, propagation_speed: str | None = None,
                 cell: str | None = None) -> Link:
    """Parse and check the link options: a rate, exactly one of ``rtt`` and ``cable``, and a cell.

    Examples
    --------
    >>> link = resolve_link("10Gb/s", None, "20m", None, None, "256B")
    >>> link.rtt_s, link.cell_bits
    (2e-07, 2048)
    >>> resolve_link("10Gb/s", "200ns", "20m", None, None, "256B")
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: --cable: got '20m'; allowed: either --rtt or --cable, not both
    """
    if link_rate is None:
        raise InputError("--link-rate", None, "a rate with a unit, e.g. 10Gb/s (required)")
    rate = _quantity("--link-rate", link_rate, "rate")
    if rtt is not None and cable is not None:
        raise InputError("--cable", cable, "either --rtt or --cable, not both")
    if rtt is None and cable is None:
        raise InputError("--rtt", None, "a time with a unit, e.g. 200ns, or --cable 20m (one is required)")
    if rtt is not None:
        for option, text in (("--fixed-delay", fixed_delay), ("--propagation-speed", propagation_speed)):
            if text is not None:
                raise InputError(option, text, "only with --cable (with --rtt, include it in the RTT)")
        link = {"rtt_s": _quantity("--rtt", rtt, "time")}
    else:
        length = _quantity("--cable", cable, "length", allow_zero=True)
        delay = 0.0 if fixed_delay is None else _quantity("--fixed-delay", fixed_delay, "time", allow_zero=True)
        speed = (DEFAULT_PROPAGATION_SPEED if propagation_speed is None
                 else _quantity("--propagation-speed", propagation_speed, "speed"))
        total = 2 * length / speed + delay      # there and back over the cable, plus the fixed part
        if total <= 0:
            raise InputError("--cable", cable, "a cable or --fixed-delay > 0 (the RTT must be > 0)")
        link = {"rtt_s": total, "cable_m": length, "fixed_delay_s": delay, "propagation_speed": speed}
    if cell is None:
        raise InputError("--cell", None, "a size with a unit, e.g. 256B (required)")
    return Link(link_rate_bps=rate, cell_bits=_cell_bits(cell), **link)


def _buffer_cells(text: str, cell_bits: int) -> int:
    """--buffer: a bare whole number is cells, a size with a unit is whole cells of it."""
    if text.strip().isdigit():
        cells = int(text)
    else:
        cells = int(_quantity("--buffer", text, "size") // cell_bits)
    if cells < 1:
        raise InputError("--buffer", text, f"at least one cell ({cell_bits} bit), as cells or a size with a unit")
    return cells


def _cell_inputs(cell_bits: int | None) -> dict:
    return {} if cell_bits is None else {"cell_bits": cell_bits, "cell_bytes": cell_bits / 8}


def _round_trip(link: Link) -> tuple[int, dict]:
    from .solvers import flow_control as fc

    with named_by_option(_OPTION_OF):
        r = fc.round_trip_slots(link.link_rate_bps, link.rtt_s, link.cell_bits)
    return r.rtt_slots, {"round_trip_slots": r.rtt_slots, "slot_ns": _sig(r.slot_s * 1e9),
                         "bandwidth_delay_bytes": _sig(r.rtt_bits / 8)}


# --------------------------------------------------------------------------- payloads

def link_buffer_payload(protocol: str, link: Link, vcs: int = 1, ports: int | None = None,
                        per: str = "crosspoint", buffer: str | None = None) -> tuple[dict, list[str]]:
    """Payload (and its input keys) of ``size credit|grant|acknak``.

    ``per``: crosspoint = one link feeding P buffers (one per VC); port = one
    link feeding N crosspoints x P; switch = N such links (N^2 P buffers, the
    CICQ). ACK/NAK's retransmission buffer belongs to the link, so it is
    counted whole at every level.

    Examples
    --------
    >>> link = resolve_link("10Gb/s", "200ns", None, None, None, "64B")
    >>> p, _ = link_buffer_payload("credit", link, vcs=2, ports=8, per="switch", buffer="128B")
    >>> p["buffer_cells"], p["offered_buffer_cells"], p["utilization"]
    (512, 2, 0.5)
    """
    from .solvers import flow_control as fc

    if vcs < 1:
        raise InputError("--vcs", vcs, "an integer >= 1")
    if ports is not None and ports < 1:
        raise InputError("--ports", ports, "an integer >= 1")
    if per != "crosspoint" and ports is None:
        raise InputError("--ports", None, f"an integer >= 1 (needed with --per {per})")
    links, buffers = {"crosspoint": (1, vcs), "port": (1, (ports or 1) * vcs),
                      "switch": (ports or 1, (ports or 1) * vcs)}[per]
    tau, trip = _round_trip(link)
    with named_by_option(_OPTION_OF):
        need = fc.buffer_requirement(protocol, tau, buffers, links)
    payload = {"protocol": protocol, **link.inputs(), **_cell_inputs(link.cell_bits), "vcs": vcs}
    if ports is not None:
        payload["n_ports"] = ports
    payload["per"] = per
    if buffer is not None:
        payload["offered_buffer_cells"] = _buffer_cells(buffer, link.cell_bits)
    inputs = list(payload)
    payload.update(trip, links=links, downstream_buffers=links * buffers,
                   receiver_cells_per_buffer=need.receiver_cells_per_buffer,
                   retransmission_cells_per_link=need.retransmission_cells_per_link,
                   buffer_cells=need.total_cells, buffer_bytes=need.total_cells * link.cell_bits / 8)
    formula = f"{need.formula}; here links = {links}, M = {buffers}"
    if buffer is not None:
        use = fc.max_utilization(payload["offered_buffer_cells"], tau)
        payload["utilization"] = use.utilization
        formula += f"; with --buffer (one buffer): {use.formula}"
    payload.update(formula=formula, source=need.source)
    return payload, inputs


def _rtt_source(rtt_slots, link_options: dict, cell: str | None) -> tuple[int, Link | None, dict]:
    """Round trip for sfc/cicq: --rtt-slots, or the link options (then --cell is required)."""
    given = {k: v for k, v in link_options.items() if v is not None}
    if rtt_slots is not None and given:
        raise InputError("--rtt-slots", rtt_slots, "either --rtt-slots or the link options "
                                                   f"({', '.join('--' + k.replace('_', '-') for k in given)}), "
                                                   "not both")
    if rtt_slots is not None:
        if rtt_slots < 1:
            raise InputError("--rtt-slots", rtt_slots, "an integer >= 1")
        return rtt_slots, None, {"round_trip_slots": rtt_slots}
    if not given:
        raise InputError("--rtt-slots", None, "an integer >= 1, or the link options --link-rate, --rtt "
                                              "(or --cable) and --cell")
    link = resolve_link(cell=cell, **link_options)
    tau, trip = _round_trip(link)
    return tau, link, trip


def _crossbar_inputs(ports, rtt_slots, crosspoint_cells, qr_rule, cell, link_options, **extra):
    """tau, the link (or None), the cell (or None), the round-trip results and the input part of the payload."""
    tau, link, trip = _rtt_source(rtt_slots, link_options, cell)
    cell_bits = link.cell_bits if link else (None if cell is None else _cell_bits(cell))
    payload = {"n_ports": ports, **({"rtt_slots": rtt_slots} if link is None else link.inputs()),
               **_cell_inputs(cell_bits), **extra, "q_r_rule": "given" if crosspoint_cells is not None else qr_rule}
    if crosspoint_cells is not None:
        payload["crosspoint_cells"] = crosspoint_cells
    return tau, link, cell_bits, trip, payload


def _sfc(ports, tau, priorities, rtts, crosspoint_cells, qr_rule):
    from .solvers import flow_control as fc

    with named_by_option(_OPTION_OF):
        return fc.sfc_cicq(ports, tau, priorities, rtts, q_r=crosspoint_cells, rule=qr_rule)


def sfc_payload(ports: int, rtt_slots: int | None = None, crosspoint_cells: int | None = None,
                qr_rule: str = "ceil", cell: str | None = None, **link_options) -> tuple[dict, list[str]]:
    """Payload of ``size sfc``: one link's SFC sizing and the switch totals vs credits.

    Examples
    --------
    >>> p, _ = sfc_payload(16, rtt_slots=64)
    >>> p["q_r"], p["q_rtx"], p["total_cells_sfc"], p["total_cells_credit"], p["reduction_factor"]
    (4, 64, 2048, 16384, 8.0)
    """
    tau, _, cell_bits, trip, payload = _crossbar_inputs(ports, rtt_slots, crosspoint_cells, qr_rule, cell,
                                                        link_options)
    inputs = list(payload)
    s = _sfc(ports, tau, 1, 1, crosspoint_cells, qr_rule)
    payload.update(trip, q_r=s.q_r, q_rtx=s.q_rtx, row_cells_sfc=s.row_cells, crossbar_cells_sfc=s.crossbar_cells,
                   linecard_cells_sfc=s.linecard_cells, total_cells_sfc=s.total_cells,
                   total_cells_credit=s.credit_total_cells)
    if cell_bits is not None:
        payload.update(total_bytes_sfc=s.total_cells * cell_bits / 8,
                       total_bytes_credit=s.credit_total_cells * cell_bits / 8)
    payload.update(reduction_factor=s.reduction_factor, row_covers_rtt=s.row_covers_rtt,
                   sequence_bits=s.sequence_bits, acknak_bits=s.acknak_bits, formula=s.formula, source=s.source)
    return payload, inputs


def cicq_payload(ports: int, rtt_slots: int | None = None, priorities: int = 1, rtts: int = 1,
                 crosspoint_cells: int | None = None, qr_rule: str = "ceil", cell: str | None = None,
                 **link_options) -> tuple[dict, list[str]]:
    """Payload of ``size cicq``: crosspoint memory of a whole buffered crossbar, credits vs SFC.

    Examples
    --------
    >>> p, _ = cicq_payload(8, rtts=4, link_rate="10Gb/s", rtt="200ns", cell="64B")
    >>> p["crosspoint_bytes_credit_exact"], p["total_bytes_credit_exact"], p["total_bytes_credit"]
    (1000.0, 64000.0, 65536.0)
    """
    from .solvers import flow_control as fc

    tau, link, cell_bits, trip, payload = _crossbar_inputs(ports, rtt_slots, crosspoint_cells, qr_rule, cell,
                                                           link_options, priorities=priorities, rtts=rtts)
    inputs = list(payload)
    with named_by_option(_OPTION_OF):
        c = fc.credit_cicq(ports, tau, priorities, rtts)
    s = _sfc(ports, tau, priorities, rtts, crosspoint_cells, qr_rule)
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


# --------------------------------------------------------------------------- click

def _options(*options):
    return lambda f: functools.reduce(lambda g, o: o(g), reversed(options), f)


_json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object (inputs, results, units).")


def _link_options(cell_help: str):
    return _options(
        click.option("--link-rate", help="Link rate with a unit: 10Gb/s, 10Gbps, 1GB/s (b = bit, B = byte)."),
        click.option("--rtt", help="Round-trip time with a unit: 200ns, 1.5us (or give --cable)."),
        click.option("--cable", help="Cable length with a unit: 20m, 100ft; RTT = 2 x cable / speed + fixed delay."),
        click.option("--fixed-delay", help="With --cable: non-cable part of the RTT (SerDes, logic) [default: 0ns]."),
        click.option("--propagation-speed", help="With --cable: signal speed [default: 2e8m/s, i.e. 5 ns/m]."),
        click.option("--cell", help=cell_help),
    )


def _per_options(f):
    return _options(
        click.option("--vcs", type=int, default=1, show_default=True,
                      help="P: virtual channels, each with its own buffer per crosspoint."),
        click.option("--ports", "-n", type=int, default=None, help="N, switch size (needed with --per port|switch)."),
        click.option("--per", type=click.Choice(PER_LEVELS), default="crosspoint", show_default=True,
                     help="crosspoint: P buffers behind one link; port: N x P behind one link; "
                          "switch: N links, N^2 x P buffers (CICQ)."),
    )(f)


def _show(payload_and_inputs, title, as_json):
    from .render import show

    payload, inputs = payload_and_inputs
    show(payload, inputs, title, as_json)


@click.group("size", context_settings=CONTEXT)
def size_group():
    """Buffer sizes for link-level flow control (credit, grant, ACK/NAK, SFC) and buffered crossbars.

    Quantities take units: --link-rate 10Gb/s, --rtt 200ns or --cable 20m, --cell 256B
    (b = bit, B = byte; KB = 1000 B, KiB = 1024 B). Bare numbers are refused where a unit is needed.
    """


_CELL_HELP = "Cell size with a unit: 256B, 2048bit, 1KiB (1B gives byte-granular answers)."


@size_group.command("credit", context_settings=CONTEXT)
@_link_options(_CELL_HELP)
@_per_options
@click.option("--buffer", help="Ask the utilization one buffer reaches: cells (8) or a size (512B); "
                               "rho = min(Q_R / tau, 1).")
@_json_option
def size_credit(link_rate, rtt, cable, fixed_delay, propagation_speed, cell, vcs, ports, per, buffer, as_json):
    """Credit flow control: tau cells per buffer for lossless full-rate links (Minkenberg & Gusat 2.3, 2.5).

    tau = ceil(link rate x RTT / cell). buffer_cells = links x buffers x tau; buffer_bytes rounds
    to whole cells, bandwidth_delay_bytes (rate x RTT / 8) does not.

    \b
    Example:
      switchq size credit --link-rate 10Gb/s --rtt 200ns --cell 64B --json
      switchq size credit --link-rate 10Gb/s --cable 20m --cell 256B --vcs 2 --ports 8 --per switch
      switchq size credit --link-rate 100Gb/s --rtt 1us --cell 256B --buffer 4KiB
    """
    link = resolve_link(link_rate, rtt, cable, fixed_delay, propagation_speed, cell)
    _show(link_buffer_payload("credit", link, vcs, ports, per, buffer), "Credit flow control: buffer", as_json)


@size_group.command("grant", context_settings=CONTEXT)
@_link_options(_CELL_HELP)
@_per_options
@_json_option
def size_grant(link_rate, rtt, cable, fixed_delay, propagation_speed, cell, vcs, ports, per, as_json):
    """Grant (on/off) flow control: 2 tau cells per buffer (Minkenberg & Gusat 2.3).

    \b
    Example:
      switchq size grant --link-rate 10Gb/s --rtt 200ns --cell 64B --json
    """
    link = resolve_link(link_rate, rtt, cable, fixed_delay, propagation_speed, cell)
    _show(link_buffer_payload("grant", link, vcs, ports, per), "Grant (on/off) flow control: buffer", as_json)


@size_group.command("acknak", context_settings=CONTEXT)
@_link_options(_CELL_HELP)
@_per_options
@_json_option
def size_acknak(link_rate, rtt, cable, fixed_delay, propagation_speed, cell, vcs, ports, per, as_json):
    """ACK/NAK flow control: Q_R = 1 per buffer plus Q_RTX = tau per link (Minkenberg & Gusat 2.4, 2.5).

    \b
    Example:
      switchq size acknak --link-rate 10Gb/s --rtt 200ns --cell 64B --ports 16 --per port --json
    """
    link = resolve_link(link_rate, rtt, cable, fixed_delay, propagation_speed, cell)
    _show(link_buffer_payload("acknak", link, vcs, ports, per), "ACK/NAK flow control: buffer", as_json)


def _crossbar_options(f):
    return _options(
        click.option("--ports", "-n", type=int, required=True, help="N, switch size."),
        click.option("--rtt-slots", type=int, default=None, help="tau in cell times (instead of the link options)."),
        click.option("--crosspoint-cells", type=int, default=None,
                     help="Q_R per crosspoint (per priority), overriding --qr-rule."),
        click.option("--qr-rule", type=click.Choice(Q_R_RULES), default="ceil", show_default=True,
                     help="Q_R = ceil(K tau/N), K tau/N (the paper's ideal) or floor(K tau/N)+2 (its simulations)."),
    )(f)


_SFC_CELL_HELP = "Cell size with a unit (needed with --link-rate; with --rtt-slots it adds bytes)."


@size_group.command("sfc", context_settings=CONTEXT)
@_crossbar_options
@_link_options(_SFC_CELL_HELP)
@_json_option
def size_sfc(ports, rtt_slots, crosspoint_cells, qr_rule, link_rate, rtt, cable, fixed_delay, propagation_speed,
             cell, as_json):
    """Speculative flow control for an N-port buffered crossbar (Minkenberg & Gusat 4.2, 6.1).

    Q_RTX = max(tau, N Q_R); total N (N Q_R + Q_RTX) cells vs N^2 tau with credits (N/2 less
    when Q_R = tau/N). Also the sequence-number and ACK/NAK widths.

    \b
    Example:
      switchq size sfc --ports 16 --rtt-slots 64 --json
      switchq size sfc --ports 64 --link-rate 10Gb/s --cable 100m --cell 64B
    """
    _show(sfc_payload(ports, rtt_slots, crosspoint_cells, qr_rule, cell, link_rate=link_rate, rtt=rtt, cable=cable,
                      fixed_delay=fixed_delay, propagation_speed=propagation_speed),
          "Speculative flow control: buffered crossbar", as_json)


@size_group.command("cicq", context_settings=CONTEXT)
@_crossbar_options
@click.option("--priorities", type=int, default=1, show_default=True, help="P: buffers per crosspoint.")
@click.option("--rtts", type=int, default=1, show_default=True, help="K: buffer multiple of the round trip.")
@_link_options(_SFC_CELL_HELP)
@_json_option
def size_cicq(ports, rtt_slots, crosspoint_cells, qr_rule, priorities, rtts, link_rate, rtt, cable, fixed_delay,
              propagation_speed, cell, as_json):
    """Crosspoint memory of a whole buffered crossbar (CICQ): credits vs SFC, per crosspoint and total.

    Credits: P K tau per crosspoint, N^2 P K tau in all. SFC: Q_R per priority per crosspoint plus a
    retransmission buffer per input, max(K tau, N P Q_R).

    \b
    Example:
      switchq size cicq --ports 8 --rtts 4 --link-rate 10Gb/s --rtt 200ns --cell 64B --json
      switchq size cicq --ports 32 --rtt-slots 16 --priorities 2
    """
    _show(cicq_payload(ports, rtt_slots, priorities, rtts, crosspoint_cells, qr_rule, cell, link_rate=link_rate,
                       rtt=rtt, cable=cable, fixed_delay=fixed_delay, propagation_speed=propagation_speed),
          "Buffered crossbar (CICQ): crosspoint memory", as_json)
