"""Section 3 of the multicast report: multicast of mean fanout 8 on the 256-node fat tree (paper 003 Fig. 15)."""

from __future__ import annotations

from pathlib import Path

from .common import Plan, Section, carried_its_load, curve, how, pm, save, simulated

__all__ = ["network_multicast"]


def network_multicast(p: Plan, out: Path, progress: bool = False, store=None) -> Section:
    """Fig 15 (§3.1): 256 nodes, mean fanout 8, 4 buffers; Table 1's 32-port switches, and 8-port ones."""
    import matplotlib.pyplot as plt

    s = p.settings("network")
    loads = p.mc_loads
    rows = simulated(p, "network", "fattree", [{"ports": ports, "nodes": 256, "crosspoint_cells": 4, "load": x,
                                                "fanout": 8, "fanout_distribution": "uniform"}
                                               for ports in (32, 8) for x in loads], progress, store)
    res = {32: rows[:len(loads)], 8: rows[len(loads):]}
    bound = 1 / 8
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ports, style in ((32, "o-"), (8, "s--")):
        curve(axes[0], loads, res[ports], "throughput", f"{ports}-port switches", style)
        curve(axes[1], loads, res[ports], "mean_latency", f"{ports}-port switches", style, carried_only=True)
    axes[0].plot(loads, loads, ":", color="grey", lw=0.8)
    for ax in axes:
        ax.axvline(bound, color="grey", ls="--", lw=0.8, label="admissible bound 1/8")
        ax.set_xlabel("offered load (multicast packets/node/slot)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("throughput (packets/node/slot)")
    axes[1].set_ylabel("mean latency to the last copy (slots)")
    axes[0].legend(fontsize=8)
    save(fig, out / "multicast_fattree_fig15.png", f"Multicast, mean fanout 8, 256 nodes, 4 buffers "
          f"(paper 003 Fig. 15); seed {p.seed}, {s.slots} slots x {s.replications} replications, 95 % CI bars")
    sec = Section(files=[out / "multicast_fattree_fig15.png"])
    sec.lines += ["## 3. Multicast on the 256-node fat tree (Fig. 15, §3.1)", "",
                  "Every node offers multicast packets (Bernoulli) to a set of other nodes whose size is uniform "
                  "on 1..15 (mean 8) and which is uniform given its size. A packet climbs to the lowest switch "
                  "reaching all its destinations (the up ports chosen on credits) and is copied where the "
                  "downward paths fork, entering every needed crosspoint at once. Each node receives 8 x load "
                  "copies per slot, so no network carries more than 1/8 = 0.125. The paper does not say which "
                  "switches Fig. 15 uses; Table 1's are 32-port (two levels), so those come first, then 8-port "
                  "switches (four levels). Latency: generation to the last copy's arrival, in slots (µs: times "
                  "204.8 ns plus 2.6 µs of NIC overheads). " + how(p, "network"), "",
                  "![Fig. 15](multicast_fattree_fig15.png)", "",
                  "| offered load | 32-port: throughput | latency (slots) | latency (µs, with NIC) | "
                  "8-port: throughput | latency (slots) | latency (µs, with NIC) |",
                  "|---:|---:|---:|---:|---:|---:|---:|"]
    for i, x in enumerate(loads):
        cells = []
        for ports in (32, 8):
            r = res[ports][i]
            ok = carried_its_load(r, x)
            cells += [pm(r.throughput, r.throughput_ci95),
                      pm(r.mean_latency, r.mean_latency_ci95, 1) if ok else "sat.",
                      pm(r.mean_latency_ns / 1e3, tuple(v / 1e3 for v in r.mean_latency_ns_ci95), 2) if ok
                      else "sat."]
        sec.lines.append(f"| {x:g} | " + " | ".join(cells) + " |")
    sat = {ports: res[ports][-1] for ports in (32, 8)}
    top = {ports: max((x for x, r in zip(loads, res[ports]) if carried_its_load(r, x)), default=None) for ports in (32, 8)}
    sec.lines += ["", f"**Reading.** Offered {loads[-1]:g}, beyond the bound, the 32-port network carries "
                  f"{pm(sat[32].throughput, sat[32].throughput_ci95)} packets/node/slot "
                  f"({sat[32].throughput / bound:.1%} of 1/8) and the 8-port one "
                  f"{pm(sat[8].throughput, sat[8].throughput_ci95)} ({sat[8].throughput / bound:.1%}): their "
                  f"saturation throughputs. The highest loads carried here are {top[32]} and {top[8]}. The paper "
                  "says latency is \"stable for load-factors under 0.125\" (Fig. 15, no table): with Table 1's "
                  f"32-port switches we agree within {bound - sat[32].throughput:.3f}; four levels of 8-port "
                  f"switches stop {bound - sat[8].throughput:.3f} short, because a multicast packet holds the "
                  "credits of all its copies until the last one leaves a switch (one busy output stalls the "
                  "packet's other branches; one switch, section 1, also saturates a little under its bound) and "
                  "every level adds such a point of contention. Near saturation (the last carried loads) the "
                  "latency still grows with the run length, so those points are not steady-state figures.", ""]
    sec.summary.append(("Fig. 15", "multicast, fanout 8, latency stable below", "0.125",
                        f"saturates at {pm(sat[32].throughput, sat[32].throughput_ci95, 4)} (32-port), "
                        f"{pm(sat[8].throughput, sat[8].throughput_ci95, 4)} (8-port)",
                        f"{sat[32].throughput - bound:+.4f} / {sat[8].throughput - bound:+.4f}",
                        "a packet's credits held until its last copy leaves; more levels, more contention"))
    return sec
