"""The standards' numbers behind a lossless link: IEEE 802.3 and 802.1Qbb for PFC, the IBA for InfiniBand.

Plain data with the source of every figure, no formulas: the sizing
(:mod:`switchq.solvers.pfc`) adds these up term by term, and the simulated
twins (:mod:`switchq.validate.arch.pfc`, :mod:`switchq.validate.arch.infiniband`)
play them out byte by byte with their own arithmetic, so that the two agreeing
checks the sizing rather than repeating it. Tables by speed are keyed by
whole bit/s.

Examples
--------
>>> PFC_FRAME_BYTES, IEEE_RESPONSE_QUANTA[100_000_000_000][0], IB_HEADER_BYTES
(84, 394, 26)
"""

from __future__ import annotations

__all__ = ["C", "PAUSE_QUANTUM_BITS", "FRAME_OVERHEAD_BYTES", "PFC_FRAME_BYTES", "IEEE_RESPONSE_QUANTA",
           "IEEE_INTERFACE_BIT_TIMES", "MEDIUM_SPEED", "IB_SPEEDS", "IB_WIDTHS", "IB_BLOCK_BYTES", "IB_HEADER_BYTES",
           "IB_FC_PACKET_BYTES", "SRC_8023", "SRC_8021QBB", "SRC_GUPTA", "SRC_SONIC", "SRC_CISCO", "SRC_IBA",
           "SRC_IB_SPEEDS"]

C = 299_792_458.0                         # m/s, the speed of light in vacuum
PAUSE_QUANTUM_BITS = 512                  # IEEE 802.3 31B.2: a pause quantum is 512 bit times
FRAME_OVERHEAD_BYTES = 20                 # 12-byte inter-frame gap + 7-byte preamble + 1-byte SFD (802.3 4.4.2, 3.2)
PFC_FRAME_BYTES = 64 + FRAME_OVERHEAD_BYTES   # a PFC frame is a minimum-size MAC control frame (802.1Qbb 36.1.3)

SRC_8023 = "IEEE Std 802.3, Annex 31B (Table 31B-1, PAUSE reaction timing)"
SRC_GUPTA = ("P. Gupta, 'Detecting, Troubleshooting, and Preventing Congestion in Storage Networks', Cisco Press "
             "2023, ch. 7 (the 802.1Qbb Annex N terms D-Max-Frame-Len, D-Pause, D-Intf, D-Cable, D-Resp)")
SRC_SONIC = "sonic-net/sonic-swss cfgmgr/buffer_headroom_mellanox.lua (pause_quanta_per_speed, citing 802.3 31B.3.7)"
SRC_CISCO = ("Cisco, 'Priority Flow Control: Build Reliable Layer 2 Infrastructure' (white paper c11-542809, Nexus "
             "5000): MTU[R] + cable both ways + response + MTU[S]; bits travel at 0.70 c in twinax copper, 0.65 c "
             "in single-mode fibre (476 / 513 ns per 100 m); transceiver latency neglected")
SRC_8021QBB = "IEEE Std 802.1Qbb-2011, Annex N (PFC delay model)"
SRC_IBA = ("InfiniBand Architecture Specification Vol. 1 (IBTA), 7.9 flow control: credits in 64-byte blocks, "
           "absolute credit limits per VL; 7.7 packet headers (LRH 8 B, BTH 12 B, ICRC 4 B, VCRC 2 B)")
SRC_IB_SPEEDS = ("IBTA InfiniBand roadmap and Vol. 2 physical layer: per-lane signalling and data rates "
                 "(SDR/DDR/QDR 8b/10b; FDR10/FDR/EDR 64b/66b; HDR/NDR/XDR PAM4 with 64b/66b and RS-FEC)")

_G = 1_000_000_000
# Table 31B-1 pause reaction time in quanta, by speed (bit/s). The 802.3 values as Gupta and Cisco print them;
# speeds they do not list from SONiC's table (which cites the same clause).
IEEE_RESPONSE_QUANTA = {100_000_000: (1, SRC_SONIC), _G: (2, SRC_SONIC), 10 * _G: (60, SRC_GUPTA),
                        25 * _G: (80, SRC_GUPTA), 40 * _G: (118, SRC_GUPTA), 50 * _G: (147, SRC_SONIC),
                        100 * _G: (394, SRC_GUPTA), 200 * _G: (453, SRC_SONIC), 400 * _G: (905, SRC_GUPTA),
                        800 * _G: (905, SRC_SONIC)}
# D-Intf, one end's transmit plus receive interface delay bound in bit times (IEEE 802.3 delay constraints, as
# Gupta tabulates them). Speeds not listed need --interface-delay.
IEEE_INTERFACE_BIT_TIMES = {10 * _G: 8192, 25 * _G: 6144, 40 * _G: 24576, 100 * _G: 122880}
MEDIUM_SPEED = {"copper": 0.70 * C, "fiber": 0.65 * C}    # m/s, Cisco's figures (SRC_CISCO)

# InfiniBand: name -> (signalling Gb/s per lane, encoding, data Gb/s per lane).
IB_SPEEDS = {"SDR": (2.5, "8b/10b", 2.0), "DDR": (5.0, "8b/10b", 4.0), "QDR": (10.0, "8b/10b", 8.0),
             "FDR10": (10.3125, "64b/66b", 10.0), "FDR": (14.0625, "64b/66b", 14.0625 * 64 / 66),
             "EDR": (25.78125, "64b/66b", 25.0), "HDR": (53.125, "PAM4, 64b/66b + RS-FEC", 50.0),
             "NDR": (106.25, "PAM4, 64b/66b + RS-FEC", 100.0), "XDR": (212.5, "PAM4, 64b/66b + RS-FEC", 200.0)}
IB_WIDTHS = (1, 2, 4, 8, 12)
IB_BLOCK_BYTES = 64                   # a credit is one 64-byte block (IBA 7.9)
IB_HEADER_BYTES = 8 + 12 + 4 + 2      # LRH + BTH + ICRC + VCRC of a local (no GRH) packet
IB_FC_PACKET_BYTES = 6                # a flow-control packet: 4 bytes and a 2-byte CRC (IBA 7.9.4)
