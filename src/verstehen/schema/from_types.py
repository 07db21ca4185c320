"""JSON Schema (draft 2020-12) read off Python types, by the rules `verstehen.results.to_jsonable`
writes them: a dataclass as an object of its fields (named by their `json_key`), a TypedDict as
an object of its keys (NotRequired ones not required), enums by value, paths as text, tuples,
lists and sequences as arrays, `dict[str, X]` as objects, `X | None` as X or null. Named types
(dataclasses, TypedDicts) go to `$defs` once and are referred to with `$ref`.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import types
import typing
from enum import Enum
from pathlib import Path
from typing import Any

Schema = dict[str, Any]  # a JSON Schema document: free-form JSON by nature
# the JSON Schema type of each Python scalar type the results hold
SCALARS: dict[object, str] = {bool: "boolean", int: "integer", float: "number", str: "string",
                              Path: "string", type(None): "null"}
ARRAYS = (list, tuple, collections.abc.Sequence)
OBJECTS = (dict, collections.abc.Mapping)
OPTIONAL_MARKS = (typing.NotRequired, typing.Required, typing.Annotated)


class Definitions:
    """The `$defs` of one schema being made: each named type once, under its class name (its
    module's last part added when two share a name)."""

    def __init__(self) -> None:
        self.schemas: dict[str, Schema] = {}
        self._names: dict[type, str] = {}

    def ref(self, kind: type, body: typing.Callable[[], Schema]) -> Schema:
        """A `$ref` to `kind`'s definition, made by `body` at its first use."""
        if kind not in self._names:
            name = kind.__name__
            if name in self.schemas:
                name = f"{kind.__module__.rsplit('.', 1)[-1]}.{name}"
            self._names[kind] = name
            self.schemas[name] = {}  # taken before the body is made: a type may refer to itself
            self.schemas[name] = body()
        return {"$ref": f"#/$defs/{self._names[kind]}"}


def schema_of(kind: Any, defs: Definitions) -> Schema:
    """The JSON Schema of values of the type `kind` as `to_jsonable` writes them; TypeError
    for a type with no JSON form."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind is Any or kind is object:
        return {}
    if origin in OPTIONAL_MARKS:
        return schema_of(args[0], defs)
    if origin in (typing.Union, types.UnionType):
        return _union([schema_of(arg, defs) for arg in args])
    if origin is typing.Literal:
        return {"const": args[0]} if len(args) == 1 else {"enum": list(args)}
    if kind in SCALARS:
        return {"type": SCALARS[kind]}
    if isinstance(kind, type) and issubclass(kind, Enum):
        return {"enum": [member.value for member in kind]}
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        return defs.ref(kind, lambda: dataclass_schema(kind, defs))
    if typing.is_typeddict(kind):
        return defs.ref(kind, lambda: typeddict_schema(kind, defs))
    if kind in ARRAYS or origin in ARRAYS:
        return _array(origin or kind, args, defs)
    if kind in OBJECTS or origin in OBJECTS:
        if args and args[0] is not str:
            raise TypeError(f"JSON keys are text: no JSON Schema for {kind!r}")
        return {"type": "object", **({"additionalProperties": schema_of(args[1], defs)}
                                     if args else {})}
    raise TypeError(f"no JSON Schema for the type {kind!r}")


def dataclass_schema(kind: type, defs: Definitions) -> Schema:
    """A dataclass as an object of its fields, in the order of its JSON form; the fields with
    no default are required (as `from_jsonable` reads it)."""
    hints = typing.get_type_hints(kind)
    fields = {f.name: f for f in dataclasses.fields(kind)}
    order = getattr(kind, "json_order", ()) or tuple(fields)
    properties: Schema = {}
    required = []
    for name in order:
        f = fields[name]
        key = f.metadata.get("json", f.name)
        properties[key] = schema_of(hints[f.name], defs)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(key)
    return _object(kind, properties, required)


def typeddict_schema(kind: Any, defs: Definitions) -> Schema:
    """A TypedDict as an object of its keys; NotRequired keys (and those of a total=False one)
    are not required."""
    hints = typing.get_type_hints(kind, include_extras=True)
    properties: Schema = {}
    required = []
    for key, hint in hints.items():
        properties[key] = schema_of(hint, defs)
        mark = typing.get_origin(hint)
        if mark is typing.Required or (mark is not typing.NotRequired and kind.__total__):
            required.append(key)
    return _object(kind, properties, required)


def described(kind: type) -> Schema:
    """The title (the class's name) and description (its docstring, when it was written) of a
    named type."""
    doc = " ".join((kind.__doc__ or "").split())
    generated = doc.startswith(f"{kind.__name__}(")  # the one dataclasses makes
    return {"title": kind.__name__, **({"description": doc} if doc and not generated else {})}


def _object(kind: type, properties: Schema, required: list[str]) -> Schema:
    return {**described(kind), "type": "object", "properties": properties,
            **({"required": required} if required else {})}


def _array(origin: Any, args: tuple[Any, ...], defs: Definitions) -> Schema:
    if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
        return {"type": "array", "prefixItems": [schema_of(a, defs) for a in args],
                "minItems": len(args), "maxItems": len(args)}
    return {"type": "array", **({"items": schema_of(args[0], defs)} if args else {})}


def _union(options: list[Schema]) -> Schema:
    """One of several schemas: a list of types when each is a bare type (`["integer",
    "null"]`), otherwise anyOf (which a checker reads as "the one it fits")."""
    if all(set(o) == {"type"} and isinstance(o["type"], str) for o in options):
        return {"type": list(dict.fromkeys(o["type"] for o in options))}
    return {"anyOf": options}
