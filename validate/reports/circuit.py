"""Report ``circuit``: paper 001 (Ma & Steenkiste, circuit-switched HIPPI LANs), Figures 1-20 from their prose.

Every number the paper's text gives is set beside ours with a verdict of the
verdict engine (:mod:`switchq.validate.verdict`), which decides its class: a
printed number is a band of half a unit of its last digit, a bound ("over 90
%") a side; a claim comparing two configurations (an order, a gain, "almost
identical") is judged on the interval of their paired difference (or ratio):
every point runs with the same seed and :data:`REPLICATIONS` replications, so
replication r of each drew from the same streams. Every point runs saturated
adapters (the simulator has no stability test: its runs are not judged
stable), and every figure judged is a saturation throughput or a difference
or ratio of two, so every verdict passes ``saturated=True``. Where the paper
reads two ways, the other reading is judged first and given to the default
verdict with the sentence that allows both, when the paper has one.
Simulated points are read through the sweep engine and its store
(:func:`switchq.validate.reports.points`).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, fields
from pathlib import Path

from ..result import Estimate
from .claims import Measured, agreeing, at_least, by_class, cell, fmt, listed
from . import begin, est, points, readings
from .circuit_bimodal import fig_16, figs_12_17, figs_13_15
from .circuit_choices import CHOICES
from .circuit_claims import SAME
from .circuit_clock import fig_1, fig_18, one_byte
from .circuit_common import diff_text, paired_throughput
from .circuit_overhead import READ, SIZES, figs_10_11
from .circuit_sizes import figs_2_4, figs_5_7, figs_8_9
from .circuit_traffic import fig_19, fig_20

REPLICATIONS = 5     # every point's, quick or full: the fewest a verdict may stand on (claims.MIN_SAMPLES)
# Replications the engine may take a figure to before calling it inconclusive (x its own): the minimum.
BUDGET = 4


@dataclass(frozen=True)
class _Pt(Measured):
    """A point's throughput estimate (which the engine can measure again on more replications) and the row it
    came from (what a paired comparison reads)."""

    row: dict = field(default=None, repr=False, compare=False)


class _Run:
    """The report's simulated points: one budget, one seed, one store."""

    def __init__(self, quick, workers, seed, store):
        self.seconds, self.reps = (0.05 if quick else 1.0), REPLICATIONS
        self.kw = dict(replications=self.reps, seed=seed, workers=workers, store=store,
                       progress=sys.stderr.isatty())

    def rows(self, params: list, seconds: float | None = None) -> list:
        s = seconds or self.seconds
        rows = points("circuit", [{**p, "seconds": s} for p in params], **self.kw)
        for r in rows:                 # what the rows were run with (est and paired read it)
            r.setdefault("replications", self.reps)
        return rows

    def __call__(self, params: list, seconds: float | None = None) -> list:
        out = []
        for r in self.rows(params, seconds):
            e = est(r, "throughput")
            out.append(_Pt(**{f.name: getattr(e, f.name) for f in fields(Estimate)}, remake=e.remake, row=r))
        return out

    def how(self, seconds=None) -> str:
        return (f"{seconds or self.seconds} s of simulated time after {0.1 * (seconds or self.seconds):g} s of "
                f"warm-up, {self.reps} replications, seed {self.kw['seed']}")


class _Claims(list):
    """The verdicts: (figure, the paper says, ours, tolerance, signed, verdict), in order."""

    def add(self, fig, says, ours, tol, judge, value, *args, reading="default", section=None, saturated=True,
            signed=None, **kw):
        """Judge one claim of figure ``fig`` (its section: "Fig. 5", "Figs. 10-11"; ours pass ``section``).
        ``saturated``: every figure this report judges is a saturation throughput of saturated adapters, or a
        difference or ratio of two; a figure that is not (a delay, attempts per packet) passes False.
        ``signed``: the figure is a difference, printed with its sign (a comparison's is)."""
        if section is None:
            section = ("Figs. " if "-" in fig else "Fig. ") + fig
        v = judge(value, *args, claim=f"Fig. {fig}: {says}", reading=reading, section=section, saturated=saturated,
                  **kw)
        self.append((fig, says, ours, tol, v.compares if signed is None else signed, v))
        return v

    def order(self, fig, says, pairs, readings=None, **kw):
        """An order (``pairs``: (label, larger, smaller) points): each pair's paired difference at least 0;
        ``readings``: each pair's other readings, judged first."""
        return [self.add(fig, f"{says} ({label})", diff_text(paired_throughput(a, b)), "paired difference ≥ 0", at_least, paired_throughput(a, b),
                         0.0, compares=True, **({"readings": readings[k]} if readings else {}), **kw)
                for k, (label, a, b) in enumerate(pairs)]


def _two_readings(rows) -> list:
    """The figures judged under more than one reading, in the order they come."""
    out = []
    for f, *_, v in rows:
        if v.reading != "default" and f not in out and not f.startswith("("):     # "(ours)": no paper claim
            out.append(f)
    return out


def _claims_table(rows) -> list:
    """One row a verdict: ``ours`` as the first run gave it, the interval the verdict was judged on (after any
    replications the engine added) and its class, with why unless it agrees."""
    lines = ["| figure | the paper says | reading | ours (first run) | tolerance | judged on (replications) | class |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {f} | {say} | {v.reading} | {ours} | {tol} | {fmt(v, 4, signed=signed)} ({v.n}) | {cell(v)} |"
              for f, say, ours, tol, signed, v in rows]
    return lines


def build(out: Path, quick: bool = False, workers: int = 0, seed: int = 1, store=None) -> list[Path]:
    started = begin("circuit", BUDGET)
    sim = _Run(quick, workers, seed, store)
    claims = _Claims()
    lines = _intro(sim, quick, seed)
    one_byte(sim, claims, lines)
    written = [fig_1(sim, claims, lines, out)]
    figs_2_4(sim, claims, lines)
    written.append(figs_5_7(sim, claims, lines, out))
    figs_8_9(sim, claims, lines)
    over, fixed_approx = figs_10_11(sim, claims, lines)
    written.append(figs_12_17(sim, claims, lines, out, over, fixed_approx))
    figs_13_15(sim, claims, lines)
    fig_16(sim, claims, lines)
    fig_18(sim, claims, lines, SIZES)
    fig_19(sim, claims, lines)
    fig_20(sim, claims, lines)
    at = lines.index("## The clock: a one-byte change of packet size")
    lines = lines[:at] + _verdicts(claims) + lines[at:]
    # The readings table (issue 36, item 1): every choice, its default and the paper's sentences, before the footer.
    lines += [""] + readings.table(CHOICES) + [f"_Built in {time.time() - started:.0f} s._", ""]
    path = out / "circuit.md"
    path.write_text("\n".join(lines))
    return [path] + written


def _intro(sim, quick: bool, seed: int) -> list:
    """The report's title, how every point was run and the rule every verdict follows."""
    return ["# Circuit-switched LANs (paper 001): HIPPI with set-up overheads and variable packet sizes", "",
            f"Generated by `switchq report circuit{' --quick' if quick else ''}` (seed {seed}). Each point is "
            f"`switchq simulate circuit` with {sim.how()}; figures are means with 95 % Student-t half-widths. "
            "Saturated adapters, destinations uniform over the other nodes, 800 Mbit/s links, distributed "
            "control pays 2 us to select a packet and 5 us per set-up attempt (held output from the request: "
            "`--claim request`), round robin resumes after the packet sent (`--pointer next`), each adapter "
            "scans its logical channels in an order of its own, and time is the paper's 1 us clock (a "
            "microsecond's events in random order: `--resolution 1us`), unless a section says otherwise; each choice, "
            "its sentence in the paper and why it is the default: the Readings section at the end.", "",
            "**The rule:** no verdict stands on fewer than 5 replications or on point values; comparisons are "
            "paired. A printed number's band is half a unit of its last digit; a bound's, its side; a claim "
            "comparing two configurations (an order, a gain, \"almost identical\") is judged by the 95 % "
            "interval of the per-replication differences (or ratios) of their runs, made with the same seed "
            "(common random numbers). An order over several points is judged pair by neighbouring pair; a \"for "
            "all\" claim point by point. A claim agrees only when its whole interval lies inside the band (or on "
            "the claim's side of a bound); every figure here is a saturation throughput of saturated adapters "
            "(or a difference or ratio of two), a run overloaded by design, so its stability is not asked. An "
            "interval reaching past the band's edge is inconclusive once the engine has added replications up to "
            f"{BUDGET} times the point's own (a quick build adds none). The verdict engine classes a "
            "disagreement from evidence, never this report: an ambiguity when another reading that was run "
            "(judged first) agrees and the paper's sentence allowing both is quoted, not reproducible when a "
            "derivation from the paper's stated rules contradicts it, not a claim when the paper's words show it "
            "is about another system, and a defect otherwise.", ""]


def _verdicts(claims) -> list:
    """The headline, how readings and tolerances are counted, and the table of every verdict."""
    verdicts = [c[-1] for c in claims]
    head = [f"**Verdicts** (default reading): {by_class(verdicts)}.", "", "## The paper's claims", "",
            f"Over every reading run, {agreeing(verdicts)} of {len(verdicts)} verdicts agree; another reading's "
            "verdicts are rows of their own, never counted in the headline. Bounds on a change read from a figure "
            f"(\"less than 15 %\") carry the figure-reading tolerance {READ} (in throughput points; divided by the "
            "starting value when the change is read as relative); \"almost identical\" and \"little impact\" are "
            f"read as within {SAME}. Where the paper reads two ways (Figs. {listed(_two_readings(claims))}) each "
            "reading is a row of its own, named in the reading column: the other reading is judged first and "
            "given to the default's verdict with the paper's sentence allowing both where it has one (none for "
            "the clock of Figs. 1 and 18, which §2.2 states), and the section says which reproduces the paper. "
            "\"Judged on\" is the interval each class was decided on, after any replications the engine added.",
            ""]
    return head + _claims_table(claims) + [""]
