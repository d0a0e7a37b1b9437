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
    Reading("floor(B/Q_R) (Fig. 4 a, b, g, h)", "the printed number (N = 16); floor(B/Q_R) where none is printed; "
            "its ceiling, as the printed numbers are, where none is", "floor(B/Q_R) where none is printed",
            (RULE_B10, RULE_B20, UP_TO),
            "the rule as written where the paper prints no number; where it prints one, that number is the claim "
            "and the rule beside it the derivation a miss is judged against"),
    Reading("'full throughput under unbalanced traffic' (Fig. 4 e, f)", "at least 0.98 at every w (its lowest "
            "point); within 0.02 of the crossbar with no round trip; at w = 1, where the sentence contrasts it",
            "at least 0.98 at every w (its lowest point)", (W1_BOUNDS,),
            "'unbalanced traffic' is every w the figure draws; 0.98 is what a 0..1 plot can show as full"),
    Reading("'further reduced' (Fig. 5)", "replacement over SFC below 1; below 1 − 5 %, what the paper's delay "
            "precision could show", "replacement over SFC below 1", (REPLACEMENT_CUTS, PRECISION),
            "reduced, as written; the paper's precision is a reading of what its figures could show"),
)
