"""Fig. 3 of paper 002: uniform Bernoulli traffic, N = 16, credits against SFC under both resend readings.

The paper: "enabling SFC makes no observable difference, regardless of RTT".
Each point's verdict asks whether SFC's mean latency is within the paper's
5 % delay precision of credit flow control's, on the paired ratio of the two
runs (same seeds); the reading that agrees at more points is the one that
reproduces the figure.
"""

from __future__ import annotations

from ..claims import AGREE, agreeing, listed, within
from .common import DEFAULT_READING, DELAY_PRECISION, READINGS, RTTS, Plan, Section, cell, q_r, ratio, save, switch

LOADS = (0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95)
N = 16


def uniform(p: Plan, out) -> Section:
    import matplotlib.pyplot as plt

    sec = Section()
    rows = {}
    for tau in RTTS:
        rows[tau, "credit"] = p.run([{**switch(N, tau), "load": x} for x in LOADS], 20_000)
        for reading in READINGS:
            rows[tau, reading] = p.run([{**switch(N, tau, "sfc", reading), "load": x} for x in LOADS], 20_000)
    tol = DELAY_PRECISION
    head = " | ".join(f"SFC {r} | {r} / credit | verdict" for r in READINGS)
    sec.lines += [f"## Uniform Bernoulli traffic, N = {N} (Fig. 3)", "",
                  "The paper: \"enabling SFC makes no observable difference, regardless of RTT\". SFC can be read "
                  "two ways on when a sent cell goes again (`--resend`, `switchq.models.flow_control`): `eager`, "
                  "R7 as written (a speculative cell not yet acknowledged is resent credited at the first credit, "
                  "and arrives as a duplicate if its first copy was accepted), and `nak`, §6.2's \"upon NAK\" "
                  "(only dropped cells go again). Mean burst latency in slots (a Bernoulli cell is a burst of "
                  f"one); a verdict agrees when the ratio SFC / credit is within {tol:.0%} of 1 (the paper's "
                  "delay precision, §5), on the interval of the per-replication ratios of the two runs (same "
                  f"seeds). `{DEFAULT_READING}` is the default reading; a disagreement of it is an ambiguity where "
                  "the other reading's verdict is `agree`, a defect where neither's is.", "",
                  f"| tau | Q_R | load | credit | {head} |", "|---:|---:|---:|---|" + "---|---:|---|" * len(READINGS)]
    verdicts = {r: [] for r in READINGS}
    off_points = {r: [] for r in READINGS}
    others = [r for r in READINGS if r != DEFAULT_READING]
    for tau in RTTS:
        for i, load in enumerate(LOADS):
            credit = rows[tau, "credit"][i]
            claim = f"Fig. 3: SFC makes no observable difference, tau = {tau}, load {load}"
            cells, found = [], {}
            for reading in (*others, DEFAULT_READING):
                if rows[tau, reading][i].get("unstable") or credit.get("unstable"):
                    found[reading] = (None, "unstable")
                    continue
                r = ratio(rows[tau, reading][i], credit)
                agreed = [o for o in others if found.get(o, (None, ""))[1] == AGREE]
                v = within(r, 1.0, tol, compares=True, claim=claim,
                           reading="default" if reading == DEFAULT_READING else reading,
                           otherwise="ambiguity" if reading != DEFAULT_READING or agreed else "defect",
                           evidence=(f"the `{agreed[0]}` reading agrees here" if agreed and reading == DEFAULT_READING
                                     else "the paper does not say when a sent cell goes again (R7, §6.2)"))
                found[reading] = (r, v)
                verdicts[reading].append(v)
                if v != AGREE:
                    off_points[reading].append(f"tau = {tau} at load {load} ({r.value - 1:+.1%})")
            for reading in READINGS:
                r, v = found[reading]
                cells.append(f"{cell(rows[tau, reading][i])} | {'—' if r is None else f'{r.value:.3f}'} | {v}")
            sec.lines.append(f"| {tau} | {q_r(N, tau)} | {load} | {cell(credit)} | " + " | ".join(cells) + " |")
    sec.verdicts += verdicts[DEFAULT_READING] + [v for r in others for v in verdicts[r]]
    n_points = len(RTTS) * len(LOADS)
    counts = ", ".join(f"`{r}` at {agreeing(verdicts[r])} of {len(verdicts[r])} points" for r in READINGS)
    scores = sorted(((agreeing(verdicts[r]), r) for r in READINGS), reverse=True)
    if scores[0][0] == scores[1][0]:
        which = "Both readings agree at as many points."
    elif scores[0][1] == DEFAULT_READING:
        which = f"`{DEFAULT_READING}` reproduces Fig. 3 at more points; it is the default reading."
    else:
        which = (f"`{scores[0][1]}` reproduces Fig. 3 at more points, but the default reading is "
                 f"`{DEFAULT_READING}`.")
    sec.lines += ["", f"Within {tol:.0%} of credit flow control: {counts}. {which}"]
    for reading in READINGS:
        sec.lines.append(f"- `{reading}` differs by more than {tol:.0%} at {listed(off_points[reading])}.")
    sec.lines += ["", _why(rows, n_points), ""]

    fig, axes = plt.subplots(1, len(RTTS), figsize=(16, 4), sharey=True)
    for ax, tau in zip(axes, RTTS):
        for label, style in (("credit", "o-"), *((r, s) for r, s in zip(READINGS, ("s--", "^:")))):
            rs = [r for r in rows[tau, label] if not r.get("unstable")]
            ax.plot([r["throughput"] for r in rs], [r["mean_latency"] for r in rs], style,
                    label="SFC off" if label == "credit" else f"SFC, {label}")
        ax.set_title(f"tau = {tau}, Q_R = {q_r(N, tau)}")
        ax.set_xlabel("throughput")
        ax.set_yscale("log")
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("mean latency (slots)")
    axes[0].legend()
    path = out / "sfc_fig3.png"
    save(fig, path, f"Uniform Bernoulli traffic, N = {N} (paper 002 Fig. 3); seed {p.seed}")
    sec.lines += ["![Fig. 3](sfc_fig3.png)", ""]
    sec.files.append(path)
    return sec


def _why(rows, n_points) -> str:
    """What the counters say at the most loaded point of the longest round trip."""
    tau, i = RTTS[-1], len(LOADS) - 1
    parts = []
    for reading in READINGS:
        r = rows[tau, reading][i]
        spec = r["speculative_transmissions"]
        share = spec / r["transmissions"] if r["transmissions"] else float("nan")
        dup = r["duplicates"] / spec if spec else 0.0
        change = ratio(r, rows[tau, "credit"][i]).value - 1
        parts.append(f"`{reading}` is {abs(change):.0%} {'slower' if change > 0 else 'faster'} than credits; "
                     f"{share:.0%} of its transmissions are speculative, {r['naks']} cells are NAKed and "
                     f"{dup:.0%} of the speculative cells arrive a second time, as duplicates")
    return (f"What the counters say at tau = {tau}, load {LOADS[i]} (over all slots): " + "; ".join(parts) + ". "
            "A cell speculates when it waits in a VOQ whose crosspoint has no credit while its input has nothing "
            "credited to send; an accepted speculative cell leaves earlier than it would with credits, and under "
            "`eager` each credited resend of a cell already accepted takes a link slot from the cells behind it.")
