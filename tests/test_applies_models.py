"""Options that take effect only with another are refused everywhere, not only on the command line.

Found from the declarations: every parameter declared with ``applies`` (``switchq.params.Param.applies``),
given a value other than its default where a condition does not hold, is refused by the declaration's
``build`` (what the Python API and the sweeps build), in one line naming it. The helpers here also make the
values ``test_conformance.py``'s generated refusals use. The model classes' own refusals (for callers that
construct them directly) follow, one per rule.
"""

from __future__ import annotations

import pytest

from switchq import registry
from switchq.errors import InputError
from switchq.params import QUANTITY_KINDS, Above, applies_conditions

OMIT = object()     # a condition held by leaving its parameter out (at its default, None)


def _texts(q, numbers):
    """``numbers`` as option texts of ``q`` (a quantity with its canonical unit), those ``q`` accepts."""
    out = []
    for x in numbers:
        if x is None:
            continue
        x = int(x) if float(x).is_integer() else x
        text = f"{x}{QUANTITY_KINDS[q.kind][0]}" if q.kind in QUANTITY_KINDS else str(x)
        try:
            out.append((text, q.parse(text, q.option)))
        except InputError:
            pass
    return out


def valid_text(q) -> str:
    """Some value ``q`` accepts, as text."""
    if q.kind == "choice":
        return q.choices[0]
    if q.kind == "flag":
        return "true"
    return _texts(q, (0.5, 4, q.low, (q.low or 0) + 8, q.high))[0][0]


def other_text(p) -> str:
    """A value of ``p`` other than its default, as text."""
    if p.kind == "choice":
        return next(c for c in p.choices if c != p.default)
    if p.kind == "flag":
        return "false" if p.default else "true"
    d = p.default if isinstance(p.default, (int, float)) and not isinstance(p.default, bool) else None
    numbers = (0.5, 2, 1) if d is None else (d / 2, d * 2, d + 1)
    return next(t for t, v in _texts(p, (*numbers, (p.low or 0) + 8, p.low, p.high)) if v != p.default)


def inside(q, allowed):
    """A value of condition ``q`` that holds (text), or OMIT."""
    if isinstance(allowed, Above):
        if allowed.low is None:
            return valid_text(q)
        return _texts(q, (allowed.low + (1 if allowed.open else 0),))[0][0]
    values = [v for v in allowed if v is not None]
    return str(values[0]).lower() if values else OMIT


def outside(q, allowed):
    """A value of condition ``q`` that does not hold (text), OMIT, or None when there is none."""
    if q.kind == "choice":
        texts = [c for c in q.choices if c not in allowed]
    elif isinstance(allowed, Above) and allowed.low is not None:
        texts = [t for t, v in _texts(q, (allowed.low, allowed.low - 1, q.low)) if v not in allowed]
    elif isinstance(allowed, Above):
        texts = []
    else:
        texts = [t for t, v in _texts(q, (0, 1, 2, q.low)) if v not in allowed]
    if texts:
        return texts[0]
    return OMIT if q.default is None and None not in allowed else None


def condition_values(params, p, index) -> dict | None:
    """Texts by name: every condition of ``p`` held but the one at ``index``, and ``p`` itself given a value
    other than its default; None when that condition cannot fail."""
    by_name = {q.name: q for q in params}
    out = {}
    for i, (name, allowed) in enumerate(applies_conditions(p)):
        value = (outside if i == index else inside)(by_name[name], allowed)
        if value is None:
            return None
        if value is not OMIT:
            out[name] = value
    out[p.name] = other_text(p)
    return out


def applies_cases(sets):
    """``(key, params, p, index)`` for every condition of every parameter with ``applies`` in ``sets`` (pairs of a
    key prefix and a parameter set)."""
    out = {}
    for prefix, params in sets:
        for p in params:
            conditions = applies_conditions(p)
            for i, _ in enumerate(conditions):
                key = f"{prefix}:{p.name}" + (f":{conditions[i][0]}" if len(conditions) > 1 else "")
                out[key] = (params, p, i)
    return sorted(out.items())


# --------------------------------------------------------------------------- build refuses, from the declarations

BUILDS = [d for d in registry.declarations().values() if d.build is not None]
CASES = applies_cases((d.name, d.all_params()) for d in BUILDS)
DECLARED = {d.name: d for d in BUILDS}


def _base(d) -> dict:
    """Every parameter at its default, required ones from the declaration's sample (or any value they take)."""
    values = d.defaults()
    for q in d.all_params():
        if q.required:
            values[q.name] = q.parse(d.sample.get(q.name, valid_text(q)), q.option)
    return values


def _where_it_does_not_apply(key, case):
    """The declaration of ``case``, its parameter and a point setting it where a condition fails (skipped where no
    value can make it fail)."""
    params, p, index = case
    d = DECLARED[key.split(":")[0]]
    given = condition_values(params, p, index)
    if given is None:
        pytest.skip("the condition always holds")
    return d, p, {**_base(d), **{k: d.param(k).parse(v, d.param(k).option) for k, v in given.items()}}


@pytest.mark.parametrize("key, case", CASES, ids=[k for k, _ in CASES])
def test_build_refuses_an_option_where_it_has_no_effect(key, case):
    d, p, values = _where_it_does_not_apply(key, case)
    with pytest.raises(InputError) as e:
        d.build(values)
    line = str(e.value)
    assert "\n" not in line and (e.value.parameter in p.options or e.value.parameter in p.names()), line
    # Its default is taken there: given, it changes nothing.
    values[p.name] = p.default
    try:
        d.build(values)
    except InputError as other:
        assert other.parameter not in p.options and other.parameter not in p.names(), str(other)


def test_every_conditional_parameter_is_checked():
    # The options this task found taking effect only with another: each declared, so refused everywhere.
    found = {key.split(":")[0] + ":" + key.split(":")[1] for key, _ in CASES}
    assert {"oq:hotspot_fraction", "oq:hotspot_port", "oq:unbalanced", "oq:burst", "cicq:priority_shares",
            "cicq:resend", "cicq:replacement", "cicq:retransmission_cells", "multicast:crosspoint_cells",
            "multicast:fanout_distribution", "fattree:fanout_distribution", "namd:fanout_distribution",
            "bmin:uniform_over", "bmin:up_select", "bmin:fifo_routing", "circuit:window", "circuit:channels",
            "circuit:pool", "circuit:pointer", "circuit:claim", "circuit:setup_time", "circuit:size",
            "circuit:size_min", "circuit:size_max", "circuit:short", "circuit:long", "circuit:long_bytes",
            "circuit:train", "circuit:destinations", "circuit:server_share", "circuit:server_long_bytes",
            "wormhole:placement", "wormhole:best_effort_stamp", "pfc:medium", "pfc:asic"} <= found


# --------------------------------------------------------------------------- the model classes themselves

def _models():
    from switchq.models import FlowControl, Traffic
    from switchq.models.circuit import CircuitSwitch, CircuitTraffic
    from switchq.models.flit import FlitNetwork, FlitSwitch, MessageTraffic
    from switchq.models.multicast import MulticastSwitch
    from switchq.models.pfc import PfcPort
    from switchq.models.wormhole import WormholeNetwork, WormholeRouter, WormholeTraffic
    from switchq.solvers.multicast import saturation_load

    pcs = WormholeNetwork(WormholeRouter(vcs=24, link_rate=100e6, switching="pcs"))
    return [
        (lambda: Traffic(0.5, hotspot_port=99, hotspot_fraction=0.5), "hotspot_fraction"),
        (lambda: Traffic(0.5, hotspot_port=3), "hotspot_port"),
        (lambda: Traffic(0.5, pattern="hotspot", unbalanced_w=0.5), "unbalanced_w"),
        (lambda: Traffic(0.5, mean_burst=4.0), "mean_burst"),
        (lambda: FlowControl(8, 2, "credit", resend="nak"), "resend"),
        (lambda: FlowControl(8, 2, "credit", replacement=True), "replacement"),
        (lambda: FlowControl(8, 2, "credit", retransmission_cells=16), "retransmission_cells"),
        (lambda: FlitSwitch(8, "fifo", 640, crosspoint_flits=8), "crosspoint_flits"),
        (lambda: FlitSwitch(8, "hipiqs", 640, central_input_flits=8), "central_input_flits"),
        (lambda: FlitSwitch(8, "damq", 640, up_share=0.25), "up_share"),
        (lambda: FlitSwitch(8, "safc", 640, central_admission="flit"), "central_admission"),
        (lambda: FlitSwitch(8, "hipiqs", 640, fifo_routing="arrival"), "fifo_routing"),
        (lambda: FlitSwitch(8, "central", 640, up_select="output"), "up_select"),
        (lambda: FlitNetwork.single(8, FlitSwitch(8, "hipiqs", 640, up_select="output")), "up_select"),
        (lambda: FlitNetwork.single(8, FlitSwitch(8, "fifo", 640, fifo_routing="arrival")), "fifo_routing"),
        (lambda: MessageTraffic(0.5, 64, pattern="bitrev", uniform_over="all"), "uniform_over"),
        (lambda: CircuitSwitch(4, "fifo", window=2), "window"),
        (lambda: CircuitSwitch(4, "channels", channels=4, window=2), "window"),
        (lambda: CircuitSwitch(4, "window", window=2, pool=4), "pool"),
        (lambda: pcs.check_traffic(WormholeTraffic(0.5, (100, 0), placement="capped")), "placement"),
        (lambda: PfcPort(100e9, 100.0, 9216, model="mlx5", response_quanta=400), "response"),
        (lambda: PfcPort(100e9, 100.0, 9216, model="ieee", asic="spectrum"), "asic"),
        # circuit: the round robin's pointer with a window or channels; the claim and the set-up time with
        # distributed control; each size law's sizes; destinations without file servers, their mix with them.
        (lambda: CircuitSwitch(4, "fifo", pointer="head"), "pointer"),
        (lambda: CircuitSwitch(4, "window", window=2, control="central", claim="connect"), "claim"),
        (lambda: CircuitSwitch(4, control="central", setup_time=0.0), "setup_time"),
        (lambda: CircuitTraffic("uniform", size=1000), "size"),
        (lambda: CircuitTraffic("fixed", size_min=100), "size_min"),
        (lambda: CircuitTraffic("bimodal", size_max=1000), "size_max"),
        (lambda: CircuitTraffic("uniform", short=200), "short"),
        (lambda: CircuitTraffic("fixed", long=8000), "long"),
        (lambda: CircuitTraffic("fixed", long_bytes=0.5), "long_bytes"),
        (lambda: CircuitTraffic("bimodal", train=4), "train"),
        (lambda: CircuitTraffic("bimodal", file_servers=2, destinations="all"), "destinations"),
        (lambda: CircuitTraffic("bimodal", server_share=0.5), "server_share"),
        (lambda: CircuitTraffic("fixed", file_servers=2, server_long_bytes=0.5), "server_long_bytes"),
        (lambda: CircuitTraffic("bimodal", server_long_bytes=0.5), "server_long_bytes"),
        # bmin: only HIPIQS has FIFO units to place within or on top of the buffer.
        (lambda: FlitSwitch(8, "damq", 640, crosspoint_storage="within"), "crosspoint_storage"),
        # wormhole: the FIFO router keeps no auxVC and stamps best effort by arrival; a full crossbar has no
        # allocator at its outputs.
        (lambda: WormholeRouter(scheduler="fifo", vclock_state="vc"), "vclock_state"),
        (lambda: WormholeRouter(scheduler="fifo", best_effort_stamp="vclock"), "best_effort_stamp"),
        (lambda: WormholeRouter(crossbar="full", crossbar_iterations=1), "crossbar_iterations"),
        (lambda: WormholeRouter(crossbar="full", crossbar_output="fifo"), "crossbar_output"),
        # multicast: crosspoint buffers are oq-crosspoint's; at mean fanout 1 every law is one destination.
        (lambda: MulticastSwitch(8, "iq-split", 2), "crosspoint_cells"),
        (lambda: MulticastSwitch(8, "iq-nosplit").check_traffic(Traffic(0.5, fanout=1, fanout_distribution="binomial")),
         "fanout_distribution"),
        (lambda: saturation_load("iq-split", 8, 2, 2, crosspoint_cells=2), "crosspoint_cells"),
        # pfc: a propagation speed given replaces the medium's.
        (lambda: PfcPort(100e9, 100.0, 9216, medium="copper", propagation_speed=2e8), "medium"),
    ]


@pytest.mark.parametrize("make, name", _models(), ids=[n for _, n in _models()])
def test_a_model_refuses_a_field_where_it_has_no_effect(make, name):
    with pytest.raises(InputError) as e:
        make()
    assert e.value.parameter == name and "\n" not in str(e.value)


def test_where_it_applies_the_model_takes_it():
    from switchq.models import Traffic
    from switchq.models.circuit import CircuitSwitch
    from switchq.models.flit import FlitNetwork, FlitSwitch, MessageTraffic

    assert Traffic(0.5, pattern="hotspot", hotspot_fraction=0.5, hotspot_port=3).destination_matrix(4)[0, 3] == \
        pytest.approx(0.5 + 0.5 / 4)
    assert Traffic(0.5, pattern="unbalanced", unbalanced_w=0.5).unbalanced_w == 0.5
    assert FlitNetwork.bmin(16, FlitSwitch(8, "hipiqs", 640, up_select="output")).switch.up_select == "output"
    assert MessageTraffic(0.5, 64, uniform_over="all").uniform_over == "all"
    assert CircuitSwitch(4, "channels", channels=4, pool=4).slots == 4
    # A default value is not "given": every organisation takes the defaults (2k FIFO units, say).
    assert FlitSwitch(8, "fifo", 640, crosspoint_flits=16).buffer_org == "fifo"


def test_where_they_apply_these_models_take_them():
    from switchq.models import Traffic
    from switchq.models.circuit import CircuitSwitch, CircuitTraffic
    from switchq.models.flit import FlitSwitch
    from switchq.models.multicast import MulticastSwitch
    from switchq.models.pfc import PfcPort
    from switchq.models.wormhole import WormholeRouter
    from switchq.solvers.multicast import saturation_load

    sw = CircuitSwitch(4, "window", window=2, pointer="head", claim="connect", setup_time=0.0)
    assert (sw.pointer, sw.claim, sw.setup_time) == ("head", "connect", 0.0)
    assert CircuitSwitch(4, "channels", channels=3, pointer="head").pointer == "head"
    assert CircuitSwitch(4, control="central", select_time=0).ideal      # central: the default set-up, unused
    assert CircuitTraffic("uniform", size_min=10, size_max=20).mean_bytes() == 15
    t = CircuitTraffic("train", short=200, long=8000, long_bytes=0.5, train=4, file_servers=2, server_share=0.5,
                       server_long_bytes=0.5)
    assert (t.train, t.server_share, t.server_long_bytes) == (4, 0.5, 0.5)
    assert CircuitTraffic(destinations="all", size=100).destinations == "all"
    assert FlitSwitch(8, "hipiqs", 640, crosspoint_storage="extra").shared_flits == 640
    r = WormholeRouter(scheduler="fgfq", vclock_state="vc", best_effort_stamp="vclock", crossbar_iterations=1,
                       crossbar_output="fifo")
    assert (r.vclock_state, r.best_effort_stamp, r.crossbar_iterations, r.crossbar_output) == \
        ("vc", "vclock", 1, "fifo")
    assert WormholeRouter(crossbar="full", scheduler="fifo").crossbar_output == "stamp"    # the defaults: not given
    assert MulticastSwitch(8, "oq-crosspoint", 2).crosspoint_cells == 2
    MulticastSwitch(8, "iq-split").check_traffic(Traffic(0.5, fanout=2, fanout_distribution="binomial"))
    assert saturation_load("oq-crosspoint", 4, 2, 2, crosspoint_cells=1).crosspoint_cells == 1
    assert saturation_load("iq-split", 4, 2, 2, crosspoint_cells=4).crosspoint_cells is None    # the default
    fast = PfcPort(100e9, 100.0, 9216, propagation_speed=2e8)
    assert (fast.medium, fast.propagation_speed) == (None, 2e8)     # a speed leaves no medium to name
    assert PfcPort(100e9, 100.0, 9216, medium="copper").medium == "copper"


# The declarations whose conditional parameters their models refuse on their own: built with the declaration's
# check taken out, the model (or its check of the workload) still refuses each one where its condition fails,
# naming it, so the model's rule is the declaration's. Left out: bmin's topology conditions (FlitNetwork's; the
# generated crossbar has the wrong node count, refused first) and the unicast traffic (models/traffic.py).
OWN_RULES = {"circuit", "wormhole", "pfc", "multicast"} | {
    f"bmin:{name}" for name in ("crosspoint_flits", "crosspoint_storage", "central_input_flits", "up_share",
                                "central_admission", "uniform_over", "up_select:buffer_org",
                                "fifo_routing:buffer_org")}
PARITY = [(k, c) for k, c in CASES if k.split(":")[0] in OWN_RULES or k in OWN_RULES]


@pytest.mark.parametrize("key, case", PARITY, ids=[k for k, _ in PARITY])
def test_the_model_refuses_what_its_declaration_refuses(key, case, monkeypatch):
    import sys

    d, p, values = _where_it_does_not_apply(key, case)
    monkeypatch.setattr(sys.modules[d.build.__module__], "check_applies", lambda *args: None)
    with pytest.raises(InputError) as e:
        system, workload = d.build(values)
        system.check_traffic(workload)
    assert "\n" not in str(e.value) and (e.value.parameter in p.options or e.value.parameter in p.names()), \
        str(e.value)


# --------------------------------------------------------------------------- a buffer must hold one unit

def test_buffer_sharing_refuses_a_buffer_smaller_than_one_message():
    from click.testing import CliRunner

    from switchq.cli import app
    from switchq.solvers import bmin
    from switchq.sweeps import plan_sweep

    result = CliRunner().invoke(app, ["solve", "buffer-sharing", "--buffer-flits", "10", "--message-flits", "64"])
    assert isinstance(result.exception, InputError)
    assert str(result.exception) == "--buffer-flits: got 10; allowed: an integer >= 64 (one 64-flit message at least)"
    with pytest.raises(InputError, match=r"^--buffer-flits: got 100; allowed: an integer >= 128 .*message_flits=128"):
        plan_sweep("buffer-sharing", {"message_flits": "64,128"}, {"buffer_flits": "100"})
    assert bmin.message_places(64, 64) == 1 and bmin.message_places(127, 64) == 1
    out = CliRunner().invoke(app, ["solve", "buffer-sharing", "--buffer-flits", "64", "--message-flits", "64",
                                   "--json"]).output
    assert '"places": 1' in out


def test_a_given_crosspoint_size_takes_no_rule():
    from switchq.solvers import crossbar_memory as xm

    with pytest.raises(InputError, match="^rule: got 'paper'"):
        xm.sfc_cicq(16, 64, q_r=2, rule="paper")
    assert xm.sfc_cicq(16, 64, q_r=2).rule == "given"
