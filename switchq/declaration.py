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

Every field of every type here is explained in its class's Attributes section
(:class:`~switchq.params.Param`'s in :mod:`switchq.params`): what it is, its
type and units, its default and when to set it. CONTRIBUTING.md walks through
a whole declaration (the knockout switch) and links here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .answer import DEFAULT_PRECISION_SHARE, Answer, Compare
from .errors import InputError
from .params import SIM, Param

__all__ = ["Architecture", "Answer", "Compare", "Metric", "Counter", "Case", "BenchCase", "Clock", "SLOTS", "CYCLES", "ROUNDS",
           "simulated_seconds", "RUN_PARAMS", "RUN_UNITS", "FAMILIES"]

FAMILIES = ("switch", "network", "collective", "link")

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
    ``warmup_seconds``); a clock of rounds runs one collective round to its end per replication. A
    declaration picks one of :data:`SLOTS` (the default), :data:`CYCLES`, :data:`ROUNDS` or
    :func:`simulated_seconds`; none is built by hand.

    Attributes
    ----------
    unit : str
        What a time step is called in options, JSON units and bench rates (``slots``, ``cycles``, ``s``,
        ``rounds``).
    params : tuple of Param
        The options that set a run's length (``--slots``, ``--warmup``, ``--batches``; ``--seconds``, ...).
    slotted : bool
        True: a steady state measured over time steps after a warm-up (batch means apply); False: the
        workload sets the run's length.

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

    A single switch's come from ``architectures/_shared.py`` (``switch_family()``, ``switch_metrics()``); a
    declaration adds its own or changes one with :func:`dataclasses.replace`.

    Attributes
    ----------
    name : str
        The result's name: its JSON key (with ``NAME_ci95`` and ``NAME_samples``), table row, ``--y`` and
        ``--precision-on`` value, and what a :class:`Case`'s ``quantity`` or a :class:`Compare`'s ``metric``
        names. Required.
    unit : str
        Its unit (``cells/slot/input``, ``slots``, ``1`` for a share). Required: every figure has one.
    samples : callable or None
        ``samples(c) -> array``: ``c`` is a :class:`switchq.validate.harness.Counts` (kernel counters by name,
        ``c["m_delivered"]``, one value per replication, with ``c.system``, ``c.workload``, ``c.slots``); it
        returns one value per replication (or per replication and class, a 2-D array), or None where the
        metric does not apply to this system. The interval is Student-t over these values. None here: the
        figure is ``derived``. Required.
    help : str, default ""
        What the figure is, in a phrase, for whoever reads the declaration. The shared loss metric's ends with
        how the switch loses cells: ``switch_family(loss="knocked out ...")``; any other's is replaced with
        ``replace(metric, help=...)``.
    lossy_on_overflow : bool, default False
        True for a figure an overflow makes meaningless (a loss share): where a queue configured unbounded
        ran out of storage (``kernel.admit(..., overflow=True)`` refused a cell) it is given as none, since the
        loss was no model's. A loss by design is not an overflow (see ``admit``).
    derived : tuple or None, default None
        ``(metric, f)``: this figure is ``f(x, counts)`` of metric ``metric``'s mean and of each end of its
        interval (a latency in ns from one in cycles), with ``samples`` None. Set only for a change of unit.
    bounds : tuple, default (0.0, None)
        ``(low, high)``, what the figure can be (None: no limit). An interval reaching past is cut there with a
        note; set ``(0.0, 1.0)`` for a share or a per-port rate, ``(None, None)`` for a figure that can be
        negative.
    steady_state : bool, default True
        False for a count over a phase that ends within the run (connection set-up): no steady state bears on
        it, so the run's stability does not either, and a verdict reads it as a whole measurement.

    Examples
    --------
    >>> from dataclasses import replace
    >>> loss = Metric("loss_probability", "1", lambda c: c["m_dropped"] / c["m_offered"],
    ...               "share of the offered cells dropped at a full buffer", lossy_on_overflow=True)
    >>> replace(loss, help="share of the offered cells knocked out").help
    'share of the offered cells knocked out'
    """

    name: str
    unit: str
    samples: Callable | None
    help: str = ""
    lossy_on_overflow: bool = False
    derived: tuple | None = None
    bounds: tuple = (0.0, None)
    steady_state: bool = True


@dataclass(frozen=True)
class Counter:
    """A counter total shown with every result: kernel counter ``counter`` (default ``name``) summed,
    or its smallest or largest value over the replications.

    Attributes
    ----------
    name : str
        The result's name (JSON key, table row). Required.
    unit : str
        Its unit (``cells``, ``packets``, ``flits``). Required.
    reduce : str, default "sum"
        ``sum``, ``min`` or ``max`` over the replications.
    counter : str, default ""
        The kernel counter (a name of its ``LAYOUT``) when it differs from ``name``.
    """

    name: str
    unit: str
    reduce: str = "sum"
    counter: str = ""


@dataclass(frozen=True)
class Case:
    """One validation row: a simulated figure against an analytic (or published) value.

    The tolerance is the known error of the analytic side (0 for exact models). An exact model (tolerance
    0) is a point target: the row agrees when the simulated interval (at the level of
    :mod:`switchq.validate.compare`) holds the analytic value and its half-width is at most ``precision``
    plus ``precision_share`` of the value (by default half a percent: finer than any error a modelling
    mistake makes in these figures, coarse enough for the quick budget; a row that needs another says why).
    An interval that does not decide is measured again on up to four times the replications.

    Attributes
    ----------
    suite : str
        The group it is listed and run in: ``switchq validate SUITE`` (usually the architecture's or the
        answer's name). Required.
    label : str
        The row's name: the point in words (``"N=16, load 0.9"``). Required.
    params : dict
        The point, by parameter name as ``switchq simulate`` takes them (canonical values), the rest at their
        defaults. Required.
    quantity : str
        The simulated :class:`Metric` it judges (``mean_wait``). Required.
    analytic : callable
        ``analytic() -> (value, method)``: the value it is judged against and where it comes from (a formula
        and its source). A solver's value is ``solved("oq.mean_wait", 16, 0.9)`` (:mod:`switchq.solved`: its
        result's main figure and method, or ``figure=``; ``later(build, *args)`` for an argument built at the
        call); a value derived by hand, ``lambda: (1.0, "why")``. Required.
    tolerance : float, default 0.0
        The analytic side's known error, absolute, in the quantity's unit.
    tolerance_share : float, default 0.0
        ... plus this share of the analytic value.
    tolerance_slots : float, default 0.0
        ... plus this many cells over the measured slots (edge effects of a deterministic loop).
    why : str, default ""
        Where the tolerance (or the exactness) comes from.
    slots : int, default 10_000
        Measured slots per replication in the quick budget (``validate --full`` runs ten times more). Set it
        so the point target is met: the default is short.
    replications : int, default 8
        Replications to start from, at least 5 (refused below: a verdict from fewer decides nothing).
    warmup_share : float or None, default None
        A warm-up of that share of the slots, instead of the default max(1000, slots/10): for a queue that
        settles slowly.
    unit : str, default ""
        The row's unit when it is not the metric's.
    precision : float, default 0.0
        An exact row's precision, absolute (a figure that can be 0, a loss, needs one).
    precision_share : float, default DEFAULT_PRECISION_SHARE
        ... plus this share of the analytic value.
    saturated : bool, default False
        The row is about the system under overload (a saturation throughput), whose run is unstable by
        design; otherwise an unstable run never agrees.
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
    architecture's clock and size give (:meth:`Architecture.bench_unit`).

    Attributes
    ----------
    label : str
        The row's name (``"CIOQ 32x32 speedup 2, iSLIP, load 0.95"``). Required.
    params : dict
        The point, by parameter name, the rest at their defaults. Required.
    target : float or None, default None
        The speed it should reach: a rate it must reach (slotted clocks), or wall seconds it must not exceed
        (clocks of set simulated length). None: measured, not judged.
    booksim2 : float or None, default None
        BookSim2's figure for the same case, shown beside ours.
    scale : float, default 1.0
        Time steps of this case per bench step: networks run fewer.
    """

    label: str
    params: dict
    target: float | None = None
    booksim2: float | None = None
    scale: float = 1.0


def _no_labels(c):
    return {}


@dataclass(frozen=True)
class Architecture:
    """The declaration of one architecture (or network, or collective, or link); see the module docstring.

    Only ``name``, ``family``, ``title`` and ``summary`` are required; an architecture answered only
    analytically gives ``answers`` and no ``kernel``. A simulated one gives at least ``config``, ``accepts``,
    ``params``, ``build``, ``kernel``, ``metrics`` and ``stability`` (or ``bounded``); a single switch gets
    ``family``, ``accepts``, ``workload``, ``metrics``, ``counters``, ``labels``, ``stability`` and ``units``
    from ``**switch_family(...)`` (``architectures/_shared.py``).

    Attributes
    ----------
    name : str
        The command: ``switchq simulate NAME``, ``sweep NAME``, the ``model`` of its results and stored points.
        Unique among the declarations. Required.
    family : str
        One of :data:`FAMILIES`: ``switch`` (one N x N switch), ``network``, ``collective`` or ``link``.
        ``switchq.Switch(n, architecture)`` looks among the switches only. Required.
    title : str
        The title of its result tables (``"<title> (simulated)"``) and sweeps. Required.
    summary : str
        One line: its entry in ``switchq simulate --help``, ``sweep --help`` and ``sweep --list``, and its
        ``--help`` when there is no ``description``. Required.
    config : tuple of type, default ()
        Its frozen configuration classes (``models/NAME.py``): ``build`` returns an instance of one, and
        ``switchq.simulate(system, workload)`` finds this declaration by the system's type.
    accepts : tuple of type, default ()
        The workload classes it takes (``Traffic`` for a switch), found by type as ``config`` is.
    params : tuple of Param, default ()
        The system's parameters (:class:`~switchq.params.Param`: option, model field, type, range, default,
        unit, help), in the order ``--help`` lists them. Reuse ``_shared.py``'s (``PORTS``). A default that
        depends on another parameter is ``None`` with its rule in ``default_text`` (``"min(8, N)"``), applied
        in ``build`` and in each answer's ``solve``.
    workload : tuple of Param, default ()
        The workload's parameters (load, pattern, bursts; start skew), listed after ``params``.
    build : callable or None, default None
        ``build(params) -> (system, workload)``: ``params`` maps every parameter's name to its canonical value
        (unset ones at their default); construct the configuration (which validates itself) and the workload.
        Begin with ``check_applies(DECLARATION.all_params(), p, p)`` so Python callers are refused as the CLI
        is. Required with a ``kernel``.
    kernel : str, default ""
        The module of its simulator (``"switchq.validate.arch.cioq"``): ``replicate(system, workload, run) ->
        counters`` and ``LAYOUT``; imported only to simulate. Empty: no ``simulate NAME``.
    metrics : tuple of Metric, default ()
        The figures a run reports, each with its unit and interval (:class:`Metric`).
    counters : tuple of Counter, default ()
        Kernel counters shown as totals with every result (:class:`Counter`).
    units : dict, default {}
        Units of the fields the system's and workload's ``describe()`` and ``labels`` give beyond the
        parameters (a parameter's is its ``Param.unit``). Every number output needs a unit (the conformance
        tests check).
    labels : callable or None, default None
        ``labels(counts) -> dict``: further result fields from the counter totals (what a latency is per,
        bounds); ``counts`` as in :class:`Metric`.
    stability : callable or None, default None
        ``stability(counts) ->`` :class:`~switchq.validate.harness.Backlog` (growth, offered, slack, unit,
        and the part the kernel counts, if any): unstable if a backlog grew by more than the harness's
        allowance (:func:`~switchq.validate.harness.backlog_allowed`), or a queue overflowed (its storage ran
        out: ``kernel.admit``'s ``overflow``); None: never judged (see ``bounded``).
    answers : tuple of Answer, default ()
        Its analytic answers, each a ``switchq solve`` (or ``size``) command (:class:`Answer`).
    cases : tuple of Case, default ()
        Its rows of ``switchq validate`` (:class:`Case`).
    bench : tuple of BenchCase, default ()
        Its speed cases of ``switchq bench`` (:class:`BenchCase`).
    report : tuple of (str, str), default ()
        ``(name, module)`` of each report it builds: ``switchq report NAME`` calls ``module.build(out, quick,
        workers, seed, store)``.
    architectures : tuple of str, default ()
        Single switches: the names ``switchq.Switch(n, architecture=...)`` accepts for ``config[0]`` (usually
        ``(name,)``). Empty for the other families.
    clock : Clock, default SLOTS
        What its runs count (:data:`SLOTS`, :data:`CYCLES`, :func:`simulated_seconds`, :data:`ROUNDS`) and the
        options that set their length: ``simulate`` and ``sweep`` options, JSON units and ``bench`` rates
        derive from it.
    size : str, default "ports"
        The parameter a rate is per (``ports``, ``nodes``): ``bench`` gives port-slots/s, node-cycles/s.
    order : int, default 100
        Its place in every listing (``simulate --help``, ``solve --help``, ``validate``'s suites, sweeps, the
        page): ascending, then by name. The declarations in the tree use 10 to 92; the default lists a new
        one last.
    description : str, default ""
        The body of ``switchq simulate NAME --help`` (what is simulated, how, the source). Empty: ``summary``.
    examples : tuple of str, default ()
        ``switchq simulate NAME ...`` lines shown by ``--help``; the conformance tests run each.
    json_rows : str, default "list"
        How ``--json`` prints several results at once (a parameter with ``many=True``): ``"list"``, a JSON
        list, or ``"rows"``, an object ``{"rows": [...]}``.
    main : str, default "throughput"
        The result ``sweep NAME --simulate`` plots by default.
    table : tuple of str, default ("throughput", "mean_latency", "loss_probability", "unstable")
        The results its sweep tables, and several results side by side, show as columns.
    vary_example : str, default ""
        What follows ``switchq sweep NAME --vary`` in its help (``"load=0.5:0.9:0.1 --ports 16"``).
    sample : dict, default {}
        A small point (parameters by name, as the CLI reads them; the rest at their defaults) that simulates
        in a moment: ``switchq warm`` compiles the kernel on it and the conformance tests run it.
    timeline : callable or None, default None
        ``timeline(system, workload) -> (warm-up, measured)`` in the kernel's time steps, for a kernel whose
        run length is set by its workload (simulated seconds) rather than by slots: its replications then
        snapshot their counters at segments too, for the stability trend test (a slotted kernel's come from
        the run settings).
    bounded : str, default ""
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

