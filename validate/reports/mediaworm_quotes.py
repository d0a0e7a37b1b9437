"""Report ``mediaworm``'s quotes of paper 004 (MediaWorm): the words of each claim it judges, and for each reading
it runs beside the default, the sentence that allows both (what the verdict engine needs to call a default's
disagreement an ambiguity, :mod:`switchq.validate.verdict`).

Every text is verbatim from the paper (its plain-text copy loses the ligatures fi, ff and fl, so a quote is the part
of a sentence before or after such a word). A reading with no sentence allowing it (the header flit carrying video:
§V-E calls the header overhead) or a pair of readings (one quote cannot allow both) maps to None: a default's
disagreement that only such a reading resolves stays a defect, and says so.
"""

from __future__ import annotations

from .claims import Quote

__all__ = ["SAYS", "ALLOWS", "SECTION", "table_ii_row", "table_v_row", "table_vi_row"]

# The paper's words of the claims judged, by a short key.
SAYS = {k: Quote(*q) for k, q in {
    "fig5 mr": ("§V-A", "the MR can provide jitter-free delivery even up to a link load of 0.96"),
    "fig5 rt": ("§V-A", "the load of the real-time component is around 0.75"),
    "fig5 tr": ("§V-A", "start growing beyond a load of 0.8"),
    "table2": ("§III-D", "are quite similar in both cases as depicted in Table II"),
    "fig6 same": ("§V-B", "exhibit nearly identical performance"),
    "fig6 higher": ("§V-B", "experiencing jitter-free performance for a slightly higher load"),
    "fig6 better": ("§V-B", "are also intuitively expected to experience better jitter tolerance"),
    "adverse": ("§I", "that the former does not really interfere with the latter"),
    "fig7 knee": ("§V-C", "It can be observed that up to an input load of 0.80, there is no jitter for VBR"),
    "fig7 beyond": ("§V-C", "becomes a dominant component, does the jitter become"),
    "table5 load": ("§V-C", "For a given mix, the latency degrades with an increase in the load."),
    "table5 mix": ("§V-C", "also increases the latency of the best-"),
    "fig8 vcs": ("§V-D", "the 16 VC case gives jitter-free performance up to a higher load compared to the 4 and 8 VC "
                         "cases"),
    "fig8 full": ("§V-D", "which shows better performance than 8 VCs with the multiplexed crossbar, and competitive "
                          "performance compared to the 16 VC results"),
    "fig9": ("§V-E", "except for very small message sizes, there is little impact on QoS for real-time"),
    "fig10": ("§V-F", "the MediaWorm router can support jitter-free performance only up to a load of about 0.7 "
                      "compared to over 0.8 in the case of PCS"),
    "table6 drops": ("§V-F", "a very high number of dropped connections"),
    "fig11": ("§V-G", "The results with realistic VBR are almost identical to those with synthetic VBR"),
    "fig11 tr": ("§V-G", "is slightly better at 90% load"),
    "fig12": ("§V-G", "Again we can observe similar results as shown in Figure 7"),
    "fig13 good": ("§V-H", "(40% and 60 %) even for a total input load of 0.9 of PC bandwidth capacity"),
    "fig13 degrade": ("§V-H", "being VBR, does VBR performance degrade"),
    "fig13 be": ("§V-H", "increases with increasing proportion of VBR"),
    "single": ("§V-H", "a single switch can provide jitter-free performance, while the fat-mesh cannot"),
    "mesh lower": ("§V-H", "is lower in the fat-mesh than in the case of a single switch"),
}.items()}

# Each reading run beside the default: the paper's sentence that allows it as well as the default (None: none does).
ALLOWS = {
    "auxVC kept per VC": Quote("§III-D", "there is a state variable associated with each channel i to monitor and "
                                         "enforce the rate for that channel"),
    "crossbar output takes the oldest offer": Quote("§III-D", "We rule out contentions at (B) and (C) for the "
                                                              "following reasons."),
    "header flit carries video": None,
    "streams counted on the wire": Quote("§V-E", "consumes 5% of the stream bandwidth"),
    "frames every 33 ms": Quote("§IV-A", "= 33 msec indicates a frame rate of 30 frames/sec"),
    "stream destinations capped": Quote("§IV-B.3", "outstanding/incoming streams at each node in the system"),
    "VCs drawn": Quote("§IV-B.2", "The input and output VC for a message are picked from a uniform distribution of "
                                  "the available VCs"),
    "stamps grow by Vtick": Quote("§III-D", "the Vtick is assigned the largest possible value"),
    "VCs drawn, stamps grow": None,
    "destinations capped, header carries video": None,
}

# The paper's section of a claim the report files under another heading.
SECTION = {"(analytic)": "§III-D", "Abstract": "Abstract"}


def table_ii_row(load: float) -> Quote:
    """Table II's row at ``load`` (0.6, 0.7 or 0.8), as the paper prints it.

    Examples
    --------
    >>> table_ii_row(0.8).text
    '80% 32.28/1.38 32.33/1.31'
    """
    rows = {0.6: "60% 33.12/0.63 33.14/0.58", 0.7: "70% 32.74/1.25 32.74/1.22", 0.8: "80% 32.28/1.38 32.33/1.31"}
    return Quote("Table II", rows[load])


def table_v_row(mix: str) -> Quote:
    """Table V's row of ``mix`` ("x:y"), as the paper prints it."""
    rows = {"20:80": "20:80 6.3 9.0 16.2 36.9 43.6", "50:50": "50:50 7.7 11.4 25.5 56.1 64.6",
            "80:20": "80:20 10.3 15.8 39.7 106.9 Sat.", "90:10": "90:10 11.9 19.3 106.2 Sat. Sat."}
    return Quote("Table V", rows[mix])


def table_vi_row(load: float, attempted: int, established: int, dropped: int) -> Quote:
    """Table VI's row at ``load``, as the paper prints it (the numbers are the report's TABLE_VI)."""
    return Quote("Table VI", f"{load:.2f} {attempted} {established} {dropped}")
