"""The words of paper 001 (Ma & Steenkiste) that the ``circuit`` report judges, and its tolerances.

Figs. 1, 10-11 and 18's words are in their own modules (:mod:`~switchq.validate.reports.circuit_clock`,
:mod:`~switchq.validate.reports.circuit_overhead`); here are the rest, verbatim, with the tolerances read into
the paper's words. Its own module so that the report and its figure modules read it without importing each other.
"""

from __future__ import annotations

from .claims import Quote

__all__ = ["IDEAL", "SAME", "SAYS", "TRUNCATED"]

SAME = 0.03          # "almost identical", "little impact", "very similar": within this (throughput points)
IDEAL = {"ideal": True}
TRUNCATED = "whole percentages cut after the point (56 % = 0.56 .. 0.57)"
# The paper's words of each claim judged here, verbatim (Figs. 1, 10-11 and 18's are in their modules); where a
# sentence is cut by a figure's caption in the text, the part before or after it.
SAYS = {k: Quote(*q) for k, q in {
    "2": ("§5.1", "The graph shows that the throughput decreases as the interval length u - l increases."),
    "3-4": ("§5.1", "A comparison of Figures 1 and 3 shows that the difference in throughput compared with "
                    "fixed-sized traffic is negligible for large window sizes."),
    "5": ("§5.2", "For example, when the switch size is 16, the throughput decreases form 0.60 (100% BinL) to 0.22 "
                  "(90% BinL)."),
    "5 minimum": ("§5.2", "For large switches, the throughput is minimal when bytes are about equally distributed "
                          "between long and short packets."),
    "6": ("§5.2", "For instance, when the size of long packets is 64000 bytes, the performance can be worse than "
                  "15%."),
    # Whole percentages, with nothing saying how they were cut: rounded (the default) or truncated.
    "7": ("§5.2", "with a window of size of 32, the throughput drops from 97% with fixed sized packets to 59% with "
                  "75% of the bytes in long packets, to 56% with 50% of the"),
    "8": ("§5.2", "reducing the size of the large packets results in a more effective sharing of the network."),
    "8 window": ("§5.2", "However, the impact of the packet size is smaller for large window sizes, in other words, "
                         "with large window size, the packet size can be increased with relatively small impact on "
                         "performance."),
    "9": ("§5.2", "A comparison with with Figure 6 shows that a larger short packet size improves performance "
                  "slightly."),
    "12 N2": ("§6.2", "Note that the curve corresponding to a switch size of 2 (N2) in Figure 12 corresponds to the "
                      "case that there is no queuing delay (since there is only a single destination)."),
    "12": ("§6.2", "We observe that the throughput decreases monotonically with the decreasing percentage of bytes "
                   "in long packets."),
    "12 below": ("§6.2", "The effect is quite dramatic and the throughput drops to less than 10% if most of the bytes "
                         "are in small packets."),
    "13": ("§6.2", "In most cases, smaller large packet sizes work better."),
    "13 long": ("§6.2", "However, if almost all bytes are in long packets, it becomes more attractive to use larger "
                        "large packet sizes."),
    # "20 %" of a benefit, read in throughput points (the default) or relative to FIFO's.
    "14": ("§6.2", "There is a benefit of 20% or more if most bytes are in long"),
    "14 gone": ("§6.2", "as soon as a reasonable percentage of the bytes are in short packets, the value of window "
                        "scheduling disappears."),
    "15": ("§6.2", "Finally, if less than 75% of the bytes are in long packets, the size of the long packets has "
                   "little impact on the throughput."),
    "16": ("§6.3", "We also see that changing the overhead has more impact when the average packet size is small"),
    "16 window": ("§6.3", "In fact, with higher overheads, window scheduling becomes less effective."),
    "17": ("§6.4", "The results are almost identical."),
    # How many packets an adapter holds is left open: a pool of 32 (the default) or every channel backlogged.
    "17 adapter": ("§1", "In our simulations, the network adapter that connects the host to the network can store "
                         "multiple packets"),
    "19": ("§7.1", "forms sending 32000 byte packets. Both behave worse than (random) 4000 byte long packets."),
    "19 window": ("§7.1", "With a large window size (bottom), the three methods result in very similar performance "
                          "when the percent of bytes in long packets drops under a certain level (e.g., 75%)."),
    "20 send": ("§7.2", "We observe that the file servers can send at high rates"),
    "20 clients": ("§7.2", "The reason is that the clients can only send at a low rate"),
    "20 receive": ("§7.2", "However, the servers are receiving data at very low rates."),
    # A stream's throughput, over which links not said: per server link (the default) or per sending client.
    "20 streams": ("§7.2", "Figure 20 shows the throughput of the different traffic streams."),
}.items()}

