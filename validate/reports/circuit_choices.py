"""The circuit report's readings table (issue 36, item 1): each choice paper 001 (Ma & Steenkiste) leaves open or
decides, the readings run, the default, the sentences behind them and why the default.

Where the text decides, the default follows it; where it does not, the most literal reading (or, for a number the
text never gives, the report's own, said as such). The figure sections count each reading's verdicts; no default
here rests on those counts. Its own module so that the report reads it without its figure modules importing it.
"""

from __future__ import annotations

from .circuit_claims import SAME, SAYS
from .circuit_clock import CLOCK, FLAT, MATCHES_7, PROPORTIONAL
from .circuit_overhead import CHANGE, OPEN, READ, UNDER_75
from .claims import Quote
from .readings import Reading

__all__ = ["CHOICES"]

_Q = Quote
# Sentences cited by more than one choice.
_SHORT_100 = _Q("§5.2", "We approximate the distribution found on existing networks by using a fixed size for short "
                        "packets (100 bytes).")
_ONCE = _Q("§6.5", "The reason is that with central control, the overhead for selecting a packet is incurred exactly "
                   "once for every packet.")
_MEASURE = _Q("§2.1", "Our performance measure is saturation throughput, defined as the ratio of the total number of "
                      "bits sent over the maximum aggregate switch bandwidth (number of ports times the link "
                      "bandwidth).")
_W32 = _Q("§5.2", "with a window of size of 32")

CHOICES = (
    # How the network is simulated.
    Reading("clock", "whole microseconds, a tick's events in random order (1us); nanoseconds, one instant's ends "
            "matched as one batch (ns, on Figs. 1 and 18 and the one-byte check)", "1us", (CLOCK,),
            "decided by the text; ns is run as a contrast no sentence allows"),
    Reading("run length", "5 replications of 1 s after 0.1 s of warm-up (0.05 s in a quick build)",
            "5 replications of 1 s after 0.1 s of warm-up",
            (_Q("§2.2", "All simulations were run for 5 to 20 seconds of simulated time, depending on how long it "
                        "took to get steady state results."),),
            "the text's 5 s at the least, in 5 replications of 1 s, so that each figure has an interval; the "
            "engine adds replications where one is too wide to decide"),
    Reading("load and measure", "saturated adapters; bits sent over ports x link rate x time",
            "saturated adapters; bits sent over ports x link rate x time",
            (_MEASURE, _Q("§6.4", "Under saturation conditions, we expect the two strategies to behave in a similar "
                                  "way, since both always have packets to send.")),
            "decided by the text"),
    Reading("link rate", "800 Mbit/s; 1600 Mbit/s (Figs. 10-11)", "800 Mbit/s", (OPEN[0], _SHORT_100, CLOCK),
            "the text names both and does not say which its runs use; the default is the one its clock resolves: "
            "a 100-byte short packet lasts exactly one 1 us tick at 800 Mbit/s, half a tick at 1600"),
    Reading("when a set-up holds its output", "from the request (request); only once connected (connect, "
            "Figs. 10-11)", "request",
            (OPEN[1], _Q("§2.1", "Since adapters do not have knowledge of the entire state of the network, "
                                 "connection requests can be rejected because the requested output port is busy.")),
            "the text does not say when an output becomes 'in use'; the most literal reading is from the request "
            "that takes it (the switch connects the output as the request arrives), so a later request finds it "
            "busy"),
    Reading("distributed control's overhead", "2 us to select and 5 us to set up, on every attempt",
            "2 us to select and 5 us to set up, on every attempt",
            (_Q("§6", "In the case of distributed control, we add two microseconds to select the next packet, and "
                      "five microseconds to attempt to set up a"),
             _Q("§6", "Note that these costs occur independent from whether the packet can be sent or not.")),
            "decided by the text"),
    Reading("a rejected attempt", "tried again at once, its 2 + 5 us the only wait", "tried again at once",
            (_Q("§2.1", "When that happens, the adapter will try to send the packet later, similar to a retry after "
                        "a collision on an Ethernet."),
             _Q("§1", "it can rapidly try to establish connections for these packets following a specific schedule "
                      "(e.g. round robin)")),
            "'later' gives no delay; the most literal reading adds none beyond the costs §6 charges each attempt"),
    Reading("window scheduling", "the first W packets of the FIFO in round robin, resuming after the packet sent "
            "(--pointer next)", "resuming after the packet sent",
            (_Q("§2.1", "again the adapter keeps a FIFO with packets, but the scheduler has access to the first W "
                        "packets in the FIFO."),
             _Q("§2.1", "It tries to send packets in this window in round robin fashion.")),
            "decided by the text, but for where the round robin resumes: the most literal reading of 'round "
            "robin' goes on from the packet after the one served, so each is tried in turn"),
    Reading("each adapter's order of destinations (channels, round robins)", "an order of its own, drawn at "
            "random", "an order of its own", (),
            "the text gives none; drawn apart, no adapter keeps step with another, which the text does not describe"),
    Reading("logical channels' store (Fig. 17)", "32 packets, each in its destination's channel, heads only "
            "(pool 32); every channel always holding packets (backlogged)", "pool 32",
            (SAYS["17 adapter"], _Q("§6.4", "the adapter keeps packet in a per-destination queue"),
             _Q("§6.4", "The only difference is that when packets for a busy destination accumulate on the adapter, "
                        "that destination will be retried at a higher rate with window-scheduling.")),
            "the text does not say how many packets an adapter holds; the packets of a busy destination "
            "'accumulate on the adapter' in a store of its own size, taken as the window's it is compared with"),
    Reading("central control (Fig. 18)", "2 us once per packet, never rejected; a freed output picks a waiting "
            "packet at random", "2 us once per packet",
            (_Q("§6.5", "We use a cost of two microseconds to select a packet and to set up a connection."), _ONCE,
             _Q("§2.1", "When an output port frees up and multiple packets are available, it randomly picks one.")),
            "decided by the text: one cost of 2 us for selecting and setting up, once a packet"),
    Reading("ideal switch", "no overhead, circuits granted by one matcher as under central control", "no overhead",
            (_Q("§2.1", "If set up is free, the performance of networks with central and distributed control are "
                        "identical."),), "decided by the text: with free set-up both controls are one switch"),
    # Traffic.
    Reading("destinations (Fig. 1)", "uniform over all N, as [7] (all); over the other nodes (others, tabled, not "
            "judged)", "all",
            (_Q("§4", "packet destinations are uniformly distributed across all destinations"), MATCHES_7),
            "§4 spreads them 'across all destinations' and matches [7], whose switch addresses all N outputs; only "
            "FIFO is judged against [7], whose windows follow another rule (contention rounds)"),
    Reading("destinations (Figs. 2-20)", "uniform over the other nodes (others)", "others", (SAYS["12 N2"],),
            "decided by the text: at N = 2 a node has 'only a single destination', so none sends to itself"),
    Reading("size laws", "uniform on [l, u]; bimodal, short packets 100 B, by share of bytes in long packets",
            "uniform on [l, u]; bimodal, short packets 100 B, by share of bytes in long packets",
            (_Q("§5.1", "Figure 2 shows the saturation throughput with the packet size uniformly distributed over "
                        "an interval [l, u], and FIFO queuing."), _SHORT_100,
             _Q("§5.2", "We use the \"percentage of bytes in long packets\" as a parameter")),
            "decided by the text"),
    Reading("Fig. 1's packet size", "2000 B", "2000 B", (),
            "the text gives none; on the ideal switch a fixed size only sets the time scale (2000 B is 20 whole "
            "ticks at 800 Mbit/s)"),
    Reading("Fig. 2's intervals", "[16000, 16000], [12000, 20000], [8000, 24000], [0, 32000]",
            "[16000, 16000], [12000, 20000], [8000, 24000], [0, 32000]",
            (SAYS["2"], _Q("§5.1", "the packet size distribution intervals is [0, 32000]")),
            "the text gives only Fig. 3's [0, 32000]; the others are narrowed about its centre, so u - l alone "
            "changes"),
    Reading("packet trains (Fig. 19)", "a long packet sent as eight 4000-byte packets to one destination, each "
            "paying its own overhead", "eight 4000-byte packets to one destination",
            (_Q("§7.1", "as a single packet and as a sequence of eight 4000 byte packets"),
             _Q("§7.1", "the increased overhead that results from breaking up the large packets into a sequence of "
                        "smaller ones")), "decided by the text"),
    Reading("'traffic' (Fig. 20)", "bytes", "bytes",
            (_Q("§7.2", "Clients send 80% of their traffic to the file servers (98% of bytes in long packets) and "
                        "20% of their traffic to other clients (75% of bytes in long packets)."),),
            "the text does not say; the most literal reading is bytes, the unit of every mix it gives"),
    Reading("Fig. 20's file servers", "1, 2, 4, 8 and 16 of the 32 nodes", "1, 2, 4, 8 and 16",
            (_Q("§7.2", "The network has a number of file servers (shown on the x-axis) and a number of clients; "
                        "the total number of nodes is 32."),),
            "the text gives no range; powers of two up to half the nodes"),
    Reading("Figs. 10-11's switch and window", "N = 32; W = 32", "N = 32; W = 32",
            (_Q("Fig. 11", "Throughput for 32 node switch with overhead, and different window and packet sizes"),
             _Q("§6.1", "but is more than 35% with window scheduling with the window size is 32")),
            "Fig. 11's caption and §6.1 give them; Fig. 10's FIFO change is given at no size and read at the same "
            "N"),
    Reading("Fig. 16's overheads", "both costs x1, x2 and x4 (2 + 5 us each time), BinL 0.9",
            "both costs x1, x2 and x4 (2 + 5 us each time), BinL 0.9",
            (_Q("§6.3", "Figure 16 shows the impact on performance of changing the overhead for two different "
                        "maximum packet sizes."),),
            "the text gives neither the overheads nor the share; 'the overhead' is changed as one (both costs "
            "together), at the 90 % of bytes in long packets of Fig. 8"),
    # What the paper's words mean.
    Reading("a change in % (§6.1, Fig. 14)", "in throughput points (absolute); as a share of the first value "
            "(relative, Figs. 10-11 and 14)", "absolute", (CHANGE, SAYS["14"], UNDER_75),
            "the text does not say of what; the most literal reading is the unit it prints every throughput in, "
            "a percentage of the switch's bandwidth ('under 75%'), so 15 % is 0.15"),
    Reading("printed numbers (Figs. 5, 7)", "rounded: half a unit of the last digit either side; cut after the "
            "point (Fig. 7)", "rounded", (SAYS["5"], SAYS["7"]),
            "the text does not say how its numbers were cut; the most literal reading of a printed number is every "
            "value that rounds to it"),
    Reading("'about 58%' (Fig. 1)", "within 0.01 of 0.58, at N = 128", "within 0.01 of 0.58", (FLAT,),
            "the text gives no width for 'about'; the most literal reading widens the printed 58 % to a whole unit "
            "of its last digit either side; 'flattens out' is read at the largest N run"),
    Reading("'large window sizes' (Figs. 3-4)", "W = 32: uniform [0, 32000] against fixed 16000 B", "W = 32",
            (SAYS["3-4"], _W32),
            "the text names no window here; 32 is the large window its other sentences give, and 16000 B the "
            "uniform's mean"),
    Reading("'large switches', 'about equally' (Fig. 5)", "N = 64: BinL 0.5 below 0.9 and 0.1",
            "N = 64: BinL 0.5 below 0.9 and 0.1",
            (SAYS["5 minimum"],),
            "the text gives no size: the largest N run; 'about equally distributed' is the even split, set against "
            "shares clearly uneven either side"),
    Reading("'can be worse than 15%' (Fig. 6)", "at BinL 0.5", "BinL 0.5", (SAYS["6"], SAYS["5 minimum"]),
            "'can be' asks for one share; the one §5.2 puts large switches' minimum at"),
    Reading("'impact' (Figs. 8, 16)", "the share of throughput kept (a ratio)", "the share of throughput kept",
            (SAYS["8 window"], SAYS["16"]),
            "Fig. 8's 'relatively small impact on performance' is relative to the throughput; Fig. 16's sentence "
            "does not say and is read as Fig. 8's; an absolute drop is not run"),
    Reading("'slightly' (Fig. 9)", "200-byte short packets at least as good as 100-byte ones",
            "at least as good", (SAYS["9"],),
            "the text bounds 'slightly' by no number; the direction is what it states"),
    Reading("'most of the bytes are in small packets' (Fig. 12)", "BinL 0.25", "BinL 0.25", (SAYS["12 below"],),
            "the most literal reading of 'most' is under half the bytes long; of the shares run (0.25, 0.1), the "
            "one with the higher throughput, the harder for 'less than 10%'"),
    Reading("'in most cases', 'almost all bytes' (Fig. 13)", "most cases: BinL 0.75 and 0.5; almost all long: "
            "BinL 0.999", "most cases: BinL 0.75 and 0.5; almost all long: BinL 0.999", (SAYS["13"], SAYS["13 long"]),
            "the text gives no share; 'almost all' is read at the share run nearest all, 'most cases' at the "
            "shares clear of it; 0.98, between them, under neither"),
    Reading("'most bytes long', 'a reasonable percentage short' (Fig. 14)", "most long: BinL 0.98 and 0.9; "
            "reasonable share short: 0.5, 0.25 and 0.1",
            "most long: BinL 0.98 and 0.9; reasonable share short: 0.5, 0.25 and 0.1", (SAYS["14"], SAYS["14 gone"]),
            "the text gives neither bound; most long where at most a tenth is short, a reasonable share short from "
            "half down; 0.75, which either half of the sentence could claim, under neither"),
    Reading("'under a certain level (e.g., 75%)' (Fig. 19)", "BinL 0.75 and 0.5", "BinL 0.75 and 0.5",
            (SAYS["19 window"],), "the level is the text's example, 75 %, read from there down"),
    Reading("'proportional' (Fig. 18)", "central = ideal x T/(T + 2 us), within 0.02", "ideal x T/(T + 2 us)",
            (PROPORTIONAL, _ONCE),
            "the factor is the text's: 2 us once a packet makes a packet of time T take T + 2 us; the text gives "
            "no width, 0.02 is the report's"),
    Reading("servers' receiving rate (Fig. 20)", "a share of the servers' links; of the sending "
            "clients' links", "a share of the servers' links", (SAYS["20 streams"], _MEASURE),
            "the text does not say over which links; the most literal reading is its own measure, bits over the "
            "links they cross: the servers'"),
    Reading("'high', 'low', 'very low' rates (Fig. 20)", "servers sending at least 0.5, clients at most 0.5; "
            "servers receiving below half what they send",
            "servers sending at least 0.5, clients at most 0.5; servers receiving below half what they send",
            (SAYS["20 send"], SAYS["20 clients"], SAYS["20 receive"]),
            "the text gives no numbers; half a link splits high from low, and 'very low' beside 'high' is read as "
            "below half of it"),
    Reading("'almost identical', 'little impact', 'very similar', 'negligible'", f"within {SAME} of throughput",
            f"within {SAME}", (SAYS["17"], SAYS["15"], SAYS["19 window"], SAYS["3-4"]),
            f"the text gives no width; one width, {SAME} of the switch's bandwidth, for every such word"),
    Reading("reading a figure", f"{READ} of throughput (over the first value, for a change read relative)",
            f"{READ} of throughput", (UNDER_75,),
            f"the text gives no precision; {READ} is the finest step of the numbers it prints (whole percentages, "
            "two decimals)"),
)
