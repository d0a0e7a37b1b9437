"""Report ``hipiqs``: paper 000's Figs. 7-12 (HIPIQS vs FIFO, DAMQ, SAFC and the central buffer in BMINs).

Every point is ``switchq simulate bmin`` through the sweep engine (so the
report resumes from the store), each run with the same seed and
:data:`REPLICATIONS` replications, and every claim is a verdict of the engine
(:mod:`switchq.validate.verdict`), which decides its class: a figure is judged
by its 95 % interval (measured again on up to :data:`BUDGET` times its
replications while it reaches past an edge of the band), a claim comparing two
configurations by the interval of their paired difference (replication r of
each drew from the same seed). A curve's saturation throughput is its highest
received load (the grid point where it is highest, judged with that point's
interval, on the overloaded run: ``saturated``); its saturation load, the
highest load of its grid at which the run is stable (the harness's backlog
rule), is shown but decides no verdict: a grid step is not an interval. The
paper's words and the choices it leaves open are in
:mod:`switchq.validate.reports.hipiqs_claims`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import begin, built, est, points, pyplot
from .claims import AGREE, agreeing, at_least, at_most, by_class, cell, derived, listed, paired, tally, within
from .hipiqs_claims import (ALL_20, ALMOST_AS_GOOD, BEYOND_SATURATION, DAMQ_22, FIFO_SATURATES, MORE_FOR_256,
                            NOT_SATURATED_16, OVER_090, PACKETISATION, SAME_FRACTION, SATURATION_64, SIZE_COSTS,
                            THROUGHPUT_64, WORSE, Claims, at, deadlocked, diff, drawn, judged, level, peak,
                            ran_sentence, sat)

LOADS, QUICK_LOADS = (0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98), (0.4, 0.6, 0.8, 0.9, 0.98)
FINE, QUICK_FINE = (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98), (0.6, 0.8, 0.9, 0.98)
SIZES = (64, 128, 256)
BUFFERS = (320, 640, 1280)
REPLICATIONS = 5                     # the fewest a verdict may stand on (claims.MIN_SAMPLES), quick or full
BUDGET = 4                           # the engine's minimum: 4x the replications halve an interval's half-width
CYCLES, QUICK_CYCLES = 150_000, 6_000
AROUND = 0.05        # "about", "around", "almost identical", "considerably": a grid step of the paper's figures
STABLE = 0.01        # "does not saturate": the carried share within the backlog rule's 1 % of 1
KNEE = 10            # a latency knee: mean latency past this many times the zero-load latency
# Fig. 12's 64-node saturation figures, read off the paper's text (§5.5).
PAPER = {("hipiqs", "bitrev", 64): 0.83, ("hipiqs", "bitrev", 128): 0.75, ("central", "bitrev", 64): 0.85,
         ("central", "bitrev", 128): 0.88, ("hipiqs", "transpose", 64): 0.87, ("hipiqs", "transpose", 128): 0.80,
         ("central", "transpose", 64): 0.90, ("central", "transpose", 128): 0.90}


class _Build:
    """One build: how every point is run, the points run (and the deadlocked ones), the HIPIQS readings and
    the verdicts."""

    def __init__(self, quick: bool, workers: int, seed: int, store):
        from switchq.models.flit import FlitSwitch

        self.quick, self.seed = quick, seed
        self.cycles, self.reps = (QUICK_CYCLES if quick else CYCLES), REPLICATIONS
        self.loads, self.fine = (QUICK_LOADS, QUICK_FINE) if quick else (LOADS, FINE)
        # A quarter of the measured cycles (the paper: 350,000 of 10^6): a half left the latency trend unjudged (the
        # time since the start must grow 3x across the measured segments), so no run could be shown stable.
        self.warmup = self.cycles // 4
        self.run = dict(slots=self.cycles, warmup=self.warmup, replications=self.reps, seed=seed, workers=workers,
                        store=store, progress=sys.stderr.isatty())
        self.deadlocked, self.ran = [], {}     # the deadlocked points; figure -> the HIPIQS readings it ran under
        self.simulated = {}                    # point -> its row, once (the footer counts what the points took)
        self.default = d = FlitSwitch()
        self.readings = [(up, xs) for up in ("input", "output") for xs in ("extra", "within")]
        self.name = {r: f"up port by {r[0]} queue, FIFO units {'on top of' if r[1] == 'extra' else 'within'} the "
                        "buffer" for r in self.readings}
        self.r0 = (d.up_select, d.crosspoint_storage)
        self.ups = [r for r in self.readings if r[1] == d.crosspoint_storage]
        self.claims = Claims(self.r0, self.name, {"up": d.up_select, "storage": d.crosspoint_storage, "wiring": "bmin",
                                                  "fifo routing": d.fifo_routing, "saturation": "received load"})

    def curve(self, grid=None, **p):
        rows = points("bmin", [{**p, "load": x} for x in (grid or self.loads)], **self.run)
        for r in rows:                 # what the rows were run with (est and paired read it)
            r.setdefault("replications", self.reps)
            self.simulated[repr(sorted(p.items())), r["load"]] = r
            if deadlocked(r):
                self.deadlocked.append(", ".join(f"{k} {v}" for k, v in p.items()) + f", load {r['load']:g}")
        return rows

    def hip(self, m, b, reading, nodes=16, traffic="uniform", grid=None, **p):
        return self.curve(grid, nodes=nodes, buffer_org="hipiqs", message_flits=m, buffer_flits=b, traffic=traffic,
                          up_select=reading[0], crosspoint_storage=reading[1], **p)


def build(out: Path, quick: bool = False, workers: int = 0, seed: int = 1, store=None) -> list[Path]:
    started = begin("hipiqs", BUDGET)
    plt = pyplot()
    s = _Build(quick, workers, seed, store)
    lines = _intro(s)
    grid, section = _figs_7_9(s, plt, out)
    lines += section + _fifo(s, grid)
    pk = {k: peak(rows) for k, rows in grid.items()}
    _buffers(s, grid, pk)
    lines += _fig10(s, pk) + _fig11(s, grid) + _fig12(s, plt, out) + _which_reading(s) + _claims_table(s)
    lines += ["", built(started, s.simulated.values())]
    every = [v for *_, v, _ in s.claims.rows]
    stuck = (f"Deadlocked points: {len(set(s.deadlocked))} ({'; '.join(sorted(set(s.deadlocked)))})."
             if s.deadlocked else "No point of this report deadlocked.")
    fill = {"RAN_READINGS": ran_sentence(s.ran, s.readings, s.name, s.r0), "DEADLOCKS": stuck,
            "VERDICTS": f"**Verdicts** (default reading): {by_class(every)}."}
    for key, text in fill.items():
        lines = [x.replace(key, text) for x in lines]
    path = out / "hipiqs.md"
    path.write_text("\n".join(lines) + "\n")
    return [path, out / "hipiqs_fig7.png", out / "hipiqs_fig12.png"]


def _intro(s) -> list:
    from switchq.validate.arch.flit.records import STALL_CYCLES as STALL
    from switchq.validate.kernel import NOISE_SIGMAS, UNSTABLE_GROWTH

    growth, sigmas = 100 * UNSTABLE_GROWTH, NOISE_SIGMAS
    return ["# HIPIQS: input-queued switches in BMINs (paper 000, Figs. 7-12)", "",
            f"Generated by `switchq report hipiqs{' --quick' if s.quick else ''}` (seed {s.seed}): every point "
            f"`switchq simulate bmin` with {s.cycles} measured cycles after {s.warmup} of warm-up, {s.reps} "
            "replications, all with the same seed (the paper: 10^6 cycles, 350,000 of warm-up). 8-port switches, "
            "2-byte flits, messages of fixed length, Bernoulli message starts, uniform destinations over the "
            "other nodes. A curve's saturation throughput, as the paper uses the word, is its highest received "
            "load (the grid point where it is highest, with that point's interval). Its saturation load is the "
            "highest load of its grid at which the run is stable: the flits offered and not received grew "
            f"while measuring by at most {growth:g} % of what was offered plus a message per node on average "
            f"over the replications, and by at most that plus {sigmas:g} standard deviations of a critically "
            f"loaded backlog's random walk in each replication; those to each destination node by at most "
            f"{growth:g} % of what it was offered plus one message plus {sigmas:g} standard deviations, in each "
            "replication. The saturation load is shown, never judged: a grid step is not an interval. The grid "
            "is " + ", ".join(f"{x:g}" for x in s.loads) + ".", "",
            "**The rule:** the verdict engine (`switchq.validate.verdict`) decides every class; this report passes "
            "it figures, the paper's band and evidence. No verdict stands on fewer than 5 replications or on point "
            "values, and a claim comparing two configurations (a gap, a gain, an order) stands on the 95 % "
            "interval of the per-replication differences of the two runs (common random numbers). A figure agrees "
            "with the paper only when its 95 % interval lies inside the paper's band (a bound: wholly on its side) "
            "from a run shown stable; a claim about the network past saturation (a saturation throughput, the "
            "load received beyond saturation) is judged on the overloaded run itself. An interval reaching past an "
            f"edge of its band is measured again on more replications, up to {BUDGET} times its own "
            f"({BUDGET * s.reps}: the minimum budget, which halves a half-width), and is inconclusive if it still "
            "reaches past it" + (" (a quick build adds none)" if s.quick else "") + ". A disagreement is classed "
            "from evidence: an ambiguity when another reading run here agrees and the paper's sentence leaving "
            "that choice open is quoted; not reproducible when a derivation from rules the paper states "
            "contradicts the band (this report has none); not a claim about this model when the paper's words "
            "put the number on another network; a defect otherwise. Each verdict's row prints the interval it "
            "was judged on and its replications.", "",
            "VERDICTS", "",
            "Where the paper is silent, the choices are (options of `switchq simulate bmin`): flit-by-flit "
            "flow control with the downstream state known at once; round-robin output arbitration; routing "
            "one hop ahead; the central buffer's input FIFOs of 2k = 16 flits, packets admitted to it when the "
            "chunks they need are free (and then reserved for them: without that, packets admitted behind one "
            "took the chunks its tail needed and a switch deadlocked), and messages going up holding at most half "
            "of it (deadlock avoidance). Two choices change HIPIQS's numbers and give four readings: which up "
            "port an adaptive route takes (the one whose queue *from this input* holds the fewest flits, or whose "
            "output at the switch has the fewest queued from all inputs), and whether HIPIQS's 16-flit FIFO "
            "units come on top of the equalised buffer or out of it. RAN_READINGS FIFO switches are run with the "
            "up port picked at the head of the queue (the default), on arrival, and by the destination's digit "
            "(d-mod-k, as a non-adaptive BMIN routes). A point where a replication deadlocked (nothing moved for "
            f"{STALL:,} cycles) is tabled as deadlocked, left out of its curve's line and never averaged. "
            "DEADLOCKS", ""]


def _figs_7_9(s, plt, out) -> tuple:
    """Figs. 7-9's curves (message size against buffer size, 16 nodes), their table and Fig. 7's plot."""
    grid = {}
    for org in ("fifo", "damq", "safc", "central"):
        for b in BUFFERS:
            for m in SIZES:
                if org in ("fifo", "damq", "safc") and b != 640 and not (org == "damq" and m == 64):
                    continue
                grid[org, m, b] = s.curve(nodes=16, buffer_org=org, message_flits=m, buffer_flits=b)
    for r in s.readings:
        for b in BUFFERS:
            for m in SIZES:
                grid[("hipiqs",) + r, m, b] = s.hip(m, b, r)
        s.ran.setdefault("Figs. 7-9", []).append(r)
    lines = ["## Figs. 7-9: message length and input buffer size (16 nodes, uniform)", "",
             "| organisation | message (flits) | buffer (flits) | message / buffer | saturation load | saturation "
             "throughput (highest received load) |", "|---|---:|---:|---:|---:|---|"]
    for (org, m, b), rows in grid.items():
        label = org if isinstance(org, str) else f"hipiqs ({s.name[org[1:]]})"
        lines.append(f"| {label} | {m} | {b} | {m / b:.2f} | {sat(rows):g} | {level(peak(rows))} |")
    lines.append("")
    fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
    for ax, b in zip(axes, BUFFERS):
        for (org, m, bb), rows in grid.items():
            if bb != b or org == "safc" or (not isinstance(org, str) and org[1:] != s.r0):
                continue
            o = org if isinstance(org, str) else "hipiqs"
            ax.plot(*drawn(rows),
                    {64: "-", 128: "--", 256: ":"}[m], marker=".", markersize=3, label=f"{o} M={m}",
                    color={"fifo": "tab:grey", "damq": "tab:green", "hipiqs": "tab:blue", "central": "tab:orange"}[o])
        ax.plot([0, 1], [0, 1], color="grey", lw=0.5)
        ax.set_title(f"{b}-flit input buffers")
        ax.set_xlabel("applied load")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("received load")
    for ax in axes:
        ax.legend(fontsize=6, ncol=2)
    fig.suptitle(f"HIPIQS: {s.name[s.r0]} (the default)", fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "hipiqs_fig7.png", dpi=100)
    plt.close(fig)
    return grid, lines + ["![Fig. 7](hipiqs_fig7.png)", ""]


def _fifo(s, grid) -> list:
    """Fig. 7's "FIFO saturates well before 0.60", read as a saturation throughput (the highest received load)
    and as the latency knee (mean latency past KNEE times the zero-load latency at 0.60), under the three up-port
    rules of a FIFO switch: the other readings first, the default (routed at the head, received load) last."""
    from switchq.models.flit import FlitNetwork, FlitSwitch, MessageTraffic
    from switchq.solvers.bmin import fifo_saturation, zero_load_latency

    fifo = {("head", m): grid["fifo", m, 640] for m in SIZES}
    for routing in ("arrival", "destination"):
        for m in SIZES:
            fifo[routing, m] = s.curve(nodes=16, buffer_org="fifo", message_flits=m, buffer_flits=640,
                                       fifo_routing=routing)
    said = {"head": "routed at the head (any free up port)", "arrival": "routed on arrival",
            "destination": "up port by destination digit"}
    single = s.curve((0.98,), topology="crossbar", nodes=8, buffer_org="fifo", message_flits=64, buffer_flits=640,
                     uniform_over="all")[0]
    karol = fifo_saturation(8).saturation_throughput
    knee_zero = {m: zero_load_latency(FlitNetwork.bmin(16, FlitSwitch(8, "fifo", 640)), MessageTraffic(0.001, m))
                 for m in SIZES}
    c, default = s.claims, s.default.fifo_routing
    routings = sorted(said, key=lambda r: r == default)          # the default's routing last
    for m in SIZES:
        says = f"FIFO saturates well before an applied load of 0.60 (640-flit buffers, {m}-flit messages)"
        others = []
        for routing in routings:
            row = at(fifo[routing, m], 0.6)
            others.append(c.one("Fig. 7", says, f"mean latency at 0.6: {level(row, 'mean_latency', 0)} (zero load "
                                f"{knee_zero[m]:.0f})", f"at least {KNEE:g} x zero-load latency", at_least,
                                est(row, "mean_latency"), KNEE * knee_zero[m], reading=f"latency knee, FIFO "
                                f"{said[routing]}", choices={"fifo routing": routing, "saturation": "latency knee"},
                                quote=FIFO_SATURATES))
        for routing in routings:
            rows = fifo[routing, m]
            kw = (dict(readings=others, allows=c.allows(others)) if routing == default
                  else dict(reading=f"FIFO {said[routing]}"))
            v = c.one("Fig. 7", says, f"{level(peak(rows))}; saturation load {sat(rows):g}",
                      "saturation throughput at most 0.60", at_most, est(peak(rows), "throughput"), 0.60,
                      choices={"fifo routing": routing}, saturated=True, quote=FIFO_SATURATES, **kw)
            if routing != default:
                others.append(v)
    by_reading = {}
    for w, says, o, t, v, rr in c.rows:
        if says.startswith("FIFO saturates"):
            by_reading.setdefault(v.reading, []).append(v == AGREE)
    return ["FIFO's \"saturates well before an applied load of 0.60\", by reading (routing rule, and saturation "
            f"read as the highest received load or as mean latency past {KNEE:g} x its zero-load value at 0.60; "
            f"the paper names no knee, {KNEE:g} x is this report's choice): "
            + "; ".join(f"{rd}: {sum(oks)} of {len(oks)} message sizes agree" for rd, oks in by_reading.items())
            + f". The same FIFO switch alone (8 ports, 64-flit messages) carries {level(single)} against Karol's "
            f"HOL limit {karol:.3f} (exact, single-flit): its head-of-line blocking is the textbook one. The paper "
            "states no rule taking one switch's limit to its BMIN's, so this is shown, not a derivation.", ""]


def _buffers(s, grid, pk) -> None:
    """§5.2.1's DAMQ and HIPIQS figures, Fig. 7's gaps to the central buffer, Fig. 9's equal fractions and
    Fig. 8's diminishing returns (verdicts only: their figures are in Figs. 7-9's table)."""
    c = s.claims
    damq = pk["damq", 128, 640]
    c.one("§5.2.1", "DAMQ's saturation throughput is about 0.76 for messages about 20 % of the buffer (quoted from "
          "[22], another network)", f"DAMQ 128/640: {level(damq)}", f"0.76 ± {AROUND} ('about')", within,
          est(damq, "throughput"), 0.76, AROUND, saturated=True, quote=DAMQ_22, not_about=DAMQ_22)
    c.each("§5.2.1", "HIPIQS's saturation throughput is over 0.90 for messages about 20 % of the buffer",
           "at least 0.90", at_least, {r: (est(pk[("hipiqs",) + r, 128, 640], "throughput"),
                                           f"128/640: {level(pk[('hipiqs',) + r, 128, 640])}")
                                       for r in s.readings}, 0.90, saturated=True, quote=OVER_090)
    # §5.2.1 says both "smaller than 20%" and "20% or less": messages of exactly 20 % of the buffer are judged
    # among the small ones (the pairs 64/320, 128/640, 256/1280 say so in their row).
    for m in SIZES:
        for b in BUFFERS:
            gap = {r: paired(pk["central", m, b], pk[("hipiqs",) + r, m, b], "throughput") for r in s.readings}
            values = {r: (e, "central minus HIPIQS: " + diff(e)) for r, e in gap.items()}
            if m / b <= 0.2 + 1e-9:
                c.each("Fig. 7", f"HIPIQS almost as good as the central buffer for messages up to 20 % of the "
                       f"buffer ({m}/{b}{', exactly 20 %' if abs(m / b - 0.2) < 1e-9 else ''})",
                       f"|gap| <= {AROUND}", within, values, 0.0, AROUND, compares=True, saturated=True,
                       quote=ALL_20 if b == 1280 else ALMOST_AS_GOOD)
            else:
                c.each("Fig. 7", f"beyond 20 % of the buffer the central buffer is considerably better "
                       f"({m}/{b})", f"gap at least {AROUND}", at_least, values, AROUND, compares=True,
                       saturated=True, quote=WORSE[b])
    triple = ((64, 320), (128, 640), (256, 1280))
    for (ma, ba), (mb, bb) in ((triple[0], triple[1]), (triple[1], triple[2]), (triple[0], triple[2])):
        d = {r: paired(pk[("hipiqs",) + r, ma, ba], pk[("hipiqs",) + r, mb, bb], "throughput") for r in s.readings}
        c.each("Fig. 9", f"same message/buffer ratio, almost identical saturation ({ma}/{ba} against {mb}/{bb})",
               f"|difference| <= {AROUND}", within, {r: (e, diff(e)) for r, e in d.items()}, 0.0, AROUND,
               compares=True, saturated=True, quote=SAME_FRACTION)
    # §5.2.2 says both "raising the saturation throughput" and "(in terms of saturation load)": in a network that
    # carries what it is offered up to saturation the two are one figure. Judged on the received load at the
    # grid's top load, where every one of these curves is past its knee: a peak read off the grid would move
    # with the grid's step.
    top_load = max(s.loads)
    gains = {}
    for r in s.readings:
        h = ("hipiqs",) + r
        at_top = {(m, b): at(grid[h, m, b], top_load) for m in (128, 256) for b in (640, 1280)}
        g = {m: derived([at_top[m, 1280], at_top[m, 640]], "throughput", lambda a, b: a - b, "gain")
             for m in (128, 256)}
        past = "" if all(x["unstable"] for x in at_top.values()) else " (a curve is stable there: not saturated)"
        gains[r] = (paired(g[256], g[128], "gain"), f"gain in received load at {top_load:g}{past} (640 -> 1280 flits) "
                    + ", ".join(f"{m}: {paired(at_top[m, 1280], at_top[m, 640], 'throughput').value:+.3f}"
                                for m in (128, 256)) + "; 256 minus 128: " + diff(paired(g[256], g[128], "gain")))
    c.each("Fig. 8", "diminishing returns: 640 -> 1280 flits helps 128-flit messages marginally, 256-flit "
           f"messages more (gain in received load at {top_load:g})", "gain(256) - gain(128) at least 0",
           at_least, gains, 0.0, compares=True, saturated=True, quote=MORE_FOR_256)


def _fig10(s, pk) -> list:
    """Fig. 10: 64 nodes on a 4-ary 3-tree, HIPIQS under both up-port readings, against its 16-node figures."""
    c = s.claims
    big = {("central", m): s.curve(nodes=64, buffer_org="central", message_flits=m, buffer_flits=640)
           for m in (64, 128)}
    for r in s.ups:
        for m in (64, 128):
            big[("hipiqs",) + r, m] = s.hip(m, 640, r, nodes=64)
        s.ran.setdefault("Fig. 10", []).append(r)
    lines = ["## Fig. 10: 64 nodes (a 4-ary 3-tree: the paper does not give the topology)", "",
             f"HIPIQS with its FIFO units {'on top of' if s.default.crosspoint_storage == 'extra' else 'within'} "
             "the buffer (the default), under both up-port readings.", "",
             "| organisation | message | 16 nodes: saturation throughput | 64 nodes: saturation throughput | 64 "
             "nodes: saturation load |", "|---|---:|---|---|---:|"]
    for (org, m), rows in big.items():
        label = org if isinstance(org, str) else f"hipiqs (up port by {org[1]} queue)"
        lines.append(f"| {label} | {m} | {level(pk[org, m, 640])} | {level(peak(rows))} | {sat(rows):g} |")
    lines.append("")
    drop = {k: derived([pk[k[0], k[1], 640], peak(rows)], "throughput", lambda a, b: a - b, "drop")
            for k, rows in big.items()}
    for m in (64, 128):
        c.each("Fig. 10 / §5.6", f"64 nodes: HIPIQS reaches 0.8-0.9 ({m}-flit messages)", "in [0.8, 0.9] ± 0.02",
               within, {r: (est(peak(big[("hipiqs",) + r, m]), "throughput"), level(peak(big[("hipiqs",) + r, m])))
                        for r in s.ups}, 0.85, 0.07, saturated=True, quote=THROUGHPUT_64)
        values = {}
        for r in s.ups:
            d = paired(drop[("hipiqs",) + r, m], drop["central", m], "drop")
            values[r] = (d, "HIPIQS's drop 16 -> 64 nodes minus the central buffer's: " + diff(d))
        c.each("Fig. 10", f"system size costs HIPIQS more than the central buffer ({m}-flit messages)",
               "difference of the drops at least 0", at_least, values, 0.0, compares=True, saturated=True,
               quote=SIZE_COSTS)
    return lines


def _fig11(s, grid) -> list:
    """Fig. 11: packetisation into 64-flit packets (HIPIQS, 16 nodes, the default reading)."""
    c, low, top, r0 = s.claims, min(s.loads), max(s.loads), s.r0
    lines = ["## Fig. 11: packetisation into 64-flit packets (HIPIQS, 16 nodes, the default reading)", "",
             f"| message | buffer | saturation throughput: whole | packets | latency at {low:g}: whole | packets |",
             "|---:|---:|---|---|---|---|"]
    s.ran["Fig. 11"] = [r0]
    for m in (128, 256):
        for b in (640, 1280):
            whole = grid[("hipiqs",) + r0, m, b]
            pk = s.hip(m, b, r0, packet_flits=64)
            lw, lp = at(whole, low), at(pk, low)
            lines.append(f"| {m} | {b} | {level(peak(whole))} | {level(peak(pk))} | "
                         f"{level(lw, 'mean_latency', 1)} | {level(lp, 'mean_latency', 1)} |")
            # Paired at one load, the grid's top (past both curves' knees): two peaks read at different grid
            # points are neither paired nor free of the grid's step.
            tops = (at(pk, top), at(whole, top))
            d = paired(*tops, "throughput")
            past = "" if all(r["unstable"] for r in tops) else " (a curve is stable there: not yet saturated)"
            c.one("Fig. 11", f"packetisation improves saturation bandwidth ({m}/{b})", f"received at {top:g}{past}, "
                  "packets minus whole: " + diff(d), "at least 0", at_least, d, 0.0, hip=r0, compares=True,
                  saturated=True, quote=PACKETISATION)
            d = paired(lp, lw, "mean_latency")
            c.one("Fig. 11", f"packetisation does not improve message latency ({m}/{b}, load {low:g})",
                  f"packets minus whole: {d.value:+.1f} cycles (95 % CI {d.low:+.1f} .. {d.high:+.1f}, paired)",
                  "at least 0", at_least, d, 0.0, hip=r0, compares=True, quote=PACKETISATION)
    return lines + [""]


def _bounds() -> str:
    """Each pattern's channel-load bound on each 64-node wiring run here (a walk of every route), as a sentence."""
    from switchq.models.flit import FlitNetwork, MessageTraffic
    from switchq.solvers.bmin import saturation_bound

    wirings = {"4-ary 3-tree": FlitNetwork.bmin(64), "SP2 boards": FlitNetwork.sp2(64)}
    return "; ".join(f"{pat}: " + ", ".join(f"{w} {saturation_bound(n, MessageTraffic(0.5, 64, pattern=pat)):.2f}"
                                            for w, n in wirings.items())
                     for pat in ("uniform", "bitrev", "transpose"))


def _fig12(s, plt, out) -> list:
    """Fig. 12 (bit reversal and transpose, 16 and 64 nodes) and §5.5's received load beyond saturation: each
    64-node claim on SP2 boards first, then on the 4-ary 3-tree (the default wiring) given the boards' verdicts."""
    c, top, ups = s.claims, max(s.fine), s.ups
    wiring = {"bmin": "4-ary 3-tree", "boards": "SP2 boards"}
    lines = ["## Fig. 12: bit reversal and transpose (640-flit buffers)", "",
             f"At 16 nodes the paper's curves do not saturate up to {top:g}: judged on the carried share (received "
             f"over offered) at {top:g}, at least {1 - STABLE:g}. At 64 nodes its saturation throughputs are read "
             f"off the figure ('around'), ± {AROUND}. The paper does not give its 64-node wiring: each 64-node "
             "claim is judged on the 4-ary 3-tree (the default) and on the SP2's own wiring, four 16-node boards "
             "cabled to each other directly (`--topology boards`: 5 links to each neighbouring board, 6 to the "
             "opposite one, no third stage; Stunkel et al., IBM Systems Journal 34(2), 1995). The channel-load "
             f"bound of each pattern on each wiring ({_bounds()}) caps what a network can receive; a network "
             "saturates below its bound, so these contradict none of the paper's 64-node figures (Fig. 10's "
             "included) and decide no verdict.", "",
             "| nodes | wiring | pattern | organisation | message | saturation load | saturation throughput | "
             "paper |", "|---:|---|---|---|---:|---:|---|---:|"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    perm, boards = {}, {}      # boards: (pattern, organisation, message) -> its verdicts on SP2 boards
    for nodes, topo in ((16, "bmin"), (64, "boards"), (64, "bmin")):
        for pattern in ("bitrev", "transpose"):
            for m in (64, 128):
                values, label = {}, {}
                for org in ["central"] + [("hipiqs",) + r for r in ups]:
                    if isinstance(org, str):
                        rows = s.curve(s.fine, nodes=nodes, buffer_org=org, message_flits=m, buffer_flits=640,
                                       traffic=pattern, topology=topo)
                    else:
                        rows = s.hip(m, 640, org[1:], nodes=nodes, traffic=pattern, grid=s.fine, topology=topo)
                        if org[1:] not in s.ran.setdefault("Fig. 12", []):
                            s.ran["Fig. 12"].append(org[1:])
                    perm[nodes, topo, pattern, org, m] = rows
                    o = org if isinstance(org, str) else "hipiqs"
                    label[org] = o if isinstance(org, str) else f"hipiqs (up by {org[1]})"
                    said = f"≥ {top:g}" if nodes == 16 else f"{PAPER[o, pattern, m]:g}"
                    lines.append(f"| {nodes} | {wiring[topo]} | {pattern} | {label[org]} | {m} | {sat(rows):g} | "
                                 f"{level(peak(rows))} | {said} |")
                    if nodes == 16:
                        row = at(rows, top)
                        values[org] = (est(row, "carried_share"), f"carried share at {top:g}: "
                                       + level(row, "carried_share"))
                    else:
                        values[org] = (est(peak(rows), "throughput"), level(peak(rows)))
                        axes[0 if pattern == "bitrev" else 1].plot(
                            *drawn(rows), "--" if isinstance(org, str) else ("-" if org[1] == "input" else ":"),
                            marker="." if topo == "bmin" else "x", label=f"{label[org]} M={m}, {wiring[topo]}")
                for o in ("central", "hipiqs"):
                    if nodes == 16:
                        text = f"{nodes} nodes, {pattern}, {o}, {m}-flit: saturation beyond {top:g}"
                        tol, judge, a = f"carried share ≥ {1 - STABLE:g}", at_least, (1.0, STABLE)
                        kw = dict(quote=NOT_SATURATED_16[pattern])
                    else:
                        t = PAPER[o, pattern, m]
                        text = f"{nodes} nodes, {pattern}, {o}, {m}-flit: saturation near {t:g}"
                        tol, judge, a = f"± {AROUND} ('around')", within, (t, AROUND)
                        kw = dict(saturated=True, quote=SATURATION_64[o, pattern])
                    orgs = ["central"] if o == "central" else [("hipiqs",) + r for r in ups]
                    prior = boards.get((pattern, o, m), [])
                    if topo == "boards":
                        boards[pattern, o, m] = [
                            c.one("Fig. 12", text, values[g][1], tol, judge, values[g][0], *a,
                                  hip=None if o == "central" else g[1:], choices={"wiring": "boards"},
                                  reading="SP2 boards" + ("" if o == "central" else ", " + s.name[g[1:]]), **kw)
                            for g in orgs]
                    elif o == "central":
                        c.one("Fig. 12", text, values["central"][1], tol, judge, values["central"][0], *a,
                              readings=prior, allows=c.allows(prior), **kw)
                    else:
                        c.each("Fig. 12", text, tol, judge, {r: values[("hipiqs",) + r] for r in ups}, *a,
                               prior=prior, **kw)
    # §5.5: "for a message size of 128 flits, HIPIQS performs better than output queuing in terms of received
    # traffic beyond saturation" (bit reversal; "slightly better" for transpose), 64 nodes.
    for pattern in ("bitrev", "transpose"):
        prior = []
        for topo in ("boards", "bmin"):
            central = at(perm[64, topo, pattern, "central", 128], top)
            values = {}
            for r in ups:
                h = at(perm[64, topo, pattern, ("hipiqs",) + r, 128], top)
                d = paired(h, central, "throughput")
                values[r] = (d, f"received at {top:g}: HIPIQS {level(h)}, central {level(central)}; HIPIQS minus "
                                "central " + diff(d))
            text = f"64 nodes, {pattern}, 128-flit: beyond saturation HIPIQS receives more than the central buffer"
            kw = dict(compares=True, saturated=True, quote=BEYOND_SATURATION[pattern])
            if topo == "boards":
                prior = [c.one("§5.5", text, values[r][1], "at least 0", at_least, values[r][0], 0.0, hip=r,
                               reading="SP2 boards, " + s.name[r], choices={"wiring": "boards"}, **kw) for r in ups]
            else:
                c.each("§5.5", text, "at least 0", at_least, values, 0.0, prior=prior, **kw)
    for ax, pattern in zip(axes, ("bitrev", "transpose")):
        ax.plot([0.6, 1], [0.6, 1], color="grey", lw=0.5)
        ax.set_title(f"64 nodes, {pattern} (dots: 3-tree, crosses: SP2 boards)")
        ax.set_xlabel("applied load")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=5)
    axes[0].set_ylabel("received load")
    fig.tight_layout()
    fig.savefig(out / "hipiqs_fig12.png", dpi=100)
    plt.close(fig)
    on_boards = [v for *_, v, _ in c.rows if v.reading.startswith("SP2 boards")]
    tree = [v for w, says, o, t, v, rr in c.rows if w in ("Fig. 12", "§5.5") and says.startswith("64 nodes")
            and not v.reading.startswith("SP2 boards")]
    return lines + ["", "![Fig. 12](hipiqs_fig12.png)", "",
                    f"At 64 nodes the 4-ary 3-tree agrees with {sum(v == AGREE for v in tree)} of {len(tree)} of "
                    f"Fig. 12's and §5.5's verdicts (both up-port readings), the SP2 boards with "
                    f"{sum(v == AGREE for v in on_boards)} of {len(on_boards)}.", ""]


def _which_reading(s) -> list:
    """Which HIPIQS reading reproduces the paper: counted over the claims every compared reading was run on,
    on the default wiring (a claim's SP2-boards rows are another wiring's, not another HIPIQS reading's)."""
    verdicts = [(w, says, v, rr) for w, says, _, _, v, rr in s.claims.rows if not v.reading.startswith("SP2 boards")]

    def common(group):
        shared = set.intersection(*[{(w, says) for w, says, _, rr in verdicts if rr == r} for r in group])
        return {r: (sum(v == AGREE for w, says, v, rr in verdicts if rr == r and (w, says) in shared), len(shared))
                for r in group}

    lines = ["## Which reading reproduces the paper", "",
             "Each comparison counts only the claims every reading in it was run on (at 64 nodes, on the 4-ary "
             "3-tree).", "", "| readings compared | reading | claims | agree |", "|---|---|---:|---:|"]
    by_storage, by_up = common(s.readings), common(s.ups)
    for title, table in (("all four (Figs. 7-9)", by_storage), ("up-port readings (Figs. 7-10, 12)", by_up)):
        for r, (agree, n) in table.items():
            lines.append(f"| {title} | {s.name[r]} | {n} | {agree} |")

    sentences = []
    for what, table in (("the up-port readings", by_up), ("Figs. 7-9 alone", by_storage)):
        most = max(a for a, _ in table.values())
        best, n = [r for r, (a, _) in table.items() if a == most], next(iter(table.values()))[1]
        sentences.append(f"on {what}, {listed([s.name[r] for r in best])} "
                         + ("agree" if len(best) > 1 else "agrees") + f" with the most claims ({most} of {n})"
                         + (", the default among them" if s.r0 in best and len(best) > 1 else
                            ", the default" if s.r0 in best else ", not the default"))
    summary = "; ".join(sentences)
    return lines + ["", summary[0].upper() + summary[1:] + f". The default is {s.name[s.r0]}.", ""]


def _claims_table(s) -> list:
    """Every verdict: the paper's claim, the reading, our figures, the band, the interval it was judged on (after
    any replications the engine added) and its class with the engine's reason."""
    rows = s.claims.rows
    every = [v for *_, v, _ in rows]
    headline = (f"{tally(every)} claims agree under the default reading: {by_class(every)} ({agreeing(every)} of "
                f"{len(every)} verdicts agree over every reading run; another reading's verdicts are rows of their "
                "own, never counted here).")

    def text(x):                   # a table cell: "|gap|" would split it
        return str(x).replace("|", "\\|")

    return ["## Claims against the paper", "", headline, "",
            "| where | the paper says | reading | ours | tolerance | judged on (95 %) | verdict |",
            "|---|---|---|---|---|---|---|"] + [
        f"| {w} | {text(says)} | {text(v.reading)} | {text(o)} | {text(t)} | {judged(v)} | {text(cell(v))} |"
        for w, says, o, t, v, rr in rows]
