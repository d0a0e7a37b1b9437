"""The declaration of an architecture: the one place a model is wired into switchq.

An :class:`Architecture` (a single switch, a network, a collective or a link)
holds everything the rest of switchq derives from it: its name and family,
its frozen configuration class, its parameters (spelling, type, range,
default, unit, help), the workload it takes, its kernel (a module path,
imported only to simulate), its counters and metrics with units, its
analytic answers (:class:`Answer`), its validation cases (:class:`Case`)
with tolerances, its report and its benchmark cases. Each lives in its own
module of :mod:`switchq.architectures`, found by :mod:`switchq.registry`;
nothing else lists architectures.

From a declaration come: ``switchq simulate NAME``, ``switchq solve ANSWER``
(or ``switchq size ANSWER``), ``switchq sweep NAME|ANSWER``, the rows of
``switchq validate``, ``switchq report``, ``switchq bench`` cases, the units
in every ``--json`` output, and the conformance tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .errors import InputError
from .params import SIM, Param

__all__ = ["Architecture", "Answer", "Compare", "Metric", "Counter", "Case", "BenchCase", "Clock", "SLOTS", "CYCLES", "ROUNDS",
           "simulated_seconds", "RUN_PARAMS", "RUN_UNITS", "FAMILIES"]

FAMILIES = ("switch", "network", "collective", "link")
# A validation row's default precision, as a share of its analytic value (Case).
DEFAULT_PRECISION_SHARE = 0.005

# Units of the run settings in every simulated output (a slotted clock's own unit replaces "slots").
RUN_UNITS = {"slots": "slots", "warmup_slots": "slots", "replications": "runs", "batches": "batches", "seed": "1",
             "workers": "processes", "wall_seconds": "s", "seeds": "1", "notes": "1", "precision": "1",
             "max_replications": "runs", "precision_rounds": "rounds"}

_BATCHES = Param("batches", "batches", "int", None, low=2, unit="batches", default_text="20 with -r 1",
                 help="Batch means: batches the one run (-r 1) is cut into.")


@dataclass(frozen=True)
class Clock:
    """What an architecture's runs are counted in, and the options that set their length and warm-up.

    A slotted clock (slots, cycles) measures a steady state over a number of time steps after a warm-up,
    with batch means for one long run: its options are run settings
    (:class:`~switchq.validate.harness.RunSettings` ``slots``, ``warmup_slots``, ``batches``). A clock of
    simulated seconds is the workload's (the kernel runs that long; ``build`` reads ``seconds`` and
    ``warmup_seconds``); a clock of rounds runs one collective round to its end per replication.

    >>> CYCLES.params[0].option, CYCLES.unit
    ('--cycles', 'cycles')
    >>> [p.option for p in simulated_seconds(1.0).params]
    ['--seconds', '--warmup-seconds']
    """

    unit: str
    params: tuple = ()
    slotted: bool = True

    def settings_shown(self) -> tuple:
        """The run settings a result shows (options and JSON fields)."""
        return ("slots", "warmup_slots", "replications", "batches", "seed", "workers") if self.slotted else \
            ("replications", "seed")


def _slotted(unit: str, steps: str) -> Clock:
    return Clock(unit, (
        Param(unit, "slots", "int", 50_000, low=100, unit=unit, help=f"Measured {steps} per replication (after "
                                                                      "warm-up)."),
        Param("warmup", "warmup_slots", "int", None, low=0, unit=unit, default_text=f"max(1000, {unit}/10)",
              help=f"Discarded warm-up {steps}."),
        _BATCHES))


SLOTS = _slotted("slots", "slots")
CYCLES = _slotted("cycles", "clock cycles")
ROUNDS = Clock("rounds", (), slotted=False)


def simulated_seconds(default: float, warmup_text: str = "seconds/10", note: str = "") -> Clock:
    """A clock of simulated seconds: ``--seconds`` per replication (``default``) after ``--warmup-seconds``."""
    return Clock("s", (
        Param("seconds", "seconds", "float", default, low=1e-4, high=1e4, unit="s", modes=SIM,
              help="Measured simulated time per replication" + (f" ({note})." if note else ".")),
        Param("warmup_seconds", "warmup_seconds", "float", None, low=0, high=1e4, unit="s", modes=SIM,
              default_text=warmup_text, help="Discarded simulated warm-up per replication.")), slotted=False)


# Run options every simulated architecture takes, whatever its clock: (option, setting, default, help).
RUN_PARAMS = (
    Param("replications", "replications", "int", 8, low=1, unit="runs", aliases=("-r",),
          help="Independent replications for the 95% CI; 1: one long run, CI from batch means."),
    Param("workers", "workers", "int", 1, low=0, unit="processes", aliases=("-j",),
          help="Worker processes (0 = all cores); results do not depend on it."),
    Param("seed", "seed", "int", 1, low=0, unit="1", help="Root seed; fixes every replication's stream."),
    Param("precision", "precision", "float", None, low=0.0, high=1.0, low_open=True, unit="1",
          help="Add replications (from at least 5, in rounds, same seeds) until the 95% CI half-width of each "
               "targeted metric is within this share of its value, e.g. 0.002."),
    Param("half_width", "half_width", "float", None, low=0.0, low_open=True,
          help="The same target as an absolute half-width, in the targeted metric's unit."),
    Param("max_replications", "max_replications", "int", None, low=2, unit="runs", default_text="200",
          help="Most replications a precision target may take."),
    Param("precision_on", "precision_metrics", "text", "", default_text="the model's main figure",
          help="Metrics the precision target applies to, comma-separated."),
)


@dataclass(frozen=True)
class Metric:
    """A simulated figure: its name, unit and how each replication's value comes from the counters.

    ``samples(c)`` gets a :class:`switchq.validate.harness.Counts` (counters by
    name, one value per replication, and the system, workload and settings)
    and returns one value per replication (or per replication and class, a
    2-D array; or None where the metric does not apply).
    """

    name: str
    unit: str
    samples: Callable | None
    help: str = ""
    lossy_on_overflow: bool = False   # NaN when an "unbounded" queue overflowed (a refusal, not a loss)
    derived: tuple | None = None      # (metric, f): f(value, counts) of that metric's mean and interval ends
    bounds: tuple = (0.0, None)       # what the figure can be (None: no limit); intervals past them get a note
    # False for a count over a phase that ends within the run (connection set-up): no steady state bears on it, so
    # the run's stability does not either (a verdict reads it as a whole measurement).
    steady_state: bool = True


@dataclass(frozen=True)
class Counter:
    """A counter total shown with every result: kernel counter ``counter`` (default ``name``) summed,
    or its smallest or largest value over the replications."""

    name: str
    unit: str
    reduce: str = "sum"
    counter: str = ""


@dataclass(frozen=True)
class Compare:
    """An analytic result of an :class:`Answer` (``result``) and the metric of its simulated twin (``metric``) that
    measures it at the same inputs, judged by the verdict engine as :class:`Case` rows are: a point target with
    ``precision`` (+ ``precision_share`` of the value) when exact, else a band of ``tolerance`` (+
    ``tolerance_share``, + the answer's own stated error in result ``error_result``). ``saturated``: the twin runs
    overloaded by design (a saturation question): compared only where it is. ``applies(params, results) -> str``:
    why the comparison does not hold at these inputs (empty where it does): an approximation's range, a low-load
    formula, a bound rather than a value. ``why`` says where the band comes from."""

    result: str
    metric: str
    tolerance: float = 0.0
    tolerance_share: float = 0.0
    error_result: str = ""
    precision: float = 0.0
    precision_share: float = DEFAULT_PRECISION_SHARE
    saturated: bool = False
    applies: Callable | None = None
    why: str = ""


@dataclass(frozen=True)
class Answer:
    """An analytic answer: ``switchq solve NAME`` (or ``switchq size NAME``) and ``switchq sweep NAME``.

    Attributes
    ----------
    name, title, summary : str
        Command name, table title, one line for help and listings.
    params : tuple of Param
        Its parameters. Parameters with ``modes=SIM`` feed only the simulated twin (``sweep NAME
        --simulate``): they are the twin's, not the answer's.
    solve : callable
        ``solve(params) -> (inputs, results)``: two dicts, the inputs echoed as the solver
        read them and the results.
    results : tuple
        The names of the results a sweep lists (``--y`` picks among the numeric ones).
    units : dict
        Unit of every input and result name the answer gives ('' or absent: text, flags).
    main, table : str, tuple
        The result a sweep plots by default, and those shown in tables.
    check : callable or None
        A cheap check of a sweep point (raises InputError); None: solving is the check.
    twin : callable or None
        ``twin(params) -> params`` of the architecture's simulator for ``--simulate``; None when
        the answer has no simulated twin in a sweep.
    sim_main, sim_table : str, tuple
        The same for the twin's results.
    verb : str
        ``solve`` or ``size`` (``switchq size credit`` is the answer ``size-credit``).
    description : str
        The command's help (what it computes, its method and source).
    examples : tuple of str
        Command lines that run (the conformance tests run them).
    vary_example : str
        What follows ``switchq sweep NAME --vary`` in its help (``load=0.1:0.9:0.1 --ports 16``).
    compares : tuple of Compare
        The analytic results its simulated twin measures at the same inputs, and how the two are judged side
        by side (the page shows each with the engine's verdict); empty: none is comparable.
    """

    name: str
    title: str
    summary: str
    params: tuple
    solve: Callable
    results: tuple
    units: dict
    main: str
    table: tuple
    check: Callable | None = None
    twin: Callable | None = None
    sim_main: str = "throughput"
    sim_table: tuple = ("throughput", "mean_latency", "loss_probability", "unstable")
    verb: str = "solve"
    description: str = ""
    examples: tuple = ()
    vary_example: str = ""
    compares: tuple = ()

    @property
    def command(self) -> str:
        """Its name under its verb: ``credit`` for ``size-credit``."""
        return self.name[len(self.verb) + 1:] if self.name.startswith(self.verb + "-") else self.name


@dataclass(frozen=True)
class Case:
    """One validation row: a simulated figure against an analytic (or published) value.

    ``params`` are the architecture's (as ``switchq simulate`` takes them,
    the rest at their defaults); ``analytic()`` returns ``(value, method)``;
    the tolerance is the known error of the analytic side (0 for exact
    models): ``tolerance`` absolute, plus ``tolerance_share`` of the analytic
    value, plus ``tolerance_slots`` cells over the measured slots (edge
    effects of a deterministic loop); ``why`` says where it comes from.
    ``slots`` is the quick budget (``validate --full`` runs ten times more);
    ``warmup_share`` a warm-up of that share of the slots instead of the
    default; ``unit`` the row's unit when it is not the metric's.

    An exact model (tolerance 0) is a point target: the row agrees when the
    simulated interval (at the level of :mod:`switchq.validate.compare`)
    holds the analytic value and its half-width is at most ``precision``
    plus ``precision_share`` of the value (by default half a percent: finer
    than any error a modelling mistake makes in these figures, coarse enough
    for the quick budget; a row that needs another says why). ``saturated``:
    the row is about the system under overload (a saturation throughput),
    whose run is unstable by design.
    """

    suite: str
    label: str
    params: dict
    quantity: str
    analytic: Callable
    tolerance: float = 0.0
    tolerance_share: float = 0.0
    tolerance_slots: float = 0.0
    why: str = ""
    slots: int = 10_000
    replications: int = 8
    warmup_share: float | None = None
    unit: str = ""
    precision: float = 0.0
    precision_share: float = DEFAULT_PRECISION_SHARE
    saturated: bool = False

    def __post_init__(self):
        # A verdict from fewer replications decides nothing (a Student-t interval from two is 12.7 standard
        # errors wide): the rule every report and validate row follows.
        if self.replications < 5:
            raise ValueError(f"validation case {self.label!r}: {self.replications} replications; at least 5")
        if self.precision < 0 or self.precision_share < 0:
            raise ValueError(f"validation case {self.label!r}: a precision is at least 0")


@dataclass(frozen=True)
class BenchCase:
    """A speed case of ``switchq bench``: a point of the architecture and its target, in the unit its
    architecture's clock and size give (:meth:`Architecture.bench_unit`)."""

    label: str
    params: dict
    target: float | None = None
    booksim2: float | None = None
    scale: float = 1.0        # time steps of this case per bench step (networks run fewer)


def _no_labels(c):
    return {}


@dataclass(frozen=True)
class Architecture:
    """The declaration of one architecture (or network, or collective, or link); see the module docstring.

    Attributes
    ----------
    name, family, title, summary : str
        ``simulate NAME``; family is ``switch``, ``network``, ``collective`` or ``link``.
    config, accepts : tuples of types
        The frozen configuration classes it simulates and the workload classes it takes
        (``simulate(system, workload)`` finds the declaration by their types).
    params, workload : tuple of Param
        The system's parameters and its workload's (traffic, start skew, benchmark round).
    build : callable
        ``build(params) -> (system, workload)`` from canonical values (every parameter present).
    kernel : str
        Module with ``replicate(system, workload, run)`` and ``LAYOUT``; empty: no simulator.
    metrics, counters : tuples of Metric, Counter
    units : dict
        Units of the fields the system's and workload's ``describe()`` give beyond the parameters.
    labels : callable or None
        ``labels(counts) -> dict`` of further result fields (bounds, what a latency is per).
    stability : callable or None
        ``stability(counts) ->`` :class:`~switchq.validate.harness.Backlog` (growth, offered, slack, unit,
        and the part the kernel counts, if any): unstable if a backlog grew by more than the harness's
        allowance (:func:`~switchq.validate.harness.backlog_allowed`), or a queue overflowed; None: never
        judged.
    answers, cases, bench : tuples of Answer, Case, BenchCase
    report : tuple
        ``(name, module)`` of each report it builds (``switchq report NAME``).
    architectures : tuple of str
        Names ``Switch(n, architecture=...)`` accepts for it (single switches).
    clock : Clock
        What its runs count (:data:`SLOTS`, :data:`CYCLES`, :func:`simulated_seconds`, :data:`ROUNDS`) and the
        options that set their length: ``simulate`` and ``sweep`` options, JSON units and ``bench`` rates
        derive from it.
    size : str
        The parameter a rate is per (``ports``, ``nodes``): ``bench`` gives port-slots/s, node-cycles/s.
    order : int
        Place in listings.
    description : str
        ``simulate NAME --help``.
    examples : tuple of str
        ``switchq simulate`` command lines that run.
    json_rows : str
        Several answers (a ``many`` parameter) as a JSON ``list`` or an object ``{"rows": [...]}``.
    main, table : str, tuple
        The result a sweep plots by default, and those shown in tables.
    vary_example : str
        What follows ``switchq sweep NAME --vary`` in its help.
    sample : dict
        A small point (parameters by name, the rest at their defaults) that simulates in a moment: the
        conformance tests run it.
    timeline : callable or None
        ``timeline(system, workload) -> (warm-up, measured)`` in the kernel's time steps, for a kernel whose
        run length is set by its workload (simulated seconds) rather than by slots: its replications then
        snapshot their counters at segments too, for the stability trend test (a slotted kernel's come from
        the run settings).
    bounded : str
        Why a simulator with no ``stability`` rule needs none: every queue it has is bounded by flow control (a
        lossless link), or each replication runs one collective to its end. Its figures are then whole
        measurements (``stable``) and its results say why; empty: a simulator without a rule is not judged.
    """

    name: str
    family: str
    title: str
    summary: str
    config: tuple = ()
    accepts: tuple = ()
    params: tuple = ()
    workload: tuple = ()
    build: Callable | None = None
    kernel: str = ""
    metrics: tuple = ()
    counters: tuple = ()
    units: dict = field(default_factory=dict)
    labels: Callable | None = None
    stability: Callable | None = None
    answers: tuple = ()
    cases: tuple = ()
    bench: tuple = ()
    report: tuple = ()
    architectures: tuple = ()
    clock: Clock = SLOTS
    size: str = "ports"
    order: int = 100
    description: str = ""
    examples: tuple = ()
    json_rows: str = "list"
    main: str = "throughput"
    table: tuple = ("throughput", "mean_latency", "loss_probability", "unstable")
    vary_example: str = ""
    sample: dict = field(default_factory=dict)
    timeline: Callable | None = None
    bounded: str = ""

    @property
    def simulated(self) -> bool:
        return bool(self.kernel)

    @property
    def slotted(self) -> bool:
        """Whether its runs are measured over slots (steady state), so slots, warm-up and batch means apply."""
        return self.clock.slotted

    @property
    def settings_shown(self) -> tuple:
        return self.clock.settings_shown()

    def all_params(self) -> tuple:
        """System then workload parameters (a clock of simulated seconds last): the options of ``simulate
        NAME``."""
        return self.params + self.workload + (() if self.clock.slotted else self.clock.params)

    def run_params(self) -> tuple:
        """The run options of ``simulate NAME`` and ``sweep NAME --simulate``: the clock's, then the common ones."""
        return (self.clock.params if self.clock.slotted else ()) + RUN_PARAMS

    def bench_unit(self) -> str:
        """Unit of its ``bench`` figures: size x time steps per second (``node-cycles/s``), or the wall seconds of
        a run of set simulated length."""
        if not self.clock.slotted:
            return "s"
        return f"{self.param(self.size).unit.rstrip('s')}-{self.clock.unit}/s"

    def defaults(self) -> dict:
        """Every parameter at its default (required ones absent)."""
        return {p.name: p.default for p in self.all_params() if not p.required}

    def param(self, name: str) -> Param:
        for p in self.all_params():
            if p.name == name:
                return p
        raise KeyError(name)

    def takes(self, system, workload) -> bool:
        """Whether this declaration simulates ``system`` under ``workload`` (by their types)."""
        return self.simulated and isinstance(system, self.config) and isinstance(workload, self.accepts)

    def check(self, system, workload) -> None:
        """The one compatibility check: the types, then the system's check of its workload."""
        if not isinstance(system, self.config):
            raise InputError("system", type(system).__name__,
                             "one of " + ", ".join(c.__name__ for c in self.config) + f" for {self.name}")
        if not isinstance(workload, self.accepts):
            raise InputError("workload", type(workload).__name__,
                             "one of " + ", ".join(c.__name__ for c in self.accepts) + f" for {self.name}")
        system.check_traffic(workload)

    def label(self, system, workload) -> str:
        """A progress-bar label."""
        return f"{self.name} " + ", ".join(f"{k}={v}" for k, v in list(system.describe().items())[:3])

    def units_of(self, system=None, workload=None) -> dict:
        """Unit of every input and result field a simulation of this architecture gives."""
        out = {p.target: p.unit for p in self.all_params() if p.unit}
        out.update({p.name: p.unit for p in self.all_params() if p.unit and p.name not in out})
        out.update(self.units)
        out.update(RUN_UNITS)
        if self.clock.slotted:
            out.update(slots=self.clock.unit, warmup_slots=self.clock.unit)
        for m in self.metrics:
            out[m.name] = out[m.name + "_ci95"] = out[m.name + "_samples"] = m.unit
        for c in self.counters:
            out[c.name] = c.unit
        return {k: v for k, v in out.items() if v}

