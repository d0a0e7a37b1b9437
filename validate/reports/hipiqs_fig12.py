"""Paper 000's Fig. 12 for the ``hipiqs`` report: bit reversal and transpose at 16 and 64 nodes, and §5.5's
received load beyond saturation, each 64-node claim on the SP2's own wiring (four 16-node boards) and on the
4-ary 3-tree (the default wiring). Verdicts through the report's claims (:mod:`switchq.validate.verdict`).
"""

from __future__ import annotations

from .claims import AGREE, at_least, paired, within
from . import est
from .hipiqs_build import AROUND, STABLE
from .hipiqs_claims import BEYOND_SATURATION, NOT_SATURATED_16, SATURATION_64, at, diff, drawn, level, peak, sat

__all__ = ["PAPER", "fig_12", "section_5_5"]

# Fig. 12's 64-node saturation figures, read off the paper's text (§5.5).
PAPER = {("hipiqs", "bitrev", 64): 0.83, ("hipiqs", "bitrev", 128): 0.75, ("central", "bitrev", 64): 0.85,
         ("central", "bitrev", 128): 0.88, ("hipiqs", "transpose", 64): 0.87, ("hipiqs", "transpose", 128): 0.80,
         ("central", "transpose", 64): 0.90, ("central", "transpose", 128): 0.90}


def _bounds() -> str:
    """Each pattern's channel-load bound on each 64-node wiring run here (a walk of every route), as a sentence."""
    from switchq.models.flit import FlitNetwork, MessageTraffic
    from switchq.solvers.bmin import saturation_bound

    wirings = {"4-ary 3-tree": FlitNetwork.bmin(64), "SP2 boards": FlitNetwork.sp2(64)}
    return "; ".join(f"{pat}: " + ", ".join(f"{w} {saturation_bound(n, MessageTraffic(0.5, 64, pattern=pat)):.2f}"
                                            for w, n in wirings.items())
                     for pat in ("uniform", "bitrev", "transpose"))


def fig_12(s, plt, out) -> tuple:
    """Fig. 12 (bit reversal and transpose, 16 and 64 nodes): each 64-node claim on SP2 boards first, then on the
    4-ary 3-tree (the default wiring) given the boards' verdicts. Returns its lines and its curves (for §5.5)."""
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
    return lines + ["", "![Fig. 12](hipiqs_fig12.png)", ""], perm


def section_5_5(s, perm) -> list:
    """§5.5's received load beyond saturation (64 nodes, 128-flit messages), on SP2 boards first, then on the
    4-ary 3-tree given the boards' verdicts; and how many of Fig. 12's and §5.5's 64-node verdicts each wiring
    agrees with."""
    c, top, ups = s.claims, max(s.fine), s.ups
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
    on_boards = [v for *_, v, _ in c.rows if v.reading.startswith("SP2 boards")]
    tree = [v for w, says, o, t, v, rr in c.rows if w in ("Fig. 12", "§5.5") and says.startswith("64 nodes")
            and not v.reading.startswith("SP2 boards")]
    return [f"At 64 nodes the 4-ary 3-tree agrees with {sum(v == AGREE for v in tree)} of {len(tree)} of "
            f"Fig. 12's and §5.5's verdicts (both up-port readings), the SP2 boards with "
            f"{sum(v == AGREE for v in on_boards)} of {len(on_boards)}.", ""]

