"""A method's flags, derived from its options class (`verstehen.methods.options`): each
parameter's flag, help (with the default the field declares) and range check come from its one
declaration, and `options_from` builds the options back from the parsed flags."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

from verstehen.cli.flags import engine_from
from verstehen.methods.options import (
    API_ONLY,
    Option,
    Options,
    help_text,
    parameters,
)

OptionsT = TypeVar("OptionsT", bound=Options)


def flag_name(field: dataclasses.Field[Any], meta: Option) -> str:
    """The flag of a parameter with one of its own: declared, or `--name-with-dashes`."""
    return meta.flag or "--" + field.name.replace("_", "-")


def reader(field: dataclasses.Field[Any], meta: Option) -> Callable[[str], object] | None:
    """How the flag's text becomes the value: the declared reader, or the kind (the default's
    type when not declared) with the range checked (an error names the flag, exit 2)."""
    if meta.read is not None:
        return meta.read
    kind = meta.kind or (type(field.default) if isinstance(field.default, (int, float))
                         and not isinstance(field.default, bool) else None)
    if kind is None:
        return None
    checked = meta.range

    def read(text: str) -> object:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
        if checked is not None and (why := checked.problem(value)):
            raise argparse.ArgumentTypeError(why)
        return value

    read.__name__ = kind.__name__
    return read


def add_options(parser: argparse.ArgumentParser, options: type[Options]) -> None:
    """Add a flag for each parameter of `options` that has one of its own."""
    for field, meta in parameters(options):
        if not meta.on_cli():
            continue
        name = flag_name(field, meta)
        keywords: dict[str, Any] = {"help": help_text(field, meta), "dest": field.name}
        if isinstance(field.default, bool) and field.default is False and meta.kind is None:
            parser.add_argument(name, action="store_true", **keywords)
            continue
        if (read := reader(field, meta)) is not None:
            keywords["type"] = read
        if meta.choices is not None:
            keywords["choices"] = meta.choices
        if meta.metavar is not None:
            keywords["metavar"] = meta.metavar
        if meta.many:
            keywords["action"] = "append"
        required = field.default is dataclasses.MISSING or meta.required
        if required:
            keywords["required"] = True
        else:
            keywords["default"] = None if meta.many else field.default
        parser.add_argument(name, **keywords)


def options_from(options: type[OptionsT], args: argparse.Namespace,
                 **given: Any) -> OptionsT:
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
    return options(**values, **given, engine=engine_from(args),
                   resume=getattr(args, "resume", None))
