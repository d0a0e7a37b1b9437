"""``switchq solve reduction`` and ``switchq simulate reduction``: one hardware reduction on a fat tree.

Paper 003 (Kumar, Kale & Stunkel) §2-§3.2, Figure 16: the time until the
root node holds the result of a reduction over every node (or ``--members``)
of a fat tree of ``--switch-ports``-port combining switches with
``--combine-units`` units each. Quantities take units (``256B``, ``4KiB``,
``10Gb/s``, ``90ns``, ``250MHz``); ``--message`` may be a comma-separated
list, which prints one row per size. The model is
:mod:`switchq.solvers.reduction`, the simulator
:mod:`switchq.validate.reduction`; :func:`register` adds both commands to
the CLI's ``solve`` and ``simulate`` groups. Bad input raises an
:class:`~switchq.errors.InputError` naming the option as typed, one line
on stderr and exit code 2 through ``switchq.cli.main``.

Examples
--------
>>> import json
>>> import click, json
>>> from click.testing import CliRunner
>>> solve, simulate = click.Group("solve"), click.Group("simulate")
>>> register(solve, simulate)
>>> out = CliRunner().invoke(solve, ["reduction", "--ports", "32", "--nodes", "256", "--message",
...                                  "8B", "--json"]).output
>>> r = json.loads(out)
>>> r["completion_time"], r["units"]["completion_time"], r["breakdown"]["combine"]
(3615.6, 'ns', 640.0)
"""

from __future__ import annotations

import functools
import re
import sys

import click

from .errors import InputError, named_by_option
from .models.network import MAX_NODES

__all__ = ["register"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

# Model parameter -> the option that sets it, so errors name what was typed.
_OPTION_OF = {"message_bytes": "--message", "combine_units": "--combine-units", "members": "--members",
              "root": "--root", "bytes_per_cycle": "--bytes-per-cycle", "header_cycles": "--header-cycles",
              "switch_ports": "--ports", "nodes": "--nodes", "packet_bytes": "--packet",
              "bandwidth_bps": "--bandwidth", "channel_delay_ns": "--channel-delay",
              "switch_delay_ns": "--switch-delay", "asic_hz": "--asic-clock", "nic_send_ns": "--nic-send",
              "nic_recv_ns": "--nic-recv", "skew_ns": "--skew", "replications": "--replications", "seed": "--seed"}

_HZ = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([kKMG]?)Hz\s*$")
_HZ_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}
_INPUTS = ("topology", "switch_ports", "nodes", "members", "root", "message_bytes", "packets", "combine_units",
           "bytes_per_cycle", "header_cycles", "bandwidth_bps", "packet_bytes", "channel_delay_ns",
           "switch_delay_ns", "asic_hz", "nic_send_ns", "nic_recv_ns", "packet_ns", "skew", "replications", "seed")


# --------------------------------------------------------------------------- parsing

def _bytes(option: str, text: str) -> int:
    from .units import parse_quantity

    bits = parse_quantity(text, "size", option)
    if bits <= 0 or bits % 8:
        raise InputError(option, text, "a positive whole number of bytes with a unit, e.g. 256B or 4KiB")
    return int(bits // 8)


def _ns(option: str, text: str) -> float:
    from .units import parse_quantity

    seconds = parse_quantity(text, "time", option)
    if seconds < 0:
        raise InputError(option, text, "a time >= 0 with a unit, e.g. 90ns")
    return seconds * 1e9


def _hz(text: str) -> float:
    m = _HZ.match(text or "")
    if not m:
        raise InputError("--asic-clock", text, "a frequency with a unit, e.g. 250MHz")
    return float(m.group(1)) * _HZ_PREFIX[m.group(2)]


def _messages(text: str) -> list[int]:
    pieces = [p for p in text.split(",")]
    if not pieces or any(not p.strip() for p in pieces):
        raise InputError("--message", text, "a size with a unit or a comma-separated list, e.g. 8B,256B,4KiB")
    return [_bytes("--message", p) for p in pieces]


def _members(text: str | None):
    if text is None or text.strip() == "all":
        return None
    allowed = "all, or node numbers and ranges A-B separated by commas, e.g. 0-63,128"
    nodes = []
    for piece in text.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", piece)
        if not m or (m.group(2) is not None and int(m.group(2)) < int(m.group(1))):
            raise InputError("--members", text, allowed)
        if int(m.group(2) or m.group(1)) >= MAX_NODES:
            raise InputError("--members", text, f"node numbers below {MAX_NODES} (and below --nodes)")
        nodes.extend(range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1))
    return nodes


def _reductions(switch_ports, nodes, message, combine_units, members, root, bandwidth, packet, channel_delay,
                switch_delay, asic_clock, nic_send, nic_recv, bytes_per_cycle, header_cycles):
    """One Reduction per message size, every option checked (errors name the option)."""
    from switchq.models.collective import Reduction
    from switchq.models.network import FatTree, NetworkTiming

    from .units import parse_quantity

    sizes = _messages(message)
    bandwidth_bps = parse_quantity(bandwidth, "rate", "--bandwidth")
    timing_args = {"bandwidth_bps": bandwidth_bps, "packet_bytes": _bytes("--packet", packet),
                   "channel_delay_ns": _ns("--channel-delay", channel_delay),
                   "switch_delay_ns": _ns("--switch-delay", switch_delay), "asic_hz": _hz(asic_clock),
                   "nic_send_ns": _ns("--nic-send", nic_send), "nic_recv_ns": _ns("--nic-recv", nic_recv)}
    group = _members(members)
    with named_by_option(_OPTION_OF):
        tree = FatTree.for_nodes(nodes, switch_ports)
        timing = NetworkTiming(**timing_args)
        return [Reduction(tree, size, combine_units, group, root, timing, bytes_per_cycle, header_cycles)
                for size in sizes]


# --------------------------------------------------------------------------- printing

def _json(payload) -> str:
    """One JSON object (``render.to_json``), or a list of them for a table of message sizes."""
    from .render import to_json

    if isinstance(payload, list):
        return "[" + ", ".join(to_json(p) for p in payload) + "]"
    return to_json(payload)


def _show_one(payload: dict, title: str, notes=()) -> None:
    from rich.markup import escape
    from rich.table import Table

    from .render import _console, fmt
    from .units import unit_of

    table = Table(title=title, header_style="bold")
    for col in ("", "quantity", "value", "unit"):
        table.add_column(col)
    for k, v in payload.items():
        if k.endswith("_ci95"):
            continue
        kind = "input" if k in _INPUTS else "result"
        if isinstance(v, dict):
            for part, x in v.items():
                table.add_row(kind, f"{k}: {part}", escape(fmt(x)), unit_of(k))
            continue
        value = fmt(v)
        ci = payload.get(k + "_ci95")
        if ci is not None:
            value += f"  (95% CI {fmt(ci[0])} .. {fmt(ci[1])})"
        table.add_row(kind, k, escape(value), unit_of(k))
    console = _console()
    console.print(table)
    for n in notes:
        console.print(n)


def _show_rows(payloads: list, title: str, columns: tuple) -> None:
    from rich.markup import escape
    from rich.table import Table

    from .render import _console, fmt
    from .units import unit_of

    first = payloads[0]
    fixed = ", ".join(f"{k}={fmt(first[k])}" for k in ("topology", "switch_ports", "nodes", "members",
                                                        "combine_units", "packet_bytes") if k in first)
    table = Table(title=title, caption=fixed, header_style="bold")
    for col in columns:
        unit = unit_of(col)
        table.add_column(escape(f"{col} [{unit}]") if unit else col, justify="right" if col != "bottleneck" else "left")
    for p in payloads:
        cells = []
        for col in columns:
            v = p[col]
            text = fmt(v)
            if p.get(col + "_ci95") is not None:
                lo, hi = p[col + "_ci95"]
                text += f" ({fmt(lo)} .. {fmt(hi)})"
            cells.append(text)
        table.add_row(*cells)
    _console().print(table)


def _emit(payloads: list, as_json: bool, title: str, columns: tuple, notes=()) -> None:
    if as_json:
        sys.stdout.write(_json(payloads if len(payloads) > 1 else payloads[0]) + "\n")
    elif len(payloads) == 1:
        _show_one(payloads[0], title, notes)
    else:
        _show_rows(payloads, title, columns)


# --------------------------------------------------------------------------- options

def _reduction_options(f):
    options = [
        click.option("--ports", "-k", "--switch-ports", "switch_ports", type=int, default=8, show_default=True,
                     help="Ports per switch K (the fat tree is a K/2-ary n-tree)."),
        click.option("--nodes", type=int, default=256, show_default=True, help="Nodes: a power of K/2."),
        click.option("--message", required=True,
                     help="Bytes each node contributes, with a unit (256B, 4KiB); a comma-separated list "
                          "prints one row per size."),
        click.option("--combine-units", type=int, default=1, show_default=True,
                     help="Combine units per switch r: 1, or r - 1 leaf units over port blocks plus a root."),
        click.option("--members", default=None,
                     help="Taking part: all, or nodes and ranges (0-63,128) [default: all]."),
        click.option("--root", type=int, default=None,
                     help="Node that receives the result [default: smallest member]."),
        click.option("--bandwidth", default="10Gb/s", show_default=True, help="Link rate."),
        click.option("--packet", default="256B", show_default=True, help="Largest packet."),
        click.option("--channel-delay", default="20ns", show_default=True, help="Propagation per link."),
        click.option("--switch-delay", default="90ns", show_default=True, help="Latency per switch."),
        click.option("--asic-clock", default="250MHz", show_default=True, help="Switch ASIC (combine unit) clock."),
        click.option("--nic-send", default="1300ns", show_default=True, help="NIC send overhead."),
        click.option("--nic-recv", default="1300ns", show_default=True, help="NIC receive overhead at the root node."),
        click.option("--bytes-per-cycle", type=int, default=8, show_default=True,
                     help="Combine datapath width (assumed; the paper gives none)."),
        click.option("--header-cycles", type=int, default=4, show_default=True,
                     help="Combine cycles per packet before its data: header, lookup (assumed)."),
        click.option("--json", "as_json", is_flag=True, help="Print JSON (an object, or a list for several sizes)."),
    ]
    return functools.reduce(lambda g, o: o(g), reversed(options), f)


_MODEL_ARGS = ("switch_ports", "nodes", "message", "combine_units", "members", "root", "bandwidth", "packet",
               "channel_delay", "switch_delay", "asic_clock", "nic_send", "nic_recv", "bytes_per_cycle",
               "header_cycles")


@click.command("reduction", context_settings=CONTEXT)
@_reduction_options
def solve_reduction(as_json, **options):
    """Completion time of one reduction on an idle fat tree (paper 003 §2-§3.2, Figure 16), in ns.

    Exact max-plus recursion over packets and combine units on the paper's spanning tree,
    with the critical path's breakdown; for the full machine with one unit also the closed form.

    \b
    Example:
      switchq solve reduction --switch-ports 32 --nodes 256 --message 256B --combine-units 1 --json
      switchq solve reduction --switch-ports 8 --message 8B,64B,256B,1KiB,4KiB
    """
    from switchq.solvers.reduction import completion_time

    reductions = _reductions(**{k: options[k] for k in _MODEL_ARGS})
    payloads = [completion_time(r).to_dict() for r in reductions]
    _emit(payloads, as_json, "Reduction (analytic)",
          ("message_bytes", "packets", "completion_time", "period", "bottleneck"))


@click.command("reduction", context_settings=CONTEXT)
@_reduction_options
@click.option("--skew", default="0ns", show_default=True,
              help="Each member starts uniformly in [0, skew] (0: every run is the analytic one).")
@click.option("--replications", "-r", type=int, default=8, show_default=True, help="Independent reductions (>= 2).")
@click.option("--seed", type=int, default=1, show_default=True, help="Root seed; fixes every replication's starts.")
def simulate_reduction(as_json, skew, replications, seed, **options):
    """Simulated reduction: event-driven, packet by packet, with start skew; mean and 95% CI, in ns.

    Every replication lies between the analytic time with all starts at 0 (lower_bound)
    and with all at the skew (upper_bound).

    \b
    Example:
      switchq simulate reduction --switch-ports 32 --message 4KiB --combine-units 5 --skew 500ns --seed 1 --json
    """
    from switchq.validate.reduction import simulate_reduction as simulate

    reductions = _reductions(**{k: options[k] for k in _MODEL_ARGS})
    skew_ns = _ns("--skew", skew)
    with named_by_option(_OPTION_OF):
        payloads = [simulate(r, skew_ns, replications, seed).to_dict() for r in reductions]
    _emit(payloads, as_json, "Reduction (simulated)",
          ("message_bytes", "packets", "completion_time", "lower_bound", "upper_bound"))


def register(solve_group: click.Group, simulate_group: click.Group) -> None:
    """Add ``reduction`` to the CLI's ``solve`` and ``simulate`` groups."""
    solve_group.add_command(solve_reduction)
    simulate_group.add_command(simulate_reduction)
