"""A leaf-spine fabric of lossless shared-memory switches with PFC between them: an incast's pause spreading
upstream and the flows it stalls (issue 37).

Simulated as ``leaf-spine`` (:mod:`switchq.validate.arch.leaf_spine`), cell by cell; no analytic answer: the
report sets its pause duties and victims' throughput beside the single switch's closed forms.
"""

from __future__ import annotations

from switchq.declaration import Architecture, BenchCase, Counter, Metric
from switchq.errors import InputError
from switchq.models.leaf_spine import FabricIncast, LeafSpineFabric
from switchq.params import Param, check_applies

LEAVES = Param("leaves", "leaves", "int", 4, low=2, high=256, unit="switches", help="Leaf switches.")
SPINES = Param("spines", "spines", "int", 2, low=1, high=64, unit="switches", help="Spine switches.")
HOSTS = Param("hosts", "hosts", "int", 16, low=2, high=65536, unit="nodes", help="Hosts, a multiple of --leaves.")
BUFFER = Param("buffer_cells", "buffer_cells", "int", 1000, low=1, high=1 << 22, unit="cells",
               help="Shared memory per switch, in cells.")
XOFF = Param("xoff", "xoff_cells", "int", 20, low=1, unit="cells",
             help="Cells an input port's group holds in the shared memory before it sends XOFF.")
XON_OFFSET = Param("xon_offset", "xon_offset_cells", "int", 5, low=0, unit="cells",
                   help="XON when the group has drained to --xoff less this.")
HEADROOM = Param("headroom", "headroom_cells", "int", None, low=0, unit="cells",
                 default_text="2 x --link-delay - 1 (every cell in flight)", help="Headroom per input port.")
DELAY = Param("link_delay", "link_delay", "int", 10, low=1, high=1 << 16, unit="slots",
              help="Slots a cell (or a PFC frame) takes on a link.")
INCAST = Param("incast", "degree", "int", 8, low=0, unit="senders",
               help="Backlogged senders off leaf 0, all to host 0.")
VICTIMS = Param("victims", "victims", "int", 2, low=0, unit="flows",
                help="Flows between two other leaves, sharing only uplinks and spines with the incast.")
VICTIM_LOAD = Param("victim_load", "victim_load", "float", 0.5, low=0, high=1, unit="cells/slot/flow",
                    help="Each victim flow's Bernoulli load.")


def build(p):
    check_applies(DECLARATION.all_params(), p, p)   # Python callers refused as the CLI refuses them
    if p["hosts"] % p["leaves"]:
        raise InputError("hosts", p["hosts"], f"a multiple of --leaves ({p['leaves']}): each leaf has as many")
    fabric = LeafSpineFabric(p["leaves"], p["spines"], p["hosts"] // p["leaves"], p["buffer_cells"], p["xoff"],
                             p["xon_offset"], p["headroom"], p["link_delay"])
    return fabric, FabricIncast(p["incast"], p["victims"], p["victim_load"])


def _tier(tier):
    """The share of slots the links of a hop were paused, averaged over them (none where the hop has none)."""
    def duty(c):
        links = c[f"tier{tier}_links"]
        return None if not links.all() else c[f"m_paused_tier{tier}"] / (links * c.slots)
    return duty


def _victim_throughput(c):
    v = c.workload.victims
    return None if v == 0 else c["m_victim_delivered"] / (v * c.slots)


METRICS = (
    Metric("throughput", "cells/slot/node", lambda c: c["m_delivered"] / (c.system.hosts * c.slots),
           "cells delivered per host per slot, all flows", bounds=(0.0, 1.0)),
    Metric("incast_throughput", "cells/slot", lambda c: c["m_incast_delivered"] / c.slots,
           "cells reaching the incast's host per slot (its link carries at most 1)", bounds=(0.0, 1.0)),
    Metric("victim_throughput", "cells/slot/flow", _victim_throughput,
           "cells of the victim flows delivered per flow per slot (against their --victim-load)", bounds=(0.0, 1.0)),
    Metric("pause_duty_spine", "1", _tier(1),
           "hop 1: share of slots the spines' links down to leaf 0 that the incast takes were paused",
           bounds=(0.0, 1.0)),
    Metric("pause_duty_uplink", "1", _tier(2), "hop 2: share of slots the leaves' uplinks the incast takes were "
                                               "paused", bounds=(0.0, 1.0)),
    Metric("pause_duty_host", "1", _tier(3), "hop 3: share of slots the incast senders' host links were paused",
           bounds=(0.0, 1.0)),
    Metric("pause_duty_victim", "1", _tier(4), "share of slots the victims' host links were paused",
           bounds=(0.0, 1.0)),
    Metric("mean_latency", "slots", lambda c: c["m_latency_sum"] / c["m_latency_count"],
           "slots from a host sending a cell to its arrival (links included)"),
    Metric("lost_cells", "cells", lambda c: c["m_lossless_drops"], "lossless cells lost (a headroom full)"),
)

DECLARATION = Architecture(
    name="leaf-spine", family="network", order=96, size="hosts",
    title="Leaf-spine fabric with PFC",
    summary="leaf-spine fabric of lossless shared-memory switches with PFC: an incast's pause spreading, its victims",
    description="Leaves and spines, each a lossless shared-memory switch (ingress accounting per port, XOFF, "
                "headroom) with PFC on every link; an incast of backlogged senders to host 0 and victim flows "
                "between two other leaves. Measures the pause duty at each hop upstream and what the victims get.",
    config=(LeafSpineFabric,), accepts=(FabricIncast,),
    params=(LEAVES, SPINES, HOSTS, BUFFER, XOFF, XON_OFFSET, HEADROOM, DELAY), workload=(INCAST, VICTIMS, VICTIM_LOAD),
    build=build, kernel="switchq.validate.arch.leaf_spine", metrics=METRICS,
    counters=(Counter("arrived", "cells"), Counter("delivered", "cells"), Counter("queued", "cells"),
              Counter("xoffs", "pauses", counter="m_xoffs"), Counter("headroom_peak", "cells", "max"),
              Counter("victim_backlog", "cells")),
    units={"buffer_cells": "cells", "xoff_cells": "cells", "xon_offset_cells": "cells", "headroom_cells": "cells",
           "link_delay": "slots", "hosts_per_leaf": "hosts", "incast": "senders", "victims": "flows", "victim_load": "cells/slot/flow"},
    bounded="lossless by PFC: every switch's memory and headrooms are bounded; the victims' cells wait at their "
            "hosts (victim_backlog) and their shortfall is victim_throughput against --victim-load",
    main="victim_throughput",
    table=("incast_throughput", "victim_throughput", "pause_duty_spine", "pause_duty_uplink", "pause_duty_host"),
    sample={"leaves": 3, "spines": 2, "hosts": 6, "incast": 2, "victims": 1},
    examples=("switchq simulate leaf-spine --leaves 4 --spines 2 --hosts 16 --incast 8 --victims 2 --json",),
    vary_example="incast=0,2,4,8 --leaves 4 --spines 2 --hosts 16 --victims 2",
    bench=(BenchCase("leaf-spine 256 hosts (16 leaves, 4 spines), 32:1 incast", {"leaves": 16, "spines": 4,
                                                                               "hosts": 256, "incast": 32,
                                                                               "victims": 8}, scale=0.1),),
)
