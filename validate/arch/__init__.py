"""One module an architecture, each a ``@njit`` slot loop built from ``switchq.validate.kernel``.

Each module exposes ``replicate(switch, traffic, slots, warmup_slots, seed) -> stats``
(an int64 vector laid out as ``kernel.STAT_*``); the harness does the rest.
"""

# Architecture name -> module; the multicast switches share one kernel.
ARCH_MODULES = {"fifo": "fifo", "oq": "oq", "voq": "voq", "cicq": "cicq", "oq-crosspoint": "multicast",
                "iq-split": "multicast", "iq-nosplit": "multicast", "iq-wba": "multicast"}
