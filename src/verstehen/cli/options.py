"""A method's flags, derived from its options class (`verstehen.methods.options`): each
parameter's flag, help (with the default the field declares) and range check come from its one
declaration, and `options_from` builds the options back from the parsed flags."""

from __future__ import annotations

import argparse
import dataclasses
import math
from collections.abc import Callable
from typing import Any, TypeVar

from verstehen.cli.flags import engine_from
from verstehen.cli.inputs import declare_reads
from verstehen.methods.options import (
    API_ONLY,
    Option,
    Options,
    Parameters,
    Range,
    help_text,
    parameters,
)

ParametersT = TypeVar("ParametersT", bound=Parameters)


def flag_name(field: dataclasses.Field[Any], meta: Option) -> str:
    """The flag of a parameter with one of its own: declared, or `--name-with-dashes`."""
    return meta.flag or "--" + field.name.replace("_", "-")


class NumberReader:
    """A flag type reading a `kind` number (int or float) that lies in `bounds` (None: any
    finite number); a bad text is an argparse error naming the flag (exit 2)."""

    def __init__(self, kind: type[int] | type[float], bounds: Range | None) -> None:
        self.kind, self.bounds = kind, bounds
        self.__name__ = kind.__name__  # argparse names the type in its messages

    def __call__(self, text: str) -> int | float:
        """The number the text says, checked."""
        try:
            value = self.kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {'an integer' if self.kind is int else 'a number'}") from None
        if self.bounds is not None and (why := self.bounds.problem(value)):
            raise argparse.ArgumentTypeError(why)
        if self.bounds is None and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        return value


def reader(field: dataclasses.Field[Any], meta: Option) -> Callable[[str], object] | None:
    """How the flag's text becomes the value: the declared reader, else a number of the
    declared kind (or the default's type) checked against its range, else the kind itself
    (Path, str) or the text as given."""
    if meta.read is not None:
        return meta.read
    kind = meta.kind or (type(field.default) if isinstance(field.default, (int, float))
                         and not isinstance(field.default, bool) else None)
    if kind is int or kind is float:
        return NumberReader(kind, meta.range)
    return kind


def add_options(parser: argparse.ArgumentParser, options: type[Parameters]) -> None:
    """Add a flag for each parameter of `options` that has one of its own."""
    for field, meta in parameters(options):
        if not meta.on_cli():
            continue
        name = flag_name(field, meta)
        keywords: dict[str, Any] = {"help": help_text(field, meta), "dest": field.name}
        if isinstance(field.default, bool) and meta.kind is None:  # a switch
            if field.default is True and not name.startswith("--no-"):
                raise TypeError(f"{field.name}: a switch that is on by default is declared "
                                "with its negated flag, e.g. flag='--no-shuffle'")
            action = "store_false" if field.default else "store_true"
            parser.add_argument(name, *meta.aliases, action=action, **keywords)
            continue
        if (read := reader(field, meta)) is not None:
            keywords["type"] = read
        if meta.choices is not None:
            keywords["choices"] = meta.choices
        if meta.metavar is not None:
            keywords["metavar"] = meta.metavar
        if meta.nargs is not None:
            keywords["nargs"] = meta.nargs
        if meta.many:
            keywords["action"] = "append"
        required = field.default is dataclasses.MISSING or meta.required
        if required:
            keywords["required"] = True
        else:
            keywords["default"] = None if meta.many else field.default
        added = parser.add_argument(name, *meta.aliases, **keywords)
        if meta.reads is not None:
            declare_reads(added, meta.reads)


def options_from(options: type[ParametersT], args: argparse.Namespace,
                 **given: Any) -> ParametersT:
    """The options the parsed flags give (each parameter from its flag, a shared flag's from
    that flag's dest); `given` adds or replaces values (an API-only parameter the command
    fills itself)."""
    values: dict[str, Any] = {}
    for field, meta in parameters(options):
        if field.name in given or meta.flag == API_ONLY:
            continue
        value = getattr(args, field.name)
        if meta.many and value is None:
            continue  # not given: the field's default
        values[field.name] = value
    if issubclass(options, Options):  # a run-making command's: the engine flags too
        return options(**values, **given, engine=engine_from(args),
                       resume=getattr(args, "resume", None))
    return options(**values, **given)
