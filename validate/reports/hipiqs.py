"""Report ``hipiqs``: paper 000's Figs. 7-12 (HIPIQS vs FIFO, DAMQ, SAFC and the central buffer in BMINs).

Every point is ``switchq simulate bmin`` through the sweep engine (so the
report resumes from the store), each run with the same seed and
:data:`REPLICATIONS` replications, and every claim is a verdict of the claims
engine (:mod:`switchq.validate.reports.claims`): a figure is judged by its 95 %
interval, a claim comparing two configurations by the interval of their paired
difference (replication r of each drew from the same seed). A curve's
saturation throughput is its highest received load (the grid point where it
is highest, judged with that point's interval); its saturation load, the
highest load of its grid at which the run is stable (the harness's backlog
rule), is shown but decides no verdict: a grid step is not an interval.
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import begin, built, est, points, pyplot
from .claims import AGREE, agreeing, at_least, at_most, by_class, derived, listed, paired, tally, within

LOADS, QUICK_LOADS = (0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98), (0.4, 0.6, 0.8, 0.9, 0.98)
FINE, QUICK_FINE = (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98), (0.6, 0.8, 0.9, 0.98)
SIZES = (64, 128, 256)
BUFFERS = (320, 640, 1280)
REPLICATIONS = 5                     # the fewest a verdict may stand on (claims.MIN_SAMPLES), quick or full
CYCLES, QUICK_CYCLES = 150_000, 6_000
AROUND = 0.05        # "about", "around", "almost identical", "considerably": a grid step of the paper's figures
STABLE = 0.01        # "does not saturate": the carried share within the backlog rule's 1 % of 1
KNEE = 10            # a latency knee: mean latency past this many times the zero-load latency
TOPOLOGY = "the paper does not give its 64-node wiring: judged on a 4-ary 3-tree and on SP2 boards joined directly"


def _deadlocked(row) -> bool:
    """A point with a deadlocked replication: drawn and tabled as deadlocked, never averaged."""
    return bool(row.get("deadlock"))


def _sat(rows) -> float:
    """The highest load of a curve at which the run is stable (0 if none)."""
    stable = [r["load"] for r in rows if not r["unstable"] and not _deadlocked(r)]
    return max(stable) if stable else 0.0


def _peak(rows):
    """The point of a curve whose received load is highest: its saturation throughput (a deadlocked point
    is no figure of a steady state, so never the peak)."""
    return max((r for r in rows if not _deadlocked(r)), key=lambda r: r["throughput"], default=rows[0])


def _drawn(rows):
    """A curve's points as drawn: a deadlocked one breaks the line (NaN); the text lists it."""
    return [r["load"] for r in rows], [float("nan") if _deadlocked(r) else r["throughput"] for r in rows]


def _at(rows, load):
    return next(r for r in rows if r["load"] == load)


def _level(row, metric: str = "throughput", digits: int = 3) -> str:
    """A point's figure for a table: with its interval when stable; the value and the backlog when not (the
    interval of a run whose backlog grows is no steady state's)."""
    if _deadlocked(row):
        return (f"deadlocked at {row['load']:g} ({int(row['deadlock'])} of {row.get('replications', '?')} "
                "replications): not averaged")
    e = est(row, metric)
    if row.get("unstable"):
        return (f"{e.value:.{digits}f} at {row['load']:g} (unstable: backlog +{row.get('backlog_growth', 0):.3g} "
                "flits)")
    return f"{e.value:.{digits}f} ± {e.half_width:.{digits}f} at {row['load']:g}"


def _diff(e) -> str:
    """A paired difference as a table shows it."""
    return f"{e.value:+.3f} (95 % CI {e.low:+.3f} .. {e.high:+.3f}, paired)"


def _ran_sentence(ran: dict, readings: list, name: dict, default: tuple) -> str:
    """Which figures ran under which HIPIQS readings, from what ran (not from what was meant to).

    Examples
    --------
    >>> rs = [(u, x) for u in ("input", "output") for x in ("extra", "within")]
    >>> names = {r: "-".join(r) for r in rs}
    >>> _ran_sentence({"Figs. 7-9": rs, "Fig. 10": rs[::2], "Fig. 11": [rs[0]], "Fig. 12": rs[::2]}, rs, names,
    ...               rs[0])
    'Figs. 7-9 ran under all four; Figs. 10 and 12 under both up-port readings with the FIFO units on top of the buffer; Fig. 11 under the default alone.'
    """
    def what(rs):
        if len(rs) == len(readings):
            return "all four"
        if len(rs) == 2 and rs[0][1] == rs[1][1] and rs[0][0] != rs[1][0]:
            return ("both up-port readings with the FIFO units "
                    + ("on top of" if rs[0][1] == "extra" else "within") + " the buffer")
        if rs == [default]:
            return "the default alone"
        return listed([name[r] for r in rs])

    groups = {}
    for figure, rs in ran.items():
        groups.setdefault(what(rs), []).append(figure)
    parts = []
    for w, figs in groups.items():
        nums = [f.replace("Figs. ", "").replace("Fig. ", "") for f in figs]
        label = figs[0] if len(figs) == 1 else "Figs. " + listed(nums)
        parts.append(f"{label} {'ran ' if not parts else ''}under {w}")
    return "; ".join(parts) + "."


class _Claims:
    """The verdicts, (where, the paper says, ours, tolerance, verdict, HIPIQS reading or None), in order."""

    def __init__(self, default: tuple, name: dict):
        self.rows, self.default, self.name = [], default, name

    def one(self, where, says, ours, tol, judge, value, *args, hip=None, reading=None, **kw):
        """One verdict: ``judge`` (within, at_least, at_most) of ``value``; ``hip`` the HIPIQS reading it ran
        under (None: not a HIPIQS claim), ``reading`` a reading's name when it is not the default."""
        if reading is None:
            reading = "default" if hip in (None, self.default) else self.name[hip]
        v = judge(value, *args, claim=f"{where}: {says}", reading=reading, **kw)
        self.rows.append((where, says, ours, tol, v, hip))
        return v

    def each(self, where, says, tol, judge, values: dict, *args, otherwise="defect", evidence="", **kw):
        """The same claim under each HIPIQS reading (``values``: reading -> (value, ours)); the default last, so
        a disagreement of it is an ambiguity when another reading agrees (named in its evidence)."""
        agreed = []
        for hip in sorted(values, key=lambda r: r == self.default):
            value, ours = values[hip]
            cls, ev = otherwise, evidence
            if hip == self.default and agreed:
                cls = "ambiguity"
                ev = "; ".join(x for x in (evidence, "agrees with " + listed(self.name[r] for r in agreed)) if x)
            v = self.one(where, says, ours, tol, judge, value, *args, hip=hip, otherwise=cls, evidence=ev, **kw)
            if v == AGREE and hip != self.default:
                agreed.append(hip)


def build(out: Path, quick: bool = False, workers: int = 0, seed: int = 1, store=None) -> list[Path]:
    started = begin("hipiqs")
    plt = pyplot()
    progress = sys.stderr.isatty()
    cycles, reps = (QUICK_CYCLES if quick else CYCLES), REPLICATIONS
    loads, fine = (QUICK_LOADS, QUICK_FINE) if quick else (LOADS, FINE)
    warmup = cycles // 2
    run = dict(slots=cycles, warmup=warmup, replications=reps, seed=seed, workers=workers, store=store,
               progress=progress)

    deadlocked = []
    simulated = {}                     # point -> its row, once (the footer counts what the points took)

    def curve(grid=loads, **p):
        rows = points("bmin", [{**p, "load": x} for x in grid], **run)
        for r in rows:                 # what the rows were run with (est and paired read it)
            r.setdefault("replications", reps)
            simulated[repr(sorted(p.items())), r["load"]] = r
            if _deadlocked(r):
                deadlocked.append(", ".join(f"{k} {v}" for k, v in p.items()) + f", load {r['load']:g}")
        return rows

    from switchq.models.flit import FlitNetwork, FlitSwitch, MessageTraffic
    from switchq.solvers.bmin import fifo_saturation, saturation_bound, zero_load_latency

    default = FlitSwitch()
    readings = [(up, xs) for up in ("input", "output") for xs in ("extra", "within")]
    name = {r: f"up port by {r[0]} queue, FIFO units {'on top of' if r[1] == 'extra' else 'within'} the buffer"
            for r in readings}
    r0 = (default.up_select, default.crosspoint_storage)
    claims = _Claims(r0, name)

    def hip(m, b, reading, nodes=16, traffic="uniform", grid=None, **p):
        return curve(grid or loads, nodes=nodes, buffer_org="hipiqs", message_flits=m, buffer_flits=b,
                     traffic=traffic, up_select=reading[0], crosspoint_storage=reading[1], **p)

    from switchq.validate.arch.flit.records import STALL_CYCLES as STALL
    from switchq.validate.kernel import NOISE_SIGMAS, UNSTABLE_GROWTH

    growth, sigmas = 100 * UNSTABLE_GROWTH, NOISE_SIGMAS
    lines = ["# HIPIQS: input-queued switches in BMINs (paper 000, Figs. 7-12)", "",
             f"Generated by `switchq report hipiqs{' --quick' if quick else ''}` (seed {seed}): every point "
             f"`switchq simulate bmin` with {cycles} measured cycles after {warmup} of warm-up, {reps} "
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
             "is " + ", ".join(f"{x:g}" for x in loads) + ".", "",
             "**The rule:** no verdict stands on fewer than 5 replications or on point values; comparisons are "
             "paired. A figure agrees with the paper when its 95 % interval reaches the paper's value within "
             "the stated tolerance (a bound: reaches its side); a claim comparing two configurations (a gap, a "
             "gain, an order) is judged by the 95 % interval of the per-replication differences of the two runs "
             "(common random numbers). A disagreement is classed: a defect (ours is wrong), an ambiguity (the "
             "paper reads two ways; the evidence names the reading that agrees, if any), not reproducible, or not "
             "a claim about this model. HEADLINE", "",
             "Where the paper is silent, the choices are (options of `switchq simulate bmin`): flit-by-flit "
             "flow control with the downstream state known at once; round-robin output arbitration; routing "
             "one hop ahead; the central buffer's input FIFOs of 2k = 16 flits, packets admitted to it when the "
             "chunks they need are free (and then reserved for them: without that, packets admitted behind one "
             "took the chunks its tail needed and a switch deadlocked), and messages going up holding at most half "
             "of it (deadlock avoidance). Two choices change HIPIQS's numbers and give four readings: which up "
             "port an adaptive route takes (the one whose queue *from this input* holds the fewest flits, or whose "
             "output at the switch has the fewest queued from all inputs), and whether HIPIQS's 16-flit FIFO "
             "units come on top of the equalised buffer or out of it. RAN_READINGS FIFO switches are run with the up port picked "
             "at the head of the queue (the default), on arrival, and by the destination's digit (d-mod-k, as a "
             "non-adaptive BMIN routes). A point where a replication deadlocked (nothing moved for "
             f"{STALL:,} cycles) is tabled as deadlocked, left out of its curve's line and never averaged. "
             "DEADLOCKS", ""]
    ran = {}             # figure -> the HIPIQS readings it was run under

    # ---- Figs. 7-9: message size against buffer size, 16 nodes
    grid = {}
    for org in ("fifo", "damq", "safc", "central"):
        for b in BUFFERS:
            for m in SIZES:
                if org in ("fifo", "damq", "safc") and b != 640 and not (org == "damq" and m == 64):
                    continue
                grid[org, m, b] = curve(nodes=16, buffer_org=org, message_flits=m, buffer_flits=b)
    for r in readings:
        for b in BUFFERS:
            for m in SIZES:
                grid[("hipiqs",) + r, m, b] = hip(m, b, r)
        ran.setdefault("Figs. 7-9", []).append(r)
    lines += ["## Figs. 7-9: message length and input buffer size (16 nodes, uniform)", "",
              "| organisation | message (flits) | buffer (flits) | message / buffer | saturation load | saturation "
              "throughput (highest received load) |", "|---|---:|---:|---:|---:|---|"]
    for (org, m, b), rows in grid.items():
        label = org if isinstance(org, str) else f"hipiqs ({name[org[1:]]})"
        lines.append(f"| {label} | {m} | {b} | {m / b:.2f} | {_sat(rows):g} | {_level(_peak(rows))} |")
    lines.append("")
    fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
    for ax, b in zip(axes, BUFFERS):
        for (org, m, bb), rows in grid.items():
            if bb != b or org == "safc" or (not isinstance(org, str) and org[1:] != r0):
                continue
            o = org if isinstance(org, str) else "hipiqs"
            ax.plot(*_drawn(rows),
                    {64: "-", 128: "--", 256: ":"}[m], marker=".", markersize=3, label=f"{o} M={m}",
                    color={"fifo": "tab:grey", "damq": "tab:green", "hipiqs": "tab:blue", "central": "tab:orange"}[o])
        ax.plot([0, 1], [0, 1], color="grey", lw=0.5)
        ax.set_title(f"{b}-flit input buffers")
        ax.set_xlabel("applied load")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("received load")
    for ax in axes:
        ax.legend(fontsize=6, ncol=2)
    fig.suptitle(f"HIPIQS: {name[r0]} (the default)", fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "hipiqs_fig7.png", dpi=100)
    plt.close(fig)
    lines += ["![Fig. 7](hipiqs_fig7.png)", ""]

    # "FIFO saturates well before 0.60": read as a saturation throughput (the highest received load) and as
    # the latency knee (mean latency past KNEE times the zero-load latency at 0.60), under the three up-port
    # rules of a FIFO switch.
    fifo = {("head", m): grid["fifo", m, 640] for m in SIZES}
    for routing in ("arrival", "destination"):
        for m in SIZES:
            fifo[routing, m] = curve(nodes=16, buffer_org="fifo", message_flits=m, buffer_flits=640,
                                     fifo_routing=routing)
    said = {"head": "routed at the head (any free up port)", "arrival": "routed on arrival",
            "destination": "up port by destination digit"}
    single = curve((0.98,), topology="crossbar", nodes=8, buffer_org="fifo", message_flits=64, buffer_flits=640,
                   uniform_over="all")[0]
    karol = fifo_saturation(8).saturation_throughput
    fact = (f"the same FIFO switch alone (8 ports, 64-flit messages) carries {_level(single)} against Karol's HOL "
            f"limit {karol:.3f} (exact, single-flit): its head-of-line blocking is the textbook one")
    evidence = "not under this reading; " + fact
    knee_zero = {m: zero_load_latency(FlitNetwork.bmin(16, FlitSwitch(8, "fifo", 640)), MessageTraffic(0.001, m))
                 for m in SIZES}
    # The other readings first: the default's disagreement is an ambiguity if one of them agrees.
    agreed = {m: [] for m in SIZES}
    for routing in ("arrival", "destination", "head"):
        reading = "default" if routing == default.fifo_routing else f"FIFO {said[routing]}"
        for m in SIZES:
            rows = fifo[routing, m]
            at = _at(rows, 0.6)
            knee = f"latency knee, FIFO {said[routing]}"
            v = claims.one("Fig. 7", f"FIFO saturates well before an applied load of 0.60, read at the latency "
                           f"knee ({m}-flit messages; {said[routing]})", f"mean latency at 0.6: "
                           f"{_level(at, 'mean_latency', 0)} (zero load {knee_zero[m]:.0f})",
                           f"at least {KNEE:g} x zero-load latency", at_least, est(at, "mean_latency"),
                           KNEE * knee_zero[m], reading=knee, otherwise="not reproducible", evidence=evidence)
            if v == AGREE:
                agreed[m].append(knee)
            kw = dict(otherwise="not reproducible", evidence=evidence)
            if reading == "default":       # judged last: every other reading's verdict for this size is known
                kw = (dict(otherwise="ambiguity", evidence="agrees with " + listed(agreed[m])) if agreed[m] else
                      dict(otherwise="not reproducible", evidence="no reading run reproduces it; " + fact))
            v = claims.one("Fig. 7", f"FIFO saturates well before an applied load of 0.60 (640-flit buffers, "
                           f"{m}-flit messages; {said[routing]})", f"{_level(_peak(rows))}; saturation load "
                           f"{_sat(rows):g}", "saturation throughput at most 0.60", at_most,
                           est(_peak(rows), "throughput"), 0.60, reading=reading, **kw)
            if v == AGREE and reading != "default":
                agreed[m].append(reading)
    fifo_rows = [(v.reading, v == AGREE) for w, c, o, t, v, rr in claims.rows if c.startswith("FIFO saturates")]
    by_reading = {}
    for rd, ok in fifo_rows:
        by_reading.setdefault(rd, []).append(ok)
    lines += ["FIFO's \"saturates well before an applied load of 0.60\", by reading (routing rule, and saturation "
              f"read as the highest received load or as mean latency past {KNEE:g} x its zero-load value at 0.60; "
              f"the paper names no knee, {KNEE:g} x is this report's choice): "
              + "; ".join(f"{rd}: {sum(oks)} of {len(oks)} message sizes agree" for rd, oks in by_reading.items())
              + ".", ""]
    damq = _peak(grid["damq", 128, 640])
    claims.one("§5.2.1", "DAMQ's saturation throughput is about 0.76 for messages about 20 % of the buffer "
               "(quoted from [22], another network)", f"DAMQ 128/640: {_level(damq)}", f"0.76 ± {AROUND} ('about')",
               within, est(damq, "throughput"), 0.76, AROUND, otherwise="not a claim",
               evidence="the paper quotes 0.76 from [22], a different network, not its own BMIN")
    peak = {k: _peak(rows) for k, rows in grid.items()}
    claims.each("§5.2.1", "HIPIQS's saturation throughput is over 0.90 for messages about 20 % of the buffer",
                "at least 0.90", at_least, {r: (est(peak[("hipiqs",) + r, 128, 640], "throughput"),
                                                f"128/640: {_level(peak[('hipiqs',) + r, 128, 640])}")
                                            for r in readings}, 0.90)
    # §5.2.1 says both "smaller than 20%" and "20% or less": messages of exactly 20 % of the buffer are judged
    # among the small ones (the pairs 64/320, 128/640, 256/1280 say so in their row).
    for m in SIZES:
        for b in BUFFERS:
            gap = {r: paired(peak["central", m, b], peak[("hipiqs",) + r, m, b], "throughput") for r in readings}
            values = {r: (e, "central minus HIPIQS: " + _diff(e)) for r, e in gap.items()}
            if m / b <= 0.2 + 1e-9:
                claims.each("Fig. 7", f"HIPIQS almost as good as the central buffer for messages up to 20 % of the "
                            f"buffer ({m}/{b}{', exactly 20 %' if abs(m / b - 0.2) < 1e-9 else ''})",
                            f"|gap| <= {AROUND}", within, values, 0.0, AROUND, compares=True)
            else:
                claims.each("Fig. 7", f"beyond 20 % of the buffer the central buffer is considerably better "
                            f"({m}/{b})", f"gap at least {AROUND}", at_least, values, AROUND, compares=True)
    triple = ((64, 320), (128, 640), (256, 1280))
    for (ma, ba), (mb, bb) in ((triple[0], triple[1]), (triple[1], triple[2]), (triple[0], triple[2])):
        d = {r: paired(peak[("hipiqs",) + r, ma, ba], peak[("hipiqs",) + r, mb, bb], "throughput") for r in readings}
        claims.each("Fig. 9", f"same message/buffer ratio, almost identical saturation ({ma}/{ba} against {mb}/{bb})",
                    f"|difference| <= {AROUND}", within, {r: (e, _diff(e)) for r, e in d.items()}, 0.0, AROUND,
                    compares=True)
    # §5.3 says both "raising the saturation throughput" and "(in terms of saturation load)": in a network that
    # carries what it is offered up to saturation the two are one figure. Judged on the received load at the
    # grid's top load, where every one of these curves is past its knee: a peak read off the grid would move
    # with the grid's step.
    top_load = max(loads)
    gains = {}
    for r in readings:
        h = ("hipiqs",) + r
        at_top = {(m, b): _at(grid[h, m, b], top_load) for m in (128, 256) for b in (640, 1280)}
        g = {m: derived([at_top[m, 1280], at_top[m, 640]], "throughput", lambda a, b: a - b, "gain")
             for m in (128, 256)}
        past = "" if all(x["unstable"] for x in at_top.values()) else " (a curve is stable there: not saturated)"
        gains[r] = (paired(g[256], g[128], "gain"), f"gain in received load at {top_load:g}{past} (640 -> 1280 flits) "
                    + ", ".join(f"{m}: {paired(at_top[m, 1280], at_top[m, 640], 'throughput').value:+.3f}"
                                for m in (128, 256)) + "; 256 minus 128: " + _diff(paired(g[256], g[128], "gain")))
    claims.each("Fig. 8", "diminishing returns: 640 -> 1280 flits helps 128-flit messages marginally, 256-flit "
                f"messages more (gain in received load at {top_load:g})", "gain(256) - gain(128) at least 0",
                at_least, gains, 0.0, compares=True)

    wirings = {"4-ary 3-tree": FlitNetwork.bmin(64), "SP2 boards": FlitNetwork.sp2(64)}
    # each pattern's channel-load bound on each wiring, computed once (a walk of every route)
    bound = {(w, pat): saturation_bound(n, MessageTraffic(0.5, 64, pattern=pat))
             for w, n in wirings.items() for pat in ("uniform", "bitrev", "transpose")}

    def unexplained(pattern, said=None):
        """Why a 64-node figure of the paper is not reproduced: the wiring is not given, and the channel-load
        bound of each wiring run here (computed from its routing tables) lies above the paper's figure."""
        if said is None:
            return ("the paper does not give its 64-node wiring; neither this wiring nor any reading on SP2 boards "
                    "reproduces it")
        bounds = {w: bound[w, pattern] for w in wirings}
        return (f"the paper does not give its 64-node wiring; the channel-load bound of {pattern} traffic on each "
                "wiring run here (" + ", ".join(f"{w} {b:.2f}" for w, b in bounds.items()) + ") is "
                + ("above" if min(bounds.values()) > said + AROUND else "not above")
                + f" the paper's {said:g} + {AROUND:g}: no channel of either caps it there")

    # ---- Fig. 10: 64 nodes
    ups = [r for r in readings if r[1] == default.crosspoint_storage]
    big = {("central", m): curve(nodes=64, buffer_org="central", message_flits=m, buffer_flits=640)
           for m in (64, 128)}
    for r in ups:
        for m in (64, 128):
            big[("hipiqs",) + r, m] = hip(m, 640, r, nodes=64)
        ran.setdefault("Fig. 10", []).append(r)
    lines += ["## Fig. 10: 64 nodes (a 4-ary 3-tree: the paper does not give the topology)", "",
              f"HIPIQS with its FIFO units {'on top of' if default.crosspoint_storage == 'extra' else 'within'} "
              "the buffer (the default), under both up-port readings.", "",
              "| organisation | message | 16 nodes: saturation throughput | 64 nodes: saturation throughput | 64 "
              "nodes: saturation load |", "|---|---:|---|---|---:|"]
    for (org, m), rows in big.items():
        label = org if isinstance(org, str) else f"hipiqs (up port by {org[1]} queue)"
        lines.append(f"| {label} | {m} | {_level(peak[org, m, 640])} | {_level(_peak(rows))} | {_sat(rows):g} |")
    lines.append("")
    drop = {k: derived([peak[k[0], k[1], 640], _peak(rows)], "throughput", lambda a, b: a - b, "drop")
            for k, rows in big.items()}
    for m in (64, 128):
        claims.each("Fig. 10 / §5.6", f"64 nodes: HIPIQS reaches 0.8-0.9 ({m}-flit messages)", "in [0.8, 0.9] ± 0.02",
                    within, {r: (est(_peak(big[("hipiqs",) + r, m]), "throughput"),
                                 _level(_peak(big[("hipiqs",) + r, m]))) for r in ups}, 0.85, 0.07,
                    otherwise="not reproducible", evidence=unexplained("uniform", 0.9))
        values = {}
        for r in ups:
            d = paired(drop[("hipiqs",) + r, m], drop["central", m], "drop")
            values[r] = (d, "HIPIQS's drop 16 -> 64 nodes minus the central buffer's: " + _diff(d))
        claims.each("Fig. 10", f"system size costs HIPIQS more than the central buffer ({m}-flit messages)",
                    "difference of the drops at least 0", at_least, values, 0.0, compares=True,
                    otherwise="not reproducible",
                    evidence="the paper does not give its 64-node wiring (Fig. 10 ran on the 4-ary 3-tree)")

    # ---- Fig. 11: packetisation
    low = min(loads)
    lines += ["## Fig. 11: packetisation into 64-flit packets (HIPIQS, 16 nodes, the default reading)", "",
              f"| message | buffer | saturation throughput: whole | packets | latency at {low:g}: whole | packets |",
              "|---:|---:|---|---|---|---|"]
    ran["Fig. 11"] = [r0]
    for m in (128, 256):
        for b in (640, 1280):
            whole = grid[("hipiqs",) + r0, m, b]
            pk = hip(m, b, r0, packet_flits=64)
            lw, lp = _at(whole, low), _at(pk, low)
            lines.append(f"| {m} | {b} | {_level(_peak(whole))} | {_level(_peak(pk))} | "
                         f"{_level(lw, 'mean_latency', 1)} | {_level(lp, 'mean_latency', 1)} |")
            # Paired at one load, the grid's top (past both curves' knees): two peaks read at different grid
            # points are neither paired nor free of the grid's step.
            tops = (_at(pk, max(loads)), _at(whole, max(loads)))
            d = paired(*tops, "throughput")
            past = "" if all(r["unstable"] for r in tops) else " (a curve is stable there: not yet saturated)"
            claims.one("Fig. 11", f"packetisation improves saturation bandwidth ({m}/{b})", f"received at "
                       f"{max(loads):g}{past}, packets minus whole: " + _diff(d), "at least 0", at_least, d, 0.0,
                       hip=r0, compares=True)
            d = paired(lp, lw, "mean_latency")
            claims.one("Fig. 11", f"packetisation does not improve message latency ({m}/{b}, load {low:g})",
                       f"packets minus whole: {d.value:+.1f} cycles (95 % CI {d.low:+.1f} .. {d.high:+.1f}, paired)",
                       "at least 0", at_least, d, 0.0, hip=r0, compares=True)
    lines.append("")

    # ---- Fig. 12: bit reversal and transpose, 64 nodes on both wirings (the paper gives neither)
    paper = {("hipiqs", "bitrev", 64): 0.83, ("hipiqs", "bitrev", 128): 0.75, ("central", "bitrev", 64): 0.85,
             ("central", "bitrev", 128): 0.88, ("hipiqs", "transpose", 64): 0.87, ("hipiqs", "transpose", 128): 0.80,
             ("central", "transpose", 64): 0.90, ("central", "transpose", 128): 0.90}
    top = max(fine)
    wiring = {"bmin": "4-ary 3-tree", "boards": "SP2 boards"}
    lines += ["## Fig. 12: bit reversal and transpose (640-flit buffers)", "",
              f"At 16 nodes the paper's curves do not saturate up to {top:g}: judged on the carried share (received "
              f"over offered) at {top:g}, at least {1 - STABLE:g}. At 64 nodes its saturation throughputs are read "
              f"off the figure ('around'), ± {AROUND}. The paper does not give its 64-node wiring: each 64-node "
              "claim is judged on the 4-ary 3-tree (the default) and on the SP2's own wiring, four 16-node boards "
              "cabled to each other directly (`--topology boards`: 5 links to each neighbouring board, 6 to the "
              "opposite one, no third stage; Stunkel et al., IBM Systems Journal 34(2), 1995).", "",
              "| nodes | wiring | pattern | organisation | message | saturation load | saturation throughput | "
              "paper |", "|---:|---|---|---|---:|---:|---|---:|"]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    perm = {}
    on_boards = {}       # (pattern, organisation, message) -> did any reading on SP2 boards agree
    for nodes, topo in ((16, "bmin"), (64, "boards"), (64, "bmin")):
        for pattern in ("bitrev", "transpose"):
            for m in (64, 128):
                values, label = {}, {}
                for org in ["central"] + [("hipiqs",) + r for r in ups]:
                    if isinstance(org, str):
                        rows = curve(fine, nodes=nodes, buffer_org=org, message_flits=m, buffer_flits=640,
                                     traffic=pattern, topology=topo)
                    else:
                        rows = hip(m, 640, org[1:], nodes=nodes, traffic=pattern, grid=fine, topology=topo)
                        ran.setdefault("Fig. 12", [])
                        if org[1:] not in ran["Fig. 12"]:
                            ran["Fig. 12"].append(org[1:])
                    perm[nodes, topo, pattern, org, m] = rows
                    o = org if isinstance(org, str) else "hipiqs"
                    label[org] = o if isinstance(org, str) else f"hipiqs (up by {org[1]})"
                    said = f"≥ {top:g}" if nodes == 16 else f"{paper[o, pattern, m]:g}"
                    lines.append(f"| {nodes} | {wiring[topo]} | {pattern} | {label[org]} | {m} | {_sat(rows):g} | "
                                 f"{_level(_peak(rows))} | {said} |")
                    if nodes == 16:
                        row = _at(rows, top)
                        values[org] = (est(row, "carried_share"), f"carried share at {top:g}: "
                                       + _level(row, "carried_share"))
                    else:
                        values[org] = (est(_peak(rows), "throughput"), _level(_peak(rows)))
                        axes[0 if pattern == "bitrev" else 1].plot(
                            *_drawn(rows), "--" if isinstance(org, str) else ("-" if org[1] == "input" else ":"),
                            marker="." if topo == "bmin" else "x", label=f"{label[org]} M={m}, {wiring[topo]}")
                if nodes == 16:
                    says, tol, judge, a = ("saturation beyond {top:g}", f"carried share ≥ {1 - STABLE:g}", at_least,
                                           (1.0, STABLE))
                else:
                    says, tol, judge = "saturation near {t:g}", f"± {AROUND} ('around')", within
                for o in ("central", "hipiqs"):
                    t = paper.get((o, pattern, m))
                    a = a if nodes == 16 else (t, AROUND)
                    kw = {} if nodes == 16 else dict(otherwise="not reproducible", evidence=unexplained(pattern, t))
                    text = f"{nodes} nodes, {pattern}, {o}, {m}-flit: " + says.format(top=top, t=t)
                    if topo == "boards":
                        for org in (["central"] if o == "central" else [("hipiqs",) + r for r in ups]):
                            hr = None if o == "central" else org[1:]
                            v = claims.one("Fig. 12", text, values[org][1], tol, judge, values[org][0], *a, hip=hr,
                                           reading="SP2 boards" + ("" if hr is None else ", " + name[hr]), **kw)
                            on_boards[pattern, o, m] = on_boards.get((pattern, o, m), False) or v == AGREE
                        continue
                    if nodes == 64 and on_boards[pattern, o, m]:
                        kw = dict(otherwise="ambiguity", evidence=TOPOLOGY + "; agrees on SP2 boards")
                    if o == "central":
                        claims.one("Fig. 12", text, values["central"][1], tol, judge, values["central"][0], *a, **kw)
                    else:
                        claims.each("Fig. 12", text, tol, judge, {r: values[("hipiqs",) + r] for r in ups}, *a, **kw)
    # §5.5: "for a message size of 128 flits, HIPIQS performs better than output queuing in terms of received
    # traffic beyond saturation" (bit reversal; "slightly better" for transpose), 64 nodes.
    for pattern in ("bitrev", "transpose"):
        for topo in ("boards", "bmin"):
            central = _at(perm[64, topo, pattern, "central", 128], top)
            values = {}
            for r in ups:
                h = _at(perm[64, topo, pattern, ("hipiqs",) + r, 128], top)
                d = paired(h, central, "throughput")
                values[r] = (d, f"received at {top:g}: HIPIQS {_level(h)}, central {_level(central)}; HIPIQS minus "
                                "central " + _diff(d))
            text = (f"64 nodes, {pattern}, 128-flit: beyond saturation HIPIQS receives more than the central "
                    "buffer")
            if topo == "boards":
                for r in ups:
                    v = claims.one("§5.5", text, values[r][1], "at least 0", at_least, values[r][0], 0.0, hip=r,
                                   reading="SP2 boards, " + name[r], compares=True, otherwise="not reproducible",
                                   evidence=unexplained(pattern))
                    on_boards[pattern, "§5.5"] = on_boards.get((pattern, "§5.5"), False) or v == AGREE
            else:
                kw = (dict(otherwise="ambiguity", evidence=TOPOLOGY + "; agrees on SP2 boards")
                      if on_boards[pattern, "§5.5"] else dict(otherwise="not reproducible",
                                                              evidence=unexplained(pattern)))
                claims.each("§5.5", text, "at least 0", at_least, values, 0.0, compares=True, **kw)
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
    lines += ["", "![Fig. 12](hipiqs_fig12.png)", ""]
    boards_agree = sum(v == AGREE for w, c, o, t, v, rr in claims.rows if v.reading.startswith("SP2 boards"))
    boards_n = sum(1 for *_, v, rr in claims.rows if v.reading.startswith("SP2 boards"))
    tree_rows = [v for w, c, o, t, v, rr in claims.rows if w in ("Fig. 12", "§5.5") and c.startswith("64 nodes")
                 and not v.reading.startswith("SP2 boards")]
    lines += [f"At 64 nodes the 4-ary 3-tree agrees with {sum(v == AGREE for v in tree_rows)} of {len(tree_rows)} "
              f"of Fig. 12's and §5.5's verdicts (both up-port readings), the SP2 boards with {boards_agree} of "
              f"{boards_n}.", ""]

    # ---- which HIPIQS reading reproduces the paper: counted over the claims every compared reading was run on
    verdicts = claims.rows

    def common(group):
        keys = [{(w, c) for w, c, *_, rr in verdicts if rr == r} for r in group]
        shared = set.intersection(*keys)
        return {r: (sum(v == AGREE for w, c, _, _, v, rr in verdicts if rr == r and (w, c) in shared), len(shared))
                for r in group}

    lines += ["## Which reading reproduces the paper", "",
              "Each comparison counts only the claims every reading in it was run on.", "",
              "| readings compared | reading | claims | agree |", "|---|---|---:|---:|"]
    by_storage = common(readings)
    by_up = common(ups)
    for title, table in (("all four (Figs. 7-9)", by_storage), ("up-port readings (Figs. 7-10, 12)", by_up)):
        for r, (agree, n) in table.items():
            lines.append(f"| {title} | {name[r]} | {n} | {agree} |")

    def leaders(table):
        most = max(a for a, _ in table.values())
        return [r for r, (a, _) in table.items() if a == most], most, next(iter(table.values()))[1]

    sentences = []
    for what, table in (("the up-port readings", by_up), ("Figs. 7-9 alone", by_storage)):
        best, most, n = leaders(table)
        sentences.append(f"on {what}, {listed([name[r] for r in best])} "
                         + ("agree" if len(best) > 1 else "agrees") + f" with the most claims ({most} of {n})"
                         + (", the default among them" if r0 in best and len(best) > 1 else
                            ", the default" if r0 in best else ", not the default"))
    summary = "; ".join(sentences)
    lines += ["", summary[0].upper() + summary[1:] + f". The default is {name[r0]}.", ""]

    every = [v for *_, v, _ in verdicts]
    headline = (f"{tally(every)} claims agree under the default reading: {by_class(every)} ({agreeing(every)} of "
                f"{len(every)} verdicts agree over every reading run; another reading's verdicts are rows of their "
                "own, never counted here).")
    lines += ["## Claims against the paper", "", headline, "",
              "| where | the paper says | reading | ours | tolerance | verdict | class |",
              "|---|---|---|---|---|---|---|"]
    lines += [f"| {w} | {c} | {v.reading} | {o} | {t} | {v} | "
              + ("" if v == AGREE else f"{v.kind}: {v.evidence}" if v.evidence else v.kind) + " |"
              for w, c, o, t, v, rr in verdicts]
    lines += ["", built(started, simulated.values())]
    ran_text = _ran_sentence(ran, readings, name, r0)
    stuck = (f"Deadlocked points: {len(set(deadlocked))} ({'; '.join(sorted(set(deadlocked)))})." if deadlocked
             else "No point of this report deadlocked.")
    lines = [x.replace("RAN_READINGS", ran_text).replace("HEADLINE", headline).replace("DEADLOCKS", stuck)
             for x in lines]
    path = out / "hipiqs.md"
    path.write_text("\n".join(lines) + "\n")
    return [path, out / "hipiqs_fig7.png", out / "hipiqs_fig12.png"]
