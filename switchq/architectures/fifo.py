"""FIFO input queuing and window scheduling (paper 000 §2.1, paper 001 §2.1, §4; Karol et al. 1987).

Simulated as ``fifo``; answered analytically as ``hol`` (saturation
throughput, Karol's chain), ``window`` (look-ahead saturation, the lumped
chain of Hluchyj & Karol) and ``iq`` (mean wait below saturation, N -> infinity).
"""

from __future__ import annotations

from switchq.declaration import Answer, Architecture, BenchCase, Case, Compare
from switchq.models.fifo import WINDOW_POLICIES, FifoSwitch
from switchq.params import Param, check_applies, sim_only
from switchq.solved import Solver, solved

from ._shared import INPUT_BUFFER, LOAD, PORTS, UNICAST_TRAFFIC, switch_family, unicast_traffic, with_default

WINDOW = Param("window", "window", "int", 1, low=1, high=4096, unit="cells", aliases=("-w",),
               help="Look-ahead depth w of each input FIFO (1 = plain FIFO).")
WINDOW_POLICY = Param("window_policy", "window_policy", "choice", "rounds", choices=WINDOW_POLICIES,
                      aliases=("policy",),
                      help="rounds: Hluchyj & Karol's k-th cell in round k; random: paper 001's central control.")


def build(p):
    check_applies(DECLARATION.all_params(), p, p)   # Python callers refused as the CLI refuses them
    return FifoSwitch(p["ports"], p["window"], p["window_policy"], p["input_buffer"]), unicast_traffic(p)


def _window_check(p):
    from switchq.solvers import window as win

    if not win.exact_is_tractable(p["ports"], p["window"], p["window_policy"]):
        win.saturation_throughput(p["ports"], p["window"], p["window_policy"])  # raises, naming the limit


def _hol_case(n):
    return Case("hol", f"N={n}, saturated", {"ports": n, "load": 1.0}, "throughput",
                solved("hol.saturation_throughput", n), slots=300_000, unit="cells/slot/output", saturated=True)


def _window_case(policy, n, w):
    return Case("window", f"{policy}, N={n}, w={w}, saturated",
                {"ports": n, "load": 1.0, "window": w, "window_policy": policy}, "throughput",
                solved("window.saturation_throughput", n, w, policy), slots=180_000, unit="cells/slot/output",
                saturated=True)


def _iq_case(load):
    return Case("iq", f"N=128, load {load}", {"ports": 128, "load": load}, "mean_wait", solved("iq.mean_wait", load),
                slots=120_000,
                tolerance_share=0.05,
                why="The formula is the N -> infinity limit and overestimates finite switches (fewer contenders "
                    "per output): simulated at N = 128 it is ~3 % high at p = 0.5, ~28 % at N = 16. The "
                    "tolerance, 5 % of the value, is that finite-N bias, not noise.")


# The saturation throughput from the exact chain against what the twin carries at load 1 (overloaded by design).
_SATURATED = Compare("saturation_throughput", "throughput", saturated=True,
                     why="exact lumped chain (beyond N = 20 an extrapolation with error < 1e-10)")


DECLARATION = Architecture(
    name="fifo", order=10, **switch_family("cell", part="input"),
    sample={"ports": 4, "load": 0.7, "window": 2},
    title="FIFO input queuing",
    summary="simulated FIFO input queuing or window scheduling at a load (no analytic form: see hol, window, iq)",
    description="FIFO input queuing (window 1) or window scheduling (window w).",
    config=(FifoSwitch,), architectures=("fifo",), params=(PORTS, WINDOW, WINDOW_POLICY, INPUT_BUFFER),
    build=build, kernel="switchq.validate.arch.fifo",
    table=("throughput", "mean_wait", "unstable"), vary_example="load=0.5:0.9:0.1 --vary ports=8,16 --slots 20000",
    examples=("switchq simulate fifo --ports 32 --load 1.0 --window 4 --json",
              "switchq simulate fifo --ports 64 --load 1.0 --window 64 --window-policy random"),
    answers=(
        Answer("hol", "FIFO input queuing: saturation throughput",
               "FIFO input queuing, HOL blocking, saturated uniform traffic (Karol et al. 1987); "
               "simulated: saturated fifo",
               params=(PORTS,), solve=Solver("hol.saturation_throughput"), check=lambda p: None,
               twin=lambda p: {"ports": p["ports"], "load": 1.0}, table=("saturation_throughput", "exact"),
               description="Saturation throughput of N x N FIFO input queuing (HOL blocking), uniform traffic.\n\n"
                           "Exact lumped Markov chain (Karol, Hluchyj & Morgan 1987) for small N, a documented "
                           "extrapolation for large N.",
               examples=("switchq solve hol --ports 8 --json",), compares=(_SATURATED,), vary_example="ports=2:16"),
        Answer("window", "Window scheduling: saturation throughput",
               "FIFO with look-ahead window w, saturated (exact chain for small N, w); simulated: saturated fifo",
               params=(PORTS, with_default(WINDOW, 2), WINDOW_POLICY), solve=Solver("window.saturation_throughput"),
               check=_window_check,
               twin=lambda p: {"ports": p["ports"], "window": p["window"], "window_policy": p["window_policy"],
                               "load": 1.0},
               table=("saturation_throughput", "states"),
               description="Saturation throughput of FIFO input queuing with window scheduling of depth w.\n\n"
                           "Exact lumped Markov chain (Hluchyj & Karol 1988) where tractable; beyond it the error "
                           "says so and points to `switchq simulate fifo --window`.",
               examples=("switchq solve window --ports 3 --window 2",
                         "switchq solve window --ports 2 --window 2 --window-policy random"),
               compares=(_SATURATED,), vary_example="ports=2,3 --vary window=1:2"),
        Answer("iq", "FIFO input queuing: mean wait",
               "FIFO input queuing below saturation, N -> infinity (Karol et al. 1987); simulated: fifo at a load",
               params=(LOAD,
                       with_default(PORTS, 128, help="N (analytic: recorded only, N -> infinity model; simulated: "
                                                     "the switch size)"),
                       *sim_only(*UNICAST_TRAFFIC[1:])),
               solve=Solver("iq.mean_wait"), twin=lambda p: p, table=("mean_wait", "mean_latency"),
               sim_main="mean_wait", sim_table=("mean_wait", "throughput", "unstable"),
               description="Mean wait of FIFO input queuing below saturation, N -> infinity (Karol et al. 1987).",
               examples=("switchq solve iq --load 0.5",), vary_example="load=0.1:0.5:0.1"),
    ),
    cases=(*(_hol_case(n) for n in (2, 4, 8, 16, 32)),
           *(_window_case(policy, n, w) for policy in WINDOW_POLICIES for n, w in ((2, 2), (3, 2), (4, 2), (3, 3))),
           *(_iq_case(p) for p in (0.3, 0.5))),
    bench=(BenchCase("FIFO 32x32 saturated", {"ports": 32, "load": 1.0}, 2e7, 9e5),
           BenchCase("FIFO 32x32 window 8 saturated", {"ports": 32, "load": 1.0, "window": 8})),
    report=(("hol", "switchq.validate.reports.hol"),),
)
