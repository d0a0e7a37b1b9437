"""Video and best-effort traffic for MediaWorm routers, as the solvers read it (paper 004 §IV-B, Table III).

Plain NumPy, no Numba and no simulation: the draws and the arithmetic that
turn :mod:`switchq.models.wormhole`'s descriptions into what a flit-level
kernel injects. Random draws use the ``numpy.random.Generator`` passed in,
so one seed gives one stream of traffic whatever calls it. They are the
traffic's description, so they live in :mod:`switchq.models`, where the flit
kernel reads them too; this is the solvers' one name for the three parts:

- :mod:`switchq.models.wormhole_frames` (§IV-B.1, Table III): frame sizes,
  their cutting into messages, mean flits and wire rate per stream.
- :mod:`switchq.models.wormhole_schedule` (§IV-B.1, §III-D): the source
  regulator, per frame, per message and for every placed stream of a run.
- :mod:`switchq.models.wormhole_placement` (§IV-B.2, §IV-B.3, §III-F):
  admission at the input link, stream and PCS placement, best-effort messages.

Times are cycles (one flit per link per cycle, :attr:`WormholeRouter.cycle_seconds`),
sizes bits, rates flits per cycle unless a name says otherwise.

Examples
--------
>>> from switchq.models.wormhole import VideoStreams, WormholeRouter, WormholeTraffic
>>> round(wire_rate(VideoStreams("cbr"), WormholeTraffic(0.5), WormholeRouter()), 6)     # headers add 5.3 %
0.010529
"""

from __future__ import annotations

from switchq.models.wormhole_frames import (QUADRATURE_POINTS, frame_messages, frame_sizes, mean_frame_flits,
                                            mpeg2_bandwidth_gap, mpeg2_mean_frame_bits, regulator_interval_sd,
                                            wire_rate)
from switchq.models.wormhole_placement import (BestEffortMessages, StreamPlacement, best_effort_messages,
                                               effective_load, pcs_placement, place_streams, stream_counts,
                                               stream_rate, stream_total, streams_per_input)
from switchq.models.wormhole_schedule import (FrameSchedule, MessageSchedule, StreamFrames, frame_schedule,
                                              injection_schedule, stream_frames)

__all__ = ["frame_sizes", "frame_messages", "frame_schedule", "injection_schedule", "place_streams", "pcs_placement",
           "best_effort_messages", "stream_frames", "StreamFrames", "mean_frame_flits", "wire_rate",
           "regulator_interval_sd", "mpeg2_mean_frame_bits", "mpeg2_bandwidth_gap", "streams_per_input",
           "stream_rate", "stream_total", "stream_counts", "effective_load",
           "FrameSchedule", "MessageSchedule", "StreamPlacement", "BestEffortMessages", "QUADRATURE_POINTS"]
