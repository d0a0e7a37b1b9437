"""Pieces the single-switch declarations share: traffic parameters, metrics, counters, the stability rule.

Not a declaration (the registry skips modules whose name starts with ``_``):
a toolkit, so each declaration stays short and every switch measures alike.
"""

from __future__ import annotations

from dataclasses import replace

from switchq.declaration import Counter, Metric
from switchq.models.traffic import PATTERNS, Traffic
from switchq.params import REQUIRED, Param

__all__ = ["PORTS", "LOAD", "BURST", "UNICAST_TRAFFIC", "unicast_traffic", "switch_metrics", "switch_counters",
           "switch_stability", "latency_per", "INPUT_BUFFER", "switch_family", "with_default"]

PORTS = Param("ports", "n_ports", "int", REQUIRED, low=1, unit="ports", aliases=("-n",),
              help="Switch size N (inputs = outputs).")
LOAD = Param("load", "load", "float", REQUIRED, low=0, high=1, unit="cells/slot/input", aliases=("-p",),
             help="Offered load per input in cells/slot, in [0, 1].")
INPUT_BUFFER = Param("input_buffer", "input_buffer_cells", "int", None, low=1, high=1 << 20, unit="cells",
                     help="Cells per input, all its queues together (none = unbounded).")

# Destinations and arrivals of unicast traffic (paper 000 §5.5, paper 002 §5; models.traffic).
PATTERN = Param("pattern", "pattern", "choice", "uniform", choices=PATTERNS, help="Destination pattern.")
ARRIVALS = Param("arrivals", "arrivals", "choice", None, choices=("bernoulli", "onoff"),
                 default_text="onoff if --burst > 1, else bernoulli", help="Arrival process.")
# Unset arrivals are on-off with bursts longer than a cell; --unbalanced sets the default pattern.
BURST = Param("burst", "mean_burst", "float", 1.0, low=1, high=1e6, unit="cells",
              help="Mean burst length in cells (on-off arrivals).", applies=("arrivals", ("onoff", None)))
UNBALANCED = Param("unbalanced", "unbalanced_w", "float", None, low=0, high=1, unit="1",
                   help="Unbalanced-traffic w in [0, 1] (sets --pattern unbalanced).",
                   applies=("pattern", ("unbalanced", "uniform")))
HOTSPOT_FRACTION = Param("hotspot_fraction", "hotspot_fraction", "float", 0.0, low=0, high=1, unit="1",
                         help="Share of cells sent to the hotspot port.", applies=("pattern", ("hotspot",)))
HOTSPOT_PORT = Param("hotspot_port", "hotspot_port", "int", 0, low=0, unit="port index",
                     help="Hotspot output port index.", applies=("pattern", ("hotspot",)))
UNICAST_TRAFFIC = (LOAD, PATTERN, ARRIVALS, BURST, UNBALANCED, HOTSPOT_FRACTION, HOTSPOT_PORT)


def unicast_traffic(p: dict, priority_shares=None):
    """The :class:`~switchq.models.traffic.Traffic` of a point's traffic parameters.

    ``--unbalanced w`` sets the pattern; arrivals default to on-off when bursts are longer than a cell.
    """
    burst = p.get("burst", 1.0)
    return Traffic(load=p["load"], pattern="unbalanced" if p.get("unbalanced") is not None else p.get("pattern"),
                   arrivals=p.get("arrivals") or ("onoff" if burst != 1.0 else "bernoulli"), mean_burst=burst,
                   unbalanced_w=p.get("unbalanced") or 0.0, hotspot_fraction=p.get("hotspot_fraction", 0.0),
                   hotspot_port=p.get("hotspot_port", 0), priority_shares=priority_shares or (1.0,))


def _inputs(c):
    return c.workload.active_inputs or c.system.n_ports


def switch_metrics(unit: str = "cells", copies: bool = False, loss: str = "dropped at a full buffer") -> tuple:
    """Throughput per offering input, output utilisation, latency, wait and loss of a single switch.

    Throughput counts cells (multicast: packets, when their last copy leaves) per offering input per
    slot, so it compares with the load; output utilisation counts cells (or copies) per output. ``loss``
    ends the text of ``loss_probability``, "share of the offered cells ...": how this switch loses them.

    >>> switch_metrics(loss="knocked out")[-1].help
    'share of the offered cells knocked out'
    """
    sent = "m_copies" if copies else "m_delivered"
    return (
        Metric("throughput", f"{unit}/slot/input", lambda c: c["m_delivered"] / (_inputs(c) * c.slots),
               f"{unit} delivered per offering input per slot", bounds=(0.0, 1.0)),
        Metric("carried_share", "1", lambda c: c["m_delivered"] / c["m_offered"],
               f"{unit} delivered over {unit} offered while measuring: 1 - loss - backlog growth / offered, "
               "1 for a stable lossless switch (free of the noise in how many arrive)", bounds=(0.0, 1.0)),
        Metric("output_utilization", f"{'copies' if copies else unit}/slot/output",
               lambda c: c[sent] / (c.system.n_ports * c.slots),
               f"{'copies' if copies else unit} sent per output per slot", bounds=(0.0, 1.0)),
        Metric("mean_latency", "slots", lambda c: c["m_latency_sum"] / c["m_latency_count"],
               "slots from arrival to departure, the departure slot included"),
        Metric("mean_wait", "slots", lambda c: c["m_wait_sum"] / c["m_wait_count"], "whole slots before departure"),
        Metric("loss_probability", "1", lambda c: c["m_dropped"] / c["m_offered"],
               f"share of the offered cells {loss}", lossy_on_overflow=True, bounds=(0.0, 1.0)),
    )


def switch_counters(unit: str = "cells") -> tuple:
    return (Counter("arrived", unit), Counter("delivered", unit), Counter("dropped", unit), Counter("queued", unit))


def switch_stability(unit: str = "cells", part: str = "output"):
    """The stability rule of a switch: its backlog, wherever it waits, grew by offered - dropped - delivered
    while measuring (per replication, in ``unit``), and so did each ``part``'s (the cells for an output, or
    at an input where the queues are the inputs'), with no allowance beyond the harness's."""
    def backlog(c):
        from switchq.validate.harness import Backlog   # here, not above: declaring a switch imports no NumPy

        # Cells come in geometric bursts to one output (mean b): the count offered varies by (2b - 1) x itself
        # (the kernels pick their worst part with the same granule: kernel.burst_granule).
        burst = getattr(c.workload, "mean_burst", 1.0)
        return Backlog(c["m_offered"] - c["m_dropped"] - c["m_delivered"], c["m_offered"], 0, unit, part,
                       granule=2.0 * burst - 1.0)
    return backlog


def latency_per(what: str):
    """The ``latency_per`` label: what a latency is measured on."""
    return lambda c: {"latency_per": what}


def switch_family(per: str = "cell", unit: str = "cells", copies: bool = False, workload=UNICAST_TRAFFIC,
                  part: str = "output", loss: str = "dropped at a full buffer") -> dict:
    """What every single-switch declaration says alike, as keywords of ``Architecture``: it takes a
    :class:`~switchq.models.traffic.Traffic`, measures throughput, utilisation, latency (per ``per``),
    wait and loss (the cells ``loss`` says: :func:`switch_metrics`), counts ``unit``, and judges stability
    by the backlog's growth."""
    return {"family": "switch", "accepts": (Traffic,), "workload": workload,
            "metrics": switch_metrics(unit, copies, loss), "counters": switch_counters(unit),
            "labels": latency_per(per), "stability": switch_stability(unit, part)}


def with_default(param: Param, default, **changes) -> Param:
    return replace(param, default=default, **changes)
