"""Paper 002's words the sfc report's verdicts quote, verbatim (LaTeX and spacing as in the paper's text copy).

See :mod:`switchq.validate.reports.sfc` for what the report reproduces.
"""

from __future__ import annotations

from ..claims import Quote

__all__ = ["N_OVER_2", "NO_DIFFERENCE", "RESEND_RULE", "LOW_LOAD_RATIO", "RULE_B10", "RULE_B20", "FIG1_BURST",
           "UP_TO", "GROWS_WITH_RTT", "MORE_AT_64", "CONVERGES", "W1_BOUNDS", "SPECULATION_CUTS",
           "REPLACEMENT_CUTS", "P1_NOT_RAISED", "PRECISION"]

N_OVER_2 = Quote("§4.2", r"As the total buffer space for a CICQ with conventional credit FC equals  $N^2\tau$  cells, "
                         r"the aggregate buffer requirement is reduced by a factor of  $N/2$ .")
NO_DIFFERENCE = Quote("§5, Fig. 3", "In this case, enabling SFC makes no observable difference, regardless of RTT.")
# R7 is what `eager` and `nak` read two ways: whether an unacknowledged speculative cell takes a credit again.
RESEND_RULE = Quote("§3.1, R7", "When credits are available, speculative cells and negatively acknowledged cells take "
                                "precedence over unsent cells, which in turn take precedence over unacknowledged "
                                "credited cells.")
LOW_LOAD_RATIO = Quote("§5", "The ratio between the mean burst size  $B$  and crosspoint size  $Q_R$  directly "
                             "determines the latency at very low loads (10%).")
# The rule floor(B/Q_R) the paper prints beside its numbers for Fig. 4 a (B = 10) and b (B = 20).
RULE_B10 = Quote("§5, Fig. 4 a", r"The ratio  $\lfloor \frac{B}{Q_R} \rfloor$  evaluates to 5 ( $Q_R = 2$ ), 4 "
                                 r"( $Q_R = 3$ ), 3 ( $Q_R = 4$ ), and 2 ( $Q_R = 6$ ), respectively.")
RULE_B20 = Quote("§5, Fig. 4 b", r"The RTT-multiples at low load are around 10, 7, 5, and 4, respectively, which "
                                 r"again correspond to the ratio  $\lfloor \frac{B}{Q_R} \rfloor$ .")
FIG1_BURST = Quote("§2.3, Fig. 1", "As Fig. 1 illustrates, in this case the RTT becomes a multiplicative factor in "
                                   "the burst latency.")
UP_TO = Quote("§5", r"using SFC can reduce the average burst latency by a factor up to  "
                    r"$\lfloor \frac{B}{Q_R} \rfloor$ .")
GROWS_WITH_RTT = Quote("§5", "Moreover, this difference increases with the RTT.")
MORE_AT_64 = Quote("§5, Fig. 4 g, h", "The latency reduction owing to SFC is even more pronounced in this case.")
CONVERGES = Quote("§5", "The behaviour of SFC and non-SFC converges as the load approaches 100%.")
W1_BOUNDS = Quote("§5, Fig. 4 e, f", r"the maximum throughput without SFC is limited to  $\min(Q_R/\tau, 1)$  when  "
                                     r"$w = 1$ , whereas SFC enables full throughput under unbalanced traffic, owing "
                                     r"to its speculative mode of operation.")
SPECULATION_CUTS = Quote("§5, Fig. 5", "First, speculation drastically reduces the latency of low- as well as of "
                                       "high-priority traffic.")
REPLACEMENT_CUTS = Quote("§5, Fig. 5", "With replacement, the high-priority latency is further reduced.")
P1_NOT_RAISED = Quote("§5, Fig. 5", "This gain does not incur an increase of the mean latency of low-priority "
                                    "traffic.")
# The precision the paper's runs had: what a difference in its figures can show.
PRECISION = Quote("§5", "The results were obtained using the Akaroa2 environment with a statistical confidence of at "
                        "least 95% and a precision of 0.4% on the throughput and 5% on the delay.")
