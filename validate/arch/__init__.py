"""One module an architecture, each a ``@njit`` slot loop built from ``switchq.validate.kernel``.

Each module exposes ``replicate(switch, traffic, slots, warmup_slots, seed) -> stats``
(an int64 vector laid out as ``kernel.STAT_*``); the harness does the rest.
"""

ARCH_MODULES = {"fifo": "fifo", "oq": "oq", "voq": "voq"}
