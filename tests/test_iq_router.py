"""BookSim2's iq router network (issue 38): its configuration files read as BookSim2 reads them, and the kernel's
timing against BookSim2's, derived from its channel and pipeline rules and checked on its own runs.

Zero-load latency, from BookSim2's rules (a channel of latency d is read d + 1 cycles after the send; a stage of
one cycle is evaluated the cycle after the stage before completes; a credit returns after its channel): a packet
of one flit crossing H routers takes (d_inj + 1) + H (routing_delay + 1 + 1 + crossbar - 1) + (H - 1)(d + 1)
+ (d_ej + 1) cycles from injection to ejection: 4H + 2 on a mesh with lookahead routing (d = 1), 6H + 1 on a
torus with BookSim2's defaults (routing_delay 1, d = 2), 6 through one router with lookahead routing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from switchq.cli import main
from switchq.errors import InputError
from switchq.models import booksim_config as bc
from switchq.models.iq_router import IqRouterNetwork, IqTraffic
from switchq.validate import kernel as K
from switchq.validate.arch import iq_router as kern

EXAMPLES = Path(__file__).resolve().parents[1] / "switchq" / "examples" / "booksim"


def _run(net, traffic, cycles=20_000, warmup=2000, seed=1):
    return kern.LAYOUT.named(kern.replicate(net, traffic, K.Run(slots=cycles, warmup=warmup, drain=0, seed=seed)))


def test_every_booksim_key_is_in_exactly_one_list():
    bc.check_lists()
    assert len(bc.KEYS) == 131          # src/booksim_config.cpp at 28f43299 declares 131 keys


@pytest.mark.parametrize("name", ["singleconfig", "fattree_config", "mesh88_lat", "torus88"])
def test_booksims_example_files_are_read(name):
    cfg = bc.read(EXAMPLES / name, ["injection_rate=0.05"])
    assert cfg.values["injection_rate"] == 0.05 and "topology" in cfg.assigned


def test_a_file_is_read_as_booksim_types_it():
    cfg = bc.parse_text("k = 4; n = 2; topology = mesh; vc_allocator = islip(2); // comment\n", "f",
                        ["injection_rate=0.25", "k=8"])
    assert (cfg.values["k"], cfg.values["injection_rate"], cfg.values["vc_allocator"]) == (8, 0.25, "islip(2)")
    with pytest.raises(InputError, match="k = 10.0"):
        bc.parse_text("k = 10.0;", "f")                         # an integer key written as a real: BookSim2 refuses
    with pytest.raises(InputError, match="unknown key"):
        bc.parse_text("limit = 2;", "f")                        # runfiles/knconfig's key, undeclared at 28f43299
    with pytest.raises(InputError, match="speculative = 1"):
        bc.parse_text("speculative = 1;", "f")                  # modelled at its default only
    with pytest.raises(InputError, match="missing"):
        bc.parse_text("k = 4", "f")
    with pytest.raises(InputError, match="watch_out = -"):
        bc.parse_text("watch_out = -\nk = 4;", "f")             # a ';' left out: refused, not read into the value
    with pytest.raises(InputError, match="sim_type = batch"):
        bc.parse_text("sim_type = batch;", "f")                 # a no-op key, but batch is another experiment


def test_booksim_output_without_its_statistics_is_an_error_not_a_saturated_run():
    from switchq.validate.reports.booksim_runs import parse

    assert parse("...\nSimulation unstable, ending ...\n") == {"stable": False}
    with pytest.raises(RuntimeError):
        parse("Parse error : Unknown integer field: limit\n")


def test_more_crossbar_outputs_than_vc_requests_fit_the_allocators_scratch():
    # One VC, output speedup 2: switch allocation matches over 2 P outputs, more than the P V^2 requests of VC
    # allocation the scratch was first sized for; every flit offered below saturation is still carried.
    net = IqRouterNetwork("mesh", 4, 2, num_vcs=1, output_speedup=2, routing_delay=0)
    c = _run(net, IqTraffic(0.1), cycles=5000, warmup=500)
    assert c["arrived"] == c["delivered"] + c["queued"]
    assert c["m_flits_ejected"] / (16 * 5000) == pytest.approx(0.1, abs=0.01)
    with pytest.raises(InputError, match="vc_iterations"):
        IqRouterNetwork("mesh", 4, 2, vc_allocator="separable_input_first", vc_iterations=2)


def test_zero_load_latency_through_one_router_is_booksims_six_cycles():
    # singleconfig's router: lookahead routing, VA, SA and the crossbar a cycle each: 2 + 2 + 2 = 6. BookSim2's own
    # runs of the file give 6.025 at load 0.05 (5 seeds, 6.0241 .. 6.0250): queueing adds the 0.025.
    net = IqRouterNetwork("fly", 10, 1, num_vcs=8, vc_buf_size=8, routing_delay=0,
                          vc_allocator="separable_input_first", sw_allocator="separable_input_first")
    c = _run(net, IqTraffic(0.05))
    assert c["m_packet_latency_sum"] / c["m_packets"] == pytest.approx(6.025, abs=0.01)
    # At 0.3, BookSim2's five runs give 6.2814 (6.2806 .. 6.2830); ours within 0.2 % (a run's own spread is 0.02 %).
    c = _run(net, IqTraffic(0.3))
    assert c["m_packet_latency_sum"] / c["m_packets"] == pytest.approx(6.2814, rel=0.002)


@pytest.mark.parametrize("topology, rd, per_hop, constant", [("mesh", 0, 4, 2), ("torus", 1, 6, 1)])
def test_zero_load_latency_follows_booksims_pipeline(topology, rd, per_hop, constant):
    # At load 0.002 on 16 nodes a packet almost never meets another: each packet's latency is per_hop H + constant,
    # so the mean is per_hop x (mean hops) + constant to within the rare contention (0.05 cycle).
    net = IqRouterNetwork(topology, 4, 2, num_vcs=4, routing_delay=rd)
    c = _run(net, IqTraffic(0.002), cycles=100_000)
    hops = c["m_hops_sum"] / c["m_packets"]
    assert c["m_network_latency_sum"] / c["m_packets"] == pytest.approx(per_hop * hops + constant, abs=0.05)
    if topology == "mesh":
        # Uniform destinations including the source: 1 + 2 (k^2 - 1) / (3k) = 3.5 routers on a 4 x 4 mesh.
        assert hops == pytest.approx(3.5, abs=0.05)


def test_below_saturation_what_is_offered_is_carried():
    # 0.3 flits/node/cycle of 4-flit packets on a 4 x 4 mesh is well below its uniform saturation (~0.5): the
    # accepted rate is the offered within the Bernoulli count's noise (sd 0.0012 over 16 x 20,000 cycles).
    net = IqRouterNetwork("mesh", 4, 2, num_vcs=4, routing_delay=0)
    c = _run(net, IqTraffic(0.3, packet_size=4, injection_rate_uses_flits=True))
    assert c["m_flits_ejected"] / (16 * 20_000) == pytest.approx(0.3, abs=0.006)
    assert c["arrived"] == c["delivered"] + c["queued"]


def test_cli_runs_booksims_files_and_refuses_an_unknown_key(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["simulate", "iq-router", "--booksim-config", str(EXAMPLES / "fattree_config"), "--injection-rate",
              "0.2", "--cycles", "3000", "-r", "5", "--json"])
    assert e.value.code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["topology"] == "fattree" and out["nodes"] == 64 and out["hold_switch_for_packet"] is True
    assert out["throughput"] == pytest.approx(0.2, abs=0.02)
    bad = tmp_path / "bad"
    bad.write_text((EXAMPLES / "mesh88_lat").read_text() + "\nlimit = 2;\n")
    with pytest.raises(SystemExit) as e:
        main(["simulate", "iq-router", "--booksim-config", str(bad), "--cycles", "1000"])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and "\n" not in err and "limit" in err


# BookSim2 at 28f43299, built from its repository, run on its own example files (5 seeds, sample_period 10000
# where set; means of its "Packet latency average"): fattree_config at 0.4 flits/node/cycle 21.351 (21.340 ..
# 21.366); torus88 as shipped (0.15) 33.685 over 3 seeds (33.668 .. 33.717).
@pytest.mark.parametrize("name, rate, booksim", [("fattree_config", 0.4, 21.351), ("torus88", None, 33.685)])
def test_booksims_own_files_give_its_latency(name, rate, booksim, capsys):
    # Within 0.5 %: the seeds' spread of either simulator's mean here is about 0.1 %, and the issue's band for
    # agreement is 5 %; a modelling difference in the pipeline (a cycle per hop) moves these by 5-20 %.
    args = ["simulate", "iq-router", "--booksim-config", name, "--cycles", "10000", "-r", "5", "--json"]
    with pytest.raises(SystemExit):
        main(args + (["--injection-rate", str(rate)] if rate is not None else []))
    out = json.loads(capsys.readouterr().out)
    assert out["packet_latency"] == pytest.approx(booksim, rel=0.005)


def test_the_shared_policy_is_read_and_its_other_layouts_refused(capsys):
    cfg = bc.read(EXAMPLES / "fattree_shared")
    assert (cfg.values["buffer_policy"], cfg.values["buf_size"], cfg.values["private_buf_size"]) == ("shared", 16, 1)
    base = ["--booksim-config", str(EXAMPLES / "fattree_shared"), "--cycles", "200", "-r", "2", "--json"]
    for bad, key in (("private_bufs=2", "private_bufs = 2"), ("private_buf_start_vc=1", "private_buf_start_vc = 1"),
                     ("private_buf_size={1,2}", "private_buf_size = {1,2}")):
        with pytest.raises(SystemExit) as e:
            main(["simulate", "iq-router", *base, "--booksim-set", bad])
        assert e.value.code == 2
        assert key in capsys.readouterr().err
    # A private file's regions are BookSim2's no-ops, until an option makes the policy shared.
    private = ["--booksim-config", str(EXAMPLES / "fattree_shared"), "--booksim-set",
               "buffer_policy=private; vc_buf_size=4; private_bufs=2", "--cycles", "200", "-r", "2", "--json"]
    with pytest.raises(SystemExit) as e:
        main(["simulate", "iq-router", *private])
    assert e.value.code == 0
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["simulate", "iq-router", *private, "--buffer-policy", "shared"])
    assert "private_bufs = 2" in capsys.readouterr().err
    with pytest.raises(InputError, match="private_buf_size"):
        IqRouterNetwork("fattree", 4, 2, num_vcs=4, buffer_policy="shared", buf_size=6, private_buf_size=2)
    with pytest.raises(InputError, match="buf_size"):
        IqRouterNetwork("fattree", 4, 2, num_vcs=4, buf_size=16)          # private VCs are sized by vc_buf_size
    with pytest.raises(InputError, match="output_speedup"):               # BookSim2 overflows the shared buffer
        IqRouterNetwork("fattree", 4, 2, num_vcs=4, buffer_policy="shared", buf_size=16, output_speedup=2)


@pytest.mark.parametrize("wait", [False, True])
def test_a_shared_buffer_with_no_shared_part_is_the_private_one(wait):
    """With buf_size = num_vcs x private_buf_size the shared pool is empty. A VC then takes a slot while its
    private region's count (its flits plus the slots kept reserved for its packet) is below private_buf_size,
    and a reserved slot exists only where its flits are fewer: full exactly when its flits reach
    private_buf_size, BookSim2's private policy with vc_buf_size = private_buf_size. Same draws, so the runs
    are the same run, counter for counter."""
    traffic = IqTraffic(injection_rate=0.55, packet_size=5, injection_rate_uses_flits=True)
    common = dict(topology="fattree", k=4, n=2, num_vcs=3, wait_for_tail_credit=wait)
    private = _run(IqRouterNetwork(**common, vc_buf_size=3), traffic, cycles=4000, warmup=500)
    shared = _run(IqRouterNetwork(**common, buffer_policy="shared", buf_size=9, private_buf_size=3), traffic,
                  cycles=4000, warmup=500)
    assert private == shared and private["m_packets"] > 1000


def test_a_shared_pool_carries_more_than_the_same_flits_split():
    """16 flits a port shared (one reserved per VC) against 4 private a VC, offered 0.75 flits/node/cycle past
    both saturations: a busy VC can use its idle neighbours' flits, so the shared buffer accepts more (BookSim2's
    reason to have it). Measured: 0.549 against 0.640, the replications within 0.01 of their means; the
    margin asked, 0.02, is twice that spread."""
    traffic = IqTraffic(injection_rate=0.75, packet_size=8, injection_rate_uses_flits=True)
    common = dict(topology="fattree", k=4, n=2, num_vcs=4)
    def accepted(net):
        runs = [_run(net, traffic, cycles=6000, warmup=1000, seed=s) for s in range(1, 6)]
        return sum(r["m_flits_ejected"] for r in runs) / (5 * 16 * 6000)
    split = accepted(IqRouterNetwork(**common, vc_buf_size=4))
    shared = accepted(IqRouterNetwork(**common, buffer_policy="shared", buf_size=16))
    assert shared > split + 0.02, (split, shared)


def test_packet_records_grow_with_the_packets_in_flight(monkeypatch):
    """The kernel starts with 4 records a node plus 64 and doubles them when a cycle might run out, returning to
    its caller, which grows them and resumes at that cycle. A record is named by its index only, so the run
    is the run with records enough from the start, counter for counter."""
    net = IqRouterNetwork("fly", 4, 2, num_vcs=2, vc_buf_size=2)
    traffic = IqTraffic(injection_rate=0.95, packet_size=1)
    grown = []
    real = kern._more_packets
    monkeypatch.setattr(kern, "_more_packets", lambda pk, rt, routers: grown.append(pk.shape[1]) or real(pk, rt,
                                                                                                          routers))
    out = _run(net, traffic, cycles=3000, warmup=500)
    assert grown and grown[0] == 4 * 16 + 64
    args = kern.args_for
    monkeypatch.setattr(kern, "args_for", lambda *a: args(*a)._replace(pool=1 << 16))
    grown.clear()
    assert _run(net, traffic, cycles=3000, warmup=500) == out and not grown


def test_a_network_that_would_not_fit_in_memory_is_refused_before_it_runs(monkeypatch):
    from switchq.validate.arch import memory

    monkeypatch.setattr(memory, "available_bytes", lambda: 1e6)
    net = IqRouterNetwork("fattree", 4, 3, num_vcs=4, buffer_policy="shared", buf_size=640, private_buf_size=0)
    with pytest.raises(InputError, match=r"nodes: got 64; allowed: a size whose state fits in memory: .*flit stores"):
        _run(net, IqTraffic(injection_rate=0.1), cycles=1000, warmup=100)
