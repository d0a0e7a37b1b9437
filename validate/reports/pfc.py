"""Report ``pfc``: PFC headroom per speed and cable under four formulas, against published figures and the twin.

Tabulates ``switchq size pfc`` (IEEE 802.1Qbb Annex N, the Linux mlx5
driver, SONiC's Mellanox script, Cisco's white paper) by speed and cable;
compares the terms with the figures their sources print (Gupta's bit times,
Cisco's bytes and nanoseconds per 100 m, SONiC's static MSN2700 headroom
table) with verdicts of the engine (:mod:`switchq.validate.verdict`); and runs
the twin (``switchq simulate pfc``) at the sized headroom and one frame below
it, judged by the same engine on at least 5 replications. Ends with
InfiniBand credits.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from . import begin, est, page, points, pyplot, readings
from .claims import AGREE, Exact, agreeing, cell, listed, printed, tally, within
# The sentence a verdict quotes lives with the readings table that cites it.
from .pfc_choices import CHOICES, CISCO_SPEEDS

TITLE = "PFC headroom and InfiniBand credits: four formulas, their sources, and the twin"
INTRO = ("Paper 002's grant (on/off) flow control needs the buffer above its stop threshold to hold what arrives "
         "while the stop travels and takes effect; PFC (IEEE 802.1Qbb) is that protocol with real delays. "
         "`--quick` only shortens the random-phase run: the analytic figures are exact and the worst-case twin is "
         "deterministic. No verdict stands on fewer than 5 replications or on point values (a formula's figure is "
         "judged as exact, a simulated one by its whole 95 % interval inside the band); comparisons are paired. "
         "A disagreement is an ambiguity only where another reading that was run agrees and the source's words "
         "allow it, and a defect otherwise.")
SPEEDS = (10e9, 25e9, 40e9, 100e9, 400e9)
CABLES = (3.0, 10.0, 100.0, 300.0)
MODELS = ("ieee", "mlx5", "sonic", "cisco")
MTU = 9216
# 802.3's interface bound is tabulated to 100 Gb/s only: above it the report assumes 100 Gb/s's time, 1228.8 ns.
ASSUMED_INTERFACE = 122880 / 100e9
# Gupta ch. 7 prints these bit times for 100 GbE (and D-Resp for 400 GbE).
GUPTA_BT = {"mtu_receiver": ("73888", 100e9), "pfc_frame": ("672", 100e9), "interface": ("122880", 100e9),
            "response": ("201728", 100e9), "response_400": ("463360", 400e9)}
# sonic-buildimage device/mellanox/x86_64-mlnx_msn2700-r0/ACS-MSN2700/pg_profile_lookup.ini: (speed Mb/s, cable m,
# xoff B); Spectrum ASIC (96 B cells), generated with the ASIC table's 3.8 KB peer response time.
MSN2700_XOFF = ((10000, 5, 29696), (25000, 5, 29696), (40000, 5, 29696), (50000, 5, 29696), (100000, 5, 30720),
                (10000, 40, 29696), (25000, 40, 31744), (40000, 40, 32768), (50000, 40, 33792),
                (100000, 40, 38912), (10000, 300, 36864), (25000, 300, 48128), (40000, 300, 59392),
                (50000, 300, 66560), (100000, 300, 104448))
# Replications of every simulated point a verdict stands on (the worst-case twin is deterministic: five
# identical runs give a point interval).
REPLICATIONS = 5
# Replications the engine may take a point to before calling its interval inconclusive (x REPLICATIONS).
BUDGET = 4
LIGHT = 299_792_458.0


def _runs(model, params, slots, seed, workers, store, progress):
    rows = points(model, params, slots=slots, warmup=slots // 10, replications=REPLICATIONS, seed=seed,
                  workers=workers, store=store, progress=progress)
    for r in rows:       # what est() counts: the replications each row was run with
        r.setdefault("replications", REPLICATIONS)
    return rows


def _port(rate, cable, model, **kw):
    from switchq.models.pfc import PfcPort

    vendor = model in ("mlx5", "sonic")
    needs = rate not in (10e9, 25e9, 40e9, 100e9) and not vendor
    return PfcPort(rate, cable, MTU, model=model, interface_delay_s=ASSUMED_INTERFACE if needs else None, **kw)


def _gb(rate):
    return f"{rate / 1e9:g}G"


def _headroom_table(lines):
    from switchq.solvers.pfc import headroom

    lines += ["## Headroom per priority, by speed and cable", "",
              f"`switchq size pfc --link-rate R --cable L --mtu {MTU}B --model M` (fibre; SONiC on Spectrum-3). "
              "Bytes the buffer must absorb above XOFF; SONiC's own reservation adds its XON (pipeline) part. "
              f"ieee at {_gb(400e9)} takes 100 Gb/s's interface delay (1228.8 ns) as an assumption (marked *): "
              "802.3's bound for it is not in the sources.", "",
              "| speed | cable | " + " | ".join(MODELS) + " | sonic reserves |", "|---|---:|" + "---:|" * 5]
    for rate in SPEEDS:
        for cable in CABLES:
            cells = []
            for m in MODELS:
                h = headroom(_port(rate, cable, m))
                star = "*" if m == "ieee" and rate == 400e9 else ""
                cells.append(f"{h.headroom_bytes}{star}")
            reserved = headroom(_port(rate, cable, "sonic")).reserved_bytes
            lines.append(f"| {_gb(rate)} | {cable:g} m | " + " | ".join(cells) + f" | {reserved} |")
    # Where cisco's response is the white paper's own figure, and where switchq substitutes 802.3's.
    response = {r: headroom(_port(r, 100.0, "cisco")).term_sources["response"] for r in SPEEDS}
    substituted = [_gb(r) for r, src in response.items() if "substituted" in src]
    own = [_gb(r) for r, src in response.items() if "white paper's figure" in src]
    lines += ["", "SONiC's bytes are ASIC buffer, inflated by the cells small packets waste (x 2.25 with 144 B "
              "cells and every packet small). mlx5 floors the speed at 40 Gb/s and reads the MTU as the netdev's "
              f"(the driver passes `dev->mtu`, the IP MTU: {MTU} B here stands for frames of {MTU + 18} B with "
              "header and FCS), and it refuses a lossless buffer smaller than xoff + max(netdev max_mtu, 9216) + "
              "one cell. cisco leaves out the interfaces and the PFC frame; its response is the white paper's 60 "
              f"quanta (3,840 B) at {listed(own)}, and at {listed(substituted)}, which the white paper does not "
              "state, switchq substitutes 802.3's value (Table 31B-1).", ""]


def _published(lines, verdicts):
    from switchq.solvers.pfc import headroom, sonic

    start = len(verdicts)
    lines += ["## Against the figures the sources print", "",
              "Each verdict: `agree` when ours, rounded as the source prints it, equals the source's figure "
              "(tolerance half a unit in its last digit); SONiC's table entries are whole KB, rounded up by the "
              "script, so there the tolerance is 0.", "",
              "| figure | source prints | ours | tolerance | verdict |", "|---|---:|---:|---:|---|"]
    for key, (text, rate) in GUPTA_BT.items():
        term = "response" if key.startswith("response") else key
        h = headroom(_port(rate, 100.0, "ieee"))
        ours = h.terms[term] * 8 / (2 if term == "interface" else 1)   # D-Intf is per end; ours counts both
        target, tol = printed(text)
        v = within(Exact(ours, "802.1Qbb Annex N term"), target, tol, claim=f"Gupta, {_gb(rate)} {term}",
                   section="Gupta, ch. 7")
        verdicts.append(v)
        lines.append(f"| Gupta, {_gb(rate)} {term} (bit times) | {text} | {ours:.0f} | {tol:g} | {cell(v)} |")
    # Cisco's cable figures computed with c = 3e8 m/s (the rounded speed of light) instead of 299,792,458 m/s:
    # the reading its numbers are made with, if they round to them.
    cisco = []
    for medium, ns, nbytes in (("fiber", "513", "641"), ("copper", "476", "595")):
        cable = headroom(_port(10e9, 100.0, "cisco", medium=medium)).terms["cable"] / 2
        for what, text, ours in (("ns", ns, cable * 8 / 10), ("bytes at 10 Gb/s", nbytes, cable)):
            target, tol = printed(text)
            rounded_c = ours * LIGHT / 3e8
            claim = f"Cisco, 100 m of {medium}, {what}"
            other = within(Exact(rounded_c, "c = 3e8 m/s"), target, tol, reading="c = 3e8 m/s", claim=claim,
                           section="Cisco, PFC white paper")
            v = within(Exact(ours, "Cisco's cable term at c = 299,792,458 m/s"), target, tol, claim=claim,
                       section="Cisco, PFC white paper", readings=[other], allows=CISCO_SPEEDS)
            verdicts.append(v)
            cisco.append((v, other, f"100 m of {medium}, {what}", rounded_c, text))
            lines.append(f"| Cisco, 100 m of {medium}, {what} | {text} | {ours:.2f} | {tol:g} | {cell(v)} |")
    response = headroom(_port(10e9, 100.0, "cisco")).terms["response"]
    target, tol = printed("3840")
    v = within(Exact(response, "60 quanta x 64 B"), target, tol, claim="Cisco, response at 10GE, bytes",
               section="Cisco, PFC white paper")
    verdicts.append(v)
    lines.append(f"| Cisco, response at 10GE (60 quanta), bytes | 3840 | {response:.0f} | {tol:g} | {cell(v)} |")
    missed = [c for c in cisco if c[0] != AGREE]
    others = [c[1] for c in cisco]
    lines += ["", f"{tally(verdicts[start:])} agree."
              + (f" Cisco's {listed(c[2] for c in missed)} ({listed(c[4] for c in missed)}) are what its "
                 "cable term gives with the speed of light rounded to 3e8 m/s "
                 f"({listed(f'{c[3]:.2f}' for c in missed)}): with it {agreeing(others)} of {len(others)} "
                 "Cisco figures round to the printed ones (a reading, not counted above; switchq computes "
                 "with c = 299,792,458 m/s)." if missed else ""), ""]

    matches, plain, rows = [], [], []
    for mbps, cable, xoff in MSN2700_XOFF:
        h = sonic(mbps * 1e6, float(cable), MTU, "spectrum", response_bytes=3.8 * 1024)
        ours = h.headroom_bytes
        # The script's cable term is bytes x 1000/1024 ("/ (8 x 1024)" after a speed in Mb/s x 1e9); in plain
        # bytes it is 1.024 times as large.
        bytes_plain = math.ceil((ours - h.terms["round_up_1024"] + 0.024 * h.terms["cable"]) / 1024) * 1024
        claim = f"MSN2700 table, {mbps // 1000}G {cable} m"
        pv = within(Exact(bytes_plain, "cable term in plain bytes"), xoff, 0, reading="cable in plain bytes",
                    claim=claim, section="sonic-buildimage pg_profile_lookup.ini")
        plain.append(pv)
        # No sentence of the source allows the plain-bytes reading (the script is the source, and it writes
        # x 1000/1024): a miss here counts as a defect even where that reading agrees.
        v = within(Exact(ours, "SONiC's Mellanox script"), xoff, 0, claim=claim,
                   section="sonic-buildimage pg_profile_lookup.ini", readings=[pv])
        matches.append(v)
        rows.append(f"| {mbps // 1000}G | {cable} m | {xoff} | {ours} | {cell(v)} | {bytes_plain} | {pv} |")
    verdicts += matches
    missed = [f"{mbps // 1000}G {cable} m" for (mbps, cable, _), v in zip(MSN2700_XOFF, matches) if v != AGREE]
    lines += ["### SONiC's static table (MSN2700, Spectrum)", "",
              "sonic-buildimage ships a fixed headroom table for the Spectrum-based MSN2700 "
              "(`pg_profile_lookup.ini`). The sonic reading with Spectrum's ASIC row (`--asic spectrum`: 96 B "
              "cells) and the ASIC table's 3.8 KB peer response time in place of the quanta table, port MTU "
              f"{MTU} B; beside it the same script with its cable term in plain bytes (the script writes "
              "bytes x 1000/1024), a reading not counted in the headline:", "",
              "| speed | cable | table xoff (B) | ours (B) | verdict | cable in plain bytes (B) | verdict |",
              "|---|---:|---:|---:|---|---:|---|",
              *rows, "", f"{tally(matches)} entries agree to the byte"
              + (f"; the others ({listed(missed)}) are above ours, and with the cable term in plain bytes "
                 f"{agreeing(plain)} of {len(plain)} entries agree: the table was made with the cable's bytes "
                 "computed without the script's x 1000/1024" if missed and all(p == AGREE for p in plain) else
                 f"; the others ({listed(missed)}) are above ours" if missed else "") + ".", ""]


def _twin(lines, quick, workers, seed, store, progress, verdicts):
    from switchq.solvers.pfc import headroom

    lines += ["## The twin: the sized headroom holds, one frame less does not", "",
              "`switchq simulate pfc --phases worst`: the sender saturates the link, the receiver's egress "
              "is paused, R's transmitter starts a maximum frame as XOFF is crossed, S reacts at its bound "
              "and starts a maximum frame in its last allowed byte time. Byte-time slots; 100 m of fibre, "
              f"{MTU} B frames. Analytic: the 802.1Qbb sum (tolerance 2 B: the twin rounds the one-way delay "
              "down to whole byte times); frames lost per pause: 0 when the sum fits, 1 when the excess is "
              "within S's last frame. The worst-case timeline is built from the same terms as the sum (R's "
              "frame, the PFC frame, the one-way delay each way, the response, S's frame), so the headroom it "
              "uses equals the sum by construction: these rows check the timeline's arithmetic (its delays, "
              "S's frame plan, the byte and loss counting), not the formula. The random-phase run below is "
              "the check that no phase needs more.", "",
              "| speed | sized headroom (B) | headroom used (B) | verdict | lost/pause at it | verdict | "
              "lost/pause one frame short | verdict |", "|---|---:|---:|---|---:|---|---:|---|"]
    reps = REPLICATIONS
    start = len(verdicts)
    for rate in SPEEDS:
        h = headroom(_port(rate, 100.0, "ieee"))
        exact = sum(h.terms.values())
        slots = int(40 * h.headroom_bytes)      # about a dozen pauses
        base = {"link_rate": rate, "cable": 100.0, "mtu": MTU * 8, "phases": "worst",
                **({"interface_delay": ASSUMED_INTERFACE} if rate == 400e9 else {})}
        rows = _runs("pfc", [base, {**base, "shortfall": (MTU + 20) * 8}], slots, seed, workers, store, progress)
        used, lost, short = est(rows[0], "headroom_used"), est(rows[0], "frames_lost_per_pause"), \
            est(rows[1], "frames_lost_per_pause")
        at = f"twin, {_gb(rate)}, worst-case phases"
        v = [within(used, exact, 2.0, claim=f"{at}: headroom used is the 802.1Qbb sum", section="802.1Qbb Annex N"),
             within(lost, 0, 0, claim=f"{at}: no frame lost at the sized headroom", section="802.1Qbb Annex N"),
             within(short, 1, 0, claim=f"{at}: one frame lost per pause one frame short",
                    section="802.1Qbb Annex N")]
        verdicts += v
        lines.append(f"| {_gb(rate)}{'*' if rate == 400e9 else ''} | {h.headroom_bytes} | {v[0].value:.0f} | "
                     f"{cell(v[0])} | {v[1].value:g} | {cell(v[1])} | {v[2].value:g} | {cell(v[2])} |")
    lines += ["", f"{tally(verdicts[start:])} agree ({reps} replications each, seed {seed}, 40 x the headroom "
              "in slots; the worst case is deterministic, so every interval is a point).", ""]
    slots = 3_000_000 if quick else 30_000_000
    base = {"link_rate": 100e9, "cable": 100.0, "mtu": MTU * 8, "phases": "random"}
    at, short = _runs("pfc", [base, {**base, "shortfall": (MTU + 20) * 8}], slots, seed, workers, store, progress)
    loss, lost = est(at, "loss_probability"), est(short, "frames_lost_per_pause")
    held = within(loss, 0.0, 0.0, claim="twin, 100G, random phases: no loss at the sized headroom",
                  section="802.1Qbb Annex N")
    verdicts.append(held)
    lines += ["With `--phases random` (R's frame in progress, the sender's reaction and its restart drawn within "
              f"their bounds), 100G, {held.n} runs of {slots:,} byte times: at the sized headroom the loss is "
              f"{held.value:g} (95 % CI {held.low:g} .. {held.high:g}; "
              f"{cell(held)} with 0, the bound holds for every phase); one frame "
              f"short, {lost.value:.3f} frames are lost per pause (95 % CI {lost.low:.3f} .. {lost.high:.3f}) over "
              f"{int(short.get('pauses', 0))} pauses"
              + (": the worst case is rare, not absent." if 0 < lost.low and lost.high < 1 else "."), ""]


def _infiniband(lines, workers, seed, store, progress, verdicts):
    from switchq.models.pfc import InfinibandLink
    from switchq.models.pfc_standard import IB_SPEEDS
    from switchq.solvers.pfc import credit_throughput, infiniband

    hdr = infiniband(InfinibandLink(None, 30.0, 4096, "HDR", 4))
    fixed = infiniband(InfinibandLink(None, 30.0, 4096, "HDR", 4, fixed_delay_s=200e-9))
    update = infiniband(InfinibandLink(None, 30.0, 4096, "HDR", 4, credit_update_s=200e-9))
    lines += ["## InfiniBand: credits per VL for full rate (4x links, 4096 B MTU)", "",
              "`switchq size infiniband --speed S --width 4x --cable L`: the fewest 64-byte credits with which "
              "back-to-back packets (MTU + 26 B of headers) never wait, over a credit round trip of the cable both "
              "ways at 5 ns/m and the 6-byte credit packet; `switchq validate infiniband` checks them with the "
              "twin. Every figure is a lower bound: `--fixed-delay` is left at 0 (no SerDes, FEC or pipeline) "
              "and `--credit-update` at 0 (each credit returned the moment its block is freed), as the answer's "
              f"note says. 4x HDR over 30 m needs {hdr.credits} credits so; with 200 ns of fixed delay "
              f"{fixed.credits}, with a 200 ns credit-update interval {update.credits} (200 ns is an "
              "illustration, not a figure from the sources).",
              "", "| speed | encoding | data rate | 3 m | 10 m | 100 m |", "|---|---|---:|---:|---:|---:|"]
    for name, (_, encoding, _) in IB_SPEEDS.items():
        cells = [infiniband(InfinibandLink(None, c, 4096, name, 4)) for c in (3.0, 10.0, 100.0)]
        lines.append(f"| {name} | {encoding} | {cells[0].link_rate_bps / 1e9:.4g} Gb/s | "
                     + " | ".join(f"{b.credits} ({b.buffer_bytes} B)" for b in cells) + " |")
    reps, packet = REPLICATIONS, 4096 + 26
    lines += ["", "### The twin: full rate at the credits, the recursion's rate below", "",
              "`switchq simulate infiniband` byte by byte against `switchq size infiniband --buffer` (the "
              "max-plus recursion's exact cycle). The window cuts a cycle at each end, so the tolerance is a "
              f"packet's bytes over the measured slots; {reps} replications, seed {seed} (the twin is "
              "deterministic).", "", "| link | buffer | recursion | twin | tolerance | verdict |",
              "|---|---|---:|---:|---:|---|"]
    start = len(verdicts)
    for name, cable in (("HDR", 30.0), ("NDR", 100.0)):
        b = infiniband(InfinibandLink(None, cable, 4096, name, 4))
        slots = 40 * (b.round_trip_bytes + packet)
        shorts = (0, 64, 4096)
        rows = _runs("infiniband", [{"speed": name, "width": "4x", "cable": cable, "shortfall": 8 * x}
                                    for x in shorts], slots, seed, workers, store, progress)
        for short, row in zip(shorts, rows):
            exact, _ = credit_throughput((b.buffer_bytes - short) // 64, packet, b.round_trip_bytes)
            e = est(row, "throughput")
            what = "as sized" if not short else f"{short} B short"
            v = within(e, exact, packet / slots, claim=f"InfiniBand twin, 4x {name} {cable:g} m, {what}: the "
                       "recursion's rate", section="InfiniBand credit flow control", saturated=True)
            verdicts.append(v)
            lines.append(f"| 4x {name}, {cable:g} m | {b.buffer_bytes - short} B ({what}) | {exact:.5f} | "
                         f"{v.value:.5f} | {packet / slots:.2g} | {cell(v)} |")
    lines += ["", f"{tally(verdicts[start:])} agree.", ""]


def _plot(out):
    from switchq.solvers.pfc import headroom

    plt = pyplot()

    cables = [float(c) for c in range(0, 301, 10)]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for m, style in zip(MODELS, ("-", "--", "-.", ":")):
        ax.plot(cables, [headroom(_port(100e9, c, m)).headroom_bytes / 1000 for c in cables], style, label=m)
    ax.set_xlabel("cable (m)")
    ax.set_ylabel("headroom per priority (kB)")
    ax.set_title(f"PFC headroom at 100 Gb/s, {MTU} B frames, fibre")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path = out / "pfc_cable.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def build(out: Path, quick: bool = False, workers: int = 0, seed: int = 1, store=None) -> list[Path]:
    started = begin("pfc", BUDGET)
    body, verdicts = [], []
    _headroom_table(body)
    plot = _plot(out)
    body += [f"![headroom against cable]({plot.name})", ""]
    _published(body, verdicts)
    _twin(body, quick, workers, seed, store, sys.stderr.isatty(), verdicts)
    _infiniband(body, workers, seed, store, sys.stderr.isatty(), verdicts)
    # The readings table (issue 36, item 1) closes the page, before the build time: its sources are standards,
    # a white paper, a driver and a script, not one of the five papers.
    body += readings.table(CHOICES, source="source")
    path = page(out, "pfc", TITLE, INTRO, verdicts, body, started, quick=quick, seed=seed)
    return [path, plot]


__all__ = ["build"]
