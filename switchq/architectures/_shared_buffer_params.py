"""The shared-memory switch's parameters, and how a point of them becomes the model and its workload (issue 37).

Not a declaration (the registry skips modules whose name starts with ``_``): what
:mod:`switchq.architectures.shared_buffer` declares reads its options here. Sizes arrive in bits (``--buffer
256000B``) and become whole cells; ``--sonic-buffers`` puts a SONiC profile in place of the options it gives;
exactly one of ``--congested``, ``--incast`` and ``--load`` names the workload.
"""

from __future__ import annotations

import math
from dataclasses import replace

from switchq.errors import InputError
from switchq.models.shared_buffer import (MAX_BUFFER_CELLS, MAX_PRIORITIES, POLICIES, Incast, Overload,
                                          SharedBufferSwitch)
from switchq.params import ANALYTIC, Above, Param

from ._shared import UNICAST_TRAFFIC, unicast_traffic
from ._sonic import SONIC, not_used, read_once
from .pfc import _bytes


BUFFER = Param("buffer", "buffer", "size", None, low=8, unit="bits", default_text="from --sonic-buffers",
               help="The shared memory with a unit (256000B, 32MiB), used in whole cells.")
SONIC_QUEUES = replace(SONIC, help=SONIC.help + " Here: the memory, alpha or static threshold and reserve of "
                                                 "--sonic-profile's queues; --alpha or --dynamic-th replace its alpha.")
SONIC_PROFILE = Param("sonic_profile", "sonic_profile", "text", None, default_text="the one BUFFER_QUEUE names",
                      help="The egress buffer profile whose queues are asked about.",
                      applies=("sonic_buffers", Above()))
CELL = Param("cell", "cell", "size", 256 * 8, low=8, high=65536 * 8, unit="bits", default_text="256B",
             help="The memory's allocation unit with a unit (256B; Spectrum: 144B).")
POLICY = Param("policy", "policy", "choice", None, choices=POLICIES, default_text="dt (cs with --lossless)",
               help="dt: dynamic threshold; st: static threshold; cs: complete sharing; cp: complete "
                    "partitioning; pushout: the longest queue's last cell makes room.")
ALPHA = Param("alpha", "alpha", "float", None, low=2.0 ** -8, high=2.0 ** 8, unit="1", default_text="1",
              help="Dynamic threshold: a queue admits while shorter than alpha x the free memory.",
              applies=("policy", ("dt", None)))
DYNAMIC_TH = Param("dynamic_th", "dynamic_th", "int", None, low=-8, high=8, unit="1", default_text="0",
                   help="SONiC's/SAI's exponent: alpha = 2^dynamic_th (instead of --alpha).",
                   applies=("policy", ("dt", None)))
PRIORITIES = Param("priorities", "priorities", "int", 1, low=1, high=MAX_PRIORITIES, unit="queues/port",
                   help="Queues (802.1Q traffic classes) per output, sent in strict priority, the highest first.")
PRIORITY_ALPHAS = Param("priority_alphas", "priority_alphas", "floats", None, low=2.0 ** -8, high=2.0 ** 8, unit="1",
                        default_text="--alpha for each",
                        help="One alpha per priority, lowest first (2,0.5), instead of --alpha or --dynamic-th.",
                        applies=(("policy", ("dt", None)), ("priorities", Above(1))))


def _priority_list(text, where):
    """Priorities as comma-separated integers (3,4), each in [0, 7]."""
    items = text.split(",") if isinstance(text, str) else list(text if isinstance(text, (list, tuple)) else [text])
    try:
        values = tuple(int(str(x).strip()) for x in items)
    except ValueError:
        raise InputError(where, text, "comma-separated priorities, each an integer in [0, 7]") from None
    if not values or any(not 0 <= v < MAX_PRIORITIES for v in values):
        raise InputError(where, text, "comma-separated priorities, each an integer in [0, 7]")
    return values


THRESHOLD = Param("threshold", "threshold", "size", None, low=8, unit="bits",
                  help="Static threshold with a unit: a queue admits while it holds less (required with st).",
                  applies=("policy", ("st",)))
RESERVED = Param("reserved", "reserved", "size", 0, low=0, unit="bits", default_text="0B",
                 help="Guaranteed minimum per queue with a unit, set aside before the memory is shared.",
                 applies=("policy", ("dt", "st", "cs", None)))
LOSSLESS = Param("lossless", "lossless", "flag", False,
                 help="A lossless class: PFC (802.1Qbb) with ingress accounting per input group, headroom and a "
                      "shared headroom pool (the egress admits while the memory has room: policy cs).")
_LOSSLESS_ONLY = ("lossless", (True,))
LOSSLESS_PRIORITIES = Param("lossless_priorities", "lossless_priorities", "text", None, default_text="every priority",
                            parser=_priority_list, unit="priority",
                            help="Which priorities are lossless (3,4); the others keep --policy.",
                            applies=(_LOSSLESS_ONLY, ("priorities", Above(1))))
XOFF = Param("xoff", "xoff", "size", None, low=8, unit="bits", default_text="none (required with --lossless)",
             help="What an input group holds before it sends XOFF, with a unit (40KB).", applies=_LOSSLESS_ONLY)
XOFF_ALPHA = Param("xoff_alpha", "xoff_alpha", "float", None, low=2.0 ** -8, high=2.0 ** 8, unit="1",
                   help="A dynamic XOFF threshold instead of --xoff: a group sends XOFF once it holds this times the "
                        "shared memory still free (SONiC's lossless dynamic_th: 2^dynamic_th).",
                   applies=_LOSSLESS_ONLY)
XON = Param("xon", "xon", "size", 0, low=0, unit="bits", default_text="0B",
            help="XON also once the group has drained to this (the higher of it and --xoff less --xon-offset).",
            applies=_LOSSLESS_ONLY)
XON_OFFSET = Param("xon_offset", "xon_offset", "size", 0, low=0, unit="bits", default_text="0B",
                   help="XON when the group has drained to --xoff less this.", applies=_LOSSLESS_ONLY)
PAUSE_SLOTS = Param("pause_slots", "pause_slots", "int", 0, low=0, high=1 << 24, unit="slots",
                    help="Slots from an XOFF until the sender stops (and from an XON until it resumes): the "
                         "cells in flight.", applies=_LOSSLESS_ONLY)
HEADROOM = Param("headroom", "headroom", "size", None, low=0, unit="bits", default_text="--pause-slots cells",
                 help="Private headroom per input group, with a unit (whole cells).", applies=_LOSSLESS_ONLY)
HEADROOM_POOL = Param("headroom_pool", "headroom_pool", "size", 0, low=0, unit="bits", default_text="0B",
                      help="Shared headroom pool beside the memory, with a unit (whole cells).",
                      applies=_LOSSLESS_ONLY)
OVERSUBSCRIPTION = Param("oversubscription", "oversubscription", "float", None, low=1, high=1024, unit="1",
                         help="A shared headroom pool of the lossless groups (N per lossless priority) x "
                              "--pause-slots / R cells and no private headroom "
                              "(SONiC's over_subscribe_ratio: every group's headroom in one pool, R times over).",
                         applies=_LOSSLESS_ONLY)
# What `size shared-buffer --lossless` reads: the dynamic threshold, the cells in flight and the private headroom.
SIZE_LOSSLESS = (XOFF_ALPHA, PAUSE_SLOTS, HEADROOM)
LOSSLESS_PARAMS = (LOSSLESS, LOSSLESS_PRIORITIES, XOFF, XOFF_ALPHA, XON, XON_OFFSET, PAUSE_SLOTS, HEADROOM, HEADROOM_POOL, OVERSUBSCRIPTION)
CONGESTED = Param("congested", "congested", "int", None, low=1, unit="queues",
                  help="S: overloaded queues (the dynamic threshold's equilibrium).")
FEEDERS = Param("feeders", "feeders", "int", 2, low=2, high=64, unit="inputs/queue",
                help="Inputs feeding each congested queue a cell every slot.", applies=("congested", Above()))
INCAST = Param("incast", "incast", "int", None, low=2, unit="senders",
               help="N: senders of a synchronized N:1 burst to one queue.")
BURST = Param("burst", "burst", "size", None, low=8, unit="bits",
              help="Burst per incast sender with a unit (64KB), in whole cells.", applies=("incast", Above()))
PERIOD = Param("period", "period_slots", "int", None, low=1, unit="slots", default_text="N x burst + 1",
               help="Slots between incast bursts.", applies=("incast", Above()))
INCAST_PRIORITY = Param("incast_priority", "incast_priority", "int", None, low=0, high=MAX_PRIORITIES - 1,
                        unit="priority", default_text="0, or the first lossless priority with --lossless",
                        help="The priority of the incast's cells.",
                        applies=(("incast", Above()), ("priorities", Above(1))))
BACKGROUND = Param("background", "background_load", "float", 0.0, low=0, high=1, unit="cells/slot/input",
                   help="Bernoulli load of the inputs not in the incast, to the other outputs (the flows that "
                        "share only the memory with it).", applies=("incast", Above()))
LINK_RATE = Param("link_rate", "link_rate", "rate", None, low=0, low_open=True, unit="bit/s",
                  help="The ports' rate with a unit (400Gb/s): gives the incast's time to fill in seconds.",
                  applies=("incast", Above()), modes=ANALYTIC)
BACKGROUND_CELLS = Param("background_cells", "background_cells", "float", 0.0, low=0, unit="cells",
                         help="Cells the other queues hold in the shared memory while the burst lands.")
LOAD = replace(UNICAST_TRAFFIC[0], default=None, default_text="none: --congested or --incast",
               help="Offered load per input (unicast traffic, instead of --congested or --incast).")


def _unicast_only(param):
    """A unicast traffic option, refused with an overload or an incast (one that applies only with another, as
    --hotspot-fraction with --pattern hotspot, is refused through it); the on-off mean burst is --mean-burst here
    (--burst is the incast's)."""
    if param.name == "burst":
        param = replace(param, name="mean_burst")
    if param.applies:
        return param
    return replace(param, applies=(("congested", (None,)), ("incast", (None,))))


TRAFFIC = (LOAD, *(_unicast_only(q) for q in UNICAST_TRAFFIC[1:]))
# The exact chain reads the load and a uniform or hotspot pattern; the rest of the traffic is the twin's.
CHAIN_TRAFFIC = tuple(q for q in TRAFFIC if q.name in ("load", "pattern", "hotspot_fraction", "hotspot_port"))
SIM_TRAFFIC = tuple(q for q in TRAFFIC if q not in CHAIN_TRAFFIC)


def _cells(name, bits, cell_bits, least=0):
    """A size in whole cells, rounded up: a part of a cell takes the whole cell."""
    cells = -(-bits // cell_bits)
    if cells < least:
        raise InputError(name, f"{bits // 8}B", f"at least {least} cell(s) of {cell_bits // 8} B")
    return cells


def alpha_of(p) -> float:
    """--alpha, or 2^--dynamic-th; refuses both at once, and either with --priority-alphas."""
    if p.get("alpha") is not None and p.get("dynamic_th") is not None:
        raise InputError("dynamic_th", p["dynamic_th"], "unset when --alpha is given (alpha = 2^dynamic_th)")
    if p.get("priority_alphas") is not None:
        for name in ("alpha", "dynamic_th"):
            if p.get(name) is not None:
                raise InputError(name, p[name], "unset with --priority-alphas (one alpha per priority)")
    if p.get("dynamic_th") is not None:
        return 2.0 ** p["dynamic_th"]
    return 1.0 if p.get("alpha") is None else p["alpha"]


def from_sonic(p) -> dict:
    """The parameters with the file's queue profile in place of --buffer, --policy, --threshold and --reserved.

    SONiC's pool size is the shared part (the reserves of the queues and groups are set aside before it), so
    the memory is the pool plus N reserves of the profile's size; alpha is 2^dynamic_th unless --alpha or
    --dynamic-th is given."""
    if p.get("sonic_buffers") is None:
        if p.get("buffer") is None:
            raise InputError("buffer", None, "a size with a unit (e.g. 256000B), or --sonic-buffers FILE")
        return p
    for name in ("buffer", "threshold"):
        if p.get(name) is not None:
            raise InputError(name, f"{p[name] // 8}B", "unset with --sonic-buffers (the file's pool and profile give it)")
    if p.get("reserved"):
        raise InputError("reserved", f"{p['reserved'] // 8}B", "0 with --sonic-buffers (the profile's size is the "
                                                                 "reserve)")
    conf = read_once(p["sonic_buffers"])
    if p.get("lossless"):
        return _lossless_from_sonic(p, conf)
    prof = conf.queue_profile(p.get("sonic_profile"))
    policy = "dt" if prof.dynamic_th is not None else "st"
    if p.get("policy") not in (None, policy):
        raise InputError("policy", p["policy"], f"{policy} with --sonic-buffers (profile {prof.name})")
    out = {**p, "policy": policy, "reserved": prof.size_bytes * 8,
           "buffer": (conf.pools[prof.pool].size_bytes + p["ports"] * prof.size_bytes) * 8,
           "threshold": None if prof.static_th is None else prof.static_th * 8}
    if policy == "dt" and p.get("alpha") is None and p.get("dynamic_th") is None:
        out["dynamic_th"] = prof.dynamic_th
    return out


def _lossless_from_sonic(p, conf) -> dict:
    """With --lossless: the memory is the lossless group's ingress pool, XOFF its profile's threshold (dynamic_th:
    alpha = 2^dynamic_th of the free pool; static_th: bytes), XON at the higher of its xon and the threshold less
    its xon_offset. The headroom: with a shared
    headroom pool (the pool's xoff), every group draws on it and keeps none of its own (SONiC's shared headroom
    pool, the groups' xoff over-subscribed); without one, each group keeps its profile's xoff."""
    for name in ("xoff", "xoff_alpha", "headroom", "headroom_pool", "xon_offset", "xon", "oversubscription"):
        if p.get(name):
            shown = p[name] if name in ("xoff_alpha", "oversubscription") else f"{p[name] // 8}B"
            raise InputError(name, shown, "unset with --sonic-buffers --lossless (the group's profile gives it)")
    if p.get("policy") not in (None, "cs"):
        raise InputError("policy", p["policy"], "cs with --lossless (a lossless class's egress admits while the "
                                                "memory has room)")
    prof = conf.lossless_profile(p.get("sonic_profile"))
    not_used(conf.path, f"BUFFER_PROFILE|{prof.name}|size",
              "a lossless group's reserved bytes; the twin's group holds its shared cells, then its headroom")
    pool = conf.pools[prof.pool]
    shared_pool = pool.xoff_bytes is not None
    return {**p, "policy": "cs", "reserved": 0, "threshold": None, "buffer": pool.size_bytes * 8,
            "xoff": None if prof.static_th is None else prof.static_th * 8,
            "xoff_alpha": None if prof.dynamic_th is None else 2.0 ** prof.dynamic_th,
            "xon_offset": (prof.xon_offset_bytes or 0) * 8, "xon": (prof.xon_bytes or 0) * 8,
            "headroom": 0 if shared_pool else prof.xoff_bytes * 8,
            "headroom_pool": pool.xoff_bytes * 8 if shared_pool else 0}


def switch(p) -> SharedBufferSwitch:
    """The :class:`~switchq.models.shared_buffer.SharedBufferSwitch` of a point's parameters."""
    p = from_sonic(p)
    cell = p["cell"]
    _bytes("cell", cell)
    if p["buffer"] < cell:
        raise InputError("buffer", f"{p['buffer'] // 8}B", f"at least one cell ({cell // 8} B)")
    threshold = None if p.get("threshold") is None else _cells("threshold", p["threshold"], cell, 1)
    policy = p.get("policy") or ("cs" if p.get("lossless") else "dt")
    alphas = p.get("priority_alphas")
    return SharedBufferSwitch(p["ports"], p["buffer"] // cell, cell // 8, policy, alpha_of(p),
                              threshold, _cells("reserved", p.get("reserved") or 0, cell), **_lossless(p, cell),
                              priorities=p.get("priorities") or 1,
                              priority_alphas=None if alphas is None else tuple(alphas))


def _lossless(p, cell) -> dict:
    """The lossless class's fields in cells: XOFF and its offset rounded up (a part of a cell is held as a cell),
    headrooms rounded down (they hold whole cells); the private headroom defaults to the cells in flight."""
    if not p.get("lossless"):
        return {}
    if p.get("reserved"):
        raise InputError("reserved", f"{p['reserved'] // 8}B", "0B with --lossless (a lossless group's cells are "
                                                                 "bounded by its XOFF threshold, not reserved)")
    if (p.get("xoff") is None) == (p.get("xoff_alpha") is None):
        raise InputError("xoff", None if p.get("xoff") is None else f"{p['xoff'] // 8}B",
                         "a size with a unit (e.g. 40KB), or --xoff-alpha, with --lossless: exactly one")
    pause = p.get("pause_slots") or 0
    if p.get("oversubscription") is not None:
        if pause < 1:
            raise InputError("pause_slots", pause, "at least 1 with --oversubscription (the pool is N x the cells "
                                                   "in flight / R)")
        for name in ("headroom", "headroom_pool"):
            if p.get(name):
                raise InputError(name, f"{p[name] // 8}B", "unset with --oversubscription (it sizes the pool)")
        # Every group's worst-case demand (the cells in flight) in one pool, R times over, rounded up.
        groups = p["ports"] * len(p.get("lossless_priorities") or range(p.get("priorities") or 1))
        p = {**p, "headroom": 0, "headroom_pool": math.ceil(groups * pause / p["oversubscription"]) * cell}
    xoff_cells = None if p.get("xoff") is None else _cells("xoff", p["xoff"], cell, 1)
    if (p.get("xon") or 0) // cell > (xoff_cells or p["buffer"] // cell):
        raise InputError("xon", f"{p['xon'] // 8}B", "at most --xoff (or the memory, with --xoff-alpha)")
    return {"lossless": True, "xoff_alpha": p.get("xoff_alpha"), "lossless_priorities": p.get("lossless_priorities"),
            "xoff_cells": None if p.get("xoff") is None else _cells("xoff", p["xoff"], cell, 1),
            "xon_offset_cells": _cells("xon_offset", p.get("xon_offset") or 0, cell),
            "xon_cells": (p.get("xon") or 0) // cell,
            "headroom_cells": pause if p.get("headroom") is None else p["headroom"] // cell,
            "headroom_pool_cells": (p.get("headroom_pool") or 0) // cell, "pause_slots": pause}


def incast_priority(p, sw: SharedBufferSwitch) -> int:
    """--incast-priority, or 0, or with a lossless class its first lossless priority."""
    if p.get("incast_priority") is not None:
        return p["incast_priority"]
    return sw.lossless_priorities[0] if sw.lossless else 0


def _one_workload(p, missing: str) -> str:
    """Which of --congested, --incast and --load is given; refused unless exactly one is (naming the second
    given, or ``missing`` when none is)."""
    given = [name for name in ("congested", "incast", "load") if p.get(name) is not None]
    if len(given) != 1:
        name = given[1] if len(given) > 1 else missing
        raise InputError(name, p.get(name), "exactly one of --congested, --incast and --load")
    return given[0]


def workload(p, sw: SharedBufferSwitch):
    """Overload (--congested), incast (--incast, --burst) or unicast traffic (--load), one at a time."""
    given = _one_workload(p, missing="load")
    if given == "congested":
        return Overload(p["congested"], p["feeders"])
    if given == "incast":
        if p.get("burst") is None:
            raise InputError("burst", None, "a size per sender with a unit (e.g. 64KB) with --incast")
        burst = _cells("burst", p["burst"], sw.cell_bytes * 8, 1)
        if burst > MAX_BUFFER_CELLS:
            raise InputError("burst", f"{p['burst'] // 8}B", f"at most {MAX_BUFFER_CELLS} cells of {sw.cell_bytes} B "
                                                             "per sender")
        return Incast(p["incast"], burst, p["period"], p["background"], incast_priority(p, sw))
    return unicast_traffic({**p, "burst": p.get("mean_burst", 1.0)})
