"""Report ``hol``'s readings table (issue 36, item 1) and the sentences it quotes, for
:mod:`switchq.validate.reports.hol`.

Its sources are Karol, Hluchyj & Morgan 1987 (Table I, the mean waits) and Hluchyj & Karol 1988, neither of which
is on this machine: what papers 000 and 001 say of them and of their own set-up is quoted instead, verbatim from
the papers' text (up to white space). A choice no sentence bears on has ``()``. No default is chosen by how many
claims it makes agree: the text decides where it can, else the most literal reading.
"""

from __future__ import annotations

from .claims import Quote
from .readings import Reading

__all__ = ["CHOICES", "KAROL_SETUP", "WINDOW_FLOORS", "MATCHES_HLUCHYJ_KAROL"]

# Karol et al.'s set-up as paper 000 states it (citing them as [10]): what the exact chain solves.
KAROL_SETUP = Quote("paper 000 §2.1", "In the organization with a single FIFO queue, all packets irrespective of "
                    "their destination, are stored in this queue. Only packets at the head of the queue are eligible "
                    "for transmission.")
WINDOW_FLOORS = Quote("paper 001 §4", "With a window size of 16, the throughput is over 90% for all switch sizes, "
                                      "while the throughput is over 98% with a window size of 64.")
# Paper 001 §4 on its Fig. 1: its results match [7] (Hluchyj & Karol 1988), whose windows are offered in rounds.
MATCHES_HLUCHYJ_KAROL = Quote("paper 001 §4", "Our simulation results match the analytical and simulation results "
                                              "in [7].")
# Fig. 1's traffic, and the measure it plots.
FIG_1_SETUP = Quote("paper 001 §4", "We first consider the case that the set up connection time is 0, all packets "
                    "are of the same size and packet destinations are uniformly distributed across all destinations.")
SATURATION = Quote("paper 001 §2.1", "Our performance measure is saturation throughput, defined as the ratio of the "
                   "total number of bits sent over the maximum aggregate switch bandwidth (number of ports times the "
                   "link bandwidth).")
# [7]'s set-up as paper 001 reports it: the FIFO switch of Table I, with fixed packets.
HLUCHYJ_KAROL_SETUP = Quote("paper 001 §3", "They assume a fixed packet size and free connection set up, and found "
                            "that with FIFO queuing, the saturation throughput is 0.586.")
# The two window rules paper 001 describes, and why Fig. 1 (free set-up) does not tell them apart.
CENTRAL_WINDOW = Quote("paper 001 §2.1", "In the case of central control we assume window scheduling for each port, "
                       "i.e. the scheduler has access to the information of the first W packets waiting at each "
                       "input port.")
CENTRAL_PICKS = Quote("paper 001 §2.1", "When an output port frees up and multiple packets are available, it "
                      "randomly picks one.")
DISTRIBUTED_WINDOW = Quote("paper 001 §2.1", "It tries to send packets in this window in round robin fashion.")
SAME_IF_FREE = Quote("paper 001 §2.1", "If set up is free, the performance of networks with central and distributed "
                     "control are identical.")
# With fixed packets every output frees up in the same slot: the order the outputs pick in.
RANDOM_ORDER = Quote("paper 001 §2.2", "all events scheduled for the same one microsecond time slot are executed in "
                     "random order.")

CHOICES = (
    Reading("the FIFO switch (Table I)", "one FIFO per input, only its head cell eligible; each new head cell's "
            "output uniform and independent; an output sends one of the head cells for it", "only its head cell "
            "eligible", (KAROL_SETUP,), "decided by the text: paper 000 §2.1 states [10]'s organisation, and the "
            "exact chain solves that set-up"),
    Reading("traffic at saturation (Table I, Fig. 1)", "fixed-size cells, destinations uniform and independent, no "
            "set-up time", "destinations uniform and independent", (FIG_1_SETUP, HLUCHYJ_KAROL_SETUP),
            "decided by the text: paper 001 §4 for Fig. 1, whose window 1 is Table I's FIFO, and §3 for [7]'s"),
    Reading("saturation", "every input always backlogged (offered load 1.0, unbounded input queues): cells sent per "
            "slot over N", "offered load 1.0, unbounded input queues", (SATURATION,),
            "decided by the text: bits sent over the ports' aggregate bandwidth; 'saturation' read literally, no "
            "input ever idle (at load 1.0 no queue empties); the run is overloaded by design"),
    Reading("Table I's printed digits", "the exact value rounds to the printed figure (half a unit of the fourth "
            "decimal)", "the exact value rounds to the printed figure", (),
            "not stated; the most literal reading of a four-decimal figure is the interval that rounds to it; "
            "outside it, the chain of the set-up paper 000 §2.1 states is the derivation (not reproducible)"),
    Reading("window rule (Fig. 1)", "random: the outputs in turn each take one of the packets for them in the "
            "windows of free inputs, uniformly (central control); rounds: in round k each free input offers its "
            "k-th packet and each free output takes one offer at random (Hluchyj & Karol, [7])", "random",
            (CENTRAL_WINDOW, CENTRAL_PICKS, DISTRIBUTED_WINDOW, SAME_IF_FREE, MATCHES_HLUCHYJ_KAROL),
            "not decided: Fig. 1 has free set-up, where §2.1 makes central and distributed control identical, and "
            "§4 says it matches [7]; the most literal reading is the one rule §2.1 states in full, central "
            "control's random pick (distributed control's 'round robin fashion' leaves the order of attempts "
            "open); rounds, [7]'s rule, is judged beside it and allowed by §4's sentence"),
    Reading("order of the outputs' picks in a slot", "uniformly random", "uniformly random", (RANDOM_ORDER,),
            "decided by the text: with fixed packets every output frees up in the same slot, and the simulator "
            "runs a slot's events in random order"),
    Reading("'for all switch sizes' (Fig. 1)", "one verdict per N = 2, 4, ..., 128", "one verdict per N",
            (WINDOW_FLOORS,), "Fig. 1's range of N is not in the text (the figure is lost); the most literal "
            "reading of 'all' is every size run, each its own claim"),
    Reading("'over 90%', 'over 98%' (Fig. 1)", "the whole 95 % interval at or above 0.90 (0.98)", "the whole 95 % "
            "interval at or above", (WINDOW_FLOORS,), "decided by the text: a floor, judged as a bound with no "
            "tolerance added (at or above, since no interval tells 'over' from 'at')"),
    Reading("arrivals below saturation (mean wait)", "Bernoulli, load p per input and slot, destinations uniform",
            "Bernoulli", (), "decided by the source the formulas come from (Karol et al. 1987, not quoted here): "
            "output queuing's (N−1)/N · p / (2(1−p)) is exact for Bernoulli arrivals"),
    Reading("input queuing's mean wait", "Karol et al.'s N → ∞ formula beside the simulation at N = 32, as a "
            "ratio; no verdict", "no verdict", (), "not stated for a finite N: the formula is exact only as "
            "N → ∞, so the most literal reading makes it no claim about N = 32"),
    Reading("the simulator against an exact value", "the whole 95 % interval within 0.001 cells/slot (saturation) "
            "or 1 % (output queuing's mean wait)", "within 0.001 cells/slot", (),
            "not stated (no claim of a source: these check the simulator); bands wide enough that a 95 % "
            "interval's one miss in twenty is not read as a defect, while any larger error is"),
)
