"""The sfc report's readings table (issue 36, item 1): each choice paper 002 leaves open or decides, the readings
run, the default, the sentences behind them and why the default."""

from __future__ import annotations

from ..readings import Reading
from .quotes import NO_DIFFERENCE, PRECISION, REPLACEMENT_CUTS, RESEND_RULE, RULE_B10, RULE_B20, UP_TO, W1_BOUNDS

__all__ = ["CHOICES"]

CHOICES = (
    Reading("when a sent cell goes again (SFC)", "a speculative cell not yet acknowledged, resent credited at the "
            "first credit (eager); only a NAKed cell (nak)", "eager", (RESEND_RULE,),
            "R7 (§3.1), the rule that governs the protocol, as written; §6.2's 'upon NAK' describes the sender's "
            "hardware and is the other reading"),
    Reading("'no observable difference' (Fig. 3)", "SFC over credits within the paper's 5 % delay precision",
            "SFC over credits within the paper's 5 % delay precision", (NO_DIFFERENCE, PRECISION),
            "the precision the paper's own runs had is what 'observable' can mean in its figures"),
    Reading("floor(B/Q_R) (Fig. 4 a, b, g, h)", "as the paper evaluates it per Q_R (5, 4, 3, 2; 10, 7, 5, 4: the "
            "ceilings); as written, floor (a derivation for the low-load latency, a reading for 'up to')",
            "as the paper evaluates it per Q_R", (RULE_B10, RULE_B20, UP_TO),
            "the paper prints both the rule and its values, which disagree wherever B/Q_R is not whole; its values "
            "are what it matches to its curves, the same B and Q_R at N = 64; the rule as written is run beside"),
    Reading("'full throughput under unbalanced traffic' (Fig. 4 e, f)", "at least 0.98 at every w (its lowest "
            "point); within 0.02 of the crossbar with no round trip; at w = 1, where the sentence contrasts it",
            "at least 0.98 at every w (its lowest point)", (W1_BOUNDS,),
            "'unbalanced traffic' is every w the figure draws; 0.98 is what a 0..1 plot can show as full"),
    Reading("'further reduced' (Fig. 5)", "replacement over SFC below 1; below 1 − 5 %, what the paper's delay "
            "precision could show", "replacement over SFC below 1", (REPLACEMENT_CUTS, PRECISION),
            "reduced, as written; the paper's precision is a reading of what its figures could show"),
)
