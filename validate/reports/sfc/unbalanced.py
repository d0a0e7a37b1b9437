"""Fig. 4 e, f of paper 002: saturation throughput against the unbalanced-traffic w, and why SFC falls short.

Rojas-Cessa's unbalanced traffic: input i sends a share w + (1 - w)/N of its
load to output i and (1 - w)/N to each other output. The paper: without SFC
the throughput at w = 1 is min(Q_R/tau, 1); "SFC enables full throughput
under unbalanced traffic". The last part of the section takes the
configuration where SFC carries least and varies one thing at a time
(retransmission buffer, arbitration, crosspoint size, reading) to find what
limits it, with the protocol's counters as evidence. Comparisons of two
configurations are paired (same seeds, per-replication differences). Every
verdict here is of a saturation throughput (load 1, overloaded by design).
Each claim of SFC is judged under its readings: the default resend reading,
``nak``, and "full" read as what the same crossbar carries with no round
trip; the others first, then the default given their verdicts.
"""

from __future__ import annotations

from switchq.validate.harness import RunSettings

from .. import est
from ..claims import AGREE, agreeing, at_least, listed, paired, shown, within
from .common import (DEFAULT_READING, READINGS, REPLICATIONS, RTTS, THROUGHPUT_PRECISION, Plan, Section, judged, q_r,
                     save, switch)
from .quotes import RESEND_RULE, W1_BOUNDS

WS = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9, 1.0)
# A throughput curve on a 0..1 axis cannot be read closer than this: the tolerance of "full throughput".
READ_TOLERANCE = 0.02
# "Full throughput under unbalanced traffic" read where §5's sentence contrasts it with credits: at w = 1.
W1_ONLY = "full at w = 1, where the sentence contrasts it"


def _slots(n):
    return 10_000 if n == 16 else 3_000


def unbalanced(p: Plan, out) -> Section:
    import matplotlib.pyplot as plt

    from switchq.solvers import cicq

    sec = Section()
    res, alone = {}, {}
    for n in (16, 64):
        for tau in RTTS:
            for proto, reading in (("credit", None), *(("sfc", r) for r in READINGS)):
                res[n, tau, reading or proto] = p.run(
                    [{**switch(n, tau, proto, reading), "load": 1.0, "unbalanced": w} for w in WS], _slots(n))
        for q in sorted({q_r(n, tau) for tau in RTTS}):
            # The same crossbar with no round trip to speak of: a credit is back the slot after it left.
            alone[n, q] = p.run([{"ports": n, "rtt_slots": 1, "crosspoint_cells": q, "load": 1.0, "unbalanced": w}
                                 for w in WS], _slots(n))
    variants = " / ".join(("credit", *READINGS))
    sec.lines += ["## Throughput against unbalanced-traffic w (Fig. 4 e, f)", "",
                  f"Saturated Bernoulli inputs (load 1); each cell is {variants} throughput (cells/slot/output). "
                  "Rows \"tau = 1\" are the same crossbar with no round trip (a credit is back the slot after it "
                  "left): what its crosspoints allow under this traffic whatever the flow control.", "",
                  "| N | tau | Q_R | min(Q_R/tau,1) | " + " | ".join(f"w = {w}" for w in WS) + " |",
                  "|---:|---:|---:|---:|" + "---|" * len(WS)]
    w1_credit, w1_sfc, full, relative, lows, judged_rows = [], [], [], [], [], []
    for n in (16, 64):
        for q in sorted({q_r(n, tau) for tau in RTTS}):
            sec.lines.append(f"| {n} | 1 | {q} | 1 | " + " | ".join(f"{r['throughput']:.3f}" for r in alone[n, q])
                             + " |")
        for tau in RTTS:
            q = q_r(n, tau)
            rows = [res[n, tau, k] for k in ("credit", *READINGS)]
            cells = [" / ".join(f"{r[i]['throughput']:.3f}" for r in rows) for i in range(len(WS))]
            bound = cicq.permutation_throughput("credit", q, tau)
            sec.lines.append(f"| {n} | {tau} | {q} | {bound:.3f} | " + " | ".join(cells) + " |")
            at = f"N = {n}, tau = {tau}"
            w1_credit.append((n, tau, bound, within(
                est(rows[0][-1], "throughput"), bound, THROUGHPUT_PRECISION, saturated=True, section="Fig. 4 e, f",
                quote=W1_BOUNDS, claim=f"Fig. 4 e, f: without SFC the throughput at w = 1 is min(Q_R/tau, 1), {at}")))
            curves = dict(zip(READINGS, rows[1:]))
            one, low_v, rel_v, low = _sfc_verdicts(curves, alone[n, q], at)
            relative.append(rel_v[W1_ONLY])
            for reading in READINGS:
                w1_sfc.append(one[reading])
                full.append(low_v[reading])
                relative.append(rel_v[reading])
                i = low[reading]
                lows.append((curves[reading][i]["throughput"], n, tau, reading, WS[i], alone[n, q][i]["throughput"]))
                judged_rows.append(f"| {n} | {tau} | `{reading}` | {judged(one[reading])} | {WS[i]} | "
                                   f"{judged(low_v[reading])} | {judged(rel_v[reading], signed=True)} |")
    sec.verdicts += [v for *_, v in w1_credit] + w1_sfc + full + relative
    w1_only = [v for v in relative if v.reading == W1_ONLY]
    relative = [v for v in relative if v.reading != W1_ONLY]
    worst = min(lows, key=lambda x: x[0])
    t, n, tau, reading, w, ref = worst
    # others equal to it as printed: a reader sees a tie, so it is said
    ties = [f"N = {x[1]}, tau = {x[2]}, `{x[3]}`" for x in lows if x is not worst and shown(x[0]) == shown(t)]
    sec.lines += ["", "Credits at w = 1 against the paper's min(Q_R/tau, 1), within its "
                  f"{THROUGHPUT_PRECISION:.1%} throughput precision:", "",
                  "| N | tau | min(Q_R/tau, 1) | credit at w = 1: verdict |", "|---:|---:|---:|---|",
                  *(f"| {nn} | {tt} | {bound:.3f} | {judged(v)} |" for nn, tt, bound, v in w1_credit), "",
                  "SFC under each reading: at w = 1 against 1 (within the throughput precision); at its lowest "
                  f"point over w against \"full\" read as at least {1 - READ_TOLERANCE:.2f} (what a 0..1 plot can "
                  f"show) and read as within {READ_TOLERANCE} of the crossbar with no round trip at the same w (the "
                  "paired difference of the two runs).", "",
                  "| N | tau | reading | SFC at w = 1: verdict | lowest w | SFC there: at least "
                  f"{1 - READ_TOLERANCE:.2f} | less no round trip: at least -{READ_TOLERANCE} |",
                  "|---:|---:|---|---|---:|---|---|", *judged_rows,
                  "", f"- At w = 1 credits carry min(Q_R/tau, 1) within the paper's {THROUGHPUT_PRECISION:.1%} "
                  f"throughput precision in {_count([v for *_, v in w1_credit])} configurations, and SFC carries 1 "
                  f"in {_count(w1_sfc)} (configuration x reading).",
                  f"- \"Full throughput\" at every w (each configuration's lowest point: its whole interval at "
                  f"{1 - READ_TOLERANCE:.2f} or above): {_count(full)} configuration x resend reading. Within "
                  f"{READ_TOLERANCE} of the crossbar with no round trip at the same w (another reading of \"full\", "
                  f"not counted in the headline): {_count(relative)}. Read where §5's sentence sets it against "
                  "credits' min(Q_R/tau, 1), at w = 1 (a reading the sentence allows, so an agreement there makes "
                  f"a miss at the lowest w an ambiguity): {_count(w1_only)} configurations. "
                  f"The lowest is N = {n}, tau = {tau}, `{reading}`: {t:.3f} at w = {w}, where the crossbar with no "
                  f"round trip carries {ref:.3f}" + (f" (as printed, tied by {listed(ties)})" if ties else "")
                  + ".", ""]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, nn in zip(axes, (16, 64)):
        for k, tt in enumerate(RTTS):
            for key, style in (("credit", "o-"), (READINGS[0], "s--"), (READINGS[1], "^:")):
                ax.plot(WS, [r["throughput"] for r in res[nn, tt, key]], style, color=f"C{k}",
                        label=f"tau={tt} {'SFC off' if key == 'credit' else key}")
        ax.set_title(f"N = {nn}")
        ax.set_xlabel("unbalanced-traffic w")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("saturation throughput")
    axes[0].legend(fontsize=6, ncol=3)
    path = out / "sfc_fig4_throughput.png"
    save(fig, path, f"Throughput vs non-uniformity (paper 002 Fig. 4 e, f); seed {p.seed}")
    sec.files.append(path)
    sec.lines += ["![Fig. 4 throughput](sfc_fig4_throughput.png)", ""]
    sec.lines += _what_limits(p, n, tau, w, reading)
    return sec


def _sfc_verdicts(curves, alone, at) -> tuple:
    """SFC's verdicts of one configuration (``curves``: its rows over w by resend reading; ``alone``: the
    crossbar with no round trip over w), by resend reading: at w = 1, at the lowest point, the lowest point
    against the crossbar with no round trip; and the index of the lowest point. Each claim's other readings are
    judged first and given to the default reading's verdict: the resend readings with R7's sentence, which both
    read; "full" read as with no round trip has no sentence of the paper allowing it; "full" read where the
    sentence contrasts it with credits, at w = 1, has that sentence (:data:`W1_ONLY`, a fifth verdict of the
    claim, returned as ``rel_v[W1_ONLY]``)."""
    order = [r for r in READINGS if r != DEFAULT_READING] + [DEFAULT_READING]
    one, low_v, rel_v = {}, {}, {}
    w1_claim = f"Fig. 4 e, f: SFC carries 1 at w = 1, {at}"
    full_claim = f"Fig. 4 e, f: SFC enables full throughput at every w, {at}"
    # The lowest point of each curve (the w it carries least at) is where "full throughput at every w" is hardest:
    # judged there.
    low = {r: min(range(len(WS)), key=lambda i: curves[r][i]["throughput"]) for r in READINGS}
    for reading in READINGS:
        i = low[reading]
        rel_v[reading] = at_least(paired(curves[reading][i], alone[i], "throughput"), -READ_TOLERANCE,
                                  compares=True, saturated=True, section="Fig. 4 e, f", quote=W1_BOUNDS,
                                  reading=f"{reading}, full = as with no round trip", claim=full_claim)
    # §5's sentence sets SFC's "full throughput under unbalanced traffic" against credits' min(Q_R/tau, 1) "when
    # w = 1": read as the claim at that w, judged at least 1 - READ_TOLERANCE there.
    rel_v[W1_ONLY] = at_least(est(curves[DEFAULT_READING][-1], "throughput"), 1 - READ_TOLERANCE, saturated=True,
                              section="Fig. 4 e, f", quote=W1_BOUNDS, reading=W1_ONLY, claim=full_claim)
    for reading in order:
        default = reading == DEFAULT_READING
        named = "default" if default else reading
        one[reading] = within(est(curves[reading][-1], "throughput"), 1.0, THROUGHPUT_PRECISION, saturated=True,
                              section="Fig. 4 e, f", quote=W1_BOUNDS, reading=named, claim=w1_claim,
                              readings=[one[r] for r in order if r in one] if default else (),
                              allows=RESEND_RULE if default else None)
        others = [low_v[r] for r in order if r in low_v] + list(rel_v.values())
        # The engine names every agreeing reading it is given as allowed by ``allows``: W1_BOUNDS allows the w = 1
        # reading alone, so where that one agrees it is the only one given.
        w1 = rel_v[W1_ONLY] == AGREE
        low_v[reading] = at_least(est(curves[reading][low[reading]], "throughput"), 1 - READ_TOLERANCE,
                                  saturated=True, section="Fig. 4 e, f", quote=W1_BOUNDS, reading=named,
                                  claim=full_claim, readings=([rel_v[W1_ONLY]] if w1 else others) if default else (),
                                  allows=W1_BOUNDS if default and w1 else None)
    return one, low_v, rel_v, low


def _count(verdicts) -> str:
    """``k of n`` over every reading's verdicts (the headline counts the default reading's only)."""
    return f"{agreeing(verdicts)} of {len(verdicts)}"


def _what_limits(p: Plan, n: int, tau: int, w: float, reading: str) -> list:
    """One thing varied at a time at the configuration where SFC carries least, with the counters."""
    q = q_r(n, tau)
    base = switch(n, tau, "sfc", reading)
    other = [r for r in READINGS if r != reading][0]
    variants = (("credit", switch(n, tau)),
                ("credit, no round trip (tau = 1)", {"ports": n, "rtt_slots": 1, "crosspoint_cells": q}),
                (f"SFC `{reading}`", base),
                (f"SFC `{other}`", switch(n, tau, "sfc", other)),
                ("SFC, round-robin arbitration", {**base, "arbitration": "rr"}),
                ("SFC, 8 x Q_RTX", {**base, "retransmission_cells": 8 * max(tau, q * n)}),
                (f"SFC, Q_R = {q + 1}", {**base, "crosspoint_cells": q + 1}),
                (f"SFC, Q_R = {q + 2}", {**base, "crosspoint_cells": q + 2}))
    slots, reps = p.slots(_slots(n)), REPLICATIONS
    # Counters are totals over the replications, warm-up included.
    all_slots = reps * (slots + RunSettings(slots=slots).warmup_slots)
    rows = p.run([{**v, "load": 1.0, "unbalanced": w} for _, v in variants], _slots(n), reps=reps)
    lines = [f"### What limits SFC at N = {n}, tau = {tau}, Q_R = {q}, w = {w}", "",
             "One change at a time. Counters over all slots (warm-up included), per 1000 cells delivered: NAKs "
             "for a full crosspoint, NAKs for arriving out of order (behind a dropped cell), duplicates, credited "
             "resends; link busy: the share of slots a line card sends a cell.", "",
             "| variant | throughput | link busy | full-buffer NAKs | out-of-order NAKs | duplicates | resends |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    stats, row_of = {}, {}
    for (label, _), r in zip(variants, rows):
        row_of[label] = r
        per = 1000 / max(r["delivered"], 1)
        full = r["naks"] - r["out_of_order_drops"] - r["replacements"]
        busy = r["transmissions"] / (n * all_slots) if r["transmissions"] else float("nan")
        stats[label] = (est(r, "throughput"), busy, full * per, r["out_of_order_drops"] * per,
                        r["duplicates"] * per, r["retransmissions"] * per)
        lines.append(f"| {label} | {r['throughput']:.3f} | {busy:.2f} | {full * per:.1f} | "
                     f"{r['out_of_order_drops'] * per:.1f} | {r['duplicates'] * per:.1f} | "
                     f"{r['retransmissions'] * per:.1f} |")
    b = stats[f"SFC `{reading}`"]
    rtx = stats["SFC, 8 x Q_RTX"]
    rr = stats["SFC, round-robin arbitration"]
    bigger = stats[f"SFC, Q_R = {q + 1}"]
    alone = stats["credit, no round trip (tau = 1)"]
    # Paired differences with the base configuration (same seeds): what one change does, with its interval.
    d_rtx = paired(row_of["SFC, 8 x Q_RTX"], row_of[f"SFC `{reading}`"], "throughput")
    d_rr = paired(row_of["SFC, round-robin arbitration"], row_of[f"SFC `{reading}`"], "throughput")
    same_rtx = d_rtx.low <= 0 <= d_rtx.high
    # from the table's per-1000 cells as printed, so the quoted length is what a reader divides out
    train = shown(b[3], 1) / shown(b[2], 1) if shown(b[2], 1) else float("nan")
    lines += ["",
              f"- Retransmission buffer: eight times Q_RTX carries {rtx[0].value:.3f} against {b[0].value:.3f} "
              f"(paired difference {_diff(d_rtx)}), "
              + ("an interval around 0: it is not the limit." if same_rtx else
                 "an interval clear of 0: it is part of the limit."),
              f"- Arbitration: round robin carries {rr[0].value:.3f} against longest queue first's "
              f"{b[0].value:.3f}, a paired difference of {_diff(d_rr)}"
              + (": less" if d_rr.high < 0 else ": more" if d_rr.low > 0 else ": no difference the runs can tell")
              + ".",
              f"- R1 (\"speculate only when no cell is eligible for credited transmission\") only chooses among "
              f"cells that may go. The line cards send nothing in {1 - b[1]:.0%} of slots, against a throughput "
              f"short of 1 by {1 - b[0].value:.0%}: what limits SFC here is cells that may not go at all.",
              f"- They are the out-of-order train: each full-crosspoint NAK ({b[2]:.1f} per 1000 cells) is "
              f"followed by {train:.1f} out-of-order NAKs, the cells already on the link behind it; R5 sends every "
              f"one of them again credited, at Q_R/tau = {q / tau:.3f} cells per slot, and §6.2 stops speculation "
              "on that crosspoint until they have gone. With one cell more per crosspoint, full-crosspoint NAKs "
              f"fall to {bigger[2]:.1f} per 1000 and the throughput rises to {bigger[0].value:.3f}; the crossbar "
              f"with no round trip carries {alone[0].value:.3f}.", ""]
    return lines


def _diff(e) -> str:
    return f"{e.value:+.3f} (95 % CI {e.low:+.3f} .. {e.high:+.3f})"
