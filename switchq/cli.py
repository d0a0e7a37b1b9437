"""The ``switchq`` command line: solve, simulate, validate, report, bench.

Every verb prints a Rich table for people or, with ``--json``, one JSON
object for scripts (inputs first, then results, then ``units``). Bad input
exits 2 with one line naming the parameter, its value and what is allowed.
Analytic verbs never import Numba.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import click

from .errors import InputError

# CLI spellings of model parameters, so errors name what the user typed.
CLI_NAMES = {"n_ports": "--ports", "load": "--load", "window": "--window", "iterations": "--iterations",
             "matching": "--matching", "mean_burst": "--burst", "unbalanced_w": "--unbalanced",
             "hotspot_fraction": "--hotspot-fraction", "hotspot_port": "--hotspot-port",
             "input_buffer_cells": "--input-buffer", "output_buffer_cells": "--buffer",
             "buffer_cells": "--buffer", "slots": "--slots", "warmup_slots": "--warmup",
             "replications": "--replications", "seed": "--seed", "workers": "--workers",
             "pattern": "--pattern", "arrivals": "--arrivals", "window_policy": "--window-policy",
             "rtt_slots": "--rtt-slots", "crosspoint_cells": "--crosspoint-cells", "priorities": "--priorities",
             "priority_shares": "--priority-shares", "replacement": "--replacement",
             "retransmission_cells": "--retransmission-cells", "data_delay_slots": "--data-delay",
             "arbitration": "--arbitration", "active_inputs": "--inputs", "fanout": "--fanout",
             "fanout_distribution": "--fanout-distribution", "architecture": "--arch",
             "switch_ports": "--ports", "nodes": "--nodes", "message_bytes": "--message", "senders": "--senders",
             "up_routing": "--up-routing"}

PATTERNS = ("uniform", "transpose", "bitrev", "complement", "hotspot", "unbalanced")
ARRIVALS = ("bernoulli", "onoff")
MATCHINGS = ("pim", "islip")
WINDOW_POLICIES = ("rounds", "random")
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=CONTEXT)
@click.version_option(package_name="switchq")
def app():
    """Switch and router architecture answers: analytic in milliseconds, proven by a Numba
    Monte Carlo simulator.

    \b
    Verbs: solve (analytic), simulate (Monte Carlo), validate (both, with a verdict),
    report (rebuild reports/), bench (speed figures). Every verb takes --json.
    """


def _register_size():
    from .cli_size import size_group

    app.add_command(size_group)


def _register_sweep():
    from .cli_sweep import results_command, sweep_group

    app.add_command(sweep_group)
    app.add_command(results_command)


@app.group("solve", context_settings=CONTEXT)
def solve_app():
    """Analytic answers (closed forms, Markov chains); no simulation, no compilation."""


@app.group("simulate", context_settings=CONTEXT)
def simulate_app():
    """Monte Carlo answers with 95% confidence intervals and the seed that reproduces them."""


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object (inputs, results, units).")(f)


def ports_option(f):
    return click.option("--ports", "-n", "ports", type=int, required=True, help="Switch size N (inputs = outputs).")(f)


def load_option(f):
    return click.option("--load", "-p", "load", type=float, required=True,
                        help="Offered load per input in cells/slot, in [0, 1].")(f)


def traffic_options(f):
    """Destination pattern and arrival process options shared by the simulate verbs."""
    options = [
        click.option("--pattern", type=click.Choice(PATTERNS), default="uniform", show_default=True,
                     help="Destination pattern."),
        click.option("--arrivals", type=click.Choice(ARRIVALS), default=None,
                     help="Arrival process [default: onoff if --burst > 1, else bernoulli]."),
        click.option("--burst", type=float, default=1.0, show_default=True,
                     help="Mean burst length in cells (on-off arrivals)."),
        click.option("--unbalanced", type=float, default=None,
                     help="Unbalanced-traffic w in [0, 1] (sets --pattern unbalanced)."),
        click.option("--hotspot-fraction", type=float, default=0.0, help="Share of cells sent to the hotspot port."),
        click.option("--hotspot-port", type=int, default=0, help="Hotspot output port index."),
    ]
    return functools.reduce(lambda g, o: o(g), reversed(options), f)


def run_options(f):
    """Run-length, replication and seeding options shared by the simulate verbs."""
    options = [
        click.option("--slots", type=int, default=50_000, show_default=True,
                     help="Measured slots per replication (after warm-up)."),
        click.option("--warmup", type=int, default=None, help="Discarded warm-up slots [default: max(1000, slots/10)]."),
        click.option("--replications", "-r", type=int, default=8, show_default=True,
                     help="Independent replications (>= 2) for the 95% CI."),
        click.option("--workers", "-j", type=int, default=1, show_default=True,
                     help="Worker processes (0 = all cores); results do not depend on it."),
        click.option("--seed", type=int, default=1, show_default=True, help="Root seed; fixes every replication's stream."),
    ]
    return functools.reduce(lambda g, o: o(g), reversed(options), f)


def _fail(message: str) -> None:
    sys.stderr.write(f"switchq: error: {message}\n")
    raise SystemExit(2)


def _input_error_line(e: InputError) -> str:
    name = CLI_NAMES.get(e.parameter, e.parameter)
    return f"{name}: got {e.value!r}; allowed: {e.allowed}"


# --------------------------------------------------------------------------- solve

@solve_app.command("hol", context_settings=CONTEXT)
@ports_option
@json_option
def solve_hol(ports, as_json):
    """Saturation throughput of N x N FIFO input queuing (HOL blocking), uniform traffic.

    Exact lumped Markov chain (Karol, Hluchyj & Morgan 1987) for small N, a
    documented extrapolation for large N.

    \b
    Example:
      switchq solve hol --ports 8 --json
    """
    from .render import show
    from .solvers import hol

    r = hol.saturation_throughput(ports)
    payload = {"model": "hol", "n_ports": r.n_ports, "saturation_throughput": r.saturation_throughput,
               "exact": r.exact, "method": r.method, "states": r.states, "source": r.source}
    show(payload, ["model", "n_ports"], "FIFO input queuing: saturation throughput", as_json)


@solve_app.command("window", context_settings=CONTEXT)
@ports_option
@click.option("--window", "-w", type=int, default=2, show_default=True, help="Look-ahead depth w.")
@click.option("--window-policy", type=click.Choice(WINDOW_POLICIES), default="rounds", show_default=True,
              help="rounds: Hluchyj & Karol's k-th cell in round k; random: paper 001's central control.")
@json_option
def solve_window(ports, window, window_policy, as_json):
    """Saturation throughput of FIFO input queuing with window scheduling of depth w.

    Exact lumped Markov chain (Hluchyj & Karol 1988) where tractable; beyond
    it the error says so and points to `switchq simulate fifo --window`.

    \b
    Example:
      switchq solve window --ports 3 --window 2
      switchq solve window --ports 2 --window 2 --window-policy random
    """
    from .render import show
    from .solvers import window as win

    r = win.saturation_throughput(ports, window, window_policy)
    payload = {"model": "window", "n_ports": r.n_ports, "window": r.window, "window_policy": r.policy,
               "saturation_throughput": r.saturation_throughput, "method": r.method,
               "states": r.states, "source": r.source}
    show(payload, ["model", "n_ports", "window", "window_policy"], "Window scheduling: saturation throughput",
         as_json)


@solve_app.command("oq", context_settings=CONTEXT)
@ports_option
@load_option
@click.option("--buffer", type=int, default=None,
              help="Output buffer in cells, counting the cell being sent [default: unbounded].")
@json_option
def solve_oq(ports, load, buffer, as_json):
    """Output queuing (speedup N): mean wait, and loss with a finite output buffer.

    \b
    Example:
      switchq solve oq --ports 16 --load 0.8 --json
      switchq solve oq --ports 16 --load 0.9 --buffer 4
    """
    from .render import show
    from .solvers import oq

    if buffer is None:
        r = oq.mean_wait(ports, load)
        payload = {"model": "oq", "n_ports": r.n_ports, "load": r.load, "mean_wait": r.mean_wait,
                   "mean_latency": r.mean_latency, "formula": r.formula, "source": r.source}
    else:
        r = oq.finite_buffer(ports, load, buffer)
        payload = {"model": "oq", "n_ports": r.n_ports, "load": r.load, "buffer_cells": r.buffer_cells,
                   "loss_probability": r.loss_probability, "throughput": r.throughput,
                   "mean_wait": r.mean_wait, "mean_queue": r.mean_queue, "states": r.states,
                   "method": r.method, "source": r.source}
    show(payload, ["model", "n_ports", "load", "buffer_cells"], "Output queuing", as_json)


@solve_app.command("iq", context_settings=CONTEXT)
@load_option
@json_option
def solve_iq(load, as_json):
    """Mean wait of FIFO input queuing below saturation, N -> infinity (Karol et al. 1987).

    \b
    Example:
      switchq solve iq --load 0.5
    """
    from .render import show
    from .solvers import iq

    r = iq.mean_wait(load)
    payload = {"model": "iq", "load": r.load, "mean_wait": r.mean_wait, "mean_latency": r.mean_latency,
               "formula": r.formula, "source": r.source}
    show(payload, ["model", "load"], "FIFO input queuing: mean wait (N -> infinity)", as_json)


@solve_app.command("voq", context_settings=CONTEXT)
@ports_option
@click.option("--matching", type=click.Choice(MATCHINGS), default="islip", show_default=True)
@click.option("--iterations", "-k", type=int, default=1, show_default=True, help="Matching iterations per slot.")
@json_option
def solve_voq(ports, matching, iterations, as_json):
    """Saturation throughput of a VOQ switch matched by PIM or iSLIP, uniform traffic.

    \b
    Example:
      switchq solve voq --ports 16 --matching pim --iterations 2
    """
    from .render import show
    from .solvers import voq

    r = voq.saturation_throughput(ports, matching, iterations)
    payload = {"model": "voq", "n_ports": r.n_ports, "matching": r.matching, "iterations": r.iterations,
               "saturation_throughput": r.saturation_throughput, "method": r.method, "source": r.source}
    show(payload, ["model", "n_ports", "matching", "iterations"], "VOQ: saturation throughput", as_json)


@solve_app.command("multicast", context_settings=CONTEXT)
@click.option("--arch", "architecture", type=click.Choice(("oq-crosspoint", "iq-split", "iq-nosplit")),
              default="oq-crosspoint", show_default=True, help="Multicast switch architecture.")
@ports_option
@click.option("--inputs", "active_inputs", type=int, default=None, help="Active inputs M [default: all N].")
@click.option("--fanout", type=float, required=True, help="Mean number of destinations per packet.")
@click.option("--fanout-distribution", type=click.Choice(("fixed", "binomial", "uniform")), default="fixed",
              show_default=True)
@click.option("--crosspoint-cells", type=int, default=4, show_default=True, help="oq-crosspoint: cells per crosspoint.")
@json_option
def solve_multicast(architecture, ports, active_inputs, fanout, fanout_distribution, crosspoint_cells, as_json):
    """Saturation load of a multicast switch, packets per active input per slot (paper 003 §2-§3.1).

    Exact lumped chains for small switches; beyond them iq-split has a labelled large-N
    approximation, and otherwise the answer is the admissible bound min(1, N/(M F)),
    marked as an upper bound (`saturation_load_kind`).

    \b
    Example:
      switchq solve multicast --ports 8 --inputs 2 --fanout 4 --crosspoint-cells 1 --json
      switchq solve multicast --arch iq-split --ports 8 --inputs 2 --fanout 4
    """
    from .render import show
    from .solvers import multicast

    r = multicast.saturation_load(architecture, ports, active_inputs, fanout, fanout_distribution, crosspoint_cells)
    value, kind = r.answer
    payload = {"model": "multicast", "architecture": r.architecture, "n_ports": r.n_outputs,
               "active_inputs": r.active_inputs, "fanout": r.fanout, "fanout_distribution": r.distribution,
               "crosspoint_cells": r.crosspoint_cells, "saturation_load": value, "saturation_load_kind": kind,
               "admissible_load": r.admissible_bound, "exact": r.exact, "rational": r.rational,
               "states": r.states, "method": r.method, "source": r.source}
    show(payload, ["model", "architecture", "n_ports", "active_inputs", "fanout", "fanout_distribution",
                   "crosspoint_cells"], "Multicast: saturation load", as_json)


# --------------------------------------------------------------------------- simulate

def _traffic(load, pattern, arrivals, burst, unbalanced, hotspot_fraction, hotspot_port, priority_shares=(1.0,)):
    from .models import Traffic

    if unbalanced is not None:
        pattern = "unbalanced"
    if arrivals is None:
        arrivals = "onoff" if burst != 1.0 else "bernoulli"
    return Traffic(load=load, pattern=pattern, arrivals=arrivals, mean_burst=burst,
                   unbalanced_w=unbalanced or 0.0, hotspot_fraction=hotspot_fraction,
                   hotspot_port=hotspot_port, priority_shares=tuple(priority_shares))


def _simulate(system, traffic, slots, warmup, replications, workers, seed, as_json, title, run=None):
    """Simulate a switch (or, with ``run=simulate_network``, a network) and print the answer."""
    from .render import show
    from .validate.harness import RunSettings, simulate

    settings = RunSettings(slots=slots, warmup_slots=warmup, replications=replications, seed=seed,
                           workers=workers)
    r = (run or simulate)(system, traffic, settings, progress=not as_json and sys.stderr.isatty())
    payload = r.to_dict()
    notes = []
    if r.unstable:
        notes.append("[yellow]unstable: offered load exceeds what this system carries; throughput is "
                     "the saturation throughput and latency grows with the run length.[/yellow]")
    results = (set(r.__dataclass_fields__) | {"seeds"}) - {"switch", "network", "traffic", "settings"}
    show(payload, [k for k in payload if k not in results], title, as_json, notes)


@simulate_app.command("fifo", context_settings=CONTEXT)
@ports_option
@load_option
@click.option("--window", "-w", type=int, default=1, show_default=True,
              help="Look-ahead depth of each input FIFO (1 = plain FIFO).")
@click.option("--window-policy", type=click.Choice(WINDOW_POLICIES), default="rounds", show_default=True,
              help="rounds: Hluchyj & Karol's k-th cell in round k; random: paper 001's central control.")
@click.option("--input-buffer", type=int, default=None, help="Cells per input [default: unbounded].")
@traffic_options
@run_options
@json_option
def simulate_fifo(ports, load, window, window_policy, input_buffer, pattern, arrivals, burst, unbalanced,
                  hotspot_fraction, hotspot_port, slots, warmup, replications, workers, seed, as_json):
    """FIFO input queuing (window 1) or window scheduling (window w).

    \b
    Example:
      switchq simulate fifo --ports 32 --load 1.0 --window 4 --json
      switchq simulate fifo --ports 64 --load 1.0 --window 64 --window-policy random
    """
    from .models import Switch

    sw = Switch(ports, "fifo", window=window, window_policy=window_policy, input_buffer_cells=input_buffer)
    tr = _traffic(load, pattern, arrivals, burst, unbalanced, hotspot_fraction, hotspot_port)
    _simulate(sw, tr, slots, warmup, replications, workers, seed, as_json, "FIFO input queuing (simulated)")


@simulate_app.command("oq", context_settings=CONTEXT)
@ports_option
@load_option
@click.option("--buffer", type=int, default=None,
              help="Output buffer in cells, counting the cell being sent [default: unbounded].")
@traffic_options
@run_options
@json_option
def simulate_oq(ports, load, buffer, pattern, arrivals, burst, unbalanced, hotspot_fraction,
                hotspot_port, slots, warmup, replications, workers, seed, as_json):
    """Ideal output queuing (speedup N), optionally with finite output buffers.

    \b
    Example:
      switchq simulate oq --ports 16 --load 0.9 --buffer 4 --json
    """
    from .models import Switch

    sw = Switch(ports, "oq", output_buffer_cells=buffer)
    tr = _traffic(load, pattern, arrivals, burst, unbalanced, hotspot_fraction, hotspot_port)
    _simulate(sw, tr, slots, warmup, replications, workers, seed, as_json, "Output queuing (simulated)")


@simulate_app.command("voq", context_settings=CONTEXT)
@ports_option
@load_option
@click.option("--matching", type=click.Choice(MATCHINGS), default="islip", show_default=True)
@click.option("--iterations", "-k", type=int, default=1, show_default=True, help="Matching iterations per slot.")
@click.option("--input-buffer", type=int, default=None, help="Cells per input, all VOQs together [default: unbounded].")
@traffic_options
@run_options
@json_option
def simulate_voq(ports, load, matching, iterations, input_buffer, pattern, arrivals, burst, unbalanced,
                 hotspot_fraction, hotspot_port, slots, warmup, replications, workers, seed, as_json):
    """Virtual output queuing matched by PIM or iSLIP.

    \b
    Example:
      switchq simulate voq --ports 32 --load 0.9 --matching islip --iterations 1
    """
    from .models import Switch

    sw = Switch(ports, "voq", matching=matching, iterations=iterations, input_buffer_cells=input_buffer)
    tr = _traffic(load, pattern, arrivals, burst, unbalanced, hotspot_fraction, hotspot_port)
    _simulate(sw, tr, slots, warmup, replications, workers, seed, as_json, "VOQ (simulated)")


@simulate_app.command("cicq", context_settings=CONTEXT)
@ports_option
@load_option
@click.option("--rtt-slots", "rtt_slots", type=int, required=True, help="Round trip tau in cell slots.")
@click.option("--crosspoint-cells", "crosspoint_cells", type=int, required=True, help="Crosspoint buffer Q_R in cells.")
@click.option("--sfc", is_flag=True, help="Speculative flow control (paper 002 §3) instead of plain credits.")
@click.option("--retransmission-cells", type=int, default=None,
              help="SFC retransmission buffer Q_RTX per input [default: max(tau, Q_R N)].")
@click.option("--data-delay", "data_delay", type=int, default=None,
              help="Slots from line card to crosspoint [default: tau - ceil(tau/2)]; credits take the rest.")
@click.option("--priorities", type=int, default=1, show_default=True, help="Strict-priority classes.")
@click.option("--priority-shares", type=str, default=None,
              help="Share of bursts per priority, highest first, e.g. 0.5,0.5 [default: equal].")
@click.option("--replacement", is_flag=True, help="SFC: replace lower-priority cells at a full crosspoint (§3.2).")
@click.option("--arbitration", type=click.Choice(("lqf", "rr")), default="lqf", show_default=True,
              help="VOQ and output arbitration: longest queue first or round robin.")
@traffic_options
@run_options
@json_option
def simulate_cicq(ports, load, rtt_slots, crosspoint_cells, sfc, retransmission_cells, data_delay, priorities,
                  priority_shares, replacement, arbitration, pattern, arrivals, burst, unbalanced,
                  hotspot_fraction, hotspot_port, slots, warmup, replications, workers, seed, as_json):
    """Buffered crossbar (CICQ) with credit or speculative flow control; latency is per burst.

    \b
    Example:
      switchq simulate cicq --ports 16 --rtt-slots 32 --crosspoint-cells 4 --load 0.1 --burst 10 --sfc
      switchq simulate cicq --ports 16 --rtt-slots 32 --crosspoint-cells 4 --load 1 --unbalanced 1 --json
    """
    from .models import FlowControl, Switch

    fc = FlowControl(rtt_slots=rtt_slots, crosspoint_cells=crosspoint_cells, protocol="sfc" if sfc else "credit",
                     data_delay_slots=data_delay, retransmission_cells=retransmission_cells,
                     replacement=replacement)
    sw = Switch(ports, "cicq", flow_control=fc, priorities=priorities, arbitration=arbitration)
    shares = _shares(priority_shares, priorities)
    tr = _traffic(load, pattern, arrivals, burst, unbalanced, hotspot_fraction, hotspot_port, shares)
    _simulate(sw, tr, slots, warmup, replications, workers, seed, as_json, "Buffered crossbar (simulated)")


def _shares(text, priorities):
    if text is None:
        return [1.0 / priorities] * priorities
    try:
        return [float(x) for x in text.split(",")]
    except ValueError:
        raise InputError("--priority-shares", text, "comma-separated numbers, e.g. 0.5,0.5") from None


@simulate_app.command("multicast", context_settings=CONTEXT)
@click.option("--arch", "architecture", type=click.Choice(("oq-crosspoint", "iq-split", "iq-nosplit", "iq-wba")),
              default="oq-crosspoint", show_default=True,
              help="Output queuing with crosspoint buffers and credits, or FIFO input queuing with/without "
                   "fanout splitting (random grants), or with splitting and WBA grants (Prabhakar et al. 1997).")
@ports_option
@click.option("--inputs", "active_inputs", type=int, default=None,
              help="Active inputs M offering traffic [default: all N].")
@click.option("--fanout", type=float, required=True, help="Mean number of destinations per packet.")
@click.option("--fanout-distribution", type=click.Choice(("fixed", "binomial", "uniform")), default="fixed",
              show_default=True, help="Law of the destination-set size (sets uniform given the size).")
@load_option
@click.option("--crosspoint-cells", type=int, default=4, show_default=True,
              help="oq-crosspoint: cells per crosspoint buffer.")
@click.option("--arrivals", type=click.Choice(("bernoulli", "poisson")), default="bernoulli", show_default=True,
              help="Packets per input per slot: one with probability load, or Poisson with mean load (paper 003).")
@run_options
@json_option
def simulate_multicast(architecture, ports, active_inputs, fanout, fanout_distribution, load, crosspoint_cells,
                       arrivals, slots, warmup, replications, workers, seed, as_json):
    """Multicast on a single switch; load and throughput in packets per active input per slot.

    A packet is delivered when its last copy leaves; output_utilization is copies per output per slot.

    \b
    Example:
      switchq simulate multicast --arch oq-crosspoint --ports 8 --fanout 4 --load 0.2 --json
      switchq simulate multicast --arch iq-split --ports 8 --inputs 2 --fanout 4 --load 1.0
    """
    from .models import Switch, Traffic

    sw = Switch(ports, architecture, crosspoint_cells=crosspoint_cells)
    tr = Traffic(load=load, fanout=fanout, fanout_distribution=fanout_distribution, active_inputs=active_inputs,
                 arrivals=arrivals)
    _simulate(sw, tr, slots, warmup, replications, workers, seed, as_json, f"Multicast {architecture} (simulated)")


@simulate_app.command("fattree", context_settings=CONTEXT)
@click.option("--ports", "-k", "switch_ports", type=int, required=True,
              help="Ports per switch (8 and 32 in paper 003); half go down, half up.")
@click.option("--nodes", "-P", "nodes", type=int, required=True, help="Nodes: a power of ports/2 (e.g. 256).")
@click.option("--traffic", "pattern", type=click.Choice(("uniform", "transpose", "bitrev", "complement")),
              default="uniform", show_default=True, help="Point-to-point destination pattern (uniform for multicast).")
@load_option
@click.option("--crosspoint-cells", type=int, default=4, show_default=True,
              help="Packet buffers per crosspoint (paper 003: 2 or 4).")
@click.option("--fanout", type=float, default=1.0, show_default=True,
              help="Mean destinations per packet; > 1 sends multicast over the switches' spanning trees.")
@click.option("--fanout-distribution", type=click.Choice(("fixed", "binomial", "uniform")), default="uniform",
              show_default=True, help="Law of the destination-set size (sets uniform given the size).")
@click.option("--up-routing", type=click.Choice(("adaptive", "random", "source", "dmodk")), default="adaptive",
              show_default=True, help="Up port: most credits; random among those with a credit; fixed at the source "
                                      "(random route, or d-mod-k on the destination).")
@run_options
@json_option
def simulate_fattree(switch_ports, nodes, pattern, load, crosspoint_cells, fanout, fanout_distribution, up_routing,
                     slots, warmup, replications, workers, seed, as_json):
    """A fat tree of crosspoint-buffered output-queued switches with credits (paper 003 §3, Table 1 timing).

    Load and throughput are packets (256 B, one slot = 204.8 ns) per node per slot; a multicast packet
    counts when its last copy arrives, and output_utilization is copies arriving per node per slot.
    mean_latency is in slots from generation to arrival; mean_latency_ns adds the NIC overheads.

    \b
    Example:
      switchq simulate fattree --ports 32 --nodes 256 --traffic complement --load 0.9 --json
      switchq simulate fattree --ports 8 --nodes 256 --fanout 8 --load 0.1 --slots 5000
    """
    from .models import Traffic
    from .models.network import FatTreeNetwork
    from .validate.network import simulate_network

    net = FatTreeNetwork.for_nodes(nodes, switch_ports, crosspoint_cells=crosspoint_cells, up_routing=up_routing)
    traffic = Traffic(load=load, pattern=pattern, fanout=fanout,
                      fanout_distribution=fanout_distribution if fanout != 1.0 else "fixed")
    _simulate(net, traffic, slots, warmup, replications, workers, seed, as_json,
              f"Fat tree {net.tree.name} (simulated)", run=simulate_network)


@simulate_app.command("namd", context_settings=CONTEXT)
@click.option("--ports", "-k", "switch_ports", type=int, required=True, help="Ports per switch (8 or 32 in paper 003).")
@click.option("--nodes", "-P", "nodes", type=int, default=256, show_default=True, help="Nodes: a power of ports/2.")
@click.option("--message", "message", default="1KiB", show_default=True,
              help="Bytes per multicast message, with a unit (256B, 4KiB); a comma list gives one row each.")
@click.option("--multicast", type=click.Choice(("hardware", "software", "both")), default="both", show_default=True,
              help="hardware: switches replicate along the spanning tree; software: one message per destination.")
@click.option("--senders", type=int, default=None, help="Sending nodes [default: nodes/16].")
@click.option("--fanout", type=float, default=16.0, show_default=True, help="Mean destinations per message.")
@click.option("--fanout-distribution", type=click.Choice(("fixed", "binomial", "uniform")), default="uniform",
              show_default=True, help="Law of the destination-set size.")
@click.option("--crosspoint-cells", type=int, default=4, show_default=True, help="Packet buffers per crosspoint.")
@click.option("--replications", "-r", type=int, default=8, show_default=True, help="Rounds (new senders and sets each).")
@click.option("--workers", "-j", type=int, default=1, show_default=True, help="Worker processes (0 = all cores).")
@click.option("--seed", type=int, default=1, show_default=True, help="Root seed.")
@json_option
def simulate_namd_command(switch_ports, nodes, message, multicast, senders, fanout, fanout_distribution,
                          crosspoint_cells, replications, workers, seed, as_json):
    """The NAMD-like benchmark (paper 003 §4): P/16 senders multicast to ~16 random nodes each.

    Completion time of one round in ns, with NIC send and receive overheads (Table 1), hardware
    multicast against point-to-point messages.

    \b
    Example:
      switchq simulate namd --ports 8 --nodes 256 --message 256B,4KiB
      switchq simulate namd --ports 32 --message 1KiB --multicast hardware --json
    """
    import json as _json

    from .models.network import FatTreeNetwork
    from .render import show, to_json
    from .units import parse_quantity
    from .validate.namd import simulate_namd

    sizes = []
    for text in message.split(","):
        bits = parse_quantity(text.strip(), "size", "--message")
        if bits < 8 or bits % 8:
            raise InputError("message_bytes", text.strip(), "a whole number of bytes >= 1 B")
        sizes.append(int(bits // 8))
    net = FatTreeNetwork.for_nodes(nodes, switch_ports, crosspoint_cells=crosspoint_cells)
    modes = ("hardware", "software") if multicast == "both" else (multicast,)
    results = [simulate_namd(net, b, m, senders, fanout, fanout_distribution, replications, seed, workers,
                             progress=not as_json and sys.stderr.isatty()) for b in sizes for m in modes]
    if len(results) == 1:
        payload = results[0].to_dict()
        show(payload, [k for k in payload if k not in ("completion_ns", "completion_ns_ci95", "wall_seconds", "seeds")],
             "NAMD-like multicast round (simulated)", as_json)
        return
    if as_json:
        sys.stdout.write(_json.dumps({"rows": [_json.loads(to_json(r.to_dict())) for r in results]}) + "\n")
        return
    from rich.table import Table

    from .render import _console, fmt

    table = Table(title=f"NAMD-like round on {net.tree.nodes} nodes, {switch_ports}-port switches "
                        f"({results[0].senders} senders, mean fanout {fanout:g}, seed {seed})")
    for col in ("message (B)", "multicast", "completion (ns)", "95% CI (ns)"):
        table.add_column(col)
    for r in results:
        table.add_row(str(r.message_bytes), r.multicast, fmt(r.completion_ns), fmt(list(r.completion_ns_ci95)))
    _console().print(table)


# --------------------------------------------------------------------------- validate, report, bench

SUITE_NAMES = ("all", "hol", "window", "oq", "iq", "voq", "sfc", "multicast", "reduction")
REPORT_NAMES = ("all", "hol", "sfc", "multicast")


@app.command("validate", context_settings=CONTEXT)
@click.argument("suite", type=click.Choice(SUITE_NAMES), default="all")
@click.option("--full", is_flag=True, help="Ten times the simulated slots (tighter intervals).")
@click.option("--workers", "-j", type=int, default=0, show_default=True, help="Worker processes (0 = all cores).")
@click.option("--seed", type=int, default=1, show_default=True, help="Root seed.")
@json_option
def validate(suite, full, workers, seed, as_json):
    """Run models analytically and in simulation, side by side, with a verdict per row.

    Exits 1 if any row disagrees.

    \b
    Example:
      switchq validate all
      switchq validate hol --json
    """
    from .render import show_comparisons
    from .validate.suites import run_suite

    rows = run_suite(suite, seed=seed, workers=workers, scale=10.0 if full else 1.0,
                     progress=not as_json and sys.stderr.isatty())
    show_comparisons(rows, as_json, f"switchq validate {suite}")
    if any(r.verdict == "DISAGREE" for r in rows):
        raise SystemExit(1)


@app.command("report", context_settings=CONTEXT)
@click.argument("name", type=click.Choice(REPORT_NAMES), default="all")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("reports"),
              show_default=True, help="Directory for the markdown and PNGs.")
@click.option("--quick", is_flag=True, help="Shorter simulations (a smoke test, not for committing).")
@click.option("--workers", "-j", type=int, default=0, show_default=True, help="Worker processes (0 = all cores).")
@click.option("--seed", type=int, default=1, show_default=True, help="Root seed.")
@json_option
def report(name, out, quick, workers, seed, as_json):
    """Regenerate the reports that reproduce the papers' results (markdown + PNG).

    \b
    Example:
      switchq report hol
    """
    import json

    from .validate.reports import build_report

    written = build_report(name, out, quick=quick, workers=workers, seed=seed)
    if as_json:
        sys.stdout.write(json.dumps({"report": name, "written": [str(p) for p in written]}) + "\n")
    else:
        for p in written:
            click.echo(f"wrote {p}")


@app.command("bench", context_settings=CONTEXT)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the figures as markdown to this file.")
@click.option("--quick", is_flag=True, help="Shorter runs.")
@json_option
def bench(out, quick, as_json):
    """Measure simulator and solver speed on this machine (one core, after compilation).

    \b
    Example:
      switchq bench --out reports/performance.md
    """
    from .bench import run_bench

    run_bench(out=out, quick=quick, as_json=as_json)


_register_size()
from .cli_reduction import register as _register_reduction  # noqa: E402  (paper 003 reductions)
_register_reduction(solve_app, simulate_app)
_register_sweep()


def main(argv=None) -> None:
    """Entry point: run the app, turning bad input into one line and exit code 2."""
    try:
        rv = app.main(args=argv, standalone_mode=False, prog_name="switchq")
    except InputError as e:
        _fail(_input_error_line(e))
    except click.exceptions.NoArgsIsHelpError as e:
        click.echo(e.ctx.get_help())
        raise SystemExit(0)
    except click.exceptions.UsageError as e:
        _fail(" ".join(e.format_message().split()))
    except click.exceptions.Exit as e:
        raise SystemExit(e.exit_code)
    except click.exceptions.Abort:
        sys.stderr.write("switchq: aborted\n")
        raise SystemExit(130)
    raise SystemExit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    main()
