"""The models ``switchq sweep`` knows: their parameters, analytic answer and simulated twin.

One :class:`Model` per name. A model lists its :class:`Param` s under the
spellings of the CLI (``ports``, ``load``, ``window``, ``buffer``,
``rtt_slots``, ``crosspoint_cells``, ...; the same name is the ``--vary``
name, the option of fixed values, ``--ports``, and the column of the result
table) and maps each one to the keyword of the solver or model description
it feeds (``ports`` -> ``n_ports``). A model has an analytic function (from
:mod:`switchq.solvers`, or the ``switchq size`` payloads for the sizing
models), a simulated twin (a function building the
:class:`~switchq.models.Switch` and :class:`~switchq.models.Traffic` that
:func:`switchq.validate.harness.simulate` runs), or both.

Values are canonical: integers are ``int``, numbers ``float``, quantities
with a unit are floats in the unit listed (seconds, metres, bit/s, m/s; a
cell size is a whole number of bits), optional parameters ``None`` when
unset. Nothing here imports the solvers, NumPy or the simulator until a
point is checked or computed.

Examples
--------
>>> sorted(MODELS)[:4]
['cicq', 'fattree', 'fifo', 'hol']
>>> oq = get("oq")
>>> [p.name for p in oq.params_for("analytic")]
['ports', 'load', 'buffer']
>>> oq.param("ports").parse("16", "--ports")
16
>>> oq.param("load").parse("1.5", "--load")
Traceback (most recent call last):
...
switchq.errors.InputError: --load: got '1.5'; allowed: a number in [0, 1]
>>> r = oq.analytic({"ports": 16, "load": 0.8, "buffer": None})
>>> round(r["mean_wait"], 4)
1.875
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable

from .errors import InputError

__all__ = ["Param", "Model", "MODELS", "get", "SIM_RESULTS", "RESULT_UNITS", "MODES"]

MODES = ("analytic", "simulated")
BOTH = MODES
SIM = ("simulated",)
REQUIRED = object()  # default of a parameter that must be given

# Canonical unit symbol of each quantity kind of switchq.units (what a quantity is re-read with).
_KIND_UNIT = {"time": ("s", "s"), "length": ("m", "m"), "rate": ("b/s", "bit/s"), "size": ("b", "bits"),
              "speed": ("m/s", "m/s")}
_INT_TEXT = "an integer"
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


@dataclass(frozen=True)
class Param:
    """One parameter of a model.

    Attributes
    ----------
    name : str
        CLI spelling: the ``--vary`` name, ``--<name with dashes>`` option and table column.
    target : str
        Keyword of the solver / model description it feeds.
    kind : str
        ``int``, ``float``, ``choice``, ``flag``, or a quantity kind of
        :mod:`switchq.units` (``time``, ``length``, ``rate``, ``size``, ``speed``).
    default : object
        ``REQUIRED`` when it must be given; ``None`` for an optional parameter left unset.
    low, high : float or None
        Allowed interval (``low_open``/``high_open`` exclude the ends).
    choices : tuple
        For ``choice``.
    unit : str
        Unit of the canonical value.
    help : str
    modes : tuple
        Modes that use it: a parameter not used by a mode may not be given in it.
    aliases : tuple
        Other names solvers use for it in their errors (``n_ports``, ``--link-rate``).
    """

    name: str
    target: str
    kind: str
    default: object = REQUIRED
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()
    unit: str = ""
    help: str = ""
    modes: tuple = BOTH
    aliases: tuple = ()

    @property
    def option(self) -> str:
        """The option of a fixed value, ``--rtt-slots`` for ``rtt_slots``."""
        return "--" + self.name.replace("_", "-")

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def numeric(self) -> bool:
        return self.kind in ("int", "float") or self.kind in _KIND_UNIT

    def allowed(self) -> str:
        """What values are allowed, as the one-line error says it."""
        if self.kind == "choice":
            text = "one of " + ", ".join(str(c) for c in self.choices)
        elif self.kind == "flag":
            text = "true or false"
        else:
            text = {"int": _INT_TEXT, "float": "a number"}.get(self.kind, f"a {self.kind}")
            unit = f" {_KIND_UNIT[self.kind][1]}" if self.kind in _KIND_UNIT else ""
            lo = "(" if self.low_open else "["
            hi = ")" if self.high_open else "]"
            if self.low is not None and self.high is not None:
                text += f" in {lo}{_num(self.low)}, {_num(self.high)}{hi}{unit}"
            elif self.low is not None:
                text += f" {'>' if self.low_open else '>='} {_num(self.low)}{unit}"
            elif self.high is not None:
                text += f" {'<' if self.high_open else '<='} {_num(self.high)}{unit}"
            if self.kind in _KIND_UNIT:
                text += f" with a unit, e.g. {_example(self.kind)}"
        if self.default is None:
            text += ", or none"
        return text

    def describe_default(self) -> str:
        if self.required:
            return "required"
        if self.default is None:
            return "none"
        return _fmt(self.default)

    def parse(self, text, where: str):
        """One value from its text (or a Python value), canonical and checked; InputError names ``where``."""
        if self.default is None and (text is None or (isinstance(text, str) and text.strip().lower() == "none")):
            return None
        if isinstance(text, str):
            text = text.strip()
        if self.kind == "choice":
            if text not in self.choices:
                raise InputError(where, text, self.allowed())
            return text
        if self.kind == "flag":
            if isinstance(text, bool):
                return text
            low = str(text).lower()
            if low in _TRUE or low in _FALSE:
                return low in _TRUE
            raise InputError(where, text, self.allowed())
        if self.kind in _KIND_UNIT:
            value = self._quantity(text, where)
        else:
            value = self._number(text, where)
        self.check_range(value, text, where)
        return value

    def _number(self, text, where):
        if isinstance(text, bool):
            raise InputError(where, text, self.allowed())
        if isinstance(text, (int, float)) or type(text).__module__ == "numpy":
            value = float(text) if self.kind == "float" else text
        else:
            try:
                value = float(text)
            except (TypeError, ValueError):
                raise InputError(where, text, self.allowed()) from None
        if not math.isfinite(float(value)):
            raise InputError(where, text, self.allowed())
        if self.kind == "int":
            f = float(value)
            if not f.is_integer():
                raise InputError(where, text, self.allowed())
            return int(f)
        return float(value)

    def _quantity(self, text, where):
        from .units import parse_quantity

        if isinstance(text, (int, float)) and not isinstance(text, bool):
            value = float(text)           # from Python: already canonical
        else:
            value = parse_quantity(text, self.kind, where)
        if self.kind == "size":
            if not float(value).is_integer():
                raise InputError(where, text, "a whole number of bits, e.g. 256B or 2048 bit")
            return int(value)
        return value

    def check_range(self, value, text, where):
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            raise InputError(where, text, self.allowed())
        if self.high is not None and (value > self.high or (self.high_open and value == self.high)):
            raise InputError(where, text, self.allowed())

    def as_text(self, value) -> str | None:
        """A quantity as text ``switchq.units.parse_quantity`` reads back to the same float."""
        if value is None:
            return None
        text = repr(value)   # shortest text that reads back to the same float
        return (text[:-2] if text.endswith(".0") else text) + _KIND_UNIT[self.kind][0]


def _num(x) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(x)


def _fmt(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _example(kind):
    from .units import KINDS

    return KINDS[kind][2]


@dataclass(frozen=True)
class Model:
    """One sweepable model.

    Attributes
    ----------
    name, title : str
    params : tuple of Param
    analytic : callable or None
        ``analytic(params) -> dict`` of results.
    check : callable or None
        ``check(params)``: cheap validation of an analytic point (raises InputError).
        None: ``analytic`` itself is the check (it takes microseconds).
    build : callable or None
        ``build(params) -> (Switch, Traffic)`` for the simulator.
    main : dict
        Mode -> the main result (``--plot``'s default y).
    table : dict
        Mode -> results shown in the terminal table.
    results : dict
        Mode -> every result name (``--y`` must be one).
    note : str
        One line on what the model answers, for ``--help`` and ``--list``.
    """

    name: str
    title: str
    params: tuple
    analytic: Callable | None = None
    check: Callable | None = None
    build: Callable | None = None
    main: dict = field(default_factory=dict)
    table: dict = field(default_factory=dict)
    results: dict = field(default_factory=dict)
    note: str = ""
    result_units: dict = field(default_factory=dict)

    @property
    def modes(self) -> tuple:
        return tuple(m for m in MODES if (self.analytic if m == "analytic" else self.build) is not None)

    def param(self, name: str) -> Param:
        """The parameter called ``name`` (dashes read as underscores); InputError if there is none."""
        key = name.strip().replace("-", "_")
        for p in self.params:
            if p.name == key:
                return p
        raise InputError("--vary", name, f"a parameter of {self.name}: " + ", ".join(p.name for p in self.params))

    def params_for(self, mode: str) -> list:
        return [p for p in self.params if mode in p.modes]

    def name_of(self, solver_name: str) -> str | None:
        """The parameter a solver's error names (``n_ports``, ``--link-rate``, ``q_r``), or None."""
        key = solver_name.lstrip("-").replace("-", "_")
        for p in self.params:
            if key == p.name or key == p.target or solver_name in p.aliases or key in p.aliases:
                return p.name
        return None

    def unit_of(self, name: str) -> str:
        from .units import unit_of

        for p in self.params:
            if p.name == name:
                return p.unit
        return self.result_units.get(name) or RESULT_UNITS.get(name) or unit_of(name)


# --------------------------------------------------------------------------- parameters

def _p(name, target, kind, default=REQUIRED, **kw) -> Param:
    return Param(name, target, kind, default, **kw)


PORTS = _p("ports", "n_ports", "int", low=1, unit="ports", help="switch size N (inputs = outputs)")
LOAD = _p("load", "load", "float", low=0, high=1, unit="cells/slot/input", help="offered load per input")
WINDOW = _p("window", "window", "int", 1, low=1, high=4096, unit="cells",
            help="look-ahead depth w of each input FIFO (1 = plain FIFO)")
WINDOW_POLICY = _p("window_policy", "window_policy", "choice", "rounds", choices=("rounds", "random"),
                   help="rounds: Hluchyj & Karol's rounds; random: paper 001's central control", aliases=("policy",))
MATCHING = _p("matching", "matching", "choice", "islip", choices=("pim", "islip"), help="VOQ matching")
ITERATIONS = _p("iterations", "iterations", "int", 1, low=1, high=64, unit="iterations",
                help="matching iterations per slot")
INPUT_BUFFER = _p("input_buffer", "input_buffer_cells", "int", None, low=1, high=1 << 20, unit="cells",
                  help="cells per input (none = unbounded)", modes=SIM)
RTT_SLOTS = _p("rtt_slots", "rtt_slots", "int", low=1, high=1 << 16, unit="slots", help="round trip tau in cell slots",
               aliases=("tau",))
CROSSPOINT = _p("crosspoint_cells", "crosspoint_cells", "int", low=1, high=1 << 16, unit="cells",
                help="crosspoint buffer Q_R", aliases=("q_r",))

# Traffic of the simulated twins (the analytic forms assume uniform Bernoulli traffic).
TRAFFIC = (
    _p("pattern", "pattern", "choice", "uniform",
       choices=("uniform", "transpose", "bitrev", "complement", "hotspot", "unbalanced"),
       help="destination pattern", modes=SIM),
    _p("arrivals", "arrivals", "choice", None, choices=("bernoulli", "onoff"),
       help="arrival process (none: onoff if burst > 1, else bernoulli)", modes=SIM),
    _p("burst", "mean_burst", "float", 1.0, low=1, high=1e6, unit="cells", help="mean burst length (on-off)",
       modes=SIM),
    _p("unbalanced", "unbalanced_w", "float", None, low=0, high=1, unit="1",
       help="unbalanced-traffic w (sets pattern unbalanced)", modes=SIM),
    _p("hotspot_fraction", "hotspot_fraction", "float", 0.0, low=0, high=1, unit="1",
       help="share of cells sent to the hotspot port", modes=SIM),
    _p("hotspot_port", "hotspot_port", "int", 0, low=0, unit="port index", help="hotspot output port", modes=SIM),
)

# Link options of the sizing models, as `switchq size` reads them.
LINK = (
    _p("link_rate", "link_rate", "rate", None, low=0, low_open=True, unit="bit/s", help="link rate, e.g. 10Gb/s",
       aliases=("link_rate_bps",)),
    _p("rtt", "rtt", "time", None, low=0, low_open=True, unit="s", help="round-trip time, e.g. 200ns (or cable)",
       aliases=("rtt_s",)),
    _p("cable", "cable", "length", None, low=0, unit="m", help="cable length, e.g. 20m (RTT = 2 cable / speed)"),
    _p("fixed_delay", "fixed_delay", "time", None, low=0, unit="s", help="with cable: non-cable part of the RTT"),
    _p("propagation_speed", "propagation_speed", "speed", None, low=0, low_open=True, unit="m/s",
       help="with cable: signal speed (none: 2e8 m/s)"),
)
CELL = _p("cell", "cell", "size", None, low=1, unit="bits", help="cell size, e.g. 64B", aliases=("cell_bits",))

SIM_RESULTS = ("throughput", "throughput_ci95", "output_utilization", "output_utilization_ci95", "mean_latency", "mean_latency_ci95", "latency_per", "mean_wait",
               "mean_wait_ci95", "loss_probability", "loss_probability_ci95", "arrived", "delivered", "dropped",
               "queued", "unstable")
SIM_TABLE = ("throughput", "mean_latency", "loss_probability", "unstable")
SIM_COUNTERS = ("speculative_transmissions", "retransmissions", "naks", "duplicates", "replacements",
                "order_errors", "credited_drops", "credit_min", "credit_max", "retransmission_max",
                "mean_latency_by_priority", "mean_latency_by_priority_ci95")
RESULT_UNITS = {"low_load_burst_latency": "slots/burst", "low_load_burst_latency_rtts": "round trips",
                "permutation_throughput": "cells/slot/output", "hol_mean": "slots", "hol_second_moment": "slots^2",
                "mean_latency_by_priority": "slots", "mean_latency_by_priority_ci95": "slots"}


# --------------------------------------------------------------------------- helpers

def _traffic(p: dict, load: float | None = None):
    from .models import Traffic

    pattern = "unbalanced" if p.get("unbalanced") is not None else p.get("pattern", "uniform")
    burst = p.get("burst", 1.0)
    arrivals = p.get("arrivals") or ("onoff" if burst != 1.0 else "bernoulli")
    priorities = p.get("priorities", 1)
    return Traffic(load=p["load"] if load is None else load, pattern=pattern, arrivals=arrivals, mean_burst=burst,
                   unbalanced_w=p.get("unbalanced") or 0.0, hotspot_fraction=p.get("hotspot_fraction", 0.0),
                   hotspot_port=p.get("hotspot_port", 0), priority_shares=(1.0 / priorities,) * priorities)


def _fields(obj, names) -> dict:
    return {n: getattr(obj, n) for n in names}


# hol -----------------------------------------------------------------

def _hol(p):
    from .solvers import hol

    r = hol.saturation_throughput(p["ports"])
    return _fields(r, ("saturation_throughput", "exact", "states", "method", "source"))


def _hol_build(p):
    from .models import Switch, Traffic

    return Switch(p["ports"], "fifo"), Traffic(1.0)


# window -----------------------------------------------------------------

def _window_check(p):
    from .solvers import window as win

    if not win.exact_is_tractable(p["ports"], p["window"], p["window_policy"]):
        win.saturation_throughput(p["ports"], p["window"], p["window_policy"])  # raises, naming the limit


def _window(p):
    from .solvers import window as win

    r = win.saturation_throughput(p["ports"], p["window"], p["window_policy"])
    return _fields(r, ("saturation_throughput", "states", "method", "source"))


def _window_build(p):
    from .models import Switch, Traffic

    return Switch(p["ports"], "fifo", window=p["window"], window_policy=p["window_policy"]), Traffic(1.0)


# oq -----------------------------------------------------------------

def _oq_check(p):
    from .models import _check
    from .solvers import oq

    oq._check_ports(p["ports"])
    oq._check_load(p["load"], stable=p["buffer"] is None)
    if p["buffer"] is not None:
        _check.integer("buffer_cells", p["buffer"], 1, oq.MAX_BUFFER_CELLS)


def _oq(p):
    from .solvers import oq

    if p["buffer"] is None:
        r = oq.mean_wait(p["ports"], p["load"])
        return _fields(r, ("mean_wait", "mean_latency", "formula", "source"))
    r = oq.finite_buffer(p["ports"], p["load"], p["buffer"])
    return _fields(r, ("loss_probability", "throughput", "mean_wait", "mean_latency", "mean_queue", "states",
                       "method", "source"))


def _oq_build(p):
    from .models import Switch

    return Switch(p["ports"], "oq", output_buffer_cells=p["buffer"]), _traffic(p)


# iq -----------------------------------------------------------------

def _iq(p):
    from .solvers import iq

    r = iq.mean_wait(p["load"], p["ports"])
    return _fields(r, ("mean_wait", "mean_latency", "hol_mean", "hol_second_moment", "formula", "source", "note"))


def _fifo_build(p):
    from .models import Switch

    sw = Switch(p["ports"], "fifo", window=p.get("window", 1), window_policy=p.get("window_policy", "rounds"),
                input_buffer_cells=p.get("input_buffer"))
    return sw, _traffic(p)


# voq -----------------------------------------------------------------

def _voq(p):
    from .solvers import voq

    r = voq.saturation_throughput(p["ports"], p["matching"], p["iterations"])
    return _fields(r, ("saturation_throughput", "method", "source"))


def _voq_check(p):
    from .models import _check
    from .models.switch import MAX_PORTS

    _check.integer("n_ports", p["ports"], 1, MAX_PORTS)


def _voq_build(p):
    from .models import Switch

    sw = Switch(p["ports"], "voq", matching=p["matching"], iterations=p["iterations"],
                input_buffer_cells=p["input_buffer"])
    return sw, _traffic(p)


# multicast ------------------------------------------------------------

MULTICAST_ARCH = _p("arch", "architecture", "choice", "oq-crosspoint",
                    choices=("oq-crosspoint", "iq-split", "iq-nosplit", "iq-wba"),
                    help="multicast switch architecture (iq-wba: simulated only)")


def _multicast(p):
    from .solvers import multicast

    r = multicast.saturation_load(p["arch"], p["ports"], p["inputs"], p["fanout"], p["fanout_distribution"],
                                  p["crosspoint_cells"])
    value, kind = r.answer
    return {"saturation_load": value, "saturation_load_kind": kind, "admissible_load": r.admissible_bound,
            "exact": r.exact, "method": r.method, "source": r.source}


def _multicast_build(p):
    from .models import Switch, Traffic

    sw = Switch(p["ports"], p["arch"], crosspoint_cells=p["crosspoint_cells"])
    return sw, Traffic(p["load"], fanout=p["fanout"], fanout_distribution=p["fanout_distribution"],
                       active_inputs=p["inputs"])


def _multicast_check(p):
    from .models import Traffic

    Traffic(1.0, fanout=p["fanout"], fanout_distribution=p["fanout_distribution"],
            active_inputs=p["inputs"]).check_ports(p["ports"])


# cicq -----------------------------------------------------------------

def _flow_control(p, simulated: bool):
    from .models import FlowControl

    extra = {}
    if simulated:
        extra = {"retransmission_cells": p["retransmission_cells"], "replacement": p["replacement"]}
    return FlowControl(rtt_slots=p["rtt_slots"], crosspoint_cells=p["crosspoint_cells"], protocol=p["protocol"],
                       data_delay_slots=p["data_delay"], **extra)


def _cicq_check(p):
    _flow_control(p, simulated=False)


def _cicq(p):
    from .solvers import cicq

    fc = _flow_control(p, simulated=False)
    e = cicq.low_load_burst_latency(fc.protocol, p["burst"], fc.crosspoint_cells, fc.rtt_slots, fc.data_delay_slots)
    return {"low_load_burst_latency": e.mean_latency, "low_load_burst_latency_rtts": e.mean_latency_rtts,
            "permutation_throughput": cicq.permutation_throughput(fc.protocol, fc.crosspoint_cells, fc.rtt_slots),
            "data_delay_slots": fc.data_delay_slots, "formula": e.formula, "source": e.source}


def _cicq_build(p):
    from .models import Switch

    sw = Switch(p["ports"], "cicq", flow_control=_flow_control(p, simulated=True), priorities=p["priorities"],
                arbitration=p["arbitration"])
    return sw, _traffic(p)


# sizing -----------------------------------------------------------------

def _link_texts(p: dict) -> dict:
    return {q.name: q.as_text(p[q.name]) for q in LINK}


def _size_results(payload: dict, inputs: list) -> dict:
    return {k: v for k, v in payload.items() if k not in inputs}


def _size_link(protocol):
    def compute(p):
        from .cli_size import link_buffer_payload, resolve_link

        t = _link_texts(p)
        link = resolve_link(cell=CELL.as_text(p["cell"]), **t)
        buffer = None if p.get("buffer") is None else str(p["buffer"])
        return _size_results(*link_buffer_payload(protocol, link, p["vcs"], p["ports"], p["per"], buffer))
    return compute


def _size_sfc(p):
    from .cli_size import sfc_payload

    return _size_results(*sfc_payload(p["ports"], p["rtt_slots"], p["crosspoint_cells"], p["qr_rule"],
                                      CELL.as_text(p["cell"]), **_link_texts(p)))


def _size_cicq(p):
    from .cli_size import cicq_payload

    return _size_results(*cicq_payload(p["ports"], p["rtt_slots"], p["priorities"], p["rtts"],
                                       p["crosspoint_cells"], p["qr_rule"], CELL.as_text(p["cell"]),
                                       **_link_texts(p)))


# reduction -----------------------------------------------------------

def _reduction(p):
    from .models.collective import Reduction
    from .models.network import FatTree
    from .solvers import reduction

    if p["message"] % 8:
        raise InputError("message", p["message"], "a whole number of bytes")
    r = reduction.completion_time(Reduction(FatTree.for_nodes(p["nodes"], p["ports"]), int(p["message"] // 8),
                                            p["combine_units"], bytes_per_cycle=p["bytes_per_cycle"],
                                            header_cycles=p["header_cycles"]))
    return {"completion_time": r.completion_time_ns, "period": r.period_ns, "bottleneck": r.bottleneck,
            "bottleneck_packets": r.bottleneck_packets, "combine_service": r.combine_ns}


REDUCTION_PARAMS = (
    _p("ports", "switch_ports", "int", 8, low=4, high=1024, unit="ports", help="ports per switch",
       aliases=("switch_ports",)),
    _p("nodes", "nodes", "int", 256, low=2, unit="nodes", help="nodes: a power of ports/2"),
    _p("message", "message_bytes", "size", REQUIRED, low=8, unit="bits", help="bytes each node contributes, e.g. 4KiB",
       aliases=("message_bytes",)),
    _p("combine_units", "combine_units", "int", 1, low=1, unit="units/switch", help="r: 1, or 3.. (a tree of units)"),
    _p("bytes_per_cycle", "bytes_per_cycle", "int", 8, low=1, unit="B/cycle", help="combine datapath (assumed)"),
    _p("header_cycles", "header_cycles", "int", 4, low=0, unit="cycles", help="combine lookup cycles (assumed)"),
)


# --------------------------------------------------------------------------- the registry

def _sim_only(*params):
    return tuple(replace(p, modes=SIM) for p in params)


_SIM = {"simulated": "throughput"}
_SIM_TABLE = {"simulated": SIM_TABLE}
_SIM_RESULTS = {"simulated": SIM_RESULTS}


# fattree ---------------------------------------------------------------

def _fattree_build(p):
    from .models import Traffic
    from .models.network import FatTreeNetwork

    net = FatTreeNetwork.for_nodes(p["nodes"], p["ports"], crosspoint_cells=p["crosspoint_cells"],
                                   up_routing=p["up_routing"])
    multicast = p["fanout"] != 1.0
    return net, Traffic(p["load"], pattern=p["traffic"], fanout=p["fanout"],
                        fanout_distribution=p["fanout_distribution"] if multicast else "fixed")


FATTREE_PARAMS = _sim_only(
    _p("ports", "switch_ports", "int", 32, low=4, high=64, unit="ports", help="ports per switch (half down, half up)",
       aliases=("switch_ports",)),
    _p("nodes", "nodes", "int", 256, low=2, unit="nodes", help="nodes: a power of ports/2"),
    _p("traffic", "pattern", "choice", "uniform", choices=("uniform", "transpose", "bitrev", "complement"),
       help="point-to-point destination pattern", aliases=("pattern",)),
    replace(LOAD, unit="packets/slot/node"),
    _p("crosspoint_cells", "crosspoint_cells", "int", 4, low=1, high=64, unit="packets",
       help="packet buffers per crosspoint"),
    _p("fanout", "fanout", "float", 1.0, low=1, unit="nodes/packet", help="mean destinations per packet (>1: multicast)"),
    _p("fanout_distribution", "fanout_distribution", "choice", "uniform", choices=("fixed", "binomial", "uniform"),
       help="law of the destination-set size"),
    _p("up_routing", "up_routing", "choice", "adaptive", choices=("adaptive", "random", "source", "dmodk"),
       help="up port: most credits, random with a credit, random source route, or d-mod-k"),
)


_PER = _p("per", "per", "choice", "crosspoint", choices=("crosspoint", "port", "switch"),
          help="crosspoint: P buffers behind one link; port: N x P; switch: N links, N^2 x P buffers")
_VCS = _p("vcs", "vcs", "int", 1, low=1, unit="buffers/crosspoint", help="P: virtual channels")
_SIZE_PORTS = _p("ports", "ports", "int", None, low=1, unit="ports", help="N (needed with per port|switch)",
                 aliases=("n_ports",))
_LINK_RESULTS = ("round_trip_slots", "slot_ns", "bandwidth_delay_bytes", "links", "downstream_buffers",
                 "receiver_cells_per_buffer", "retransmission_cells_per_link", "buffer_cells", "buffer_bytes",
                 "utilization", "formula", "source")
_XBAR = (_p("ports", "ports", "int", low=1, unit="ports", help="N, switch size", aliases=("n_ports",)),
         _p("rtt_slots", "rtt_slots", "int", None, low=1, unit="slots", help="tau in cell times (or the link)",
            aliases=("tau",)),
         _p("crosspoint_cells", "crosspoint_cells", "int", None, low=1, unit="cells",
            help="Q_R per crosspoint, overriding qr_rule", aliases=("q_r",)),
         _p("qr_rule", "qr_rule", "choice", "ceil", choices=("ceil", "ideal", "paper"),
            help="Q_R = ceil(K tau/N), K tau/N or floor(K tau/N)+2", aliases=("rule",)))
_SFC_RESULTS = ("round_trip_slots", "q_r", "q_rtx", "row_cells_sfc", "crossbar_cells_sfc", "linecard_cells_sfc",
                "total_cells_sfc", "total_cells_credit", "total_bytes_sfc", "total_bytes_credit",
                "reduction_factor", "row_covers_rtt", "sequence_bits", "acknak_bits", "slot_ns",
                "bandwidth_delay_bytes", "formula", "source")
_CICQ_SIZE_RESULTS = ("round_trip_slots", "crosspoint_cells_credit", "total_cells_credit", "crosspoint_bytes_credit",
                      "total_bytes_credit", "crosspoint_bytes_credit_exact", "total_bytes_credit_exact", "q_r",
                      "q_rtx", "crosspoint_cells_sfc", "total_cells_sfc", "crosspoint_bytes_sfc", "total_bytes_sfc",
                      "reduction_factor", "slot_ns", "bandwidth_delay_bytes", "formula", "source")


def _size_model(protocol: str, note: str) -> Model:
    params = (*LINK, CELL, _VCS, _SIZE_PORTS, _PER)
    if protocol == "credit":
        params += (_p("buffer", "buffer", "int", None, low=1, unit="cells",
                      help="offered buffer in cells: adds utilization = min(Q_R / tau, 1)"),)
    return Model(f"size-{protocol}", f"{protocol} flow control: buffer", params, analytic=_size_link(protocol),
                 main={"analytic": "buffer_cells"},
                 table={"analytic": ("round_trip_slots", "buffer_cells", "buffer_bytes", "utilization")},
                 results={"analytic": _LINK_RESULTS}, note=note)


_MODELS = (
    Model("hol", "FIFO input queuing: saturation throughput", (PORTS,), analytic=_hol, check=lambda p: None,
          build=_hol_build, main={"analytic": "saturation_throughput", **_SIM},
          table={"analytic": ("saturation_throughput", "exact"), **_SIM_TABLE},
          results={"analytic": ("saturation_throughput", "exact", "states", "method", "source"), **_SIM_RESULTS},
          note="FIFO input queuing, HOL blocking, saturated uniform traffic (Karol et al. 1987); "
               "simulated: saturated fifo"),
    Model("window", "Window scheduling: saturation throughput", (PORTS, replace(WINDOW, default=2), WINDOW_POLICY),
          analytic=_window, check=_window_check, build=_window_build,
          main={"analytic": "saturation_throughput", **_SIM},
          table={"analytic": ("saturation_throughput", "states"), **_SIM_TABLE},
          results={"analytic": ("saturation_throughput", "states", "method", "source"), **_SIM_RESULTS},
          note="FIFO with look-ahead window w, saturated (exact chain for small N, w); simulated: saturated fifo"),
    Model("oq", "Output queuing", (PORTS, LOAD, _p("buffer", "output_buffer_cells", "int", None, low=1,
                                                   high=1 << 20, unit="cells",
                                                   help="output buffer, counting the cell being sent "
                                                        "(none = unbounded)", aliases=("buffer_cells",)),
                                   *TRAFFIC),
          analytic=_oq, check=_oq_check, build=_oq_build, main={"analytic": "mean_wait", "simulated": "mean_wait"},
          table={"analytic": ("mean_wait", "loss_probability", "throughput"),
                 "simulated": ("mean_wait", "loss_probability", "throughput", "unstable")},
          results={"analytic": ("mean_wait", "mean_latency", "loss_probability", "throughput", "mean_queue",
                                "states", "formula", "method", "source"), **_SIM_RESULTS},
          note="ideal output queuing (speedup N): mean wait, finite-buffer loss (Karol et al. 1987)"),
    Model("iq", "FIFO input queuing: mean wait", (LOAD, replace(PORTS, default=128,
                                                              help="N (analytic: recorded only, N -> infinity "
                                                                   "model; simulated: the switch size)"),
                                                  *TRAFFIC),
          analytic=_iq, build=_fifo_build, main={"analytic": "mean_wait", "simulated": "mean_wait"},
          table={"analytic": ("mean_wait", "mean_latency"), "simulated": ("mean_wait", "throughput", "unstable")},
          results={"analytic": ("mean_wait", "mean_latency", "hol_mean", "hol_second_moment", "formula", "source",
                                "note"), **_SIM_RESULTS},
          note="FIFO input queuing below saturation, N -> infinity (Karol et al. 1987); simulated: fifo at a load"),
    Model("voq", "VOQ: saturation throughput", (PORTS, MATCHING, ITERATIONS, replace(LOAD, default=1.0, modes=SIM),
                                                INPUT_BUFFER, *TRAFFIC),
          analytic=_voq, check=_voq_check, build=_voq_build, main={"analytic": "saturation_throughput", **_SIM},
          table={"analytic": ("saturation_throughput",), "simulated": ("throughput", "mean_latency", "unstable")},
          results={"analytic": ("saturation_throughput", "method", "source"), **_SIM_RESULTS},
          note="VOQ with PIM or iSLIP: saturation throughput; simulated at any load (default 1: saturated)"),
    Model("multicast", "Multicast switch: saturation load",
          (MULTICAST_ARCH, replace(PORTS, high=64),
           _p("inputs", "active_inputs", "int", None, low=1, unit="ports", help="active inputs M (none: all N)"),
           _p("fanout", "fanout", "float", low=1, high=64, unit="outputs/packet", help="mean fanout F"),
           _p("fanout_distribution", "fanout_distribution", "choice", "fixed",
              choices=("fixed", "binomial", "uniform"), help="law of the destination-set size"),
           replace(CROSSPOINT, default=4, help="oq-crosspoint: cells per crosspoint"),
           replace(LOAD, default=1.0, modes=SIM, unit="packets/slot/input")),
          analytic=_multicast, check=_multicast_check, build=_multicast_build,
          main={"analytic": "saturation_load", **_SIM},
          table={"analytic": ("saturation_load", "saturation_load_kind"),
                 "simulated": ("throughput", "output_utilization", "mean_latency")},
          results={"analytic": ("saturation_load", "saturation_load_kind", "admissible_load", "exact", "method",
                                "source"), **_SIM_RESULTS},
          note="multicast on one switch (paper 003): exact saturated chains where small, else the admissible "
               "bound; simulated at any load (default 1: saturated)"),
    Model("fifo", "FIFO input queuing", (PORTS, LOAD, WINDOW, WINDOW_POLICY, INPUT_BUFFER, *TRAFFIC),
          build=_fifo_build, main=_SIM, table={"simulated": ("throughput", "mean_wait", "unstable")},
          results=_SIM_RESULTS,
          note="simulated FIFO input queuing or window scheduling at a load (no analytic form: see hol, window, iq)"),
    Model("fattree", "Fat tree of crosspoint-buffered OQ switches", FATTREE_PARAMS, build=_fattree_build,
          main=_SIM, table={"simulated": ("throughput", "mean_latency", "mean_latency_ns", "unstable")},
          results={"simulated": ("throughput", "throughput_ci95", "output_utilization", "output_utilization_ci95",
                                 "mean_latency", "mean_latency_ci95", "mean_latency_ns", "mean_latency_ns_ci95",
                                 "unstable")},
          note="packet-level fat-tree network (paper 003 §3, Table 1 timing): permutations or multicast"),
    Model("reduction", "Reduction on a fat tree: completion time", REDUCTION_PARAMS, analytic=_reduction,
          main={"analytic": "completion_time"},
          table={"analytic": ("completion_time", "period", "bottleneck")},
          results={"analytic": ("completion_time", "period", "bottleneck", "bottleneck_packets", "combine_service")},
          note="one reduction with combine units over the buildTree spanning tree (paper 003 §3.2, Fig. 16): "
               "exact max-plus completion time (simulated twin: switchq simulate reduction)"),
    Model("cicq", "Buffered crossbar (CICQ)",
          (RTT_SLOTS, CROSSPOINT,
           _p("protocol", "protocol", "choice", "credit", choices=("credit", "sfc"), help="credit or SFC"),
           _p("burst", "mean_burst", "float", 1.0, low=1, high=1e6, unit="cells", help="mean burst length"),
           _p("data_delay", "data_delay_slots", "int", None, low=0, unit="slots",
              help="line card to crosspoint (none: tau - ceil(tau/2))"),
           replace(PORTS, modes=SIM), replace(LOAD, modes=SIM),
           _p("retransmission_cells", "retransmission_cells", "int", None, low=1, unit="cells",
              help="SFC Q_RTX per input (none: max(tau, Q_R N))", modes=SIM),
           _p("replacement", "replacement", "flag", False, help="SFC: replace lower-priority cells", modes=SIM),
           _p("priorities", "priorities", "int", 1, low=1, high=4, unit="classes", help="strict-priority classes",
              modes=SIM),
           _p("arbitration", "arbitration", "choice", "lqf", choices=("lqf", "rr"),
              help="longest queue first or round robin", modes=SIM),
           *(q for q in TRAFFIC if q.name != "burst")),
          analytic=_cicq, check=_cicq_check, build=_cicq_build,
          main={"analytic": "low_load_burst_latency", "simulated": "mean_latency"},
          table={"analytic": ("low_load_burst_latency", "low_load_burst_latency_rtts", "permutation_throughput"),
                 "simulated": ("throughput", "mean_latency", "loss_probability", "unstable")},
          results={"analytic": ("low_load_burst_latency", "low_load_burst_latency_rtts", "permutation_throughput",
                                "data_delay_slots", "formula", "source"),
                   "simulated": SIM_RESULTS + SIM_COUNTERS},
          note="buffered crossbar with credits or SFC (paper 002): low-load burst latency and the w = 1 rate bound "
               "min(Q_R/tau, 1); simulated: any load and traffic (latency per burst)"),
    _size_model("credit", "credit flow control sizing: tau cells per buffer (as switchq size credit)"),
    _size_model("grant", "grant (on/off) flow control sizing: 2 tau per buffer (as switchq size grant)"),
    _size_model("acknak", "ACK/NAK flow control sizing: 1 per buffer + tau per link (as switchq size acknak)"),
    Model("size-sfc", "Speculative flow control: buffered crossbar", (*_XBAR, *LINK, CELL), analytic=_size_sfc,
          main={"analytic": "total_cells_sfc"},
          table={"analytic": ("round_trip_slots", "q_r", "q_rtx", "total_cells_sfc", "total_cells_credit",
                              "reduction_factor")},
          results={"analytic": _SFC_RESULTS},
          note="SFC buffered crossbar sizing vs credits (as switchq size sfc)"),
    Model("size-cicq", "Buffered crossbar (CICQ): crosspoint memory",
          (*_XBAR[:2], _p("priorities", "priorities", "int", 1, low=1, unit="buffers/crosspoint",
                          help="P: buffers per crosspoint"),
           _p("rtts", "rtts", "int", 1, low=1, unit="round trips", help="K: buffer multiple of the round trip"),
           *_XBAR[2:], *LINK, CELL),
          analytic=_size_cicq, main={"analytic": "total_cells_credit"},
          table={"analytic": ("round_trip_slots", "total_cells_credit", "total_cells_sfc", "reduction_factor")},
          results={"analytic": _CICQ_SIZE_RESULTS},
          note="whole buffered crossbar crosspoint memory, credits vs SFC (as switchq size cicq)"),
)

MODELS = {m.name: m for m in _MODELS}


def get(name: str) -> Model:
    """The model called ``name``; InputError listing the models if there is none.

    Examples
    --------
    >>> get("hol").modes
    ('analytic', 'simulated')
    >>> get("fifo").modes
    ('simulated',)
    >>> get("mesh")
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: MODEL: got 'mesh'; allowed: one of hol, window, oq, iq, voq, multicast, fifo, fattree, reduction, cicq, size-credit, size-grant, size-acknak, size-sfc, size-cicq
    """
    try:
        return MODELS[name]
    except (KeyError, TypeError):
        raise InputError("MODEL", name, "one of " + ", ".join(MODELS)) from None
