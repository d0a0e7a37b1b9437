"""What the sections of the multicast report share: the plan of run lengths, sections, and formatting.

See :mod:`switchq.validate.reports.multicast` for what the report reproduces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from switchq.validate.reports import points

from ..claims import Quote, fmt

__all__ = ["Plan", "Section", "plan", "simulated", "pm", "judged", "err", "carried_its_load", "latency", "how", "save",
           "curve", "ARCHS", "CONFIGS", "PATTERNS", "PAPER_OQ", "PAPER_WBA", "PAPER_32_Q4", "QUOTES", "SAID_13",
           "SAID_14", "SAID_19", "SAID_BUFFERS", "SAID_COMPLEMENT", "SAID_93", "SAID_BLOW_UP", "SAID_STABLE",
           "SAID_UPWARD", "SAID_TWO_OR_FOUR", "SAID_BALANCE", "SAID_NAMD", "SAID_REDUCTION"]

# Paper 003 §3.1 and §3: the numbers its text states (the figures are curves without tables).
# As printed (strings): the digits fix the tolerance a comparison allows (claims.printed).
PAPER_OQ = {2: "0.8",     # "saturates at a load factor of 0.8" (Fig. 14)
            8: "0.25"}    # "saturates at a load factor close to 0.25" (Fig. 13)
PAPER_WBA = {2: "0.65", 8: "0.22"}   # ref. [19] quoted in §3.1 ("virtual output-queued routers")
PAPER_32_Q4 = {"complement": "1.00", "uniform": "0.93", "transpose": "0.93", "bitrev": "0.93"}  # §3, Fig. 11
PATTERNS = ("uniform", "transpose", "bitrev", "complement")
# (switch ports, crosspoint packets, paper throughput figure, paper latency figure)
CONFIGS = ((8, 2, 5, 6), (8, 4, 7, 8), (32, 2, 9, 10), (32, 4, 11, 12))
ARCHS = (("oq-crosspoint", 4), ("oq-crosspoint", 1), ("iq-split", 4), ("iq-nosplit", 4), ("iq-wba", 4))

# The paper's words each verdict quotes, verbatim from its text (tests/test_report_multicast.py checks them).
SAID_13 = Quote("§3.1", "As the mean fanout of the multicast is four, performance saturates at a load factor close to "
                        "0.25.")
SAID_14 = Quote("§3.1", "With only two nodes sending data the performance of multicast saturates at a load factor of "
                        "0.8, as shown in Figure 14.")
# Whose figures 0.65 and 0.22 are: [19]'s virtual output-queued routers, not the paper's switch.
SAID_19 = Quote("§3.1", "These results are better than the performance of virtual output-queued routers, presented in "
                        "[19], where for un-correlated traffic with fanout of 4 the performance for a 2X8 switch is "
                        "0.65 and for an 8X8 switch it is 0.22.")
# §3.1 gives its single switch no crosspoint size; §2 names two and four round trips of buffering (one round trip,
# 200 ns at 10 Gb/s, is about one 256 B packet).
SAID_TWO_OR_FOUR = Quote("§2", "It is usually good to have two or four RTTs for good switch performance.")
SAID_COMPLEMENT = Quote("§3", "Since complement is contention free [17, 6] its throughput is 100% at full load.")
SAID_93 = Quote("§3", "Uniform, Transpose and Reversal also have good throughput of about 93%.")
SAID_BUFFERS = Quote("§3", "Performance is best with 32 ports and 4 packets for each crosspoint.")
SAID_BLOW_UP = Quote("§3", "Response times are also good for Complement and Uniform and only blow up for Transpose and "
                           "Reversal for load factors greater than 0.9.")
# The up-routing rule: any lowest common ancestor, chosen by a rule the paper does not give.
SAID_UPWARD = Quote("§2.2", "the upward phase where a packet is sent to any of the lowest common ancestors of the "
                            "source and the destination")
# Neither a tolerance nor whether the loads under 0.125 or the saturation point is meant.
SAID_STABLE = Quote("§3.1", "It can be seen that the latency is stable for load-factors under 0.125, showing the "
                            "effectiveness of our scheme on a network of switches.")
SAID_BALANCE = Quote("§2.2", "It also load-balances the routing memory required for each collective operation by "
                             "choosing switches with fewer collective trees passing through them.")
SAID_NAMD = Quote("§4", "As the network with 8 ports has more levels and hence more points of contention, hardware "
                        "multicast has more performance gains.")
SAID_REDUCTION = Quote("§3.2", "With only one reduction a network with 8 port switches performs better than a network "
                               "with 32 port switches for message sizes greater than 64 bytes.")
QUOTES = (SAID_13, SAID_14, SAID_19, SAID_TWO_OR_FOUR, SAID_COMPLEMENT, SAID_93, SAID_BUFFERS, SAID_BLOW_UP,
          SAID_UPWARD, SAID_STABLE, SAID_BALANCE, SAID_NAMD, SAID_REDUCTION)


@dataclass(frozen=True)
class Plan:
    """Run lengths, replications and load grids of one build (quick or full) and its seed.

    ``sat_warmup`` / ``sat_slots``: the long runs that measure fat trees under
    full load (some patterns drift for thousands of slots there).
    ``steady_warmup`` / ``steady_slots``: the runs Fig. 15's verdicts stand
    on (the curves' shorter warm-up leaves that network still filling near
    its bound; 20,000 measured slots are the fewest the latency-trend test,
    the one stability test that sees a critically loaded queue, judges).
    Every verdict near saturation (Figs 11, 12, 15) is judged again with its
    runs' warm-up doubled (:func:`warmup_check`).
    """

    quick: bool
    seed: int
    workers: int
    switch_slots: int
    switch_reps: int
    table_slots: int
    net_slots: int
    net_warmup: int
    net_reps: int
    sat_slots: int
    sat_warmup: int
    steady_slots: int
    steady_warmup: int
    loads_8x8: tuple
    loads_2x8: tuple
    perm_loads: tuple
    route_loads: tuple
    mc_loads: tuple
    namd_sizes: tuple
    namd_reps: int
    groups: tuple
    reduction_sizes: tuple
    reduction_reps: int
    reduction_skew_ns: float

    def settings(self, kind: str = "switch", doubled: bool = False):
        """RunSettings for ``kind``: "switch" (curves), "table" (saturated switch), "network", "saturated",
        "steady" (a network run a verdict near saturation stands on); ``doubled``: a network kind's warm-up
        twice as long."""
        from switchq.validate.harness import RunSettings

        twice = 2 if doubled else 1
        if kind == "network":
            return RunSettings(self.net_slots, twice * self.net_warmup, self.net_reps, self.seed, self.workers)
        if kind == "saturated":
            return RunSettings(self.sat_slots, twice * self.sat_warmup, self.net_reps, self.seed, self.workers)
        if kind == "steady":
            return RunSettings(self.steady_slots, twice * self.steady_warmup, self.net_reps, self.seed, self.workers)
        return RunSettings(self.table_slots if kind == "table" else self.switch_slots, None, self.switch_reps,
                           self.seed, self.workers)


def plan(quick: bool = False, workers: int = 0, seed: int = 1) -> Plan:
    """The quick (tests, CI: well under a minute on two cores) or full (committed report) plan.

    Examples
    --------
    >>> plan(quick=True).perm_loads, plan().net_reps, plan(quick=True).switch_reps
    ((0.5, 1.0), 5, 5)

    Every simulated point a verdict stands on has at least 5 replications (claims.MIN_SAMPLES), quick or
    not: the quick plan has fewer points and shorter runs instead.
    """
    if quick:
        return Plan(quick=True, seed=seed, workers=workers, switch_slots=3_000, switch_reps=5, table_slots=5_000,
                    net_slots=200, net_warmup=100, net_reps=5, sat_slots=200, sat_warmup=300, steady_slots=200,
                    steady_warmup=300,
                    loads_8x8=(0.05, 0.15, 0.3), loads_2x8=(0.2, 0.6, 1.0), perm_loads=(0.5, 1.0),
                    route_loads=(0.5, 1.0), mc_loads=(0.04, 0.08, 0.13), namd_sizes=(256, 4096), namd_reps=5,
                    groups=((64, 8),), reduction_sizes=(8, 256, 4096), reduction_reps=5, reduction_skew_ns=1000.0)
    return Plan(quick=False, seed=seed, workers=workers, switch_slots=20_000, switch_reps=5, table_slots=50_000,
                net_slots=1_200, net_warmup=400, net_reps=5, sat_slots=1_000, sat_warmup=6_000,
                steady_slots=20_000, steady_warmup=3_000,
                loads_8x8=(0.02, 0.05, 0.08, 0.11, 0.14, 0.17, 0.2, 0.22, 0.24, 0.26, 0.28, 0.3),
                loads_2x8=tuple(round(0.1 * i, 1) for i in range(1, 11)),
                perm_loads=(0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0), route_loads=(0.8, 1.0),
                mc_loads=(0.02, 0.04, 0.06, 0.08, 0.09, 0.1, 0.105, 0.11, 0.115, 0.12, 0.1225, 0.13),
                namd_sizes=tuple(256 << i for i in range(7)), namd_reps=32,
                groups=((64, 8), (256, 8), (64, 16), (256, 16)), reduction_sizes=tuple(8 << i for i in range(12)),
                reduction_reps=16, reduction_skew_ns=1000.0)


@dataclass
class Section:
    """Markdown lines of one report section, the files it wrote, its rows of the summary table and every
    verdict it made (the headline counts the default reading's).

    A summary row is ``(paper figure, claim, paper's figure, ours, tolerance, verdict, notes)``; the
    verdict is computed (:mod:`switchq.validate.reports.claims`), never written by hand.
    """

    lines: list = field(default_factory=list)
    files: list = field(default_factory=list)
    summary: list = field(default_factory=list)
    verdicts: list = field(default_factory=list)

    def claim(self, where, what, figure, ours, tolerance, verdict, notes=""):
        """A summary row for ``verdict``, which is also counted (once) among the section's verdicts."""
        from ..claims import Verdict

        self.summary.append((where, what, figure, ours, tolerance, verdict, notes))
        if isinstance(verdict, Verdict) and not any(v is verdict for v in self.verdicts):
            self.verdicts.append(verdict)



def simulated(p: Plan, kind: str, model: str, params: list, progress: bool = False, store=None,
              doubled: bool = False) -> list:
    """Rows of ``model`` at ``params`` with the run settings ``p.settings(kind, doubled)``, through the sweep
    engine and its store (each point run with the report's seed)."""
    s = p.settings(kind, doubled)
    rows = points(model, params, slots=s.slots, warmup=s.warmup_slots, replications=s.replications, seed=s.seed,
                  workers=s.workers, store=store, progress=progress)
    for r in rows:       # what est() and paired() count: the replications each row was run with
        r.setdefault("replications", s.replications)
    return rows


def warmup_check(p: Plan, checks) -> list:
    """Lines saying whether each verdict near saturation moves when its runs' warm-up doubles (issue 36: a
    verdict stands on warm-ups long enough that it does not). ``checks``: (what, kind, verdict, verdict with the
    warm-up doubled); the doubled one is judged as the reading "warm-up doubled", never counted in the headline.

    Examples
    --------
    >>> from switchq.validate.reports.claims import Exact, within
    >>> lines = warmup_check(plan(quick=True), [("a", "steady", within(Exact(1.0), 1.0, 0.1),
    ...                                                 within(Exact(2.0), 1.0, 0.1))])
    >>> lines[-2]
    'One verdict moves when the warm-up doubles: a.'
    """
    rows = ["| claim | warm-up (slots) | verdict | doubled | verdict |", "|---|---:|---|---:|---|"]
    moved = []
    for what, kind, v, v2 in checks:
        w = p.settings(kind).warmup_slots
        rows.append(f"| {what} | {w} | {v} ({judged(v)}) | {2 * w} | {v2} ({judged(v2)}) |")
        if str(v) != str(v2):
            moved.append(what)
    said = ("No verdict moves when the warm-up doubles." if not moved else
            f"{'One verdict moves' if len(moved) == 1 else f'{len(moved)} verdicts move'} when the warm-up doubles: "
            + ", ".join(moved) + ".")
    return ["", "Each verdict near saturation judged again on runs whose warm-up is twice as long (same seed and "
            "replications):", ""] + rows + ["", said, ""]


def pm(v, ci, digits=4):
    """``value ± half-width`` of a 95 % interval, or ``value [low, high]`` for one that is not symmetric (cut at
    what its quantity can be).

    Examples
    --------
    >>> pm(0.5, (0.49, 0.51), 2), pm(0.02, (0.0, 0.06), 2)
    ('0.50 ± 0.01', '0.02 [0.00, 0.06]')
    """
    if v is None or not math.isfinite(v):
        return "—"
    half = (ci[1] - ci[0]) / 2
    if not math.isfinite(half):
        return f"{v:.{digits}f}"
    if not math.isclose(v - ci[0], ci[1] - v, rel_tol=1e-6, abs_tol=1e-12):
        return f"{v:.{digits}f} [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"
    return f"{v:.{digits}f} ± {half:.{digits}f}"


def judged(v, digits=4, signed=False) -> str:
    """The interval verdict ``v`` was judged on (claims.fmt), with its replications where the engine added some.

    Examples
    --------
    >>> from switchq.validate.reports.claims import Exact, within
    >>> judged(within(Exact(0.25), 0.25, 0.005), 3)
    '0.250'
    """
    more = v.method != "exact" and v.n != v.base_n
    return fmt(v, digits, signed) + (f" ({v.n} replications)" if more else "")


def err(results, name):
    """Half-widths of ``name``'s intervals, for error bars."""
    return [(getattr(r, name + "_ci95")[1] - getattr(r, name + "_ci95")[0]) / 2 for r in results]


def carried_its_load(r, load):
    """True when the run carried its offered load (a steady state, so its latency means something).

    Load 1 never is: a queue offered a cell every slot grows unless every cell leaves at once.
    """
    high = r.throughput_ci95[1] if math.isfinite(r.throughput_ci95[1]) else r.throughput
    return load < 1.0 and not r.unstable and max(r.throughput, high) >= 0.98 * load


def latency(r, load, digits=2, name="mean_latency", scale=1.0):
    """A latency cell: ``unstable`` with its backlog growth where the stability test flags the run, "sat."
    where it did not carry its load, else mean ± half-width (times ``scale``)."""
    if r.get("unstable"):
        return f"unstable (backlog +{r.get('backlog_growth', math.nan):.0f})"
    if not carried_its_load(r, load):
        return "sat."
    return pm(getattr(r, name) * scale, tuple(v * scale for v in getattr(r, name + "_ci95")), digits)


def how(p: Plan, kind="switch", label="Simulation") -> str:
    s = p.settings(kind)
    return (f"{label}: seed {p.seed}, {s.slots} measured slots after {s.warmup_slots} warm-up, {s.replications} "
            f"independent replications per point; ± is the 95 % Student-t half-width.")


def save(fig, path, title):
    """Write ``fig`` under ``title`` to ``path`` and close it; returns the path."""
    import matplotlib.pyplot as plt

    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def curve(ax, loads, results, name, label, style="o-", carried_only=False):
    pts = [(x, r) for x, r in zip(loads, results) if not carried_only or carried_its_load(r, x)]
    if pts:
        xs, rs = zip(*pts)
        ax.errorbar(xs, [getattr(r, name) for r in rs], yerr=err(rs, name), fmt=style, ms=3, capsize=2,
                    label=label)
