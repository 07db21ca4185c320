"""What every method's typed result shares: a JSON form read off its fields.

A result is a frozen dataclass; `to_dict()` turns it (and the dataclasses, enums, paths and
tuples inside it) into JSON values, field by field, so `summary.json` is the result itself. A
field whose JSON key must differ from its Python name (`with` is a keyword, `run_dir` is
written `run`) names the key in its metadata: `field(metadata=json_key("with"))`; a field added
later is left out while at its default (`field(default=(), metadata=omitted_at_default())`).
`from_jsonable(ResultType, data)` reads a JSON form back into its typed result (a run
folder's summary.json into the result that wrote it).

Every result of a run-making command derives from `RunOutcome` (its run folder, wall seconds
and each model's calls and tokens) and is a `RunResult` (methods/contract.py), what the CLI's
`finish` needs.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, ClassVar, TypeVar, cast, overload

from verstehen.engine.store.safe_files import read_regular
from verstehen.engine.usage import ModelUsage
from verstehen.errors import UserError
from verstehen.textfiles import text_of

R = TypeVar("R")


def json_key(name: str) -> dict[str, str]:
    """Field metadata giving the field's key in the JSON form."""
    return {"json": name}


def omitted_at_default() -> dict[str, bool]:
    """Field metadata: the field is left out of the JSON form while it holds its default (a
    field added later: a summary.json written before it is read and written again unchanged)."""
    return {"omitted_at_default": True}


def _shown(value: Any, f: dataclasses.Field[Any]) -> bool:
    """False for a field left out of the JSON form: one at its default, so marked."""
    return not (f.metadata.get("omitted_at_default") and getattr(value, f.name) == f.default)


def to_jsonable(value: Any) -> Any:
    """`value` as JSON values: dataclasses by field, enums by value, paths as text."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.metadata.get("json", f.name): to_jsonable(getattr(value, f.name))
                for f in _json_fields(type(value)) if _shown(value, f)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"JSON keys are text, not {type(key).__name__} ({key!r})")
            out[key] = to_jsonable(item)
        return out
    if isinstance(value, (list, tuple)):
        return [to_jsonable(item) for item in value]
    return value


class JsonForm:
    """Mixin of the typed results: `to_dict()` is the JSON form (what summary.json holds)."""

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON-ready dict."""
        # JsonForm mixes into dataclasses only, whose JSON form is an object
        return cast(dict[str, Any], to_jsonable(self))


# the exit code of a command some of whose calls failed for good (resume it to retry them)
EXIT_CALL_FAILED = 1


@dataclass(frozen=True)
class RunOutcome(JsonForm):
    """What the result of every method's run shares: its run folder (written `run`), its wall
    seconds and each model's calls and tokens (both None when a folder was summarized again
    and its summary.json had not kept them: a Potemkin run after labels were imported, an
    audit drawn before its end).

    The fields are keyword-only, so a result's own fields keep their positions. A result made
    before this base names all its fields in `json_order`, the order its summary.json has
    always had (one left out is a TypeError at `to_dict()`); without it, these come first.
    Each result also has `failed_calls`, which makes it a `RunResult`: not a field here, as a
    certification run adds it up from its scopes and its summary.json has no such key.
    """

    json_order: ClassVar[tuple[str, ...]] = ()
    run_dir: Path = field(metadata=json_key("run"), kw_only=True)
    seconds: float | None = field(kw_only=True)
    usage: dict[str, ModelUsage] | None = field(kw_only=True)

    def to_frame(self) -> Any:
        """The questions this result rests on, one row each, as a pandas DataFrame (the
        `frames` extra; columns: `verstehen.export.frames`)."""
        from verstehen.export.frames import to_frame  # pandas only when asked for

        return to_frame(self)


@functools.cache
def _json_fields(kind: type) -> tuple[dataclasses.Field[Any], ...]:
    """A dataclass's fields in the order of its JSON form: a run result's `json_order`,
    otherwise as declared."""
    fields = dataclasses.fields(kind)
    order = kind.json_order if issubclass(kind, RunOutcome) else ()
    if not order:
        return fields
    by_name = {f.name: f for f in fields}
    if sorted(order) != sorted(by_name):
        raise TypeError(f"{kind.__name__}.json_order lists {sorted(order)}, not its fields "
                        f"{sorted(by_name)}")
    return tuple(by_name[name] for name in order)


@overload
def from_jsonable(kind: type[R], value: Any) -> R: ...
@overload
def from_jsonable(kind: Any, value: Any) -> Any: ...


def from_jsonable(kind: Any, value: Any) -> Any:
    """`value` (JSON values, as `to_jsonable` wrote them) read back as the type `kind`: a
    dataclass field by field, enums by value, paths from text, tuples, dicts and unions.

    Raises ValueError naming the first field that does not fit.
    """
    try:
        return _read(kind, value, "")
    except (TypeError, KeyError, ValueError) as exc:
        raise ValueError(f"not a {getattr(kind, '__name__', kind)}: {exc}") from None


def _read(kind: Any, value: Any, where: str) -> Any:
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        return _read_union(args, value, where)
    if value is None:
        raise ValueError(f"{where or 'the value'} is null")
    if dataclasses.is_dataclass(kind):
        return _read_dataclass(kind, value, where)
    if isinstance(kind, type) and issubclass(kind, Enum):
        return kind(value)
    if kind is Path:
        return Path(value)
    if kind is float:
        return float(value)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_read(args[0], v, f"{where}[{i}]") for i, v in enumerate(value))
        return tuple(_read(a, v, f"{where}[{i}]") for i, (a, v) in
                     enumerate(zip(args, value, strict=True)))
    if origin is list:
        return [_read(args[0], v, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin in (dict, Mapping):
        return {k: _read(args[1], v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(kind, type) and not isinstance(value, kind):
        raise ValueError(f"{where or 'the value'} is {type(value).__name__}, not {kind.__name__}")
    return value


def _read_union(args: tuple[Any, ...], value: Any, where: str) -> Any:
    if value is None:
        if type(None) in args:
            return None
        raise ValueError(f"{where or 'the value'} is null")
    options = [a for a in args if a is not type(None)]
    if isinstance(value, dict):  # of several dataclasses, the one whose fields the keys name
        fitting = [a for a in options if dataclasses.is_dataclass(a) and _keys(a) >= set(value)]
        if fitting:
            return _read(fitting[0], value, where)
    for option in options:
        try:
            return _read(option, value, where)
        except (TypeError, KeyError, ValueError):
            continue
    raise ValueError(f"{where or 'the value'} fits none of {options}")


def _keys(kind: Any) -> set[str]:  # kind: a dataclass type, as a type hint
    return {f.metadata.get("json", f.name) for f in dataclasses.fields(kind)}


def _read_dataclass(kind: Any, value: Mapping[str, Any], where: str) -> Any:
    hints = typing.get_type_hints(kind)
    given = {}
    for f in _json_fields(kind):
        key = f.metadata.get("json", f.name)
        if key in value:
            given[f.name] = _read(hints[f.name], value[key], f"{where}.{key}".lstrip("."))
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ValueError(f"{where}.{key}".lstrip(".") + " is missing")
    return kind(**given)


def load_result(kind: type[R], run_dir: Path) -> R:
    """The typed result a run folder's summary.json holds (UserError when it has none, or one
    an older version wrote)."""
    path = Path(run_dir) / "summary.json"
    if not path.is_file() and not path.is_symlink():
        raise UserError(f"{run_dir} has no summary.json: the run stopped before its end; rerun "
                        "its command (answers already given come from the cache)")
    try:
        # never through a link: a folder from elsewhere must not make a report read other files
        text = text_of(read_regular(path), path, "run summary")
        return from_jsonable(kind, json.loads(text))
    except (ValueError, json.JSONDecodeError) as exc:
        raise UserError(f"{path} does not hold a {kind.__name__} ({exc}): an older verstehen "
                        "wrote it, or it was edited; rerun the run's command to rewrite it "
                        "(answers come from the cache)") from None
