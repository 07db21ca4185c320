"""The schemas made from the types: every run kind's three files, by the rules of
`to_jsonable` (each expected schema below written by hand from those rules, not read off the
generator)."""

from __future__ import annotations

import typing
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict

import pytest
from every_method import each_kind

from verstehen.engine.store.files import RUN_KEYS
from verstehen.engine.store.status import STATUSES
from verstehen.methods import registry
from verstehen.methods.contract import RunKind
from verstehen.results import json_key, to_jsonable
from verstehen.schema import SCHEMA_VERSION, RunJson, kind_schemas, records_type
from verstehen.schema.check import SUPPORTED, keywords, problems
from verstehen.schema.documents import kind_schema
from verstehen.schema.from_types import Definitions, schema_of


class Colour(Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True)
class Inner:
    """An inner part."""

    n: int
    ratio: float | None = None


@dataclass(frozen=True)
class Outer:
    where: Path = field(metadata=json_key("with"))
    colour: Colour
    parts: tuple[Inner, ...]
    pair: tuple[int, str]
    counts: dict[str, int]
    maybe: Inner | None


class Line(TypedDict):
    kind: Literal["line"]
    text: str | None
    extra: NotRequired[list[str]]


@each_kind()
def test_each_kind_has_three_schemas_with_a_versioned_id(kind: RunKind[Any]) -> None:
    schemas = kind_schemas(kind)
    assert list(schemas) == ["run", "records", "summary"]
    for file, schema in schemas.items():
        assert schema["$id"] == f"https://verstehen.dev/schema/1/{kind.kind}/{file}.json"
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        # the checker knows every keyword the generator emits
        assert keywords(schema) <= SUPPORTED, keywords(schema) - SUPPORTED
    # run.json's command is the kind's, its summary the result type's
    assert schemas["run"]["$defs"]["RunJson"]["properties"]["command"] == {"const": kind.kind}
    assert kind.result.__name__ in schemas["summary"]["$defs"]


@each_kind()
def test_each_kinds_records_schema_is_made_from_what_it_declares(kind: RunKind[Any]) -> None:
    """Declared record types give their schema; undeclared (None), any JSON object a line."""
    records = kind_schemas(kind)["records"]
    assert records["title"] == f"{kind.kind}: a line of records.jsonl"
    made = {"$ref", "oneOf", "not"} & set(records)  # one type, several, or none (Never)
    if records_type(kind) is None:
        assert records["type"] == "object" and not made
    else:
        assert len(made) == 1


def test_the_shipped_kinds_declare_their_records() -> None:
    """A house rule of the methods shipped with verstehen (a plugin's may leave them
    undeclared): each declares the type of its records.jsonl lines; an audit writes none."""
    for method in registry.methods():
        if registry.is_built_in(method):
            for kind in method.kinds:
                assert records_type(kind) is not None, kind.kind
    assert records_type(registry.run_kind("audit")) is typing.Never  # audits write none


def test_a_dataclass_follows_to_jsonable() -> None:
    defs = Definitions()
    assert schema_of(Outer, defs) == {"$ref": "#/$defs/Outer"}
    outer = defs.schemas["Outer"]
    # json_key renames, Path is text, enums by value, tuple[X, ...] an array of X, a fixed
    # tuple its items in order, dict[str, X] an object of X, X | None nullable
    assert outer["properties"] == {
        "with": {"type": "string"},
        "colour": {"enum": ["red", "blue"]},
        "parts": {"type": "array", "items": {"$ref": "#/$defs/Inner"}},
        "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
                 "minItems": 2, "maxItems": 2},
        "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
        "maybe": {"anyOf": [{"$ref": "#/$defs/Inner"}, {"type": "null"}]},
    }
    assert outer["required"] == ["with", "colour", "parts", "pair", "counts", "maybe"]
    assert "description" not in outer  # dataclasses' own generated docstring is no description
    inner = defs.schemas["Inner"]
    # a field with a default may be absent (from_jsonable reads it so)
    assert inner["required"] == ["n"]
    assert inner["properties"]["ratio"] == {"type": ["number", "null"]}
    assert inner["description"] == "An inner part."


def test_a_value_written_by_to_jsonable_fits_its_schema_and_a_wrong_one_does_not() -> None:
    defs = Definitions()
    schema = {**schema_of(Outer, defs), "$defs": defs.schemas}
    value = Outer(Path("/x"), Colour.BLUE, (Inner(1), Inner(2, 0.5)), (3, "a"), {"a": 1},
                  None)
    written = to_jsonable(value)
    assert problems(schema, written) == []
    written["parts"][1]["n"] = "2"
    written["colour"] = "green"
    assert [str(p) for p in problems(schema, written)] == [
        '$.colour: expected one of "red", "blue", got "green"',
        "$.parts[1].n: expected integer, got string"]


def test_a_typeddict_with_a_constant_kind_and_a_key_not_required() -> None:
    defs = Definitions()
    schema_of(Line, defs)
    line = defs.schemas["Line"]
    assert line["properties"]["kind"] == {"const": "line"}
    assert line["required"] == ["kind", "text"]  # `extra` is NotRequired


def test_a_type_with_no_json_form_is_refused() -> None:
    with pytest.raises(TypeError, match="no JSON Schema"):
        schema_of(set[int], Definitions())
    with pytest.raises(TypeError, match="JSON keys are text"):
        schema_of(dict[int, str], Definitions())


def test_run_json_is_declared_as_the_store_checks_it() -> None:
    # files.RUN_KEYS is the run store's own list of run.json's keys and their types
    keys = typing.get_type_hints(RunJson)
    assert set(keys) - {"schema_version"} == set(RUN_KEYS) - {"schema_version"}
    schema = kind_schema(registry.run_kind("certify"), "run")
    properties = schema["$defs"]["RunJson"]["properties"]
    for key, kind in RUN_KEYS.items():
        if key == "schema_version":
            continue  # a constant (below)
        admitted = {kind} if isinstance(kind, type) else set(kind)
        named = {"array": list, "object": dict, "string": str, "integer": int,
                 "null": type(None)}
        # command and status are constant text (checked below); config the kind's own type
        found = properties[key]
        if "$ref" in found:
            found = schema["$defs"][found["$ref"].removeprefix("#/$defs/")]
        declared = found.get("type", "string")
        declared = [declared] if isinstance(declared, str) else declared
        assert {named[t] for t in declared} == admitted, key
    assert properties["command"] == {"const": "certify"}
    assert properties["status"]["enum"] == list(STATUSES)
    assert properties["schema_version"]["const"] == SCHEMA_VERSION == 1
    assert schema["$defs"]["RunJson"]["required"] == ["command", "config"]


def test_a_registered_method_s_kind_has_schemas_too() -> None:
    from toy_method.method import METHOD as ECHO

    registry.register(ECHO)
    try:
        schemas = kind_schemas(registry.run_kind("echo"))
    finally:
        registry.unregister(ECHO)
    echo = schemas["summary"]["$defs"]["EchoResult"]
    # RunOutcome's fields first (EchoResult names no json_order), then its own
    assert list(echo["properties"]) == ["run", "seconds", "usage", "model", "prompts",
                                        "identical", "share", "failed_calls"]
    assert echo["properties"]["share"] == {"type": "number"}
    # a kind that declares no record types: any JSON object a line
    assert schemas["records"]["type"] == "object" and "oneOf" not in schemas["records"]
