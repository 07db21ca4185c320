"""A method's parameters, declared once: one frozen dataclass per command (`Options` for one
that makes a run folder, `Parameters` for one that calls no model).

Each field is a parameter: its name, type and default are the dataclass's, and `option()` adds
what the CLI needs (help, the flag's name, a range or choices). From that one declaration come
the API functions' signatures (`api_functions`, typed for a type checker through the class's
own `__init__`), the CLI's flags (`verstehen.cli.options.add_options`: help with the default
taken from the field, range checks while parsing) and the values' checks on both faces
(`Options.__post_init__`: a bad value is one UserError line, from Python as from the CLI).

Every options class derives from `Options`, which is `EngineSettings` plus `engine` and
`resume`: an API function takes the engine's settings as keywords (`timeout=5`) or as one
`engine=`, a keyword given (other than its default) replacing that field of `engine`.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar, dataclass_transform

from verstehen.engine.session import RunSettings
from verstehen.engine.settings import EngineSettings
from verstehen.engine.store.inputs import Reads
from verstehen.engine.sync import run_sync
from verstehen.errors import UserError
from verstehen.readers import COUNT_MAX as COUNT_MAX
from verstehen.readers import SEED_MAX as SEED_MAX

T = TypeVar("T")
KEY = "verstehen.option"  # the field metadata key holding its Option
SHARED = "shared"  # a parameter whose CLI flag is one the commands share (--model, --seed, ...)
API_ONLY = "api"  # a parameter of the API only (a loaded object the CLI cannot give)


@dataclass(frozen=True)
class Range:
    """Where a number may lie: from `low` to `high`, each end in (closed) or out (open)."""

    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False

    def problem(self, value: float) -> str | None:
        """Why `value` lies outside ("must be at least 1, not 0"), or None inside."""
        if not math.isfinite(value):
            return f"must be a finite number, not {value}"
        low, high = _shown(self.low), _shown(self.high)
        if self.low_open and self.high_open:
            inside = self.low < value < self.high
            return None if inside else f"must lie strictly between {low} and {high}, not {value}"
        if (self.low, self.high) == (0, 1) and not 0 <= value <= 1:
            return f"must lie in [0, 1], not {value}"
        if value < self.low or (self.low_open and value == self.low):
            return f"must be {'more than' if self.low_open else 'at least'} {low}, not {value}"
        if value > self.high or (self.high_open and value == self.high):
            return (f"must be {'less than' if self.high_open else 'at most'} {high}, "
                    f"not {value:,}")
        return None


def _shown(bound: float) -> str:
    """A range's end as its messages say it: 10,000,000 or 0.5."""
    return f"{int(bound):,}" if float(bound).is_integer() else f"{bound:g}"


COUNT = Range(1, COUNT_MAX)
COUNT_OR_ZERO = Range(0, COUNT_MAX)
SEED = Range(0, SEED_MAX)
PROBABILITY = Range(0, 1, low_open=True, high_open=True)  # a passing grade, a rate, δ
UNIT = Range(0, 1)  # a score, a mean
# the help of the shared --seed and --max-tokens (cli.flags.run_flags), for the API's docstrings
SEED_HELP = ("seed of every draw the run makes (questions, their order, samples): the same "
             "seed asks the same again")
MAX_TOKENS_HELP = "every reply's token budget, in place of each prompt's own"


@dataclass(frozen=True)
class Option:
    """What the CLI needs of a parameter beyond its name, type and default.

    `help` may hold `{default}`, filled from the field's default (or `shown`, how to say it);
    a help without it and a default other than None or False gets " (default X)" added.
    `flag`: the flag's name (None: `--` and the field's name with dashes), `aliases` its
    other names (an older name kept working); SHARED: a flag the commands share supplies it
    (its dest is the field's name); API_ONLY: no flag.
    `kind` is the type a flag's text is read as (None: the default's type, else str), `read`
    a reader of the text of its own; `range` and `choices` limit the value on both faces.
    `many`: the flag may be given several times (a list); `nargs` (argparse's, e.g. "+"):
    several values after one flag. A bool parameter that defaults to True has a negated
    switch (`flag="--no-shuffle"` sets it False). `required`: the CLI asks for the flag
    although the API has a default (the API's default is a loaded value). `reads`: the flag's
    value names input files (run.json records their content hashes; a resume reads them again
    only when unchanged or typed again).
    """

    help: str
    flag: str | None = None
    aliases: tuple[str, ...] = ()
    kind: type | None = None
    read: Callable[[str], object] | None = None
    range: Range | None = None
    choices: tuple[str, ...] | None = None
    many: bool = False
    nargs: str | None = None
    metavar: str | None = None
    shown: str | None = None
    required: bool = False
    reads: Reads | None = None

    def on_cli(self) -> bool:
        """True when the parameter has a flag of its own."""
        return self.flag not in (SHARED, API_ONLY)


def option(default: Any = dataclasses.MISSING, *, help: str, flag: str | None = None,
           aliases: Sequence[str] = (), kind: type | None = None,
           read: Callable[[str], object] | None = None, range: Range | None = None,
           choices: Sequence[str] | None = None,
           many: bool = False, nargs: str | None = None, metavar: str | None = None,
           shown: str | None = None, required: bool = False, reads: Reads | None = None,
           kw_only: bool = True) -> Any:
    """A dataclass field declaring one parameter (no default: the parameter is required;
    `kw_only=False`: the API takes it by position too)."""
    meta = Option(help=help, flag=flag, aliases=tuple(aliases), kind=kind, read=read,
                  range=range, choices=tuple(choices) if choices is not None else None, many=many,
                  nargs=nargs, metavar=metavar, shown=shown, required=required, reads=reads)
    if isinstance(default, (list, dict, set)):
        raise TypeError("a parameter's default is immutable: use a tuple")
    return dataclasses.field(default=default, metadata={KEY: meta}, kw_only=kw_only)


@dataclass_transform(frozen_default=True, kw_only_default=True, field_specifiers=(option,))
def options_class(cls: type[T]) -> type[T]:
    """Make `cls` (a subclass of Options whose fields are `option()`s) a frozen dataclass
    whose fields are keywords unless declared `kw_only=False`, as a type checker sees it too."""
    return dataclass(frozen=True, kw_only=True)(cls)


def seed_option() -> Any:
    """The `seed` parameter every run-making command takes (the shared `--seed`)."""
    return option(default=0, flag=SHARED, range=SEED, help=SEED_HELP)


def max_tokens_option() -> Any:
    """The `max_tokens` parameter every run-making command takes (the shared `--max-tokens`;
    None: each prompt's own budget)."""
    return option(default=None, flag=SHARED, range=COUNT, help=MAX_TOKENS_HELP)


def declared(field: dataclasses.Field[Any]) -> Option | None:
    """The Option of a field declared with `option()`, None for any other field."""
    meta = field.metadata.get(KEY)
    return meta if isinstance(meta, Option) else None


def parameters(cls: type) -> tuple[tuple[dataclasses.Field[Any], Option], ...]:
    """The command's own parameters of a parameters or options class, in order, with their
    Options (the engine settings, `engine` and `resume` left out)."""
    own = {f.name for f in dataclasses.fields(Options)}
    return tuple((f, meta) for f in dataclasses.fields(cls)
                 if f.name not in own and (meta := declared(f)) is not None)


def default_text(field: dataclasses.Field[Any], meta: Option) -> str | None:
    """The default as help states it, or None when it has none to state."""
    if meta.shown is not None:
        return meta.shown
    value = field.default
    if value is dataclasses.MISSING or value is None or isinstance(value, bool):
        return None
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def help_text(field: dataclasses.Field[Any], meta: Option) -> str:
    """The flag's help: the declared text with its default filled in or added."""
    shown = default_text(field, meta)
    if "{default}" in meta.help:
        return meta.help.replace("{default}", shown if shown is not None else "none")
    return meta.help if shown is None else f"{meta.help} (default {shown})"


def problem(name: str, value: object, meta: Option) -> str | None:
    """Why a parameter's value is refused ("questions must be at least 1, not 0"), or None."""
    several = meta.many or meta.nargs is not None
    values = value if several and isinstance(value, (list, tuple)) else (value,)
    for one in values:
        if meta.choices is not None and isinstance(one, str) and one not in meta.choices:
            return f"{name} must be one of {', '.join(meta.choices)}, not {one!r}"
        if (meta.range is not None and isinstance(one, (int, float))
                and not isinstance(one, bool) and (why := meta.range.problem(one))):
            return f"{name} {why}"
    return None


@dataclass(frozen=True, kw_only=True)
class Parameters:
    """The base of a command's parameters: each value checked against its declaration (its
    range, its choices) when made, from Python as from the CLI."""

    def __post_init__(self) -> None:
        for field, meta in parameters(type(self)):
            value = getattr(self, field.name)
            if isinstance(value, list):  # a list given for a many-valued parameter
                object.__setattr__(self, field.name, tuple(value))
            if why := problem(field.name, value, meta):
                raise UserError(why)

    def values(self) -> dict[str, object]:
        """The command's own parameters by name (no engine settings)."""
        return {f.name: getattr(self, f.name) for f, _ in parameters(type(self))}


@dataclass(frozen=True, kw_only=True)
class Options(Parameters, EngineSettings):
    """The base of a run-making command's parameters: its own, the engine settings, `engine`
    (settings whose fields the keywords given replace) and `resume` (a run folder to go on
    with)."""

    engine: EngineSettings | None = None
    resume: Path | str | None = None

    def __post_init__(self) -> None:
        EngineSettings.__post_init__(self)
        Parameters.__post_init__(self)

    def run_settings(self) -> RunSettings:
        """The run settings these options give an API call: `engine`, each engine field set
        here (to other than its default) replacing its own, and `resume`."""
        given = {f.name: getattr(self, f.name) for f in dataclasses.fields(EngineSettings)
                 if getattr(self, f.name) != f.default}
        return RunSettings.of(self.engine, given, resume=self.resume)


OptionsT = TypeVar("OptionsT", bound=Options)
ParametersT = TypeVar("ParametersT", bound=Parameters)
R = TypeVar("R")
P = ParamSpec("P")
Run = Callable[[OptionsT, RunSettings], Coroutine[Any, Any, R]]


def api_functions(options: Callable[P, OptionsT], run: Run[OptionsT, R], name: str
                  ) -> tuple[Callable[P, Coroutine[Any, Any, R]], Callable[P, R]]:
    """The API function `name` and its `_async` twin: each takes the options class's own
    parameters (its signature, for a type checker as for `help()`), builds the options and
    runs `run` on them with the settings they give."""

    async def run_async(*args: P.args, **kwargs: P.kwargs) -> R:
        chosen = options(*args, **kwargs)
        return await run(chosen, chosen.run_settings())

    def run_blocking(*args: P.args, **kwargs: P.kwargs) -> R:
        return run_sync(run_async(*args, **kwargs))

    run_blocking.__wrapped__ = run_async  # type: ignore[attr-defined]  # the twin it runs

    assert isinstance(options, type)
    doc = _docstring(options, run)
    returns = inspect.signature(run).return_annotation
    signature = inspect.signature(options)
    own = [f.name for f, _ in parameters(options)]
    ordered = sorted(signature.parameters.values(),  # the method's own before the engine's
                     key=lambda p: (p.kind, p.name not in own))
    signature = signature.replace(parameters=ordered, return_annotation=returns)
    functions: tuple[tuple[Any, str], ...] = ((run_async, f"{name}_async"),
                                              (run_blocking, name))
    for function, its_name in functions:
        function.__name__ = function.__qualname__ = its_name
        function.__doc__ = doc
        function.__signature__ = signature
        function.__module__ = run.__module__
    return run_async, run_blocking


def declared_function(parameters_class: Callable[P, ParametersT],
                      body: Callable[[ParametersT], R], name: str) -> Callable[P, R]:
    """The API function `name` of a command that calls no model: it takes the parameters
    class's own fields (its signature, typed), builds them (checked) and returns `body`'s
    result on them."""

    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        return body(parameters_class(*args, **kwargs))

    assert isinstance(parameters_class, type)
    signature = inspect.signature(parameters_class).replace(
        return_annotation=inspect.signature(body).return_annotation)
    function: Any = call
    function.__name__ = function.__qualname__ = name
    function.__doc__ = _docstring(parameters_class, body, engine=False)
    function.__signature__ = signature
    function.__module__ = body.__module__
    return call


def _docstring(options: type, run: Callable[..., object], *, engine: bool = True) -> str:
    """The run's docstring followed by one line per parameter, from the declarations."""
    lines = [inspect.getdoc(run) or "", "", "Parameters (each also a CLI flag unless marked):"]
    for field, meta in parameters(options):
        where = {SHARED: " [shared flag]", API_ONLY: " [Python only]"}.get(meta.flag or "", "")
        lines.append(f"    {field.name}{where}: {help_text(field, meta)}")
    if engine:
        lines.append("Engine settings: the fields of EngineSettings as keywords, or engine=; "
                     "resume= a run folder to go on with.")
    return "\n".join(lines)


def config_values(options: Options, *, paths: Mapping[str, object] | None = None
                  ) -> dict[str, object]:
    """The parameters as run.json records them: paths as text, loaded objects as None (or as
    `paths` gives them)."""
    out: dict[str, object] = {}
    for name, value in options.values().items():
        if paths and name in paths:
            out[name] = paths[name]
        elif isinstance(value, Path):
            out[name] = str(value)
        elif isinstance(value, (str, int, float, bool, type(None))):
            out[name] = value
        elif isinstance(value, tuple) and all(isinstance(v, (str, int, float)) for v in value):
            out[name] = list(value)
        else:
            out[name] = None
    return out
