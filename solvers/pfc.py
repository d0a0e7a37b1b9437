"""PFC headroom (IEEE 802.1Qbb) and InfiniBand credit buffers, term by term, with the source of every constant.

Paper 002 (Minkenberg & Gusat) §2.3: grant (on/off) flow control needs the
buffer above its stop threshold to absorb everything still arriving while
"stop" travels back and takes effect. PFC is that protocol with real delays:
after the receiver's queue crosses XOFF it must finish the frame it is
sending (its MTU), send the 64-byte PFC frame, which crosses both interfaces
and the cable; the sender reacts within its response time (in pause quanta
of 512 bit times), finishes its frame in progress (its MTU), and what it sent
meanwhile is still on the cable and in the interfaces. Four readings of that
sum (``--model``):

- ``ieee``: IEEE 802.1Qbb Annex N's delay model with IEEE 802.3's bounds
  (interface delays, Table 31B-1's reaction times), every frame with its
  12-byte gap and 8-byte preamble, the cable at Cisco's per-medium speeds;
- ``cisco``: Cisco's PFC white paper (Nexus 5000): both MTUs, the cable both
  ways, the response time; interfaces and framing neglected;
- ``mlx5``: the Linux mlx5 driver's ``calculate_xoff``
  (``(301 + 2.16 len) speed + 2.72 MTU``, speed in Gb/s, floored at 40; the
  MTU it is passed is the netdev's, ``dev->mtu``: the IP MTU, without the
  Ethernet header and FCS);
- ``sonic``: SONiC's ``buffer_headroom_mellanox.lua`` (Spectrum-2/3 ASIC
  table), whose bytes include the cells small packets waste.

InfiniBand (IBA Vol. 1 §7.9) uses absolute credits in 64-byte blocks: a VL
runs at full rate when its buffer holds the round trip's bytes plus one
whole packet (a packet goes only with credits for all of it), counted in
whole blocks, each freed only with its last byte (:func:`full_rate_credits`);
a smaller buffer carries a share of the rate found by a max-plus recursion
(:func:`credit_throughput`). The round trip is the cable both ways, a fixed
delay (SerDes, FEC, pipeline) and the longest a freed credit waits for the
next flow-control packet (the credit-update interval), counted whole; both
default to 0, and the answer then says it is a lower bound.

Examples
--------
>>> from switchq.models.pfc import PfcPort
>>> h = headroom(PfcPort(link_rate_bps=100e9, cable_m=100.0, mtu_bytes=9216))
>>> h.headroom_bytes, h.terms["response"], h.terms["interface"]
(87322, 25216.0, 30720.0)
>>> headroom(PfcPort(link_rate_bps=100e9, cable_m=100.0, mtu_bytes=9216, model="mlx5")).headroom_bytes
76767
>>> from switchq.models.pfc import InfinibandLink
>>> b = infiniband(InfinibandLink(None, 30.0, 4096, speed="HDR", width=4))
>>> b.link_rate_bps, b.credits, b.buffer_bytes
(200000000000.0, 184, 11776)
>>> infiniband(InfinibandLink(None, 30.0, 4096, speed="HDR", width=4, fixed_delay_s=200e-9)).credits
263
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from switchq.models import _check
from switchq.models.pfc import InfinibandLink, PfcPort
from switchq.models.pfc_standard import (FRAME_OVERHEAD_BYTES, IB_BLOCK_BYTES, IB_FC_PACKET_BYTES, IB_HEADER_BYTES,
                                         IB_SPEEDS, IB_WIDTHS, IEEE_INTERFACE_BIT_TIMES, IEEE_RESPONSE_QUANTA,
                                         MEDIUM_SPEED, PAUSE_QUANTUM_BITS, PFC_FRAME_BYTES, SRC_8021QBB, SRC_8023,
                                         SRC_CISCO, SRC_GUPTA, SRC_IB_SPEEDS, SRC_IBA, SRC_SONIC, C)

__all__ = ["headroom", "infiniband", "Headroom", "CreditBuffer", "SONIC_RESPONSE_QUANTA", "sonic", "SONIC_ASICS",
           "full_rate_credits", "credit_throughput", "response_quanta", "interface_delay_s", "propagation_speed",
           "packet_blocks", "check_buffer", "shortfall_throughput", "CISCO_RESPONSE"]

# The vendors' readings, their constants as their sources give them (the standards' are models.pfc_standard's).
SRC_SONIC_ASIC = ("sonic-net/sonic-buildimage Mellanox asic_table.j2 (cell_size 96 B on Spectrum, 144 B on "
                  "Spectrum-2/3; pipeline_latency 18 KB, mac_phy_delay 0.8 KB, peer_response_time 3.8 KB) and the "
                  "dynamic-buffer HLD (small_packet_percentage 100, lossless mtu 1024)")
SRC_MLX5 = ("Linux drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c, calculate_xoff(): "
            "xoff = (301 + 216 * cable_len / 100) * speed / 1000 + 272 * mtu / 100, speed in Mb/s, at least 40000, "
            "mtu the netdev's (dev->mtu, as en_dcbnl.c passes it); update_xoff_threshold() refuses a lossless "
            "buffer smaller than xoff + max_mtu + port_buff_cell_sz, max_mtu = max(netdev max_mtu, 9216) "
            "(MINIMUM_MAX_MTU)")
# Cisco's white paper states one response time: 60 quanta (3,840 B) at 10GE. At other speeds switchq substitutes
# 802.3's value from IEEE_RESPONSE_QUANTA.
CISCO_RESPONSE = {10_000_000_000: 60}

_G = 1_000_000_000
# SONiC's own table: it differs from 802.3 as printed by Gupta and Cisco at 10 Gb/s (67 quanta, not 60).
SONIC_RESPONSE_QUANTA = {100_000_000: 1, _G: 2, 10 * _G: 67, 25 * _G: 80, 40 * _G: 118, 50 * _G: 147,
                         100 * _G: 394, 200 * _G: 453, 400 * _G: 905, 800 * _G: 905}

DEFAULT_IB_SPEED = 2e8                # 5 ns/m, as switchq.models.link
MAX_FLIGHT = 1000                     # packets in flight the exact recursion follows (credit_throughput)


@dataclass(frozen=True)
class Headroom:
    """A PFC headroom answer: bytes per priority, the terms that add to it, their sources and the formula."""

    model: str
    headroom_bytes: int
    terms: dict
    term_sources: dict
    formula: str
    source: str
    response_quanta: int | None = None
    interface_delay_ns: float | None = None
    propagation_speed: float | None = None
    reserved_bytes: int | None = None
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class CreditBuffer:
    """An InfiniBand credit buffer: per VL in bytes and 64-byte credits, the terms, and the link it is for."""

    link_rate_bps: float
    signalling_bps: float | None
    encoding: str | None
    buffer_bytes: int
    credits: int
    total_bytes: int
    terms: dict
    term_sources: dict
    formula: str
    source: str
    round_trip_bytes: int = 0
    extra: dict = field(default_factory=dict)
    note: str = ""


def _whole(rate_bps: float) -> int | None:
    r = round(rate_bps)
    return r if abs(rate_bps - r) < 1e-6 * max(1.0, rate_bps) else None


def _speeds(table) -> str:
    return ", ".join(f"{k // _G}Gb/s" if k >= _G else f"{k // 1_000_000}Mb/s" for k in table)


def response_quanta(port: PfcPort) -> tuple[int, str]:
    """The sender's response time in pause quanta: given, or the model's table for the port's speed."""
    if port.response_quanta is not None:
        return port.response_quanta, "given (--response)"
    table = ({k: (v, SRC_SONIC) for k, v in SONIC_RESPONSE_QUANTA.items()} if port.model == "sonic"
             else IEEE_RESPONSE_QUANTA)
    found = table.get(_whole(port.link_rate_bps))
    if found is None:
        raise _check.InputError("response", None, "pause quanta (0..65535) for this speed: the table has "
                                + _speeds(table))
    return found


def interface_delay_s(port: PfcPort) -> tuple[float, str]:
    """One end's interface delay (transmit + receive): given, or D-Intf's 802.3 bound for the port's speed."""
    if port.interface_delay_s is not None:
        return port.interface_delay_s, "given (--interface-delay)"
    bits = IEEE_INTERFACE_BIT_TIMES.get(_whole(port.link_rate_bps))
    if bits is None:
        raise _check.InputError("interface_delay", None, "a time with a unit (e.g. 1us) for this speed: D-Intf is "
                                                         "tabulated for " + _speeds(IEEE_INTERFACE_BIT_TIMES))
    return bits / port.link_rate_bps, f"{bits} bit times, {SRC_GUPTA}"


def propagation_speed(port: PfcPort) -> tuple[float, str]:
    if port.propagation_speed is not None:
        return port.propagation_speed, "given (--propagation-speed)"
    return MEDIUM_SPEED[port.medium], f"{port.medium}: {SRC_CISCO.split(';')[1].strip()} (Cisco white paper)"


def _bytes(rate_bps: float, seconds: float) -> float:
    return rate_bps * seconds / 8


def _answer(port, terms, sources, formula, source, **kw) -> Headroom:
    return Headroom(port.model, math.ceil(sum(terms.values()) - 1e-9), terms, sources, formula, source, **kw)


def _ieee(port: PfcPort) -> Headroom:
    rate = port.link_rate_bps
    quanta, q_src = response_quanta(port)
    intf, i_src = interface_delay_s(port)
    speed, s_src = propagation_speed(port)
    terms = {"mtu_receiver": port.mtu_bytes + FRAME_OVERHEAD_BYTES, "pfc_frame": PFC_FRAME_BYTES,
             "interface": 2 * _bytes(rate, intf), "transceiver": 2 * _bytes(rate, port.transceiver_delay_s),
             "cable": 2 * _bytes(rate, port.cable_m / speed), "response": quanta * PAUSE_QUANTUM_BITS / 8,
             "mtu_sender": port.mtu_sender + FRAME_OVERHEAD_BYTES}
    terms = {k: float(v) for k, v in terms.items()}
    sources = {"mtu_receiver": f"the receiver's frame in progress + 20 B gap and preamble; {SRC_8021QBB}",
               "pfc_frame": f"a 64-byte PFC frame + 20 B; {SRC_8021QBB}",
               "interface": f"both ends' D-Intf: {i_src}", "transceiver": "given (--transceiver-delay), both ways",
               "cable": f"cable both ways at {speed:.4g} m/s, {s_src}",
               "response": f"{quanta} quanta x 512 bits: {q_src}",
               "mtu_sender": f"the sender's frame in progress + 20 B; {SRC_8021QBB}"}
    formula = ("(MTU_R + 20) + 84 + 2 rate D_intf/8 + 2 rate D_xcvr/8 + 2 rate cable/(8 v) + 64 quanta + "
               "(MTU_S + 20) bytes, rounded up")
    return _answer(port, terms, sources, formula, f"{SRC_8021QBB}; {SRC_8023}; {SRC_GUPTA}", response_quanta=quanta,
                   interface_delay_ns=intf * 1e9, propagation_speed=speed)


def _cisco_response(port: PfcPort, quanta: int, q_src: str) -> str:
    """Where the cisco reading's response time comes from: given, the white paper's own figure (60 quanta at
    10GE), or 802.3's value, which switchq substitutes at the speeds the white paper does not state."""
    if port.response_quanta is not None:
        return f"{quanta} quanta x 512 bits: {q_src}"
    if CISCO_RESPONSE.get(_whole(port.link_rate_bps)) == quanta:
        return f"{quanta} quanta x 512 bits = {quanta * 64} B, the white paper's figure at 10GE"
    return (f"{quanta} quanta x 512 bits: 802.3's value, substituted by switchq (the white paper states 60 quanta "
            f"at 10GE only): {q_src}")


def _cisco(port: PfcPort) -> Headroom:
    rate = port.link_rate_bps
    quanta, q_src = response_quanta(port)
    speed, s_src = propagation_speed(port)
    terms = {"mtu_receiver": float(port.mtu_bytes), "cable": 2 * _bytes(rate, port.cable_m / speed),
             "transceiver": 2 * _bytes(rate, port.transceiver_delay_s),
             "response": float(quanta * PAUSE_QUANTUM_BITS / 8), "mtu_sender": float(port.mtu_sender)}
    if port.propagation_speed is None:
        # The white paper's per-100 m figures (476 ns copper, 513 ns fibre) are 100 / (0.70 or 0.65 x 3e8).
        s_src += (f"; the white paper computes with c = 3e8 m/s (100 m of {port.medium}: "
                  f"{100 / (speed * 3e8 / C) * 1e9:.2f} ns), switchq with 299,792,458 m/s "
                  f"({100 / speed * 1e9:.2f} ns)")
    sources = {"mtu_receiver": f"MTU[R], {SRC_CISCO.split(':')[0]}", "cable": f"cable both ways, {s_src}",
               "transceiver": "given (--transceiver-delay), both ways (the white paper neglects it)",
               "response": _cisco_response(port, quanta, q_src), "mtu_sender": "MTU[S], Cisco white paper"}
    return _answer(port, terms, sources, "MTU_R + 2 rate cable/(8 v) + 2 rate D_xcvr/8 + 64 quanta + MTU_S bytes",
                   SRC_CISCO, response_quanta=quanta, propagation_speed=speed)


def _mlx5(port: PfcPort) -> Headroom:
    mbps = _whole(port.link_rate_bps / 1e6)
    if mbps is None:
        raise _check.InputError("link_rate", port.link_rate_bps, "a whole number of Mb/s with --model mlx5")
    speed = max(mbps, 40_000)               # the driver floors the speed at 40 Gb/s
    length = int(port.cable_m)
    cable = 216 * length // 100              # C integer arithmetic, as the driver computes it
    xoff = (301 + cable) * speed // 1000 + 272 * port.mtu_bytes // 100
    terms = {"fixed": 301 * speed / 1000, "cable": cable * speed / 1000, "mtu": 272 * port.mtu_bytes / 100}
    terms["integer_rounding"] = xoff - sum(terms.values())
    sources = {"fixed": f"301 x speed[Gb/s] (speed floored at 40 Gb/s), {SRC_MLX5.split(',')[0]}",
               "cable": "2.16 x cable[m] x speed[Gb/s], integer metres (cable_len; the driver's default is 7 m)",
               "mtu": "2.72 x MTU[B]: --mtu read as the netdev (IP) MTU the driver passes (dev->mtu, without "
                      "the Ethernet header and FCS)", "integer_rounding": "the driver's integer divisions"}
    return Headroom("mlx5", xoff, terms, sources,
                    "xoff = (301 + 216 cable/100) speed_Mbps/1000 + 272 MTU/100 (integer C, MTU the netdev's); the "
                    "driver refuses a lossless buffer smaller than xoff + max(netdev max_mtu, 9216) + one cell",
                    SRC_MLX5)


# Mellanox ASIC_TABLE rows (sonic-buildimage asic_table.j2): cell size in bytes; pipeline latency, MAC/PHY delay
# and the default peer response time in KB (the script multiplies them by 1024).
SONIC_ASICS = {"spectrum": (96, 18, 0.8, 3.8), "spectrum2": (144, 18, 0.8, 3.8), "spectrum3": (144, 18, 0.8, 3.8)}


def sonic(speed_bps: float, cable_m: float, port_mtu: int, asic: str = "spectrum3", response_bytes: float | None = None,
          response_source: str = "", lossless_mtu: int = 1024, small_packet_percentage: int = 100) -> Headroom:
    """SONiC's Mellanox headroom script step by step; ``response_bytes`` None: the ASIC's peer_response_time.

    Examples
    --------
    >>> sonic(100e9, 300.0, 9216, "spectrum", response_bytes=3.8 * 1024).headroom_bytes   # MSN2700's table: 104448
    102400
    """
    cell, pipeline_kb, mac_phy_kb, peer_kb = SONIC_ASICS[asic]
    pipeline, mac_phy = pipeline_kb * 1024, mac_phy_kb * 1024
    if response_bytes is None:
        response_bytes, response_source = peer_kb * 1024, f"the ASIC's peer_response_time {peer_kb} KB"
    mbps = speed_bps / 1e6
    eight_lanes = mbps >= 400_000   # 400G and up: 8-lane ports on Spectrum-2/3
    if eight_lanes:
        pipeline = pipeline * 2 - 1024
    worst = cell / 64 if cell > 2 * 64 else 2 * cell / (1 + cell)
    small = small_packet_percentage
    occupancy = (100 - small + small * worst) / 100
    on_cable = 2 * cable_m * mbps * 1e9 / 198_000_000 / (8 * 1024)   # as the script writes it
    parts = {"port_mtu": port_mtu, "cable": on_cable, "mac_phy": mac_phy, "response": response_bytes}
    xoff = math.ceil((lossless_mtu + sum(parts.values()) * occupancy) / 1024) * 1024
    xon = math.ceil(pipeline / 1024) * 1024
    size = math.ceil((xoff + xon + (port_mtu if eight_lanes else 0)) / 1024) * 1024
    terms = {"lossless_mtu": float(lossless_mtu), **{k: v * occupancy for k, v in parts.items()}}
    terms["round_up_1024"] = xoff - sum(terms.values())
    at = f"x cell occupancy {occupancy:g}"
    sources = {"lossless_mtu": f"LOSSLESS_TRAFFIC_PATTERN mtu {lossless_mtu} B, {SRC_SONIC_ASIC}",
               "port_mtu": f"port MTU {at}", "cable": f"2 cable speed / 1.98e8 m/s / (8 x 1024), as the script, {at}",
               "mac_phy": f"mac_phy_delay {mac_phy_kb} KB ({asic}) {at}", "response": f"{response_source} {at}",
               "round_up_1024": "xoff rounded up to 1024 B"}
    return Headroom("sonic", xoff, terms, sources,
                    f"xoff = ceil1024(lossless_mtu + (MTU + cable + mac_phy + response) x occupancy), occupancy = "
                    f"{occupancy:g} (cell {cell} B, {small} % packets of 64 B); reserved = ceil1024(xoff + xon"
                    f"{' + MTU (8-lane port)' if eight_lanes else ''}), xon = pipeline latency {pipeline:g} B",
                    f"{SRC_SONIC}; {SRC_SONIC_ASIC}", propagation_speed=198_000_000.0, reserved_bytes=size,
                    extra={"xon_bytes": xon})


def _sonic(port: PfcPort) -> Headroom:
    from dataclasses import replace

    try:
        quanta, source = response_quanta(port)
        response = quanta * PAUSE_QUANTUM_BITS / 8
        source = f"{quanta} quanta x 64 B: {source}"
    except _check.InputError:
        # The script's own fallback for a speed its table lacks.
        quanta, response, source = None, None, ""
    h = sonic(port.link_rate_bps, port.cable_m, port.mtu_bytes, port.asic or "spectrum3", response, source)
    return replace(h, response_quanta=quanta)


_MODELS = {"ieee": _ieee, "cisco": _cisco, "mlx5": _mlx5, "sonic": _sonic}


def headroom(port: PfcPort) -> Headroom:
    """XOFF headroom per lossless priority of ``port`` under ``port.model``: bytes, terms and sources.

    Cost: a few arithmetic operations.
    """
    return _MODELS[port.model](port)


def _ib_rate(link: InfinibandLink) -> tuple:
    """(data rate, signalling rate or None, encoding or None) of ``link``: its rate, or its speed x width."""
    signalling = encoding = None
    rate = link.link_rate_bps
    if link.speed is not None or link.width is not None:
        if link.speed is None or link.width is None:
            missing = "speed" if link.speed is None else "width"
            raise _check.InputError(missing, None, "both --speed and --width (or --link-rate alone)")
        name = link.speed.upper()
        if name not in IB_SPEEDS:
            raise _check.InputError("speed", link.speed, "one of " + ", ".join(IB_SPEEDS))
        _check.choice("width", link.width, IB_WIDTHS)
        lane_signal, encoding, lane_data = IB_SPEEDS[name]
        signalling, named = lane_signal * 1e9 * link.width, lane_data * 1e9 * link.width
        if rate is not None and abs(rate - named) > 1e-6 * named:
            raise _check.InputError("link_rate", rate, f"{named:g} bit/s for {link.width}x {name}, or leave it out")
        rate = named
    if rate is None:
        raise _check.InputError("link_rate", None, "a data rate with a unit (200Gb/s), or --speed and --width")
    return rate, signalling, encoding


def packet_blocks(mtu_bytes: int) -> int:
    """64-byte credits one packet of ``mtu_bytes`` (+ 26 B of headers) takes: the fewest a VL can send with."""
    return -(-(mtu_bytes + IB_HEADER_BYTES) // IB_BLOCK_BYTES)


def check_buffer(mtu_bytes: int, buffer_bytes: int, name: str = "buffer") -> None:
    """Refuse (one line, the bytes as given) a buffer per VL below one packet's credits: no packet could ever
    go, so its throughput would be 0 for want of a buffer, not of a round trip.

    Examples
    --------
    >>> check_buffer(4096, 100)
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: buffer: got '100B'; allowed: at least one packet's credits, 65 x 64 B = 4160 B ...
    """
    k = packet_blocks(mtu_bytes)
    if buffer_bytes // IB_BLOCK_BYTES < k:
        raise _check.InputError(name, f"{buffer_bytes}B", f"at least one packet's credits, {k} x 64 B = {k * 64} B "
                                f"(MTU {mtu_bytes} B + 26 B of headers): a packet goes only with credits for all "
                                "its blocks")


def _blocks_done(packet: int) -> list:
    """Byte offset of the last byte of each 64-byte block of a packet (its credit is freed then)."""
    return [min(IB_BLOCK_BYTES * (i + 1), packet) - 1 for i in range(-(-packet // IB_BLOCK_BYTES))]


def full_rate_credits(packet: int, round_trip: int) -> int:
    """Fewest credits that keep a VL at full rate: back to back, packet k starts at k P and needs its K blocks,
    while block i of packet k - m is back only if e_i + R <= m P (e_i its last byte, R the credit round trip in
    byte times). So K, plus for each block the packets before whose copy of it is still out, floor((e_i + R -
    1) / P).

    Cost: O(K).

    Examples
    --------
    >>> full_rate_credits(4122, 7506)   # 200 Gb/s, 30 m: 65 + 65 of packet k-1 + 54 of packet k-2
    184
    """
    done = _blocks_done(packet)
    return len(done) + sum((e + round_trip - 1) // packet for e in done)


def credit_throughput(credits: int, packet: int, round_trip: int) -> tuple[float, str]:
    """Share of the link rate a VL carries with ``credits``: the sender's packet starts as a max-plus recursion
    (a packet starts once the last is out and K credits are back), run until its state repeats; the throughput
    of that cycle is exact.

    The state is the credits held, the start times (relative to now) of the packets with blocks still out and
    how many of the oldest one's are back: returns come in time order (a packet's blocks in order, and its
    last one before the next packet's first), so that is all of it.

    Cost: O(F) per packet for F = credits / K packets in flight, and a cycle of at most a few F packets;
    F is limited to 1000 (about 0.1 s at most).

    Examples
    --------
    >>> credit_throughput(184, 4122, 7506)[0], round(credit_throughput(118, 4122, 7506)[0], 6)
    (1.0, 0.498247)
    """
    from collections import deque

    done = _blocks_done(packet)
    k = len(done)
    if credits < k:
        raise _check.InputError("buffer", f"{credits * IB_BLOCK_BYTES}B", f"at least one packet's credits ({k} x 64 B)")
    if credits >= full_rate_credits(packet, round_trip):
        return 1.0, "full rate: at least the credits of full_rate_credits"
    if credits // k > MAX_FLIGHT:
        raise _check.InputError("buffer", f"{credits * IB_BLOCK_BYTES}B", f"at most {MAX_FLIGHT * k * 64} B below "
                                f"full rate with this MTU ({MAX_FLIGHT} packets in flight) for the exact recursion")
    flights, back, have = deque(), 0, credits   # starts of packets with blocks out; blocks of the oldest back

    def settle(now):
        nonlocal back, have
        while flights:
            first = flights[0]
            while back < k and first + done[back] + round_trip <= now:
                back += 1
                have += 1
            if back < k:
                return
            flights.popleft()
            back = 0

    start, n, seen = 0, 0, {}
    while True:
        settle(start)
        key = hash((have, back, tuple(f - start for f in flights)))
        if key in seen:
            n0, s0 = seen[key]
            return (n - n0) * packet / (start - s0), f"max-plus recursion, cycle of {n - n0} packets"
        seen[key] = (n, start)
        have -= k
        flights.append(start)
        n += 1
        start += packet
        settle(start)
        while have < k:
            start = flights[0] + done[back] + round_trip   # the next credit back
            settle(start)


def infiniband(link: InfinibandLink, buffer_bytes: int | None = None) -> CreditBuffer:
    """Credit buffer per virtual lane for full rate over ``link``, in whole 64-byte credits, and with
    ``buffer_bytes`` the share of the rate that buffer carries.

    The rate is ``link.link_rate_bps`` (a data rate), or the speed's data rate per lane times the width. The
    credit round trip R is the cable both ways, the fixed delay and the credit-update interval (a freed
    credit may wait that long for the next flow-control packet: counted whole, a bound), rounded up to whole
    byte times, plus the 6-byte flow-control packet; the credits are :func:`full_rate_credits`. With the
    fixed delay or the interval at 0 the answer's ``note`` says the credits are a lower bound.
    """
    rate, signalling, encoding = _ib_rate(link)
    speed = link.propagation_speed or DEFAULT_IB_SPEED
    terms = {"cable": 2 * _bytes(rate, link.cable_m / speed), "fixed_delay": _bytes(rate, link.fixed_delay_s),
             "credit_update": _bytes(rate, link.credit_update_s), "credit_packet": float(IB_FC_PACKET_BYTES)}
    packet = link.mtu_bytes + IB_HEADER_BYTES
    if buffer_bytes is not None:
        check_buffer(link.mtu_bytes, buffer_bytes)
    round_trip = (math.ceil(terms["cable"] + terms["fixed_delay"] + terms["credit_update"] - 1e-9)
                  + IB_FC_PACKET_BYTES)
    credits = full_rate_credits(packet, round_trip)
    terms["packet"] = float(-(-packet // IB_BLOCK_BYTES) * IB_BLOCK_BYTES)
    terms["block_granularity"] = credits * IB_BLOCK_BYTES - sum(terms.values())
    sources = {"cable": f"cable both ways at {speed:.4g} m/s ({'given' if link.propagation_speed else '5 ns/m'})",
               "fixed_delay": "given (--fixed-delay): SerDes, FEC, pipeline, credit turnaround; 0 leaves them out",
               "credit_update": "given (--credit-update): the longest a freed credit waits for the next "
                                "flow-control packet, counted whole; 0 takes credit updates as instant",
               "credit_packet": f"a 6-byte flow-control packet, {SRC_IBA.split(':')[0]}",
               "packet": f"one packet, MTU + 26 B headers, in whole 64-byte credits (it goes only with credits "
                         f"for all of it); {SRC_IBA}",
               "block_granularity": "a block's credit leaves only with its last byte, so the round trip holds "
                                    "whole blocks (and the round trip is rounded up to whole byte times)"}
    extra = {}
    if buffer_bytes is not None:
        use, method = credit_throughput(buffer_bytes // IB_BLOCK_BYTES, packet, round_trip)
        extra = {"offered_buffer_bytes": buffer_bytes, "utilization": use, "utilization_method": method}
    return CreditBuffer(rate, signalling, encoding, credits * IB_BLOCK_BYTES, credits,
                        credits * IB_BLOCK_BYTES * link.vls, terms, sources,
                        "credits = K + sum_m #{blocks of packet k - m not back when packet k starts}, K = ceil((MTU "
                        "+ 26) / 64), R = ceil(2 rate cable/v + rate (fixed + update))/8 + 6 byte times; per VL, x "
                        "VLs in all",
                        f"{SRC_IBA}; {SRC_IB_SPEEDS}; paper 002 (Minkenberg & Gusat) 2.3: credits need one round "
                        "trip", round_trip, extra, _lower_bound_note(link))


def shortfall_throughput(link: InfinibandLink, shortfall_bytes: int) -> tuple[float, str]:
    """Share of the rate a VL of ``link`` carries with ``shortfall_bytes`` less buffer than :func:`infiniband`
    sizes for full rate (in whole 64-byte credits: part of a block is no credit), and how it was computed
    (:func:`credit_throughput`).

    >>> from switchq.models.pfc import InfinibandLink
    >>> shortfall_throughput(InfinibandLink(None, 30.0, 4096, "HDR", 4), 4096)   # 120 credits, 7506 B round trip
    (0.5060773480662983, 'max-plus recursion, cycle of 1 packets')
    """
    b = infiniband(link)
    shortfall_bytes = _check.integer("shortfall", shortfall_bytes, 0, b.buffer_bytes)
    check_buffer(link.mtu_bytes, b.buffer_bytes - shortfall_bytes)
    return credit_throughput((b.buffer_bytes - shortfall_bytes) // IB_BLOCK_BYTES, link.mtu_bytes + IB_HEADER_BYTES,
                             b.round_trip_bytes)


def _lower_bound_note(link: InfinibandLink) -> str:
    """What an answer leaves out when the fixed delay or the credit-update interval is 0: its credits are then
    the fewest any real link needs, a lower bound."""
    left = [text for value, text in ((link.fixed_delay_s, "--fixed-delay 0 (no SerDes, FEC or pipeline delay)"),
                                     (link.credit_update_s, "--credit-update 0 (credits returned the moment "
                                                            "their block is freed)")) if value == 0]
    if not left:
        return ""
    return "a lower bound: " + " and ".join(left) + "; give them for the link's own figures"
