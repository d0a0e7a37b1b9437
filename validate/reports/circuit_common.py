"""What the circuit report's figure modules share (paper 001): how a point, a paired difference and a
sentence about a bound are printed, and the saturation-throughput plot.

Its own module so that :mod:`~switchq.validate.reports.circuit` and its figure modules
(:mod:`~switchq.validate.reports.circuit_clock`) read it without importing each other.
"""

from __future__ import annotations

from .claims import fmt, listed, paired
from . import pyplot

__all__ = ["capped", "fmt3", "diff_text", "paired_throughput", "plot_throughput"]


def capped(ns, es, bound: float) -> str:
    """Which sizes' intervals stay below ``bound`` (and how far short), read from the same estimates the
    table prints, so the sentence cannot contradict it."""
    pct = f"{100 * bound:.0f} %"
    below = [(n, e) for n, e in zip(ns, es) if e.high < bound]
    rest = [f"N = {n} at {e.value:.3f}" for n, e in zip(ns, es) if e.high >= bound]
    if not below:
        return f"still lets every size's 95 % interval reach {pct}: {listed(rest)}"
    short = listed(f"N = {n} ({e.value:.3f}, {bound - e.value:.3f} short)" for n, e in below)
    return (f"keeps {short} below {pct}, whole 95 % interval{'s' if len(below) > 1 else ''} included"
            + (f"; the others' intervals reach it: {listed(rest)}" if rest else ""))


def fmt3(e) -> str:
    return fmt(e, 3)


def diff_text(e, digits: int = 3) -> str:
    """A paired difference (or ratio) with its interval."""
    return f"{e.value:+.{digits}f} (95 % CI {e.low:+.{digits}f} .. {e.high:+.{digits}f}, paired)"


def paired_throughput(a, b, ratio: bool = False):
    """The paired difference (ratio) of two points' throughputs."""
    return paired(a.row, b.row, "throughput", ratio=ratio)


def plot_throughput(out, name, series, xlabel, title, xlog=False):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for label, xs, es in series:
        ax.errorbar(xs, [e.value for e in es], yerr=[e.half_width for e in es], fmt="o-", ms=3, capsize=2,
                    label=label)
    if xlog:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("saturation throughput")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(out / name, dpi=100)
    plt.close(fig)
    return out / name
