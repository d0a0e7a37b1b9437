"""Fig. 3 of paper 002: uniform Bernoulli traffic, N = 16, credits against SFC under both resend readings.

The paper: "enabling SFC makes no observable difference, regardless of RTT".
Each point's verdict asks whether SFC's mean latency is within the paper's
5 % delay precision of credit flow control's, on the paired ratio of the two
runs (same seeds). The default reading is R7 as written; the other (``nak``)
is judged first, and the default reading's verdict is given it with R7's
sentence, which both read.
"""

from __future__ import annotations

from ..claims import DISAGREEMENTS, INCONCLUSIVE, agreeing, listed, within
from .common import (DEFAULT_READING, DELAY_PRECISION, READINGS, RTTS, Plan, Section, figure, judged, q_r, ratio, save,
                     switch)
from .quotes import NO_DIFFERENCE, RESEND_RULE

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
    head = " | ".join(f"SFC {r} | {r} / credit: verdict" for r in READINGS)
    sec.lines += [f"## Uniform Bernoulli traffic, N = {N} (Fig. 3)", "",
                  "The paper: \"enabling SFC makes no observable difference, regardless of RTT\". SFC can be read "
                  "two ways on when a sent cell goes again (`--resend`, `switchq.models.flow_control`): `eager`, "
                  "R7 as written (a speculative cell not yet acknowledged is resent credited at the first credit, "
                  "and arrives as a duplicate if its first copy was accepted), and `nak`, §6.2's \"upon NAK\" "
                  "(only dropped cells go again). Mean burst latency in slots (a Bernoulli cell is a burst of "
                  f"one); the claim is that the ratio SFC / credit lies within {tol:.0%} of 1 (the paper's "
                  "delay precision, §5), judged on the interval of the per-replication ratios of the two runs "
                  f"(same seeds), printed as judged. `{DEFAULT_READING}` is the default reading because it is R7, "
                  "the rule that governs the protocol (§3.1), as written; §6.2's \"upon NAK, the entry is marked so "
                  "that it becomes eligible for retransmission\" describes the sender's hardware and is the other "
                  "reading. No default here is chosen by its count of agreements. The default's verdict is "
                  "given the other reading's and R7's sentence, which the two read differently, so the engine "
                  "classes a miss of it as an ambiguity where the other reading's verdict is `agree`.", "",
                  f"| tau | Q_R | load | credit | {head} |", "|---:|---:|---:|---|" + "---|---|" * len(READINGS)]
    verdicts = {r: [] for r in READINGS}
    off_points = {r: [] for r in READINGS}
    open_points = {r: [] for r in READINGS}
    others = [r for r in READINGS if r != DEFAULT_READING]
    for tau in RTTS:
        for i, load in enumerate(LOADS):
            credit = rows[tau, "credit"][i]
            claim = f"Fig. 3: SFC makes no observable difference, tau = {tau}, load {load}"
            found = {}
            # A point flagged unstable is judged too: the engine never lets an unstable run agree.
            for reading in (*others, DEFAULT_READING):
                default = reading == DEFAULT_READING
                # The default reading is judged last, given the other readings' verdicts of the same claim.
                v = within(ratio(rows[tau, reading][i], credit), 1.0, tol, compares=True, claim=claim,
                           section="Fig. 3", quote=NO_DIFFERENCE, reading="default" if default else reading,
                           readings=[found[o] for o in others] if default else (),
                           allows=RESEND_RULE if default else None)
                found[reading] = v
                verdicts[reading].append(v)
                if v in DISAGREEMENTS:
                    off_points[reading].append(f"tau = {tau} at load {load} ({v.value - 1:+.1%})")
                elif v == INCONCLUSIVE:
                    open_points[reading].append(f"tau = {tau} at load {load}")
            cells = [f"{figure(rows[tau, r][i])} | " + ("—" if found[r] is None else judged(found[r]))
                     for r in READINGS]
            sec.lines.append(f"| {tau} | {q_r(N, tau)} | {load} | {figure(credit)} | " + " | ".join(cells) + " |")
    sec.verdicts += verdicts[DEFAULT_READING] + [v for r in others for v in verdicts[r]]
    n_points = len(RTTS) * len(LOADS)
    counts = ", ".join(f"`{r}` at {agreeing(verdicts[r])} of {len(verdicts[r])} points" for r in READINGS)
    sec.lines += ["", f"Within {tol:.0%} of credit flow control: {counts}. The default, `{DEFAULT_READING}`, is R7 "
                  "as written (above); these counts do not choose it."]
    for reading in READINGS:
        sec.lines.append(f"- `{reading}` differs by more than {tol:.0%} at {listed(off_points[reading])}"
                         + (f"; inconclusive at {listed(open_points[reading])}" if open_points[reading] else "")
                         + ".")
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
