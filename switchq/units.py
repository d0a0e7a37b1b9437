"""Units of every named quantity switchq reads or reports.

Inside switchq quantities are canonical (slots, cells, ports); this table is
what the CLI and the reports print beside them, and what ``--json`` carries
in its ``units`` object.
"""

UNITS = {
    "n_ports": "ports",
    "load": "cells/slot/input",
    "window": "cells",
    "iterations": "iterations",
    "input_buffer_cells": "cells",
    "output_buffer_cells": "cells",
    "buffer_cells": "cells",
    "mean_burst": "cells",
    "unbalanced_w": "1",
    "hotspot_fraction": "1",
    "hotspot_port": "port index",
    "slots": "slots",
    "warmup_slots": "slots",
    "replications": "runs",
    "seed": "1",
    "workers": "processes",
    "saturation_throughput": "cells/slot/output",
    "throughput": "cells/slot/output",
    "throughput_ci95": "cells/slot/output",
    "mean_wait": "slots",
    "mean_wait_ci95": "slots",
    "mean_latency": "slots",
    "mean_latency_ci95": "slots",
    "mean_queue": "cells",
    "loss_probability": "1",
    "loss_probability_ci95": "1",
    "arrived": "cells",
    "delivered": "cells",
    "dropped": "cells",
    "queued": "cells",
    "wall_seconds": "s",
    "states": "states",
}


def unit_of(name: str) -> str:
    """Unit of ``name``; '' for labels and flags (architecture, pattern, ...)."""
    return UNITS.get(name, "")
