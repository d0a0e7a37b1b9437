"""The multicast report's readings table (issue 36, item 1): each choice paper 003 leaves open or decides, the
readings run, the default, the sentences behind them and why the default."""

from __future__ import annotations

from ..claims import Quote
from ..readings import Reading
from .common import SAID_13, SAID_STABLE, SAID_TWO_OR_FOUR, SAID_UPWARD

__all__ = ["CHOICES"]

_POISSON = Quote("§3.1", "Packets are generated on each port with a Poisson distribution with a mean inversely "
                         "proportional to the load factor.")
_ADAPTIVE = Quote("§3", "We simulated 8 port and 32 port routers in a fat-tree topology with adaptive routing.")
_TABLE_1 = Quote("Table 1", "Bandwidth 10 Gbps Packet Size 256 bytes Channel Delay 20 ns Switch Delay 90ns Switch "
                            "Ports 32")
_RANDOM_SET = Quote("§3.1", "each node sends a multicast packet to a random set of destinations with an average "
                            "fanout of 8")
_BEST = Quote("§3", "Performance is best with 32 ports and 4 packets for each crosspoint.")

CHOICES = (
    Reading("arrivals (one switch, Figs 13, 14)", "Poisson; Bernoulli", "Poisson", (_POISSON,),
            "decided by the text; Bernoulli is run beside it as a contrast"),
    Reading("arrivals (fat trees, Figs 5-12, 15)", "Bernoulli, one packet a slot at most", "Bernoulli", (),
            "the paper states none for its networks (its Poisson sentence is Fig. 13's single switch); a node "
            "injects at most one packet a slot on its link"),
    Reading("crosspoint buffers (one switch)", "4 packets; 2 (Fig. 14)", "4 packets", (SAID_TWO_OR_FOUR, _BEST),
            "§3.1 gives none; §2 allows two or four round trips, and 4 is the size §3 calls best"),
    Reading("up-routing (fat trees)", "at each hop, the up port whose next switch has most credits (credits); a "
            "random up port with a credit; a random source route; d-mod-k (Fig. 11)", "credits",
            (_ADAPTIVE, SAID_UPWARD), "'adaptive routing' with no rule given: the hop's own choice by the next "
            "switch's buffer space is the most literal; [1]'s adaptive source routing is cited, not described, and "
            "two source rules are run beside it"),
    Reading("timing", "a slot of one 256 B packet at 10 Gbit/s (204.8 ns); channel plus switch delay and the "
            "credit's return each one slot", "a slot of one 256 B packet at 10 Gbit/s (204.8 ns)", (_TABLE_1,),
            "Table 1's figures, each delay rounded up to the slot it falls in"),
    Reading("Fig. 15's switches", "32-port; 8-port", "32-port", (_TABLE_1,), "Table 1's switch has 32 ports"),
    Reading("Fig. 15's destination sets", "size uniform on 1..15, the set uniform given its size", "size uniform on "
            "1..15", (_RANDOM_SET,), "'a random set' of mean 8: the size law is not given; uniform sizes with "
            "mean 8 and uniform sets given the size are the plainest random set"),
    Reading("'close to 0.25' (Fig. 13)", "within half a unit of the printed digits; within 5 %",
            "within half a unit of the printed digits", (SAID_13,),
            "a printed number is read to its last digit; 'close to' is run as the other reading"),
    Reading("'stable for load-factors under 0.125' (Fig. 15)", "the saturation throughput within half a unit of "
            "the printed digits; within 2 %; every load under it carried",
            "the saturation throughput within half a unit of the printed digits", (SAID_STABLE,),
            "latency stable below a load and not above it is saturation there; the other two are run"),
)
