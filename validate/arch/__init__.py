"""One module per simulator kernel, each built from :mod:`switchq.validate.kernel`.

Each module exposes ``replicate(system, workload, run) -> counters`` (``run`` a
:class:`switchq.validate.kernel.Run`) and ``LAYOUT``, the names of its
counters; the architecture's declaration (:mod:`switchq.architectures`) names
the module, and :mod:`switchq.validate.harness` does the rest.
"""
