"""Fat-tree network simulation (paper 003 §3-§4): wiring, conservation, minimal delays, the 256-node numbers."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from switchq.errors import InputError
from switchq.models import Traffic
from switchq.models.network import UP_ROUTINGS, FatTree, FatTreeNetwork
from switchq.solvers import fattree
from switchq.validate import kernel as K
from switchq.models import topology
from switchq.validate.arch import network
from switchq.validate.harness import RunSettings
from switchq.api import simulate

TREES = [(2, 1), (2, 2), (2, 3), (4, 1), (4, 2), (3, 2), (2, 4)]


@pytest.mark.parametrize("k, n", TREES + [(4, 4), (16, 2)])
def test_integer_wiring_matches_the_graph_wiring(k, n):
    # The kernel's wiring tables must be the wiring of solvers.fattree, port for port.
    tree = FatTree(k, n)
    topo = topology.fat_tree(tree)
    out_sw, out_in = topo.out_switch, topo.out_input
    width = tree.switches_per_level
    for lv in range(n):
        for w in range(width):
            s = lv * width + w
            for p in range(2 * k):
                there = fattree.neighbour(tree, ("switch", lv, w), p)
                g = s * 2 * k + p
                if there is None:
                    assert out_sw[g] == -2
                elif there[0][0] == "node":
                    assert (out_sw[g], out_in[g]) == (-1, there[0][1])
                else:
                    (_, lv2, w2), port2 = there
                    assert (out_sw[g], out_in[g]) == (lv2 * width + w2, port2)
            # The switch reaches (routes down, through a single port) exactly its k**(lv+1) nodes.
            masks = topo.groups[s, topo.route[s]]
            reached = [d for d in range(tree.nodes) if masks[d] & (masks[d] - 1) == 0]
            assert len(reached) == k ** (lv + 1)


@settings(max_examples=25)
@given(tree=st.sampled_from(TREES), q=st.integers(1, 4), load=st.floats(0.02, 1.0),
       pattern=st.sampled_from(["uniform", "complement", "bitrev"]), fanout=st.sampled_from([1, 1, 2, 3]),
       routing=st.sampled_from(UP_ROUTINGS), seed=st.integers(0, 2**31))
def test_every_packet_and_copy_delivered_exactly_once(tree, q, load, pattern, fanout, routing, seed):
    # Conservation with a drain: all accepted packets delivered once, every copy once, every credit back.
    net = FatTreeNetwork(FatTree(*tree), crosspoint_cells=q, up_routing=routing)
    nodes = net.tree.nodes
    if fanout > 1 or nodes & (nodes - 1):
        pattern = "uniform"  # multicast sets are uniform; complement and bit reversal need 2^m nodes
        fanout = min(fanout, nodes - 1)
    tr = Traffic(load, pattern=pattern, fanout=fanout, fanout_distribution="fixed")
    # Drain long enough for every copy to cross the busiest link alone: fixed routes (d-mod-k, source) can
    # funnel a whole multicast load through one up link (a 4-node tree, fanout 3, load 1 needs ~2,300 slots).
    s = network.LAYOUT.named(network.replicate(net, tr, K.Run(slots=300, warmup=0, drain=300 * nodes * fanout + 100,
                                                              seed=seed)))
    assert s["overflow"] == 0
    assert s["queued"] == 0 and s["arrived"] == s["delivered"]
    assert s["copies"] == s["copies_owed"]
    assert s["credits_out"] == 0


@settings(max_examples=25)
@given(tree=st.sampled_from(TREES + [(4, 3)]), routing=st.sampled_from(UP_ROUTINGS), data=st.data())
def test_an_isolated_packet_takes_the_minimal_route(tree, routing, data):
    # Idle network: a packet crosses 2 (L + 1) links (L = LCA level of source and destinations, the
    # shortest path), each costing link_delay_slots; a multicast reaches every member at that time.
    t = FatTree(*tree)
    net = FatTreeNetwork(t, up_routing=routing)
    src = data.draw(st.integers(0, t.nodes - 1))
    others = [v for v in range(t.nodes) if v != src]
    dests = data.draw(st.lists(st.sampled_from(others), min_size=1, max_size=min(6, len(others)), unique=True))
    deliveries, log, stats = network.run_batch(net, [src], [5], [dests])
    top = fattree.lca_level(t, [src, *dests])
    assert deliveries[0] - 5 == 2 * (top + 1) * net.timing.link_delay_slots
    assert network.LAYOUT.named(stats)["copies"] == len(dests)
    assert sorted(log[:, 1]) == sorted(dests) and set(log[:, 2]) == {deliveries[0]}


def test_same_seed_same_numbers_whatever_the_workers():
    net = FatTreeNetwork.for_nodes(16, 8, crosspoint_cells=2)
    tr = Traffic(0.8, pattern="uniform")
    one = simulate(net, tr, RunSettings(slots=1000, replications=3, seed=5, workers=1))
    two = simulate(net, tr, RunSettings(slots=1000, replications=3, seed=5, workers=2))
    assert one.per_replication == two.per_replication


def test_bad_traffic_is_one_line():
    net = FatTreeNetwork.for_nodes(16, 8)
    with pytest.raises(InputError, match="pattern"):
        simulate(net, Traffic(0.5, pattern="hotspot"))
    with pytest.raises(InputError, match="fanout"):
        simulate(net, Traffic(0.5, fanout=15, fanout_distribution="uniform"))


RUN = RunSettings(slots=3000, warmup_slots=1000, replications=2, seed=1)


def test_complement_is_contention_free_on_256_nodes():
    # Paper 003 §3: complement is contention free [17, 6], 100 % at full load with 32-port switches.
    # Deterministic up to the NIC's Bernoulli arrivals: accepted = offered within noise (2 x 3000 slots
    # of 256 nodes: SE of the load ~ 0.0005; 0.005 is 10 SE).
    net = FatTreeNetwork.for_nodes(256, 32, crosspoint_cells=4)
    r = simulate(net, Traffic(1.0, pattern="complement"), RUN)
    assert r.throughput.value > 0.995
    # An unloaded packet crosses 4 links (L = 1, 4 slots); at half load the adaptive up-port choices
    # rarely collide: measured 4.60 slots (seed 1), so under 5 leaves 0.4 slot (~20 CI half-widths).
    half = simulate(net, Traffic(0.5, pattern="complement"), RUN)
    assert 4 <= half.mean_latency.value < 5


@pytest.mark.parametrize("pattern", ["uniform", "transpose", "bitrev"])
def test_32_port_4_buffer_network_carries_about_93_percent_or_more(pattern):
    # Paper 003 §3: "Uniform, Transpose and Reversal also have good throughput of about 93%" with
    # 32-port switches and 4-packet crosspoints. Measured here (seed 1, 2 x 4000 slots): uniform
    # 0.983, transpose and bit reversal 0.9997: credit-driven adaptive up-routing does better than the
    # paper's 93 %. The floor 0.93 is the paper's figure: the network must not fall below it.
    net = FatTreeNetwork.for_nodes(256, 32, crosspoint_cells=4)
    r = simulate(net, Traffic(1.0, pattern=pattern), RUN)
    assert r.throughput.value > 0.93


def test_more_ports_and_more_buffers_carry_more_uniform_traffic():
    # Paper 003 §3: "Performance is best with 32 ports and 4 packets for each crosspoint."
    # Measured (seed 1): 8-port 2 buffers 0.831, 8-port 4 buffers 0.904, 32-port 2 buffers 0.966,
    # 32-port 4 buffers 0.983; the steps are 10-70 CI half-widths apart.
    tp = {}
    for ports, q in [(8, 2), (8, 4), (32, 4)]:
        net = FatTreeNetwork.for_nodes(256, ports, crosspoint_cells=q)
        tp[ports, q] = simulate(net, Traffic(1.0), RUN).throughput.value
    assert tp[8, 2] < tp[8, 4] < tp[32, 4]


def test_multicast_latency_is_stable_below_the_fanout_8_bound():
    # Paper 003 §3.1, Figure 15: fanout 8 on 256 nodes, latency stable for load factors under 0.125
    # (= 1 / fanout: every node receives 8 load copies per slot). With Table 1's 32-port switches,
    # measured (seed 1, 2 x 6000 slots): latency 14.8 slots at 0.11, 39 at 0.12, 87 at 0.123, still
    # carried. Four levels of 8-port switches saturate earlier, at 0.1145 packets per node per slot
    # (latency 12.3 at 0.08, 25 at 0.11), after which NIC queues grow (unstable).
    mc = dict(fanout=8, fanout_distribution="uniform")
    wide = FatTreeNetwork.for_nodes(256, 32, crosspoint_cells=4)
    near = simulate(wide, Traffic(0.12, **mc), RUN)
    assert not near.unstable and near.throughput.value == pytest.approx(0.12, abs=0.003)
    assert near.mean_latency.value < 80
    deep = FatTreeNetwork.for_nodes(256, 8, crosspoint_cells=4)
    low = simulate(deep, Traffic(0.08, **mc), RUN)
    assert not low.unstable and low.mean_latency.value < 40
    assert low.output_utilization.value == pytest.approx(8 * 0.08, rel=0.03)
    over = simulate(deep, Traffic(0.16, **mc), RUN)
    assert over.throughput.value < 0.125 and over.mean_latency.value > 20 * low.mean_latency.value and over.unstable


def test_excess_piling_up_inside_the_switches_is_unstable():
    # Regression (issue 10, item 4): above the admissible 1/8 (255/2048 = 0.1245 with destinations other
    # than the sender), 32-port switches hold the excess in their crosspoint buffers while the NICs keep
    # sending, so watching the NICs alone called this run stable. Load 0.13 offers 0.13 x 8 x 256 x 1000
    # = 266,000 copies per replication while measuring; the network delivers at most 255/256 per node per
    # slot, so ~11,000 more pile up, against an allowance of 1 % + 256 = 2,900.
    net = FatTreeNetwork.for_nodes(256, 32)
    r = simulate(net, Traffic(0.13, fanout=8, fanout_distribution="uniform"),
                 RunSettings(slots=1000, warmup_slots=500, replications=2))
    assert r.unstable and r.backlog_growth > r.backlog_growth_allowed
    # Mid-run, "queued" counts messages not yet at all their destinations: conservation holds.
    assert r.arrived == r.delivered + r.queued


def test_unicast_throughput_and_node_utilization_count_the_same_window():
    # A unicast packet is one copy: both figures count it in the slot it is sent to its node, so they
    # are equal, and at most the load, whatever the link delay (here 6 slots at 100 Gb/s).
    from switchq.models.network import NetworkTiming

    net = FatTreeNetwork(FatTree(4, 2), timing=NetworkTiming(bandwidth_bps=100e9))
    assert net.timing.link_delay_slots == 6
    r = simulate(net, Traffic(1.0, pattern="complement"), RunSettings(slots=400, replications=2))
    assert r.throughput.value == r.output_utilization.value and r.throughput.value <= 1.0


# ---------------------------------------------------------------- NAMD-like benchmark (paper 003 §4)

@pytest.mark.parametrize("k, n, packets", [(4, 2, 1), (4, 3, 5), (2, 4, 12)])
def test_one_sender_one_receiver_round_is_the_pipeline_formula(k, n, packets):
    # One message of m packets between two nodes on an idle tree: the send overhead (rounded up to
    # slots), 2 (L + 1) links for the first packet, m - 1 more slots for the rest, then the receive
    # overhead. Exact: nothing else is in the network.
    from switchq.validate.arch.namd import namd_round

    net = FatTreeNetwork(FatTree(k, n))
    tm = net.timing
    seed = 7
    rng = np.random.default_rng(seed)
    v = int(rng.choice(net.tree.nodes, size=1, replace=False)[0])
    others = np.delete(np.arange(net.tree.nodes), v)
    d = int(rng.choice(others, size=rng.choice(net.tree.nodes, p=np.eye(net.tree.nodes)[1]), replace=False)[0])
    top = fattree.lca_level(net.tree, [v, d])
    send = -(-tm.nic_send_ns // tm.packet_ns)
    expect = (send + 2 * (top + 1) * tm.link_delay_slots + packets - 1) * tm.packet_ns + tm.nic_recv_ns
    got = namd_round(net, packets * tm.packet_bytes, "hardware", 1, 1, "fixed", seed)
    assert got == pytest.approx(expect)
    assert namd_round(net, packets * tm.packet_bytes, "software", 1, 1, "fixed", seed) == pytest.approx(expect)


@pytest.mark.parametrize("ports", [8, 32])
def test_hardware_multicast_beats_point_to_point_on_256_nodes(ports):
    # Paper 003 §4, Figures 17-18: hardware multicast is clearly faster. Measured (seed 1, 4 rounds,
    # 1 KiB): 8-port 11.6 us vs 44.0 us, 32-port 11.0 us vs 43.2 us; point-to-point pays 16 send
    # overheads of 1.3 us and sends every packet 16 times over the sender's link. Require the
    # intervals to be disjoint and at least a factor 2.
    from switchq.models import NamdRound

    net = FatTreeNetwork.for_nodes(256, ports)
    settings = RunSettings(replications=4, seed=1)
    hw = simulate(net, NamdRound(1024, "hardware", senders=max(1, net.tree.nodes // 16)), settings)
    sw = simulate(net, NamdRound(1024, "software", senders=max(1, net.tree.nodes // 16)), settings)
    assert hw.completion_ns.high < sw.completion_ns.low
    assert sw.completion_ns.value > 2 * hw.completion_ns.value


@pytest.mark.parametrize("ports, links", [(8, 8), (32, 4)])
def test_complement_under_dmodk_routing_never_contends(ports, links):
    # d-mod-k sends node p up through port k + p_l at level l; complement maps the k nodes of a leaf
    # to k distinct digits, so no two packets ever share a link: every packet takes exactly its
    # 2 (L + 1) = 2n links, one slot each, even at full load. Two packet buffers cover the credit
    # round trip (link and credit delay, one slot each); one would halve the rate.
    net = FatTreeNetwork.for_nodes(256, ports, crosspoint_cells=2, up_routing="dmodk")
    r = simulate(net, Traffic(1.0, pattern="complement"), RunSettings(slots=500, replications=2))
    assert r.throughput.value == 1.0 and r.mean_latency.value == links


def test_fixed_routes_are_what_adaptive_routing_improves_on():
    # Transpose on 256 nodes / 32-port switches: d-mod-k puts a whole leaf's traffic on one up link
    # (measured 0.125), a random source route collides on down links (0.987, seed 1), credit-driven
    # adaptive routing carries it all (0.9999). Loose floors and ceilings, far from the noise (CI
    # half-widths <= 0.003).
    tp = {}
    for routing in ("dmodk", "source", "adaptive"):
        net = FatTreeNetwork.for_nodes(256, 32, crosspoint_cells=4, up_routing=routing)
        tp[routing] = simulate(net, Traffic(1.0, pattern="transpose"), RUN).throughput.value
    assert tp["dmodk"] < 0.2 < 0.9 < tp["source"] < tp["adaptive"]


def test_cli_simulate_fattree_json_has_the_fields_scripts_rely_on():
    import json

    from click.testing import CliRunner

    from switchq.cli import app

    out = CliRunner().invoke(app, ["simulate", "fattree", "--ports", "8", "--nodes", "16", "--traffic", "complement",
                                   "--load", "0.5", "--slots", "500", "-r", "2", "--json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.output)
    for name in ("throughput", "throughput_ci95", "mean_latency", "mean_latency_ci95", "output_utilization"):
        assert name in d and name in d["units"]
    assert d["seed"] == 1 and len(d["seeds"]) == 2 and d["pattern"] == "complement"
    # Complement on 16 nodes is contention free below saturation: all offered load is carried.
    assert d["throughput_ci95"][0] <= 0.5 <= d["throughput_ci95"][1]
    rows = json.loads(CliRunner().invoke(app, ["simulate", "namd", "--ports", "8", "--nodes", "64", "--message",
                                               "256B", "-r", "2", "--json"]).output)["rows"]
    assert [r["multicast"] for r in rows] == ["hardware", "software"]
    assert all(r["units"]["completion_ns"] == "ns" for r in rows)
