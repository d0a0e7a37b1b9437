"""Paper 001's Figs. 19-20 for the ``circuit`` report (§7): packet trains and file servers, with overhead.

Each claim judged by the verdict engine (:mod:`switchq.validate.verdict`) through the report's claims list;
Fig. 20's receiving rate is read two ways (per server link, the default, and per sending client, judged first).
"""

from __future__ import annotations

from .circuit_claims import SAME, SAYS
from .circuit_common import diff_text, fmt3, paired_throughput
from .circuit_overhead import reproducing
from .claims import AGREE, at_least, at_most, listed, sampled, within
from . import est

__all__ = ["fig_19", "fig_20"]


def fig_19(sim, claims, lines: list) -> None:
    """Fig. 19: packet trains (8 x 4000 B) against 32000- and 4000-byte long packets, FIFO and W = 32."""
    add = claims.add
    tb = (0.98, 0.9, 0.75, 0.5)
    trains = {}
    for w in (1, 32):
        base = {"ports": 32, "scheduling": "window" if w > 1 else "fifo", "window": w}
        trains[w] = {"32000 B": sim([{**base, "sizes": "bimodal", "long": 32000 * 8, "long_bytes": x} for x in tb]),
                     "8 x 4000 B": sim([{**base, "sizes": "train", "long": 32000 * 8, "train": 8, "long_bytes": x}
                                        for x in tb]),
                     "4000 B": sim([{**base, "sizes": "bimodal", "long": 4000 * 8, "long_bytes": x} for x in tb])}
    lines += ["", "## Fig. 19: packet trains (overhead), N = 32", "",
              "| BinL | " + " | ".join(f"{'FIFO' if w == 1 else 'W = 32'} {k}" for w in (1, 32) for k in trains[w])
              + " |", "|---:|" + "---:|" * 6]
    lines += [f"| {x} | " + " | ".join(f"{trains[w][k][q].value:.3f}" for w in (1, 32) for k in trains[w]) + " |"
              for q, x in enumerate(tb)]
    t1 = trains[1]
    claims.order("19", "FIFO: trains beat 32000-byte packets, and 4000-byte long packets beat both", [
        (f"BinL {x:g}: {a} above {b}", t1[a][q], t1[b][q]) for q, x in enumerate(tb)
        for a, b in (("4000 B", "8 x 4000 B"), ("8 x 4000 B", "32000 B"))], quote=SAYS["19"])
    t32 = trains[32]
    for q, x in enumerate(tb):
        if x <= 0.75:
            for k in ("8 x 4000 B", "4000 B"):
                d = paired_throughput(t32[k][q], t32["32000 B"][q])
                add("19", f"W = 32: the three very similar below 75 % BinL (BinL {x:g}: {k} against 32000 B)", diff_text(d),
                    f"±{SAME}", within, d, 0.0, SAME, compares=True, quote=SAYS["19 window"])


def fig_20(sim, claims, lines: list) -> None:
    """Fig. 20: file servers (W = 32, N = 32, long 32000 B): what servers and clients send and receive."""
    add = claims.add
    servers = (1, 2, 4, 8, 16)
    fs_rows = sim.rows([{"ports": 32, "scheduling": "window", "window": 32, "sizes": "bimodal", "long": 32000 * 8,
                         "long_bytes": 0.75, "file_servers": f} for f in servers])
    lines += ["", "## Fig. 20: file servers (W = 32, N = 32, long 32000 B)", "",
              "Clients send 80 % of their bytes to the servers (98 % of them in long packets), 20 % to other "
              "clients (75 %); servers send only to clients (98 %). Shares of each side's links:", "",
              "| servers | servers sending | servers receiving | clients sending (all) | clients to clients |",
              "|---:|---:|---:|---:|---:|"]
    fig20 = "the paper gives neither its x-axis's range nor how a server's receiving share is normalised"
    per_client = "servers' receiving normalised per sending client"
    low = {"default": [], per_client: []}
    for f, r in zip(servers, fs_rows):
        s, rv, cc = (est(r, m) for m in ("server_send", "server_receive", "client_client"))
        clients = sampled(r, lambda x, y, f=f: x * f / (32 - f) + y, "server_receive", "client_client")
        lines.append(f"| {f} | {fmt3(s)} | {fmt3(rv)} | {fmt3(clients)} | {fmt3(cc)} |")
        n = f"{f} server{'s' * (f > 1)}"
        add("20", f"servers send at high rates ({n})", fmt3(s), "bound, 0.5", at_least, s, 0.5, quote=SAYS["20 send"])
        add("20", f"clients send only at a low rate ({n})", fmt3(clients), "bound, 0.5", at_most, clients, 0.5,
            quote=SAYS["20 clients"])
        # Receiving read two ways: per server link (the default), or per sending client (the servers' received
        # bytes over the 32 - f clients' links: what each client manages to send them), judged first and given to
        # the default with the sentence that names a stream's throughput but not the links it is a share of.
        spare = {"default": sampled(r, lambda x, y: x - 2 * y, "server_send", "server_receive"),
                 per_client: sampled(r, lambda x, y, f=f: x - 2 * y * f / (32 - f), "server_send",
                                     "server_receive")}
        other = []
        for name in (per_client, "default"):
            e = spare[name]
            v = add("20", f"servers receive at very low rates: below half what they send ({n})",
                    f"sending minus twice receiving: {e.value:+.3f} ± {e.half_width:.3f}", "bound, 0", at_least,
                    e, 0.0, reading=name, quote=SAYS["20 receive"], signed=True,
                    **(dict(readings=other, allows=SAYS["20 streams"]) if other else {}))
            other = [v]
            if v == AGREE:
                low[name].append(f)
    lines += ["", f"Of the server counts run ({listed(servers)}), the servers receive below half what they send "
              "(the whole interval above 0) with " + " and ".join(
                  f"{listed(low[k], 'none')} {how}" for k, how in (("default", "per server link (the default)"),
                                                                 (per_client, "per sending client")))
              + f"; {fig20}: " + reproducing({k: (len(v), len(servers)) for k, v in low.items()},
                                            "the paper's \"very low rates\"") + ".", ""]
