"""Each parameter of each run-making command is declared once, in its options class: the API
function's signature and the command's flags are derived from it, here checked field by field
(names, defaults, the default stated in help, ranges refused on both faces)."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
from typing import Any

import pytest

from verstehen.cli.main import build_parser
from verstehen.cli.options import flag_name
from verstehen.errors import UserError
from verstehen.methods import registry
from verstehen.methods.contract import Command, RunKind
from verstehen.methods.options import (
    API_ONLY,
    SHARED,
    Options,
    Range,
    default_text,
    help_text,
    parameters,
)


def declared_kinds() -> list[RunKind[Any] | Command]:
    """Every run kind and command whose parameters are declared in a parameters class."""
    return [*(kind for kind in registry.run_kinds() if kind.options is not None),
            *(command for method in registry.methods() for command in method.commands)]


KINDS = declared_kinds()
# each case named by its command's words; a command that is a mode of a run kind's command
# (`certify --scores`) by its parameters class too
IDS = [k.kind if isinstance(k, RunKind) else f"{'-'.join(k.words)}:{k.options.__name__}"
       for k in KINDS]


@pytest.mark.every_method
def test_every_run_making_command_declares_its_parameters() -> None:
    """No run kind of a built-in method is left with parameters declared by hand."""
    undeclared = ["-".join(kind.words) for kind in registry.run_kinds()
                  if kind.options is None or kind.api is None]
    assert undeclared == []


def command_parser(words: tuple[str, ...]) -> argparse.ArgumentParser:
    """The parser of `verstehen <words>`."""
    parser: argparse.ArgumentParser = build_parser()
    for word in words:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    return parser


def action_of(parser: argparse.ArgumentParser, dest: str) -> argparse.Action | None:
    """The parser's action storing into `dest`, if any."""
    return next((a for a in parser._actions if a.dest == dest), None)


@pytest.mark.every_method
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_api_signature_is_the_declaration(kind: RunKind[Any] | Command) -> None:
    """The API function takes exactly the options' fields, with their defaults, the
    positional ones by position."""
    assert kind.options is not None and kind.api is not None
    fields = {f.name: f for f in dataclasses.fields(kind.options) if f.init}
    signature = inspect.signature(kind.api).parameters
    assert set(signature) == set(fields)
    for name, parameter in signature.items():
        field = fields[name]
        want = (inspect.Parameter.empty if field.default is dataclasses.MISSING
                else field.default)
        assert parameter.default == want, name
        assert (parameter.kind is inspect.Parameter.KEYWORD_ONLY) == bool(field.kw_only), name


@pytest.mark.every_method
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_cli_flags_are_the_declaration(kind: RunKind[Any] | Command) -> None:
    """Each parameter with a flag of its own has it, with the declared default and help that
    states that default; a shared one's flag exists; an API-only one has none."""
    assert kind.options is not None
    parser = command_parser(kind.words)
    for field, meta in parameters(kind.options):
        action = action_of(parser, field.name)
        if meta.flag == API_ONLY:  # no flag of that name: the CLI cannot give it
            named = "--" + field.name.replace("_", "-")
            assert all(named not in a.option_strings for a in parser._actions), field.name
            continue
        assert action is not None, f"{kind.words}: no flag for {field.name}"
        if meta.flag == SHARED:
            continue
        assert flag_name(field, meta) in action.option_strings
        assert action.help == help_text(field, meta)
        shown = default_text(field, meta)
        if shown is not None:
            assert shown in (action.help or ""), field.name
        if field.default is not dataclasses.MISSING and not meta.many and not meta.required:
            assert action.default == field.default, field.name
        if meta.choices is not None:
            assert tuple(action.choices or ()) == meta.choices


def outside(bounds: Range) -> float:
    """A number the range refuses."""
    return bounds.low - 1 if bounds.low != float("-inf") else bounds.high + 1


@pytest.mark.every_method
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_ranges_refused_on_both_faces(kind: RunKind[Any] | Command,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A value outside a parameter's range is one UserError from Python and a parse error
    (exit 2) naming the flag from the CLI, before anything runs."""
    assert kind.options is not None
    ranged = [(f, m) for f, m in parameters(kind.options) if m.range is not None]
    for field, meta in ranged:
        assert meta.range is not None
        bad = outside(meta.range)
        value: Any = int(bad) if isinstance(field.default, int) else bad
        required = {f.name: _placeholder(f) for f, _ in parameters(kind.options)
                    if f.default is dataclasses.MISSING}
        with pytest.raises(UserError, match=field.name):
            kind.options(**{**required, field.name: value})
        if meta.flag in (SHARED, API_ONLY):
            continue
        with pytest.raises(SystemExit) as stopped:
            command_parser(kind.words).parse_args([flag_name(field, meta), str(value)])
        assert stopped.value.code == 2
        assert flag_name(field, meta) in capsys.readouterr().err


def _placeholder(field: dataclasses.Field[Any]) -> Any:
    """A value for a required field (a path or a name: the options never read it)."""
    return "x"


@pytest.mark.every_method
def test_options_base_adds_engine_settings_once() -> None:
    """The engine settings come from EngineSettings alone: an options class adds none of them."""
    base = {f.name for f in dataclasses.fields(Options)}
    for kind in KINDS:
        assert kind.options is not None
        own = {f.name for f, _ in parameters(kind.options)}
        assert not own & base, kind.words
