"""Fig. 4 a, b, g, h of paper 002: bursty uniform traffic, N = 16 and 64, credits against SFC.

The paper's claims, each checked with a computed verdict: at 10 % load the
latency without SFC is about floor(B / Q_R) round trips; SFC cuts the burst
latency "by a factor up to" that ratio; the cut grows with the round trip and
with N; and SFC and credits converge as the load nears 100 %. The paper names
floor(B/Q_R) and evaluates it, per Q_R, to 5, 4, 3, 2 (B = 10) and 10, 7, 5, 4
(B = 20): the ceilings. Those evaluations are the targets, at N = 16 (Fig. 4 a,
b, where the paper matches them to its curves) and at N = 64 (the same B and
Q_R, the same sentence); floor(B/Q_R) computed as written is the derivation a
miss of the low-load latency is judged against (:func:`paper_rule`), and a
reading of "up to", judged first, allowed by the sentence that evaluates it
(:data:`PRINTED_RULE`). Every claim that compares SFC with credits, or one
configuration with another, is judged on per-replication ratios of runs with
the same seeds (:func:`~switchq.validate.reports.claims.paired`).
"""

from __future__ import annotations

from switchq.models import FlowControl

import numpy as np

from ...result import Estimate
from .. import est
from ..claims import (AGREE, DISAGREEMENTS, INCONCLUSIVE, Derivation, at_least, at_most, cell, derived, fmt, listed,
                      measured, paired, tally, within)
from .common import DEFAULT_READING, RTTS, Plan, Section, judged, q_r, ratio, save, switch
from .quotes import (CONVERGES, FIG1_BURST, GROWS_WITH_RTT, LOW_LOAD_RATIO, MORE_AT_64, RULE_B10, RULE_B20,
                     UP_TO)

# Paper 002 §5: floor(B/Q_R) as it evaluates it, by B and Q_R ("evaluates to 5 (Q_R = 2), 4 (Q_R = 3), 3 (Q_R = 4),
# and 2 (Q_R = 6)"; B = 20: "around 10, 7, 5, and 4"), the RTT multiples of Fig. 4 a, b's "SFC off" at 10 % load.
PAPER_RTT_MULTIPLES = {10: {2: 5, 3: 4, 4: 3, 6: 2}, 20: {2: 10, 3: 7, 4: 5, 6: 4}}
CURVE_LOADS = {16: (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9), 64: (0.1, 0.3, 0.5, 0.7, 0.9)}
# The paper quotes whole round trips ("around 10, 7, 5, and 4"): a value agrees if it rounds to them.
READ_TOLERANCE = 0.5
# The sentence that evaluates the rule floor(B/Q_R) for each burst size (§5): its values are the ceilings, so it
# allows both the values it prints and the rule as written.
PRINTED_RULE = {10: RULE_B10, 20: RULE_B20}
FLOOR = "floor(B/Q_R) as written"


def paper_rule(burst: int, q: int) -> Derivation:
    """What the paper's printed rule floor(B/Q_R) gives for the "SFC off" latency at 10 % load, in round trips,
    computed as written: the derivation a miss of the paper's own evaluation of it is judged against."""
    from switchq.solvers import sfc_evidence

    return Derivation(sfc_evidence.printed_burst_rule, PRINTED_RULE[burst], (burst, q))


def bursty(p: Plan, out) -> Section:
    import matplotlib.pyplot as plt

    from switchq.solvers import cicq

    sec = Section()
    sec.lines += ["## Bursty uniform traffic (Fig. 4 a, b, g, h)", "",
                  f"Mean burst latency at 10 % load in round trips (slots / tau), credits (SFC off) and SFC "
                  f"(`{DEFAULT_READING}`). Verdicts: SFC off against floor(B/Q_R) as the paper evaluates it for "
                  f"each Q_R (5, 4, 3, 2 at B = 10; 10, 7, 5, 4 at B = 20), within {READ_TOLERANCE} RTT (it quotes "
                  "whole round trips); against the isolated-burst bound of `switchq.solvers.cicq` (mean over "
                  "geometric bursts crossing an idle switch: other bursts can only add), which holds when the whole "
                  "interval lies at or above it; and the cut off / on (the paired ratio of the two runs, same seeds) "
                  "against the paper's \"up to floor(B/Q_R)\": between 1 and it. Each is printed with the interval "
                  "it was judged on. The paper's evaluations are the ceilings of B/Q_R: a miss of one is judged "
                  "against the rule computed as written, floor(B/Q_R) (`switchq.solvers.sfc_evidence`): where it "
                  "gives a number outside the band of the evaluated one, the engine classes the miss not "
                  "reproducible; for \"up to\", floor(B/Q_R) as written is a reading judged first (at most 1 "
                  "where it is 1), which the sentence evaluating the rule allows.", "",
                  "| N | B | tau | Q_R | evaluated / floor(B/Q_R) | SFC off (RTTs): verdict | isolated-burst bound: "
                  "holds | analytic, SFC | SFC on (RTTs) | off / on, up to the evaluated: verdict |",
                  "|---:|---:|---:|---:|---:|---|---|---:|---:|---|"]
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    paper_v, bound_v, cut_v, misses, cuts, converge, rows_at, unstable = [], [], [], [], {}, [], {}, []
    readings_v = []         # "up to" read as floor(B/Q_R) as written
    for row, n in enumerate((16, 64)):
        for col, burst in enumerate((10, 20)):
            ax = axes[row, col]
            for k, tau in enumerate(RTTS):
                q = q_r(n, tau)
                # N = 64's bursts take hundreds of slots at tau = 64: a 5000-slot warm-up (its quick runs keep a
                # quarter of it), then as many measured slots as N = 16's, the fewest the latency trend (the one
                # stability test that sees a critically loaded queue) is calibrated for.
                res = {proto: p.run([{**switch(n, tau, proto), "load": x, "burst": float(burst)}
                                     for x in CURVE_LOADS[n]], 20_000,
                                    warmup=None if n == 16 else 5_000, floor=1000 if n == 16 else 2500)
                       for proto in ("credit", "sfc")}
                rows_at[n, burst, tau] = res
                # A run flagged unstable at 10 % load is judged like any other: the engine never lets an unstable
                # run agree with the paper's finite latency.
                flagged = " / ".join(f"{proto} unstable (backlog +{res[proto][0].get('backlog_growth', 0):.0f})"
                                     for proto in ("credit", "sfc") if res[proto][0].get("unstable"))
                if flagged:
                    unstable.append(f"N = {n}, B = {burst}, tau = {tau} ({flagged})")
                off, on = (est(res[proto][0], "mean_latency") for proto in ("credit", "sfc"))
                rtts = _scaled(off, 1 / tau)
                target, floor = PAPER_RTT_MULTIPLES[burst][q], burst // q
                dd = FlowControl(tau, q).data_delay_slots
                a_off = cicq.low_load_burst_latency("credit", burst, q, tau, dd)
                a_on = cicq.low_load_burst_latency("sfc", burst, q, tau, dd)
                at = f"N = {n}, B = {burst}, tau = {tau}"
                where = _figure(n)
                v = within(rtts, target, READ_TOLERANCE, claim=f"Fig. 4: SFC off at 10 % load is about floor(B/Q_R) "
                           f"= {target} round trips, {at}", section=where, quote=LOW_LOAD_RATIO,
                           derivation=paper_rule(burst, q))
                paper_v.append(v)
                if v in DISAGREEMENTS:
                    misses.append((f"{at} ({fmt(v, 2)} against {target}: {v})", v.value, target))
                # switchq's own isolated-burst mean (geometric bursts, no other traffic): a lower bound.
                holds = at_least(rtts, a_off.mean_latency_rtts, section=where, quote=FIG1_BURST,
                                 claim=f"SFC off at 10 % load, {at}: at least the isolated-burst mean")
                bound_v.append(holds)
                says = f"Fig. 4: SFC cuts the latency at 10 % load by a factor up to floor(B/Q_R), {at}"
                cut = ratio(res["credit"][0], res["sfc"][0])
                # "Up to" floor(B/Q_R) as written, where it differs from the paper's evaluation: at most 1 where it is 1
                # (a band of no width no interval could lie in).
                other = [] if floor == target else [
                    at_most(cut, 1.0, compares=True, section=where, quote=UP_TO, claim=says, reading=FLOOR)
                    if floor == 1 else within(cut, (1 + floor) / 2, (floor - 1) / 2, compares=True, section=where,
                                              quote=UP_TO, claim=says, reading=FLOOR)]
                cv = within(cut, (1 + target) / 2, (target - 1) / 2, compares=True, section=where, quote=UP_TO,
                            claim=says, readings=other, allows=PRINTED_RULE[burst])
                readings_v += other
                cuts[n, burst, tau] = cv.value
                cut_v.append(cv)
                lines_on = on.value / tau
                sec.lines.append(f"| {n} | {burst} | {tau} | {q} | {target} / {floor} | {judged(v, 2)} | "
                                 f"{a_off.mean_latency_rtts:.2f}: {cell(holds)} | {a_on.mean_latency_rtts:.2f} | "
                                 f"{lines_on:.2f} | {judged(cv, 2)} |")
                converge.append((at, _converges(res, n, at, CURVE_LOADS[n])))
                color = f"C{k}"
                for proto, style in (("credit", "o-"), ("sfc", "s--")):
                    kept = [r for r in res[proto] if not r.get("unstable")]
                    ax.plot([r["throughput"] for r in kept], [r["mean_latency"] for r in kept], style,
                            color=color, label=f"tau={tau} SFC {'off' if proto == 'credit' else 'on'}")
            ax.set_title(f"N = {n}, mean burst {burst}")
            ax.set_xlabel("throughput")
            ax.set_ylabel("mean burst latency (slots)")
            ax.set_yscale("log")
            ax.grid(alpha=0.3, which="both")
    axes[0, 0].legend(fontsize=7, ncol=2)
    path = out / "sfc_fig4_latency.png"
    save(fig, path, f"Bursty uniform traffic (paper 002 Fig. 4 a, b, g, h); seed {p.seed}")
    sec.files.append(path)
    grows, more = _trends(rows_at)
    if unstable:
        sec.lines += ["", f"Flagged unstable at 10 % load (judged all the same: an unstable run cannot agree with a "
                          f"finite latency): {listed(unstable)}."]
    sec.verdicts += (paper_v + bound_v + cut_v + [v for _, v in grows] + [v for _, v in more]
                     + [v for _, v in converge if v is not None] + readings_v)
    sec.lines += ["", *_summary(paper_v, misses, bound_v, cut_v, cuts, converge, grows, more),
                  "", "![Fig. 4 latency](sfc_fig4_latency.png)", ""]
    return sec


def _scaled(e, factor):
    """``e`` times ``factor`` (its 95 % interval's ends scaled, the interval it is judged on), measured again on
    more replications as ``e`` is (then scaled)."""
    scaled = Estimate(e.value * factor, e.low * factor, e.high * factor, e.n, e.method, e.stable, e.domain)
    return measured(scaled, (lambda n: _scaled(e.more(n), factor)) if getattr(e, "remake", None) else None,
                    runs=getattr(e, "runs", 0))


def _cut(rows, as_name="cut"):
    """Per replication: credits' latency over SFC's at 10 % load (rows: the (N, B, tau) curves)."""
    return derived([rows["credit"][0], rows["sfc"][0]], "mean_latency", lambda off, on: off / on, as_name)


def _figure(n: int) -> str:
    return "Fig. 4 a, b" if n == 16 else "Fig. 4 g, h"


def _converges(res, n, at, loads):
    """SFC's latency over credits' closer to 1 at the highest stable load than at 10 %, replication by
    replication: |1 - on/off| at 10 % minus the same at the top, at least 0."""
    top = max((j for j in range(len(loads)) if not res["credit"][j].get("unstable")
               and not res["sfc"][j].get("unstable")), default=0)
    if top == 0:
        return None
    first, last = (derived([res["credit"][j], res["sfc"][j]], "mean_latency", lambda off, on: np.abs(1 - on / off),
                           "gap") for j in (0, top))
    return at_least(paired(first, last, "gap"), 0.0, compares=True, section=_figure(n), quote=CONVERGES,
                    claim=f"Fig. 4: SFC and credits converge as the load approaches 100 %, {at} "
                          f"(10 % against {loads[top]})")


def _trends(rows_at) -> tuple:
    """The cut grows with the round trip (paired difference of the ends, tau = 64 against 8, per (N, B)) and
    is larger at N = 64 than at N = 16 (paired difference of the mean cut over the round trips, per B); each
    as (label, verdict)."""
    grows, more = [], []
    for n in (16, 64):
        for b in (10, 20):
            ends = [_cut(rows_at[n, b, t]) for t in (RTTS[0], RTTS[-1])]
            grows.append((f"N = {n}, B = {b}", at_least(
                paired(ends[1], ends[0], "cut"), 0.0, compares=True, section=_figure(n), quote=GROWS_WITH_RTT,
                claim=f"Fig. 4: the cut grows with the RTT, N = {n}, B = {b} (tau = {RTTS[-1]} against {RTTS[0]})")))
    for b in (10, 20):
        mean = {n: derived([rows_at[n, b, t][proto][0] for t in RTTS for proto in ("credit", "sfc")],
                           "mean_latency", lambda *x: np.mean([off / on for off, on in zip(x[::2], x[1::2])], axis=0),
                           "cut") for n in (16, 64)}
        more.append((f"B = {b}", at_least(paired(mean[64], mean[16], "cut"), 0.0, compares=True,
                                          section="Fig. 4 g, h", quote=MORE_AT_64,
                                          claim=f"Fig. 4: the cut is larger at N = 64 than at N = 16, B = {b} "
                                                "(mean over tau)")))
    return grows, more


def _each(labelled, digits: int = 2) -> str:
    """Every verdict of ``labelled`` (label, verdict) with the signed interval it was judged on."""
    return "; ".join(f"{label}: {fmt(v, digits, signed=True)}" + ("" if v == AGREE else f", {cell(v)}")
                     for label, v in labelled)


def _summary(paper_v, misses, bound_v, cut_v, cuts, converge, grows, more) -> list:
    why = ""
    if misses and all(value < target for _, value, target in misses):
        why = (" Every miss is below the integer: a geometric burst of mean B needs E[ceil(B/Q_R)] round trips, "
               "less than ceil(E[B]/Q_R) when B/Q_R is not whole.")
    judged_ = [(at, v) for at, v in converge if v is not None]
    return [
        f"- SFC off at 10 % load is floor(B/Q_R) as the paper evaluates it, in round trips, within "
        f"{READ_TOLERANCE} at {tally(paper_v)} rows"
        + (f"; not at {listed(m for m, _, _ in misses)}.{why}" if misses else ".")
        + f" {sum(v == INCONCLUSIVE for v in paper_v)} are inconclusive."
        + f" The isolated-burst bound holds (the whole interval at or above it) at {tally(bound_v)} rows.",
        f"- SFC cuts the latency by a factor between 1 and floor(B/Q_R) as evaluated (the paper's \"up to\") at "
        f"{tally(cut_v)} rows; the factors run from {min(cuts.values()):.2f} to {max(cuts.values()):.2f}.",
        f"- The cut grows with the round trip (\"this difference increases with the RTT\"; judged on the paired "
        f"difference of the cut at tau = {RTTS[-1]} and at tau = {RTTS[0]}) in {tally([v for _, v in grows])} of "
        f"the (N, B) series ({_each(grows)}).",
        "- It is larger at N = 64 than at N = 16 (\"even more pronounced\"; the paired difference of the mean "
        f"cut over the round trips) for {tally([v for _, v in more])} burst sizes ({_each(more)}).",
        f"- SFC and credits come closer at the highest stable load than at 10 % (\"converges as the load approaches "
        f"100 %\"; the paired difference of |1 - SFC / credits| at 10 % and at the top, replication by replication) "
        f"on {tally([v for _, v in judged_])} curves ({_each(judged_, 3)})"
        + (f"; {len(converge) - len(judged_)} curves unstable above 10 %, not judged" if len(judged_) < len(converge)
           else "") + ".",
    ]
