"""Report ``mediaworm``'s rule and tables: the jitter-free rule, the verdicts built on it, and the sections on
the paper's Tables II (FGVC against FGFQ) and VI (PCS), for :mod:`switchq.validate.reports.mediaworm` (Table V,
best-effort latency, is :mod:`.mediaworm_table_v`).

Jitter-free is a rule on a point's frame delivery interval (:func:`jitter_free`), calibrated on the paper's
Table II, whose every cell the paper's Fig. 5 calls jitter-free; a curve is jitter-free "up to" the highest
load of its grid at and below which every point is (:func:`top_load`). Tables and sentences use those; a
verdict never does (they are point values): "jitter-free at a load" is three verdicts of the verdict engine
(:mod:`switchq.validate.verdict`) on that point's intervals (d-bar within T ± 1.5 ms, sigma_d at most 2 ms,
frames late at most 1 %), "not jitter-free" one, and a claim comparing two configurations is judged on the
paired difference of their runs (every point runs with the same seed and replications). The engine decides
each class; the default reading's verdict is given the other readings' verdicts of the same claim, judged
first, and the paper's sentence allowing each (:mod:`switchq.validate.reports.mediaworm_quotes`).
"""

from __future__ import annotations

import math

from switchq.solvers.wormhole_contention import TABLE_V, TABLE_V_LOADS, TABLE_VI, pcs_fill

from . import est
from .claims import AGREE, MIN_SAMPLES, Exact, at_least, at_most, derived, fmt, paired, sampled, shown, within
from .mediaworm_quotes import ALLOWS, CROSSBAR_FIFO, SAYS, SECTION, table_ii_row, table_vi_row

__all__ = ["jitter_free", "top_load", "overloaded", "P", "PERIOD_MS", "JITTER_MEAN_MS", "JITTER_SD_MS", "STRICT",
           "TABLE_II", "BUDGET"]

MODEL = "wormhole"
INTERVALS = ("frame_interval_mean_ms", "frame_interval_sd_ms")     # d-bar and sigma_d, ms
PERIOD_MS = 1000.0 / 30        # the model's frame period; the paper writes 33 ms
JITTER_MEAN_MS = 1.5           # jitter-free: |d-bar - T| within this ...
JITTER_SD_MS = 2.0             # ... and sigma_d at most this
STRICT = (0.5, 1.0)            # a stricter rule, reported beside the main one
CELL_MS = 0.5                  # Table II: a cell (d-bar or sigma_d) agrees within this; "nearly identical" curves
SAME_MS = 0.25                 # Table II: FGVC and FGFQ "quite similar"
REL = 0.2                      # Tables V and VI: relative tolerance
SMALL = 10                     # Fig. 9: messages shorter than this are "very small" (header > 10 %)
LATE = 0.01                    # jitter-free: at most this share of frames undelivered two periods after their start
KNEE, BEYOND = 0.8, 0.9        # the loads the paper names: "up to 0.80 ...", "at 90 % load"

# Table II: (scheduler, load) -> (d-bar ms, sigma_d ms), 80:20.
TABLE_II = {("fgvc", 0.6): (33.12, 0.63), ("fgvc", 0.7): (32.74, 1.25), ("fgvc", 0.8): (32.28, 1.38),
            ("fgfq", 0.6): (33.14, 0.58), ("fgfq", 0.7): (32.74, 1.22), ("fgfq", 0.8): (32.33, 1.31)}
# Grids: the full build's, then the quick one's (a smoke test of every section, not a reproduction).
LOADS, QUICK_LOADS = (0.6, 0.7, 0.8, 0.85, 0.9, 0.96), (0.6, 0.9)
MESH_LOADS, QUICK_MESH = (0.8, 0.9), (0.9,)
PCS_LOADS, QUICK_PCS = tuple(sorted(TABLE_VI)), (0.42, 0.91)
SIZES, QUICK_SIZES = (4, 8, 20, 40), (4, 20)
SIZE_LOADS, QUICK_SIZE_LOADS = (0.64, 0.8), (0.8,)
# Each point's run (simulated seconds measured, warm-up, replications): full, quick. Five replications at least: the
# fewest a verdict may stand on (claims.MIN_SAMPLES).
RUN, QUICK_RUN = (0.25, 0.04, 5), (0.1, 0.034, 5)
# Replications the verdict engine may take a figure to before calling it inconclusive, times its own: the minimum.
BUDGET = 4
MIXES = ((20, 80), (50, 50), (80, 20), (90, 10))
MESH_MIXES = ((40, 60), (60, 40), (80, 20))
DEFAULTS = {"vcs": 16, "crossbar": "multiplexed", "scheduler": "fgvc", "switching": "wormhole", "streams": "vbr",
            "mix": "80,20", "message_flits": 20, "topology": "switch", "link_rate": 400e6, "flit_bits": 32,
            "header": "overhead", "load_basis": "nominal", "vclock_state": "message"}
MPEG2 = {"streams": "mpeg2", "link_rate": 1.6e9, "flit_bits": 128}
PCS_ROUTER = {"link_rate": 100e6, "vcs": 24, "mix": "100,0"}
# Readings of what the paper leaves open (label, options); a reading needing an option the simulator lacks is skipped.
READINGS = (("default", {}), ("auxVC kept per VC", {"vclock_state": "vc"}),
            (CROSSBAR_FIFO, {"crossbar_output": "fifo"}),
            ("header flit carries video", {"header": "payload"}),
            ("streams counted on the wire", {"load_basis": "wire"}),
            ("frames every 33 ms", {"frame_period": 0.033}),
            ("stream destinations capped", {"placement": "capped"}))
# Table II's own reading: §III-D compares the schedulers before "In order to avoid traffic burstiness, we regulate the
# traffic injection as described in Section IV", so its runs may have had no regulator (FGVC and FGFQ both, at
# Table II's loads; the figures of §V come after the regulator and run with it).
UNREGULATED = "no input regulator"
TABLE_II_READINGS = ((UNREGULATED, {"regulator": "none"}),)
# Table VI's reading beside the default's: a PCS probe takes any free output VC (§III-F names no rule).
PROBE_ANY = "probe takes any free VC"
PCS_READINGS = ((PROBE_ANY, {"probe_vc": "any"}),)
SIZE_READINGS = ("default", "streams counted on the wire", "header flit carries video")
# Best effort's readings, run on Table V: §IV-B.2's "picked from a uniform distribution of the available VCs" (free
# VCs, the default, or drawn up front) and §III-D's "the Vtick is assigned the largest possible value" (the stamp is
# that value, the default, or VirtualClock's stamps grow by it flit by flit); and, since video that over-commits an
# output starves best effort there, §IV-B.3's limit on incoming streams (alone, and with the header carrying video).
BE_READINGS = (("default", {}), (CROSSBAR_FIFO, {"crossbar_output": "fifo"}),
               ("VCs drawn", {"best_effort_vcs": "drawn"}),
               ("stamps grow by Vtick", {"best_effort_stamp": "vclock"}),
               ("VCs drawn, stamps grow", {"best_effort_vcs": "drawn", "best_effort_stamp": "vclock"}),
               ("stream destinations capped", {"placement": "capped"}),
               ("destinations capped, header carries video", {"placement": "capped", "header": "payload"}))


def P(**kw) -> dict:
    """A point's options, defaults left out (so equal points are equal dicts); mix given as (x, y)."""
    if "mix" in kw and not isinstance(kw["mix"], str):
        kw["mix"] = f"{kw['mix'][0]:g},{kw['mix'][1]:g}"
    return {k: v for k, v in kw.items() if DEFAULTS.get(k, object()) != v}


def _period(p: dict) -> float:
    return 1000.0 * p["frame_period"] if "frame_period" in p else PERIOD_MS


def jitter_free(row, period_ms: float = PERIOD_MS, mean_ms: float = JITTER_MEAN_MS,
                sd_ms: float = JITTER_SD_MS) -> bool:
    """Whether a point delivers frames jitter-free: |d-bar - T| <= ``mean_ms``, sigma_d <= ``sd_ms`` and at most
    :data:`LATE` of its frames undelivered two frame periods after they started (when the row says). For tables
    and sentences: a verdict is made from the intervals (:meth:`_Tables.jf`).

    Examples
    --------
    >>> jitter_free({"frame_interval_mean_ms": 32.28, "frame_interval_sd_ms": 1.38})   # Table II, FGVC at 0.8
    True
    >>> jitter_free({"frame_interval_mean_ms": 32.28, "frame_interval_sd_ms": 1.38}, 1000 / 30, *STRICT)
    False
    >>> jitter_free({"frame_interval_mean_ms": None, "frame_interval_sd_ms": None})
    False
    """
    d, s = est(row, "frame_interval_mean_ms").value, est(row, "frame_interval_sd_ms").value
    late = est(row, "frames_late_share").value
    return (math.isfinite(d) and math.isfinite(s) and abs(d - period_ms) <= mean_ms and s <= sd_ms
            and not late > LATE)


def top_load(curve: dict, period_ms: float = PERIOD_MS, rule: tuple = (JITTER_MEAN_MS, JITTER_SD_MS)):
    """The highest load of ``curve`` (load -> row) at and below which every point is jitter-free; None if none.

    Examples
    --------
    >>> ok, bad = {"frame_interval_mean_ms": 33.3, "frame_interval_sd_ms": 0.2}, {"frame_interval_mean_ms": 40.0}
    >>> top_load({0.6: ok, 0.8: ok, 0.9: bad, 0.96: ok}), top_load({0.6: bad, 0.8: ok})
    (0.8, None)
    """
    top = None
    for load in sorted(curve):
        if not jitter_free(curve[load], period_ms, *rule):
            break
        top = load
    return top


def _excess(curve: dict, period_ms: float = PERIOD_MS) -> float:
    """Sum over the grid of |d-bar - T| + sigma_d (ms): how far a curve is from jitter-free (inf if a point has
    none)."""
    total = 0.0
    for row in curve.values():
        d, s = est(row, "frame_interval_mean_ms").value, est(row, "frame_interval_sd_ms").value
        total += abs(d - period_ms) + s if math.isfinite(d) and math.isfinite(s) else math.inf
    return total


def _top(x) -> str:
    return "none" if x is None else f"{x:g}"


def _upto(x) -> str:
    """How far a curve is jitter-free, for a sentence."""
    return "at no load of the grid" if x is None else f"up to {x:g}"


def _fmt(e, digits: int = 2) -> str:
    """A figure (or a verdict) with its interval, as :func:`~switchq.validate.reports.claims.fmt` prints it (one
    cut at what the figure can be as ``value [low, high] (clipped)``); a dash when it has no value."""
    return fmt(e, digits) if math.isfinite(e.value) else "—"


def _fd(d, digits: int = 2) -> str:
    """A paired difference with its interval."""
    return f"{d.value:+.{digits}f} (95 % CI {d.low:+.{digits}f} .. {d.high:+.{digits}f}, paired)"


def _ds(row, period_ms: float = PERIOD_MS) -> str:
    """A table cell: d-bar / sigma_d (ms) and the share of frames late if above :data:`LATE`, bold when not
    jitter-free."""
    d, s, late = (est(row, m) for m in ("frame_interval_mean_ms", "frame_interval_sd_ms", "frames_late_share"))
    text = f"{d.value:.2f} / {s.value:.2f}" if math.isfinite(d.value) else "—"
    text += f", {late.value:.0%} late" if late.value > LATE else ""
    return text if jitter_free(row, period_ms) else f"**{text}**"


def _be(row, v=None) -> str:
    """Best-effort latency for a table: the mean and its interval (the interval verdict ``v`` was judged on, when
    given: a latency, or the carried share of a 'Sat.' cell), prefixed by ``unstable`` and the backlog's growth
    where the run is (the latency of a growing queue is no steady state's)."""
    head = f"unstable (backlog +{row.get('backlog_growth', 0):.3g} flits)" if row.get("unstable") else ""
    if v is not None and v.sense == "at_most":
        return (head + "; " if head else "") + f"carried share {_fmt(v, 4)}"
    if head and v is None:
        return head
    text = _fmt(est(row, "best_effort_latency_us") if v is None else v, 1)
    return f"{head}: {text}" if head else text


def overloaded(mix: str, load: float) -> bool:
    """Whether the paper's own Table V marks best effort saturated ("Sat.") at ``mix`` ("x:y") and ``load`` on its
    single switch (16 VCs, 400 Mbit/s, synthetic VBR): a run there is overloaded by the paper's design, so a
    claim about it is judged as one about the system under overload (``saturated``). Nowhere else is.

    Examples
    --------
    >>> overloaded("80:20", 0.96), overloaded("80:20", 0.9), overloaded("90:10", 0.9), overloaded("100:0", 0.96)
    (True, False, True, False)
    """
    x, y = (int(v) for v in mix.split(":"))
    row = TABLE_V.get((x, y), ())
    return any(abs(load - at) < 1e-9 and paper is None for at, paper in zip(TABLE_V_LOADS, row))


def realtime(e, *rows):
    """A real-time figure (d-bar, sigma_d, frames late) of runs that may carry best effort: the stability tests
    judge the whole run (one backlog, its worst part), so a failure with best effort aboard, which the paper
    overloads by design at these loads, does not show the real-time class unstable. Its stability is then not
    judged (None): the engine lets such a figure neither agree nor be refused as unstable. A run without best effort
    keeps its verdict. The figure can still be measured again (``more``)."""
    from dataclasses import replace

    if not any(r.get("unstable") is True and str(r.get("mix", "100:0")).split(":")[-1] not in ("0", "0.0")
               for r in rows):
        return e
    again = getattr(e, "remake", None)
    return replace(e, stable=None, remake=None if again is None else
                   (lambda n: realtime(e.more(n), *[r.more(n) if callable(getattr(r, "more", None)) else r
                                                    for r in rows])))


def _near(grid, x):
    """The highest load of ``grid`` at or below ``x`` (the lowest if none is)."""
    below = [v for v in grid if v <= x + 1e-9]
    return max(below) if below else min(grid)


def _above(grid, x):
    """The lowest load of ``grid`` above ``x`` (the highest if none is)."""
    above = [v for v in grid if v > x + 1e-9]
    return min(above) if above else max(grid)


def _pcs_streams(load) -> int:
    """Streams Table VI's PCS router (8 x 8, 24 VCs, 100 Mbit/s, 100:0) draws at ``load``."""
    from switchq.models.wormhole import WormholeRouter, WormholeTraffic
    from switchq.solvers.wormhole_traffic import stream_total

    return stream_total(8, WormholeRouter(vcs=24, link_rate=100e6, switching="pcs"), WormholeTraffic(load, (100, 0)))


class _Tables:
    """The verdicts (where, the paper says, ours, band, verdict, reading) and Tables II and VI; mixed into the
    report's pass over its sections (``self.run``, ``self.lines``, ``self.claims``, ``self.judged``,
    ``self.loads``)."""

    def against(self, loads, base, **change) -> tuple:
        """The curves at ``loads`` of the router ``base`` (options) and of it with ``change``, and the top load
        of each (:func:`top_load`)."""
        a, b = self.run.curve(loads, **P(**base)), self.run.curve(loads, **P(**change, **base))
        return a, b, top_load(a), top_load(b)

    # ------------------------------------------------------------------ verdicts
    def judge(self, where, says, band, rule, value, *args, reading="default", show=None, digits=2, **kw):
        """A verdict of the engine (``rule``: within, at_least, at_most), kept as a row of the claims table (none
        while points are collected); ``band`` says the band for the table, ``show`` makes the column "ours"
        from the verdict (default: the interval it was judged on). The default reading's verdict is given every
        other reading's verdict of the same claim (judged before it) and the paper's sentence allowing the first
        of them that agrees (:data:`~.mediaworm_quotes.ALLOWS`), from which the engine may call its
        disagreement an ambiguity."""
        if self.run.collecting:
            return None
        if not isinstance(value, Exact) and (getattr(value, "n", 0) < MIN_SAMPLES or not (
                math.isfinite(value.low) and math.isfinite(value.high))):
            # Measured in too few replications (no frame delivered in the others): judged all the same, the engine
            # calls it inconclusive; listed too.
            self.unjudged.append((where, says, reading, f"measured in {getattr(value, 'n', 0)} replications"))
        claim = f"{where}: {says}"
        others = self.judged.setdefault(claim, [])
        if reading == "default" and others:
            kw.update(readings=list(others), allows=next(
                (ALLOWS[r.reading] for r in others if r == AGREE and ALLOWS.get(r.reading)), None))
        v = rule(value, *args, claim=claim, section=SECTION.get(where, where), reading=reading, **kw)
        if reading != "default":
            others.append(v)
        ours = show(v) if show is not None else _fmt(v, digits)
        if v.n > v.base_n:
            ours += f" ({v.n} replications)"
        self.claims.append((where, says, ours, band, v, reading))
        return v

    def jf(self, where, says, row, period_ms=PERIOD_MS, **kw):
        """Jitter-free at a point: d-bar within T ± :data:`JITTER_MEAN_MS`, sigma_d at most :data:`JITTER_SD_MS`,
        frames late at most :data:`LATE`; a verdict each (a figure measured in too few replications is listed
        as not judged)."""
        d, s, late = (realtime(est(row, m), row)
                      for m in ("frame_interval_mean_ms", "frame_interval_sd_ms", "frames_late_share"))
        self.judge(where, f"{says}: d-bar", f"{period_ms:.2f} ± {JITTER_MEAN_MS} ms", within, d, period_ms,
                   JITTER_MEAN_MS, **kw)
        self.judge(where, f"{says}: sigma_d", f"≤ {JITTER_SD_MS} ms", at_most, s, JITTER_SD_MS, **kw)
        self.judge(where, f"{says}: frames late", f"≤ {LATE}", at_most, late, LATE, digits=3, **kw)

    def not_jf(self, where, says, row, period_ms=PERIOD_MS, **kw):
        """Not jitter-free at a point: one verdict, on the first of the rule's three figures the point's own
        values break (frames late, sigma_d, d-bar), or on sigma_d (the paper's jitter) when none does. A claim that
        delivery breaks down is one about the system under overload (``saturated``): a run with no steady state is
        its set-up, and its figure a bound that only grows with the run."""
        kw.setdefault("saturated", True)
        d, s, late = (est(row, m) for m in ("frame_interval_mean_ms", "frame_interval_sd_ms", "frames_late_share"))
        if late.value > LATE or not math.isfinite(s.value):
            self.judge(where, says, f"late ≥ {LATE}", at_least, late, LATE,
                       show=lambda v: f"frames late {_fmt(v, 3)}", **kw)
        elif s.value <= JITTER_SD_MS and abs(d.value - period_ms) > JITTER_MEAN_MS:
            up = d.value > period_ms
            band = f"{'≥' if up else '≤'} {period_ms:.2f} {'+' if up else '−'} {JITTER_MEAN_MS} ms"
            self.judge(where, says, band, at_least if up else at_most, d,
                       period_ms + (JITTER_MEAN_MS if up else -JITTER_MEAN_MS), show=lambda v: f"d-bar {_fmt(v)} ms",
                       **kw)
        else:
            self.judge(where, says, f"≥ {JITTER_SD_MS} ms", at_least, s, JITTER_SD_MS,
                       show=lambda v: f"sigma_d {_fmt(v)} ms", **kw)

    def cmp(self, where, says, a, b, rule, *args, metric="frame_interval_sd_ms", digits=2, **kw):
        """A claim comparing two configurations: ``rule`` on the paired difference ``a - b`` of ``metric``; ``a``
        and ``b`` lists of points: of its sum over them (a curve's), replication by replication."""
        if self.run.collecting:
            return None
        runs = (a if isinstance(a, list) else [a]) + (b if isinstance(b, list) else [b])
        if isinstance(a, list):
            a, b = (derived(x, metric, lambda *xs: sum(xs), metric) for x in (a, b))
        band = {within: f"within ± {args[-1]:g}", at_least: f"≥ {args[0]:g}", at_most: f"≤ {args[0]:g}"}[rule]
        figure = paired(a, b, metric)
        if metric in INTERVALS + ("frames_late_share",):
            figure = realtime(figure, *runs)
        return self.judge(where, says, "paired difference " + band, rule, figure, *args,
                          show=lambda v: _fd(v, digits), compares=True, **kw)

    def curves_table(self, curves: dict, loads, period_ms=PERIOD_MS, extra=()):
        """| load | curve d-bar / sigma_d ... | extra columns |, extra: (title, load -> text)."""
        self.lines += ["| load | " + " | ".join(curves) + "".join(f" | {t}" for t, _ in extra) + " |",
                       "|---:|" + "---|" * (len(curves) + len(extra))]
        for x in loads:
            self.lines.append(f"| {x:g} | " + " | ".join(_ds(c[x], period_ms) for c in curves.values())
                              + "".join(f" | {f(x)}" for _, f in extra) + " |")
        self.lines.append("")

    def _reading_counts(self, names, wheres) -> dict:
        """reading -> (claims, agree) over the claims of ``wheres`` every reading in ``names`` was judged on."""
        keys = [{(w, s) for w, s, *_, r in self.claims if r == n and w in wheres} for n in names]
        shared = set.intersection(*keys) if keys else set()
        return {n: (len(shared), sum(v == AGREE for w, s, _, _, v, r in self.claims if r == n and (w, s) in shared))
                for n in names}

    def _reading_table(self, counts: dict) -> list:
        best = max((a for _, a in counts.values()), default=0)
        lines = ["| reading | claims | agree | most |", "|---|---:|---:|---|"]
        lines += [f"| {n} | {c} | {a} | {'yes' if a == best else ''} |" for n, (c, a) in counts.items()]
        return lines + [""]

    # ------------------------------------------------------------------ Table II and the readings
    def table_ii(self):
        run = self.run
        loads = [x for x in (0.6, 0.7, 0.8) if x in self.loads]
        top = min(0.96, max(self.loads))
        # FGVC under every reading (at Table II's loads and the top of Fig. 5's grid; Table II's own readings at its
        # loads only); FGFQ under the default and Table II's own readings.
        fgvc = {n: run.curve(sorted(set(loads + [top])), **P(**o)) for n, o in self.readings}
        fgvc.update({n: run.curve(loads, **P(**o)) for n, o in self.table_ii_readings})
        fgfq = {n: run.curve(loads, **P(scheduler="fgfq", **o)) for n, o in (("default", {}), *self.table_ii_readings)}
        readings = self.readings + self.table_ii_readings
        self.lines += ["## Table II: FGVC against FGFQ (80:20)", "",
                       f"Paper, then ours, d-bar / sigma_d in ms; a cell's band is ± {CELL_MS} ms (the paper's "
                       "33 ms against our 33.33 ms frame period is 0.33 ms of it). FGFQ under the default reading "
                       "and with no input regulator (`--regulator none`: §III-D brings the regulator in after "
                       "this table) only. Bold: not jitter-free.", "",
                       "| load | scheduler | paper | " + " | ".join(n for n, _ in readings) + " |",
                       "|---:|---|---|" + "---|" * len(readings)]
        for x in loads:
            self.lines.append(f"| {x:g} | FGVC | {TABLE_II['fgvc', x][0]} / {TABLE_II['fgvc', x][1]} | " + " | ".join(
                _ds(fgvc[n][x], _period(o)) for n, o in readings) + " |")
            self.lines.append(f"| {x:g} | FGFQ | {TABLE_II['fgfq', x][0]} / {TABLE_II['fgfq', x][1]} | " + " | ".join(
                _ds(fgfq[n][x]) if n in fgfq else "" for n, _ in readings) + " |")
        self.lines.append("")

        def cells(sched, curve, name):
            gaps = []
            for x in loads:
                for metric, target, what in zip(INTERVALS, TABLE_II[sched, x], ("d-bar", "sigma_d")):
                    v = self.judge("Table II", f"{sched.upper()} at {x:g}: {what} = {target} ms", f"± {CELL_MS} ms",
                                   within, est(curve[x], metric), target, CELL_MS, reading=name,
                                   quote=table_ii_row(x), show=lambda v, t=target: f"{_fmt(v)} (off by "
                                   f"{shown(v.value, 2) - t:+.2f})")
                    gaps += [] if v is None else [abs(shown(v.value, 2) - target)]
            return gaps

        # The other readings first: the default's verdict of each claim is given theirs.
        for name, _ in self.table_ii_readings:
            cells("fgfq", fgfq[name], name)
        gaps = cells("fgfq", fgfq["default"], "default")
        for name in sorted(fgfq, key=lambda n: n == "default"):
            for x in loads:
                for metric, what in zip(INTERVALS, ("d-bar", "sigma_d")):
                    self.cmp("Table II", f"FGVC and FGFQ quite similar (the paper: within 0.07 ms; {what} at {x:g})",
                             fgvc[name][x], fgfq[name][x], within, 0.0, SAME_MS, metric=metric, reading=name,
                             quote=SAYS["table2"])
        for name, opts in sorted(readings, key=lambda r: r[0] == "default"):
            fg = fgvc[name]
            fgvc_gaps = cells("fgvc", fg, name)
            gaps += fgvc_gaps if name == "default" else []
            for a, b in zip(loads, loads[1:]):
                self.cmp("Table II", f"FGVC: sigma_d grows with load (0.63, 1.25, 1.38; {b:g} against {a:g})", fg[b],
                         fg[a], at_least, 0.0, reading=name, quote=table_ii_row(b))
                self.cmp("Table II", f"FGVC: d-bar falls with load (33.12, 32.74, 32.28; {b:g} against {a:g})", fg[b],
                         fg[a], at_most, 0.0, metric="frame_interval_mean_ms", reading=name, quote=table_ii_row(b))
            if not opts:
                # The default counts load nominally (the share of the link offered), so its real-time
                # component is the mix of 0.96; the readings that count the wire are judged on the wire.
                wire = run.theory(**P(load=0.96)).get("reserved_input_load", math.nan)
                self.judge("Fig. 5", "at 0.96 the real-time component is around 0.75", "± 0.05 ('around'), nominal",
                           within, Exact(0.8 * 0.96, "80 % of the load"), 0.75, 0.05, reading=name,
                           quote=SAYS["fig5 rt"], show=lambda v: f"{v.value:.3f} nominal (80 % of 0.96; {wire:.3f} "
                           "on the wire)")
            elif set(opts) & {"header", "load_basis"}:        # the readings that change it
                wire = run.theory(**P(load=0.96, **opts)).get("reserved_input_load", math.nan)
                if math.isfinite(wire):
                    self.judge("Fig. 5", "at 0.96 the real-time component is around 0.75 (on the wire)",
                               "± 0.05 ('around'), on the wire", within,
                               Exact(wire, "solve wormhole: reserved_input_load"), 0.75, 0.05, reading=name,
                               quote=SAYS["fig5 rt"], show=lambda v: f"{v.value:.3f} on the wire (analytic)")
        counts = self._reading_counts([n for n, _ in self.readings], ("Table II", "Fig. 5"))
        self.lines += ["The claims of Table II and Fig. 5 judged under every reading, counted per reading:", ""]
        self.lines += self._reading_table(counts)
        for name, _ in self.table_ii_readings:
            own = self._reading_counts(["default", name], ("Table II",))
            self.lines += [f"With {name} (Table II's own reading, FGFQ run with it too), {own[name][1]} of the "
                           f"{own[name][0]} Table II claims agree; the default, {own['default'][1]} of the same.", ""]
        d0 = [est(fgvc["default"][x], "frame_interval_mean_ms").value for x in loads]
        if d0 and gaps and all(math.isfinite(v) for v in d0 + gaps):
            self.lines += [f"Under the default reading our FGVC d-bar lies within "
                           f"{max(abs(v - PERIOD_MS) for v in d0):.2f} ms of T = {PERIOD_MS:.2f} ms at Table II's "
                           f"loads, where the paper's falls from 33.12 to 32.28 ms; the largest gap to a Table II "
                           f"cell is {max(gaps):.2f} ms.", ""]

    # ------------------------------------------------------------------ Fig. 10 and Table VI
    def fig10(self):
        run, L = self.run, self.pcs_loads
        mw, pcs, t_mw, t_pcs = self.against(L, PCS_ROUTER, switching="pcs")
        others = {n: run.curve(L, **P(switching="pcs", **PCS_ROUTER, **o)) for n, o in self.pcs_readings}
        self.lines += ["## Fig. 10 and Table VI: MediaWorm against PCS (100 Mbit/s, 24 VCs)", "",
                       f"Each point {run.command(P(**PCS_ROUTER))} (`--switching pcs` for PCS): 32-bit flits read "
                       "(the paper gives none at 100 Mbit/s), all traffic real-time (one stream per VC needs every "
                       f"VC). A Table VI count's band is the paper's ± {REL:.0%}. 'Static fill' is the attempts our "
                       "established count would need if an attempt failed only on an occupied output VC (a closed "
                       "form, `pcs_fill`): the paper states no such rule, so no verdict rests on it. A probe names a "
                       "drawn output VC and is dropped when it is held (the default, as §IV-B.1 draws a stream's "
                       "destination VC), or takes any free one (`--probe-vc any`), judged first.", ""]
        self.curves_table({"MediaWorm": mw, "PCS": pcs}, L, extra=(
            ("attempted: paper / ours", lambda x: f"{TABLE_VI[x][0]} / {est(pcs[x], 'attempted').value:.1f}"),
            ("established", lambda x: f"{TABLE_VI[x][1]} / {est(pcs[x], 'established').value:.1f}"),
            ("dropped", lambda x: f"{TABLE_VI[x][2]} / {est(pcs[x], 'dropped').value:.1f}"),
            ("static fill: attempts", lambda x: self._fill(pcs[x])),
            *((f"{n}: attempted / dropped", lambda x, c=c: f"{est(c[x], 'attempted').value:.1f} / "
               f"{est(c[x], 'dropped').value:.1f}") for n, c in others.items()),
            ("streams drawn (effective load)", lambda x: f"{_pcs_streams(x)} ({_fmt(est(pcs[x], 'effective_load'), 4)})"
             if math.isfinite(est(pcs[x], "effective_load").value) else str(_pcs_streams(x)))))
        self.lines.append(f"MediaWorm is jitter-free {_upto(t_mw)}, PCS {_upto(t_pcs)}.")
        q = SAYS["fig10"]
        self.jf("Fig. 10", f"MediaWorm jitter-free up to about 0.7 (at {_near(L, 0.7):g})", mw[_near(L, 0.7)], quote=q)
        self.not_jf("Fig. 10", f"MediaWorm not jitter-free beyond about 0.7 (at {_above(L, 0.75):g})",
                    mw[_above(L, 0.75)], quote=q)
        self.jf("Fig. 10", f"PCS jitter-free over 0.8 (at {_above(L, 0.8):g})", pcs[_above(L, 0.8)], quote=q)
        for name, curve in (*others.items(), ("default", pcs)):      # the other readings first
            for x in L:
                row = table_vi_row(x, *TABLE_VI[x])
                if not self.run.collecting:
                    more = sampled(curve[x], lambda d, e: d - e, "dropped", "established")
                    self.judge("Table VI", f"PCS drops more connections than it establishes (at {x:g})", "≥ 0",
                               at_least, more, 0.0, reading=name, quote=row,
                               show=lambda v: f"dropped minus established {_fmt(v, 1)}")
                for k, what in enumerate(("attempted", "established", "dropped")):
                    t = TABLE_VI[x][k]
                    # the ratio to three places: at two, 0.799 (outside ± 20 %) would print as 0.80
                    self.judge("Table VI", f"at {x:g}: {t} {what}", f"± {REL:.0%}", within, est(curve[x], what), t,
                               REL * t, reading=name, quote=row,
                               show=lambda v, t=t: f"{_fmt(v, 1)} (ours / paper {v.value / t:.3f})")
        self.plot("mediaworm_fig10.png", "Fig. 10: MediaWorm vs PCS, 100 Mbit/s, 24 VCs",
                  [("MediaWorm", mw, "o-"), ("PCS", pcs, "s--")])

    @staticmethod
    def _fill(row) -> str:
        n = est(row, "established").value
        if not math.isfinite(n) or not 0 <= round(n) < 8 * 24:
            return "—"
        return f"{pcs_fill(int(round(n)), 8, 24).attempts:.0f}"

