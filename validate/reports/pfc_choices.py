"""Report ``pfc``'s readings table (issue 36, item 1) and the sentences it quotes, for
:mod:`switchq.validate.reports.pfc`.

Its sources are standards (IEEE 802.1Qbb, 802.3, the InfiniBand specification), a book (Gupta), a white paper
(Cisco), a driver and a script (mlx5, SONiC), none of them on this machine: they are quoted only where the report
already quotes them, and paper 002's sentences on grant and credit flow control verbatim from its text (up to white
space). A choice no sentence bears on has ``()``. No default is chosen by how many figures it makes agree: the
source decides where it can, else the most literal reading.
"""

from __future__ import annotations

from .claims import Quote
from .readings import Reading

__all__ = ["CHOICES", "CISCO_SPEEDS"]

# Cisco's white paper gives the speeds as shares of "the speed of light", no value: 3e8 m/s is a reading of it.
CISCO_SPEEDS = Quote("Cisco, PFC white paper, Distance Limitations",
                     "Bits travel at 70 percent of the speed of light in a twin-ax copper cable")
# PFC is grant flow control: the headroom is the overflow space paper 002 asks of it.
PAUSE_IS_GRANT = Quote("paper 002 §2", "Ethernet features grant-like PAUSE frames (defined in IEEE 802.3x) that can "
                       "be used to temporarily throttle the sender on a full-duplex link.")
GRANT_OVERFLOW = Quote("paper 002 §2.3", "credit FC operates losslessly with any buffer size greater than zero, "
                       "whereas grant FC requires at least one RTT worth of overflow buffer space.")
# InfiniBand's credits: one round trip of buffer.
CREDIT_ROUND_TRIP = Quote("paper 002 §2.3", "Credit-based FC [9, 11, 15] typically uses relative (incremental) "
                          "credit updates for efficiency, and requires one round trip worth of buffer space")
# Gupta's receiver frame at 100 GbE, as the report's table prints it: (9216 + 20) B.
GUPTA_FRAME = Quote("Gupta, ch. 7, 100 GbE (bit times)", "73888")

CHOICES = (
    Reading("which formula", "ieee (802.1Qbb Annex N with 802.3's bounds); mlx5 (the Linux driver); sonic (SONiC's "
            "Mellanox script); cisco (its white paper): all four tabulated", "ieee", (PAUSE_IS_GRANT, GRANT_OVERFLOW),
            "decided by the standard: PFC is 802.1Qbb, whose Annex N adds up what arrives while the pause travels "
            "and takes effect, the overflow space paper 002 asks of grant flow control; the twin and Gupta's "
            "figures are judged on it, the vendors' formulas are tabulated beside it"),
    Reading("MTU", "9216 B at every speed (frames of 9236 B with gap and preamble)", "9216 B", (GUPTA_FRAME,),
            "not stated for the table; the most literal reading is the MTU the printed figures are made with: "
            "Gupta's receiver frame at 100 GbE, 73888 bit times, is (9216 + 20) B"),
    Reading("mlx5's MTU", "the netdev's IP MTU (9216 B stands for frames of 9234 B)", "the netdev's IP MTU", (),
            "decided by the driver: the MTU it sizes with is dev->mtu, as en_dcbnl.c passes it, without the "
            "Ethernet header and FCS"),
    Reading("cable medium", "fibre, 0.65 c (every table and the twin); twinax copper, 0.70 c (Cisco's copper "
            "figures)", "fibre", (CISCO_SPEEDS,),
            "not stated: the sources give a speed per medium, not a medium per length; the most literal reading "
            "takes one medium for every length, fibre, the one the 100 m and 300 m rows can be (twinax runs a few "
            "metres); its 0.65 c is also the slower"),
    Reading("'the speed of light' (Cisco's cable term)", "299,792,458 m/s; 3e8 m/s (on Cisco's four figures)",
            "299,792,458 m/s", (CISCO_SPEEDS,),
            "the white paper names no value; the most literal reading of 'the speed of light' is its defined "
            "value; 3e8 m/s, a rounding of it, is judged beside it, allowed by the same sentence"),
    Reading("802.3 interface delay at 400 Gb/s (ieee)", "100 Gb/s's 1228.8 ns, marked *", "1228.8 ns", (),
            "not stated: the sources tabulate 802.3's bound to 100 Gb/s only, so no reading of them gives it; an "
            "assumption, 100 Gb/s's time carried over unchanged and marked wherever it is used"),
    Reading("D-Intf (ieee)", "one end's transmit + receive bound, counted at both ends; Gupta's figure compared per "
            "end", "counted at both ends", (),
            "decided by the delay model (not quoted here): D-Intf is one end's, and the pause frame and the data "
            "still in flight pass the interfaces of both ends"),
    Reading("response time", "802.3's Table 31B-1 quanta (ieee); the white paper's 60 quanta at 10GE, 802.3's value "
            "at other speeds (cisco); SONiC's own table (sonic)", "802.3's Table 31B-1 quanta", (),
            "decided by the standard for ieee; the white paper states 60 quanta at 10GE only, 802.3's value there, "
            "so at other speeds the most literal reading continues with 802.3's (the answer marks it substituted)"),
    Reading("SONiC's ASIC", "Spectrum-3, 144 B cells (headroom table); Spectrum, 96 B cells (MSN2700 table)",
            "Spectrum-3", (), "the MSN2700 is Spectrum-based, which decides its table; for the headroom table no "
            "switch is named, and the most literal reading is the row the script is written for, Spectrum-2/3 "
            "(whose rows are the same)"),
    Reading("SONiC's cell waste", "every packet small (small_packet_percentage 100), lossless MTU 1024 B",
            "small_packet_percentage 100", (), "decided by the source: the dynamic-buffer HLD's defaults, as the "
            "report cites them"),
    Reading("SONiC's peer response (MSN2700 table)", "the Spectrum row's peer_response_time, 3.8 KB (only this "
            "run)", "3.8 KB", (), "the table prints numbers, not how they were made; the most literal reading "
            "takes the figure the ASIC table gives for its row; the quanta table is not run against it"),
    Reading("SONiC's cable bytes (MSN2700 table)", "as the script writes them, x 1000/1024; in plain bytes",
            "as the script writes them", (), "decided by the source: the script, SONiC's formula, divides by "
            "8 x 1024 after a speed in Mb/s x 1e9; plain bytes is judged beside it and no sentence allows it, so "
            "a miss stays a defect"),
    Reading("tolerance of a printed figure", "half a unit of its last digit; 0 for SONiC's table", "half a unit of "
            "its last digit", (), "not stated; the most literal reading of a printed number is the interval that "
            "rounds to it; SONiC's entries are the script's own rounding up to 1024 B, so ours must equal them"),
    Reading("the twin's phases", "every delay at its bound (worst); drawn within their bounds (random); each at "
            "the sized headroom and one frame (MTU + 20 B) short", "worst", (),
            "decided by the model: the 802.1Qbb sum adds bounds, so it is checked where every delay is at its "
            "bound; the random phases check that no other phase needs more"),
    Reading("InfiniBand round trip", "the cable both ways at 5 ns/m and the 6-byte credit packet, with no fixed "
            "delay and credits returned at once; 200 ns of either as an illustration", "no fixed delay and credits "
            "returned at once", (CREDIT_ROUND_TRIP,),
            "the sources quoted give neither figure; the most literal reading adds no delay they do not state, so "
            "every figure is a lower bound (the answer says so); 5 ns/m is switchq's link model's, no source's"),
    Reading("InfiniBand packet", "4096 B MTU + 26 B of local headers, in 64-byte credits, sent only with credits "
            "for all its blocks", "4096 B MTU", (), "the MTU is not stated for the table; the most literal "
            "reading is the IBA's largest path MTU (7.7.1), the packet that needs most credits; headers and "
            "blocks are the IBA's (7.7, 7.9) as the report cites them"),
)
