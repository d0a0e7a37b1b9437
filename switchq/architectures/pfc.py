"""Lossless Ethernet as deployed: PFC headroom (IEEE 802.1Qbb; paper 002 §2.3, grant flow control).

Answered by ``switchq size pfc`` (``--model ieee|mlx5|sonic|cisco``), term
by term with every constant's source (:mod:`switchq.solvers.pfc`;
InfiniBand's credits are ``architectures/infiniband.py``). Simulated as
``pfc``: a link with on/off flow control, byte by byte, whose receiver
reserves the sized headroom above its XOFF threshold
(:mod:`switchq.validate.arch.pfc`); ``switchq validate pfc`` checks that the
headroom the twin needs in the worst case is the sized one, that nothing is
lost at it and that a frame per pause is lost one frame below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from switchq.declaration import Answer, Architecture, Case, Counter, Metric
from switchq.errors import InputError
from switchq.models.pfc import Adversary, PfcLink
from switchq.params import Above, Param, applies_conditions, check_applies

from ._sonic import SONIC, read_once

LINK_RATE = Param("link_rate", "link_rate", "rate", low=0, low_open=True, unit="bit/s", aliases=("link_rate_bps",),
                  help="Link rate with a unit: 100Gb/s, 400Gbps.")
CABLE = Param("cable", "cable", "length", low=0, high=100_000, unit="m", aliases=("cable_m",),
              help="Cable length with a unit: 100m, 300ft.")
MTU = Param("mtu", "mtu", "size", 9216 * 8, low=64 * 8, high=16384 * 8, unit="bits", aliases=("mtu_bytes",),
            default_text="9216B", help="Largest frame, with a unit: 9216B, 1500B. ieee, cisco: the receiver's "
                                       "largest frame (any class); mlx5: the netdev (IP) MTU the driver passes to "
                                       "calculate_xoff (no Ethernet header or FCS); sonic: the port MTU.")
MTU_SENDER = Param("mtu_sender", "mtu_sender", "size", None, low=64 * 8, high=16384 * 8, unit="bits",
                   default_text="--mtu", help="Largest lossless frame the sender sends.")
MEDIUM = Param("medium", "medium", "choice", None, choices=("fiber", "copper"), default_text="fiber",
               help="Cable: fibre (0.65 c) or twinax copper (0.70 c), Cisco's figures.",
               applies=("propagation_speed", (None,)))
PROPAGATION = Param("propagation_speed", "propagation_speed", "speed", None, low=0, low_open=True, unit="m/s",
                    default_text="by --medium", help="Signal speed in the cable, overriding --medium.")
RESPONSE = Param("response", "response_quanta", "int", None, low=0, high=65535, unit="quanta",
                 default_text="802.3 Table 31B-1 by speed",
                 help="Sender's response time in pause quanta (512 bit times); needed for speeds not tabulated.")
INTERFACE = Param("interface_delay", "interface_delay", "time", None, low=0, unit="s",
                  default_text="802.3 D-Intf by speed",
                  help="One end's PHY/MAC transmit + receive delay (ieee); needed for speeds not tabulated.")
TRANSCEIVER = Param("transceiver_delay", "transceiver_delay", "time", 0.0, low=0, unit="s", default_text="0ns",
                    help="Transceiver or gearbox delay per crossing (ieee, cisco), counted both ways.")
PRIORITIES = Param("priorities", "priorities", "int", 1, low=1, high=8, unit="priorities",
                   help="Lossless priorities on the port, each with its own headroom.")
ASIC = Param("asic", "asic", "choice", None, choices=("spectrum", "spectrum2", "spectrum3"),
             default_text="spectrum3", help="With --model sonic: the ASIC_TABLE row (cell size, delays).",
             applies=("model", ("sonic",)))
MODEL = Param("model", "model", "choice", "ieee", choices=("ieee", "mlx5", "sonic", "cisco"),
              help="ieee: 802.1Qbb Annex N; mlx5: Linux driver; sonic: SONiC Mellanox script; cisco: white paper.")
# size pfc --model all (or a comma list): the formulas side by side, a row each.
MODELS_SIDE_BY_SIDE = replace(MODEL, many=True, expand=(("all", ("ieee", "mlx5", "sonic", "cisco")),),
                              help=MODEL.help + " all: a row each.")

UNITS = {"link_rate_bps": "bit/s", "cable_m": "m", "mtu_bytes": "B", "mtu_sender": "B", "interface_delay_ns": "ns", "transceiver_delay_ns": "ns",
         "headroom_bytes": "B", "port_headroom_bytes": "B", "terms": "B",
         "reserved_bytes": "B", "xon_bytes": "B", "configured_xoff_bytes": "B", "headroom_margin_bytes": "B",
         "headroom_pool_bytes": "B", "groups_in_pool": "groups"}
PFC_RESULTS = ("headroom_bytes", "port_headroom_bytes", "terms", "term_sources", "response_quanta",
               "interface_delay_ns", "propagation_speed", "reserved_bytes", "xon_bytes", "configured_xoff_bytes",
               "headroom_margin_bytes", "headroom_pool_bytes", "groups_in_pool", "sonic_profile", "formula", "source")


def _bytes(name, bits):
    if bits is None:
        return None
    if bits % 8:
        raise InputError(name, bits, "a whole number of bytes, e.g. 9216B")
    return bits // 8


def port(p):
    """The :class:`~switchq.models.pfc.PfcPort` of a point's parameters."""
    from switchq.models.pfc import PfcPort

    return PfcPort(p["link_rate"], p["cable"], _bytes("mtu", p["mtu"]), _bytes("mtu_sender", p["mtu_sender"]),
                   p["medium"], p["propagation_speed"], p["response"], p["interface_delay"], p["transceiver_delay"],
                   p["priorities"], p["model"], p.get("asic"))


def _size_pfc(p):
    from switchq.solvers.pfc import headroom

    q = port(p)
    h = headroom(q)
    inputs = {"model": q.model, "link_rate_bps": q.link_rate_bps, "cable_m": q.cable_m, "mtu_bytes": q.mtu_bytes}
    if q.model in ("ieee", "cisco"):   # the vendor formulas fix these (models.pfc refuses them there)
        inputs.update(medium=q.medium, mtu_sender=q.mtu_sender, transceiver_delay_ns=q.transceiver_delay_s * 1e9)
    inputs["priorities"] = q.priorities
    results = {"headroom_bytes": h.headroom_bytes, "port_headroom_bytes": h.headroom_bytes * q.priorities,
               "terms": h.terms, "term_sources": h.term_sources, "response_quanta": h.response_quanta,
               "interface_delay_ns": h.interface_delay_ns, "propagation_speed": h.propagation_speed,
               "reserved_bytes": h.reserved_bytes, **h.extra, "formula": h.formula, "source": h.source}
    results.update(_configured(p, h.headroom_bytes))
    return inputs, {k: v for k, v in results.items() if v is not None}


def _configured(p, needed: int) -> dict:
    """With --sonic-buffers: the lossless group's configured headroom (its profile's xoff) against the headroom
    this model needs, and how many groups the shared headroom pool (the ingress pool's xoff) holds at once."""
    if p.get("sonic_buffers") is None:
        return {}
    conf = read_once(p["sonic_buffers"])
    prof = conf.lossless_profile(p.get("sonic_profile"))
    pool = conf.pools[prof.pool].xoff_bytes
    return {"sonic_profile": prof.name, "configured_xoff_bytes": prof.xoff_bytes,
            "headroom_margin_bytes": prof.xoff_bytes - needed,
            "headroom_pool_bytes": pool, "groups_in_pool": None if pool is None else pool // needed}


def _sized_by(param, *models):
    """``param`` as size pfc takes it: only under the formulas that read it (mlx5 and sonic fix their own
    constants, cisco has no interface term, mlx5 no response)."""
    return replace(param, applies=(*applies_conditions(param), ("model", models)))


SONIC_PG = replace(SONIC, help=SONIC.help + " Here: the lossless group's configured headroom (xoff) beside the one "
                                           "sized, and the groups the shared headroom pool holds at once.")
SONIC_PG_PROFILE = Param("sonic_profile", "sonic_profile", "text", None, default_text="the one lossless BUFFER_PG names",
                         help="The lossless priority group's profile to compare.", applies=("sonic_buffers", Above()))

PFC_PARAMS = (LINK_RATE, CABLE, MTU, _sized_by(MTU_SENDER, "ieee", "cisco"), _sized_by(MEDIUM, "ieee", "cisco"),
              _sized_by(PROPAGATION, "ieee", "cisco"), _sized_by(RESPONSE, "ieee", "cisco", "sonic"),
              _sized_by(INTERFACE, "ieee"), _sized_by(TRANSCEIVER, "ieee", "cisco"), PRIORITIES, MODELS_SIDE_BY_SIDE,
              ASIC, SONIC_PG, SONIC_PG_PROFILE)

# The twin: the port's delays (always the IEEE terms: they are what happens on the wire), a buffer whose headroom
# is sized by --model (or given), and how the delays line up.
HEADROOM = Param("headroom", "headroom", "size", None, low=8, unit="bits", default_text="sized by --model",
                 help="Headroom above the XOFF threshold, with a unit (80KB); default: as switchq size pfc gives.")
SHORTFALL = Param("shortfall", "shortfall", "size", 0, low=0, unit="bits", default_text="0B",
                  help="Bytes taken off the headroom (9236B: one jumbo frame short).")
GRANULE = Param("granule", "granule", "size", 8, low=8, high=4096 * 8, unit="bits", default_text="1B",
                help="Bytes per slot: 1B (byte times) is exact; larger runs faster but rounds every term to whole "
                     "slots, so the worst case may land a slot above or below the sized headroom.")
PHASES = Param("phases", "phases", "choice", "random", choices=("worst", "random"),
               help="worst: every delay at its bound, frames aligned against the buffer; random: phases and "
                    "the peer's reaction drawn within their bounds.")
TWIN_PARAMS = (LINK_RATE, CABLE, MTU, MTU_SENDER, MEDIUM, PROPAGATION, RESPONSE, INTERFACE, TRANSCEIVER, MODEL,
               ASIC, HEADROOM, SHORTFALL, GRANULE)


def twin_buffer(p, name: str, sized, least: int) -> tuple[int, int]:
    """A twin's buffer in bytes, ``--NAME`` or ``sized()``, less ``--shortfall``; and the shortfall. A twin asks
    "and one frame less?", so the shortfall is its own option rather than arithmetic on the sized figure."""
    given = _bytes(name, p[name])
    short = _bytes("shortfall", p["shortfall"])
    room = (sized() if given is None else given) - short
    if room < least:
        raise InputError("shortfall", f"{short}B", f"a size that leaves at least {least} B of the {name}")
    return room, short


def link(p) -> PfcLink:
    """The twin's :class:`~switchq.models.pfc.PfcLink`: the IEEE delays of the port, the headroom of ``--model``
    (or ``--headroom``) less ``--shortfall``. The delay options describe the wire, so with a vendor's model they
    shape the twin's delays while its formula sizes the buffer with its own constants."""
    from switchq.solvers.pfc import headroom

    wire = port({**p, "priorities": 1, "model": "ieee", "asic": None})
    vendor = p["model"] in ("mlx5", "sonic")
    sizing = {**p, "priorities": 1, **({k: None for k in ("medium", "propagation_speed", "interface_delay",
                                                           "mtu_sender")} if vendor else {}),
              **({"transceiver_delay": 0.0} if vendor else {}),
              **({"response": None} if p["model"] == "mlx5" else {})}    # the driver has no response term
    room, short = twin_buffer(p, "headroom", lambda: headroom(port(sizing)).headroom_bytes, 1)
    return PfcLink(wire, room, p["model"], short, _bytes("granule", p["granule"]))


def build(p):
    check_applies(DECLARATION.all_params(), p, p)   # Python callers refused as the CLI refuses them
    return link(p), Adversary(p["phases"])


def _per_pause(counter):
    return lambda c: c[counter] / c["m_xoff"]


@dataclass(frozen=True)
class PauseTimeline:
    """When the twin's pauses happen, in slots (granules), from an empty buffer: the first XOFF at
    ``first_start``, the first pause counted (its drain begins) at ``first_end``, then one every ``cycle``.
    Exact with worst phases and the sized headroom; an upper bound otherwise (random phases, a shortfall).
    A pause is measured when it begins after the warm-up and ends within the run."""

    first_start: int
    first_end: int
    cycle: int
    link: PfcLink | None = field(default=None, repr=False, compare=False)
    adversary: Adversary | None = field(default=None, repr=False, compare=False)

    def slots(self, pauses: int = 1, warmup: int = 0) -> int:
        """Measured slots in which a run after ``warmup`` slots sees ``pauses`` whole pauses."""
        skipped = max(0, -(-(warmup - self.first_start) // self.cycle))   # pauses begun in the warm-up
        return self.first_end + (skipped + pauses - 1) * self.cycle + 1 - warmup

    def text(self) -> str:
        return (f"one pause cycle takes about {self.cycle} slots here (from an empty buffer the first pause ends "
                f"after {self.first_end}, then one every {self.cycle})")

    def needs(self, most: int, warmup: int = 0) -> str:
        """Why a run of at most ``most`` measured slots sees no pause, and how it could: a coarser granule."""
        text = f"{self.text()}, so one pause needs {self.slots(1, warmup)} measured slots"
        g = 1 if self.link is None else self.link.granule_bytes
        while self.link is not None and g < 4096:
            g *= 2
            coarser = pause_timeline(replace(self.link, granule_bytes=g), self.adversary)
            if coarser.slots(1, warmup) <= most:
                return (f"{text}; with --granule {g}B it needs {coarser.slots(1, warmup)} (each slot {g} bytes, every "
                        "term rounded to whole slots)")
        return text


def pause_timeline(link: PfcLink, adversary: Adversary | None = None) -> PauseTimeline:
    """The twin's pauses in time, from its kernel's own arguments (:func:`switchq.validate.arch.pfc.args_for`).

    From an empty buffer the sender's bytes arrive from slot D (the one-way delay); the queue (not drained while
    filling) crosses XOFF at t0 = D + T (T the threshold). A worst-phase pause lasts the headroom demand
    H = F_r + PFC + 2 D + R + F_s slots (the 802.1Qbb sum, in granules): it is counted at t0 + H - 1, when its last
    byte has arrived. The egress then drains T + H - X slots down to XON (X), the sender hears it D later and its
    bytes arrive D after that; the queue climbs from X past T in T - X + 1 slots. So pauses come every
    2 H + 2 (T - X) + 2 D - 1 slots; under random phases each is shorter but the sender may restart up to a frame
    late, so a cycle plus a frame bounds it.
    """
    from switchq.validate.arch.pfc import args_for

    a = args_for(link)
    demand = a.frame_r + a.pfc + 2 * a.delay + a.resp + a.frame_s
    start = a.delay + a.threshold
    cycle = 2 * demand + 2 * (a.threshold - a.xon) + 2 * a.delay - 1
    if adversary is None or adversary.phases != "worst":
        cycle += a.frame_s
    return PauseTimeline(start, start + demand - 1, cycle, link, adversary)


def run_timeline(system: PfcLink, workload: Adversary) -> PauseTimeline:
    """What a run of this twin needs to see what it measures: ``switchq serve`` sizes a run left blank by it
    (``slots(events, warmup)``, ``first_start``, ``text()``, ``needs(most, warmup)``)."""
    return pause_timeline(system, workload)


def _labels(c) -> dict:
    """The slots a pause cycle takes; and, when no pause was measured, why and how long a run would see one."""
    t = pause_timeline(c.system, c.workload)
    out = {"pause_cycle_slots": t.cycle}
    if not c["m_xoff"].sum():
        warmup = c.settings.warmup_slots
        out["run_too_short"] = (f"no pause measured in {c.settings.slots} slots after {warmup} of warm-up: "
                                f"{t.text()}; give --slots {t.slots(1, warmup)} or more")
    return out


METRICS = (
    Metric("headroom_used", "B", _per_pause("m_demand_bytes"),
           "bytes reaching the receiver from the XOFF trigger on, per pause (what the headroom must hold)"),
    Metric("frames_lost_per_pause", "frames/pause", _per_pause("m_frames_lost"),
           "frames losing a byte at the full buffer, per pause"),
    Metric("loss_probability", "1", lambda c: c["m_dropped"] / c["m_offered"], "share of the bytes sent lost",
           bounds=(0.0, 1.0)),
    Metric("throughput", "1", lambda c: c["m_offered"] / c.slots,
           "share of the link's slots carrying the sender's data", bounds=(0.0, 1.0)),
)
COUNTERS = (Counter("pauses", "pauses", counter="m_xoff"), Counter("headroom_peak", "B", "max", "demand_peak_bytes"),
            Counter("frames_lost", "frames"), Counter("dropped", "granules"))
TWIN_UNITS = {"granule_bytes": "B", "headroom_bytes": "B", "shortfall_bytes": "B", "mtu_bytes": "B", "mtu_sender": "B",
              "link_rate_bps": "bit/s", "cable_m": "m", "pause_cycle_slots": "slots"}

# The validation port: 100 Gb/s RoCE, 100 m of fibre, jumbo frames; byte-exact slots, ~12 pauses per replication.
_PORT = {"link_rate": 100e9, "cable": 100.0, "mtu": 9216 * 8}
_FRAME = 9216 + 20


def _ieee_sum():
    from switchq.solvers.pfc import headroom

    return sum(headroom(port({**dict(_defaults()), **_PORT})).terms.values())


def _defaults():
    return {q.name: q.default for q in PFC_PARAMS if not q.required}


def _sized(model):
    from switchq.solvers.pfc import headroom

    return headroom(port({**_defaults(), **_PORT, "model": model})).headroom_bytes


def _lost(headroom_bytes):
    """Frames lost per pause when the worst-case demand exceeds ``headroom_bytes``: the excess falls on S's last
    (maximum) frame, then on the one before it (the twin's frames before the last are at least half a maximum)."""
    excess = math.floor(_ieee_sum()) - headroom_bytes
    return 0 if excess <= 0 else 1 if excess <= _FRAME else 2


def _case(label, params, quantity, analytic, **kw):
    return Case("pfc", label, {**_PORT, **params}, quantity, analytic, slots=2_400_000, replications=5,
                warmup_share=0.1, **kw)


CASES = (
    _case("100G, 100 m, 9216 B, worst phases: headroom used = the 802.1Qbb sum", {"phases": "worst"}, "headroom_used",
          lambda: (_ieee_sum(), "sum of the IEEE terms (switchq size pfc)"), tolerance=2.0,
          why="Equal by construction (the worst-case timeline is built from the same terms): this checks the "
              "timeline's arithmetic. The twin rounds the one-way delay down to whole byte times, each way: at "
              "most 2 bytes under."),
    _case("worst phases, headroom as sized (ieee): nothing lost", {"phases": "worst"}, "frames_lost_per_pause",
          lambda: (_lost(_sized("ieee")), "demand <= headroom")),
    _case(f"worst phases, one frame ({_FRAME} B) short: one frame lost per pause",
          {"phases": "worst", "shortfall": _FRAME * 8}, "frames_lost_per_pause",
          lambda: (_lost(_sized("ieee") - _FRAME), "excess <= one frame: S's last frame")),
    _case("random phases, headroom as sized (ieee): nothing lost", {"phases": "random"}, "loss_probability",
          lambda: (0.0, "every phase is within the worst case")),
    _case("worst phases, headroom sized by mlx5 (76767 B): two frames lost per pause",
          {"phases": "worst", "model": "mlx5"}, "frames_lost_per_pause",
          lambda: (_lost(_sized("mlx5")), "excess over the driver's xoff spans S's last two frames")),
)

DECLARATION = Architecture(
    name="pfc", family="link", order=91,
    title="PFC (802.1Qbb) link",
    summary="PFC XOFF headroom, term by term under four formulas (switchq size pfc); its twin, byte by byte",
    description="A link with PFC, granule by granule: the sender saturates it, the receiver's egress is paused "
                "until a pause has fully taken effect, its buffer holds the XOFF threshold plus the headroom "
                "(sized by --model, or --headroom, less --shortfall).\n\nheadroom_used is what reaches the "
                "receiver from each XOFF trigger on; with --phases worst it is the 802.1Qbb sum by construction "
                "(the worst-case timeline is built from the same terms, so it checks the timeline's arithmetic); "
                "--phases random checks that no phase needs more.",
    config=(PfcLink,), accepts=(Adversary,), params=TWIN_PARAMS, workload=(PHASES,), build=build,
    kernel="switchq.validate.arch.pfc", metrics=METRICS, counters=COUNTERS, units=TWIN_UNITS, labels=_labels,
    main="headroom_used", table=("headroom_used", "frames_lost_per_pause", "loss_probability"),
    cases=CASES, report=(("pfc", "switchq.validate.reports.pfc"),),
    bounded="lossless by PFC: the receiver's buffer holds every byte the pause leaves in flight, so no queue grows "
            "without bound",
    sample={"link_rate": "10Gb/s", "cable": "10m", "mtu": "1500B"},
    examples=("switchq simulate pfc --link-rate 100Gb/s --cable 100m --mtu 9216B --phases worst --slots 3000000 "
              "--json",
              "switchq simulate pfc --link-rate 100Gb/s --cable 100m --shortfall 9236B --phases worst --slots 3000000",
              "switchq simulate pfc --link-rate 10Gb/s --cable 10m --mtu 1500B --model cisco"),
    vary_example="shortfall=0B,4KB,9236B --link-rate 100Gb/s --cable 100m --phases worst --slots 3000000",
    answers=(
        Answer("size-pfc", "PFC (802.1Qbb) XOFF headroom", "PFC headroom per priority, term by term, under the "
                                                           "standard's or a vendor's formula",
               params=PFC_PARAMS, solve=_size_pfc, results=PFC_RESULTS, units=UNITS, main="headroom_bytes",
               # note, error: with --model all, the inputs a row left out and why a row has no answer.
               table=("headroom_bytes", "port_headroom_bytes", "reserved_bytes", "headroom_margin_bytes", "groups_in_pool",
                      "note", "error"), verb="size",
               description="XOFF headroom per lossless priority: what still arrives after the receiver decides to "
                           "pause (paper 002 2.3, grant flow control, with IEEE 802.1Qbb's delays).\n\nTerms: "
                           "the receiver's frame in progress, the PFC frame, both interfaces, the cable both ways, "
                           "the sender's response time and its frame in progress. --model gives the standard's "
                           "reading (ieee) beside the Linux mlx5 driver's, SONiC's and Cisco's.",
               examples=("switchq size pfc --link-rate 100Gb/s --cable 100m --mtu 9216B --json",
                         "switchq size pfc --link-rate 100Gb/s --cable 100m --mtu 9216B --model mlx5",
                         "switchq size pfc --link-rate 100Gb/s --cable 100m --model all",
                         "switchq size pfc --link-rate 400Gb/s --cable 100m --interface-delay 1228.8ns --model all",
                         "switchq size pfc --link-rate 400Gb/s --cable 100m --model sonic --priorities 2",
                         "switchq size pfc --link-rate 400Gb/s --cable 100m --interface-delay 1228.8ns"),
               vary_example="cable=10m:100m:10m --vary model=ieee,mlx5,sonic,cisco --link-rate 100Gb/s"),
    ),
)
