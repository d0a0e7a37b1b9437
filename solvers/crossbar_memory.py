"""Buffered-crossbar (CICQ) memory with credits and with SFC, and SFC's field widths (paper 002 §4.1, §4.2, §6.1).

* Credits need P K tau cells per crosspoint (P priorities, a buffer multiple
  K of the round trip), N^2 P K tau in all.
* SFC needs Q_R per crosspoint and priority and Q_RTX = max(K tau, N P Q_R)
  per input line card, N (N P Q_R + Q_RTX) in all: 2 N tau when
  Q_R = tau / N, a reduction by N / 2.
* Field widths (section 6.1): a ceil(log2 Q_RTX)-bit sequence number per
  cell; ACK/NAK = 1 flag bit + ceil(log2 N) buffer id + ceil(log2 Q_RTX)
  sequence (+ an optional credit count).

The link-level closed forms (round trip, one buffer) are :mod:`.flow_control`.

CICQ choice of Q_R
------------------
Section 4.2 asks that a crossbar row hold at least tau cells, ideally
Q_R = tau / N, while the simulations of section 5 use floor(tau / N) + 2
(their model needed two cells per crosspoint). Whole cells are needed, so the
default here is ``rule="ceil"``: Q_R = ceil(tau / N), the smallest crosspoint
that meets the row condition; ``"ideal"`` (tau / N, fractional, the paper's
2 N tau and N / 2) and ``"paper"`` (floor(tau / N) + 2) are there to reproduce
the paper. With P priorities each keeps its own Q_R (the conservative
reading: sharing by replacement, section 3.2, is not counted), and with a
buffer multiple K every tau above becomes K tau.

Examples
--------
>>> sfc_cicq(16, 64, rule="ideal").reduction_factor   # N / 2
8.0
>>> credit_cicq(8, 250, rtts=4).total_cells           # paper 003 §2: 64 KB at 10 Gb/s, 200 ns, 4 RTTs
64000
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from switchq.models import _check

from .flow_control import Q_R_RULES, SOURCE, _log2_bits

__all__ = ["CreditCicq", "SfcCicq", "FieldWidths", "credit_cicq", "sfc_cicq", "field_widths"]


# --------------------------------------------------------------------------- CICQ

@dataclass(frozen=True)
class CreditCicq:
    """Crosspoint memory of an N x N buffered crossbar under credit FC.

    Attributes
    ----------
    n_ports, rtt_slots, priorities, rtts : int
        N, tau, P and K (buffer multiple of the round trip).
    crosspoint_cells : int
        P K tau.
    row_cells : int
        N P K tau, behind one input link.
    total_cells : int
        N^2 P K tau.
    formula, source : str
    """

    n_ports: int
    rtt_slots: int
    priorities: int
    rtts: int
    crosspoint_cells: int
    row_cells: int
    total_cells: int
    formula: str
    source: str


def _cicq_inputs(n_ports, rtt_slots, priorities, rtts):
    return (_check.integer("n_ports", n_ports, 1), _check.integer("rtt_slots", rtt_slots, 1),
            _check.integer("priorities", priorities, 1), _check.integer("rtts", rtts, 1))


def credit_cicq(n_ports: int, rtt_slots: int, priorities: int = 1, rtts: int = 1) -> CreditCicq:
    """Credit FC needs K tau cells per priority per crosspoint: N^2 P K tau in all (section 4.1).

    Examples
    --------
    >>> credit_cicq(8, 250, rtts=4).total_cells   # paper 003: 8 ports, 4 RTT, 250 one-byte cells
    64000
    """
    n, tau, p, k = _cicq_inputs(n_ports, rtt_slots, priorities, rtts)
    xp = p * k * tau
    return CreditCicq(n_ports=n, rtt_slots=tau, priorities=p, rtts=k, crosspoint_cells=xp, row_cells=n * xp,
                      total_cells=n * n * xp, formula="N^2 * P * K * tau", source=SOURCE + ", section 4.1")


@dataclass(frozen=True)
class SfcCicq:
    """Buffer of an N x N buffered crossbar under speculative flow control, with the credit comparison.

    Attributes
    ----------
    n_ports, rtt_slots, priorities, rtts : int
        N, tau, P, K.
    rule : {"ceil", "ideal", "paper", "given"}
        How q_r was chosen (``"given"``: passed in).
    q_r : int or float
        Cells per priority per crosspoint (fractional only for ``"ideal"``).
    q_rtx : int or float
        Retransmission buffer per input line card, max(K tau, N P Q_R).
    crosspoint_cells : int or float
        P Q_R.
    row_cells : int or float
        N P Q_R + Q_RTX.
    crossbar_cells, linecard_cells : int or float
        N^2 P Q_R in the crossbar core, N Q_RTX on the line cards.
    total_cells : int or float
        N (N P Q_R + Q_RTX); 2 N P K tau when Q_R = K tau / N.
    credit_total_cells : int
        N^2 P K tau, the same switch under credit FC.
    reduction_factor : float
        credit_total_cells / total_cells (N / 2 in the ideal case).
    row_covers_rtt : bool
        N Q_R >= K tau: the row alone sustains full rate in credited mode.
    sequence_bits, acknak_bits : int
        Field widths (section 6.1) with N P buffers per link, no credit count.
    formula, source : str
    """

    n_ports: int
    rtt_slots: int
    priorities: int
    rtts: int
    rule: str
    q_r: float
    q_rtx: float
    crosspoint_cells: float
    row_cells: float
    crossbar_cells: float
    linecard_cells: float
    total_cells: float
    credit_total_cells: int
    reduction_factor: float
    row_covers_rtt: bool
    sequence_bits: int
    acknak_bits: int
    formula: str
    source: str


def sfc_cicq(n_ports: int, rtt_slots: int, priorities: int = 1, rtts: int = 1, q_r: int | None = None,
             rule: str = "ceil") -> SfcCicq:
    """SFC sizing of a buffered crossbar (section 4.2) and its saving over credits.

    Parameters
    ----------
    n_ports : int
        N >= 1.
    rtt_slots : int
        tau >= 1.
    priorities : int
        P >= 1, each with its own Q_R per crosspoint.
    rtts : int
        K >= 1: size for K tau instead of tau.
    q_r : int, optional
        Cells per priority per crosspoint; overrides ``rule``.
    rule : {"ceil", "ideal", "paper"}
        Q_R = ceil(K tau / N) (default), K tau / N, or floor(K tau / N) + 2;
        see the module docstring.

    Examples
    --------
    >>> s = sfc_cicq(16, 64, rule="ideal")
    >>> s.q_r, s.q_rtx, s.total_cells, 2 * 16 * 64
    (4.0, 64.0, 2048.0, 2048)
    >>> p = sfc_cicq(16, 32, rule="paper")     # Fig. 3: Q_R = floor(32/16) + 2, Q_RTX = Q_R N
    >>> p.q_r, p.q_rtx, p.sequence_bits
    (4, 64, 6)
    """
    n, tau, p, k = _cicq_inputs(n_ports, rtt_slots, priorities, rtts)
    target = k * tau                  # cells a row must hold to keep its link busy
    if q_r is not None:
        if rule != "ceil":      # a given Q_R is not computed by any rule
            raise _check.InputError("rule", rule, "ceil (the default) unless q_r is None")
        qr, rule = _check.integer("q_r", q_r, 1), "given"
    else:
        rule = _check.choice("rule", rule, Q_R_RULES)
        qr = {"ceil": -(-target // n), "ideal": target / n, "paper": target // n + 2}[rule]
    q_rtx = max(n * p * qr, target)  # this order keeps the ideal rule's floats float
    total = n * (n * p * qr + q_rtx)
    credit_total = n * n * p * target
    widths = field_widths(n * p, q_rtx)
    return SfcCicq(n_ports=n, rtt_slots=tau, priorities=p, rtts=k, rule=rule, q_r=qr, q_rtx=q_rtx,
                   crosspoint_cells=p * qr, row_cells=n * p * qr + q_rtx, crossbar_cells=n * n * p * qr,
                   linecard_cells=n * q_rtx, total_cells=total, credit_total_cells=credit_total,
                   reduction_factor=credit_total / total, row_covers_rtt=n * qr >= target,
                   sequence_bits=widths.sequence_bits, acknak_bits=widths.acknak_bits,
                   formula="Q_RTX = max(K tau, N P Q_R); total N (N P Q_R + Q_RTX); "
                           "reduction N^2 P K tau / total",
                   source=SOURCE + ", sections 4.2, 5, 6.1")


# --------------------------------------------------------------------------- overhead

@dataclass(frozen=True)
class FieldWidths:
    """Per-cell and per-ACK/NAK overhead of SFC (section 6.1).

    Attributes
    ----------
    downstream_buffers : int
        Buffers behind the link (N crosspoints, times P priorities).
    q_rtx : int
        Retransmission window, cells.
    sequence_bits : int
        ceil(log2 Q_RTX), carried by every cell.
    flag_bits, buffer_id_bits, credit_bits : int
        1, ceil(log2 downstream_buffers), optional credit count.
    acknak_bits : int
        flag + buffer id + sequence + credit bits.
    formula, source : str
    """

    downstream_buffers: int
    q_rtx: int
    sequence_bits: int
    flag_bits: int
    buffer_id_bits: int
    credit_bits: int
    acknak_bits: int
    formula: str
    source: str


def field_widths(downstream_buffers: int, q_rtx, credit_bits: int = 0) -> FieldWidths:
    """Sequence-number and ACK/NAK widths (section 6.1).

    The paper's log2(Q_RTX) bits, rounded up; a fractional (ideal) Q_RTX is
    rounded up to whole cells first. Textbook go-back-N with a window of W
    needs W + 1 sequence numbers, one bit more when W is a power of two; the
    paper's figure is kept.

    Examples
    --------
    >>> w = field_widths(16, 64)
    >>> w.sequence_bits, w.buffer_id_bits, w.acknak_bits
    (6, 4, 11)
    >>> field_widths(16, 64, credit_bits=3).acknak_bits
    14
    """
    m = _check.integer("downstream_buffers", downstream_buffers, 1)
    window = _check.real("q_rtx", q_rtx, 1)
    credit = _check.integer("credit_bits", credit_bits, 0)
    window = math.ceil(window)
    seq, ident = _log2_bits(window), _log2_bits(m)
    return FieldWidths(downstream_buffers=m, q_rtx=window, sequence_bits=seq, flag_bits=1, buffer_id_bits=ident,
                       credit_bits=credit, acknak_bits=1 + ident + seq + credit,
                       formula="seq = ceil(log2 Q_RTX); ACK/NAK = 1 + ceil(log2 N) + ceil(log2 Q_RTX) + credit",
                       source=SOURCE + ", section 6.1")
