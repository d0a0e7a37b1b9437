"""§4.2 of paper 002: buffer sizing of a buffered crossbar with credits and with SFC (analytic)."""

from __future__ import annotations

from ..claims import Exact, cell, tally, within
from .common import RTTS, Section
from .quotes import N_OVER_2


def sizing() -> Section:
    from switchq.solvers import crossbar_memory

    sec = Section()
    sec.lines += ["## Buffer sizing (§4.2)", "",
                  "Credits need tau cells per crosspoint, N²·tau in all. SFC needs Q_R per crosspoint plus "
                  "Q_RTX = max(tau, N·Q_R) per line card. The paper: with the ideal Q_R = tau/N the SFC total is "
                  "2·N·tau, \"reduced by a factor of N/2\"; the simulations below use its Q_R = floor(tau/N) + 2, "
                  "which saves less.", "",
                  "| N | tau | credit: N²·tau | SFC ideal: Q_R, Q_RTX, total | saving | N/2 | verdict | "
                  "SFC as simulated: Q_R, Q_RTX, total | saving |",
                  "|---:|---:|---:|---|---:|---:|---|---|---:|"]
    halves = []
    for n in (16, 64):
        for tau in RTTS:
            ideal = crossbar_memory.sfc_cicq(n, tau, rule="ideal")
            paper = crossbar_memory.sfc_cicq(n, tau, rule="paper")
            v = within(Exact(ideal.reduction_factor, "switchq.solvers.crossbar_memory"), n / 2, 1e-9,
                       claim=f"§4.2: SFC saves a factor N/2, N = {n}, tau = {tau}", section="§4.2", quote=N_OVER_2)
            halves.append(v)
            sec.lines.append(f"| {n} | {tau} | {ideal.credit_total_cells} | {ideal.q_r:g}, {ideal.q_rtx:g}, "
                             f"{ideal.total_cells:g} | {ideal.reduction_factor:.1f} | {n // 2} | {cell(v)} | "
                             f"{paper.q_r}, {paper.q_rtx}, {paper.total_cells} | {paper.reduction_factor:.2f} |")
    sec.verdicts += halves
    sec.lines += ["", f"The ideal saving is N/2 in {tally(halves)} rows.", ""]
    return sec
