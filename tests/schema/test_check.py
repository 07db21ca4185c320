"""The checker's subset of JSON Schema, on schemas written here by hand; each expected verdict
follows draft 2020-12's definitions (an integer is a number, 2.0 an integer, true no number)."""

from __future__ import annotations

import pytest

from verstehen.schema.check import problems


def said(schema: dict, value: object) -> list[str]:
    return [str(p) for p in problems(schema, value)]


def test_types_as_json_defines_them() -> None:
    assert said({"type": "number"}, 3) == []
    assert said({"type": "integer"}, 2.0) == []
    assert said({"type": "integer"}, 2.5) == ["$: expected integer, got number"]
    assert said({"type": "integer"}, True) == ["$: expected integer, got boolean"]
    assert said({"type": ["string", "null"]}, None) == []
    assert said({"type": ["string", "null"]}, 1) == ["$: expected string or null, got integer"]


def test_constants_and_enums_tell_true_from_one() -> None:
    assert said({"const": 1}, True) == ["$: expected 1, got true"]
    assert said({"const": "a"}, "a") == []
    assert said({"enum": ["a", "b"]}, "c") == ['$: expected one of "a", "b", got "c"']


def test_objects_name_the_key_where_the_problem_is() -> None:
    schema = {"type": "object", "properties": {"a b": {"type": "integer"},
                                               "n": {"type": "integer"}},
              "required": ["n"], "additionalProperties": {"type": "string"}}
    assert said(schema, {"a b": "x", "free": 1}) == [
        "$.n: required key missing", '$["a b"]: expected integer, got string',
        "$.free: expected string, got integer"]
    assert said({**schema, "additionalProperties": False}, {"n": 1, "z": 0}) == [
        "$.z: key not allowed here"]


def test_arrays_by_position_and_length() -> None:
    pair = {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
            "minItems": 2, "maxItems": 2}
    assert said(pair, [1, "a"]) == []
    assert said(pair, [1]) == ["$: expected at least 2 items, got 1"]
    assert said(pair, ["a", "b", "c"]) == ["$: expected at most 2 items, got 3",
                                           "$[0]: expected integer, got string"]
    assert said({"type": "array", "items": {"type": "boolean"}}, [True, 0]) == [
        "$[1]: expected boolean, got integer"]


TWO_KINDS = {"oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}], "$defs": {
    "A": {"type": "object", "properties": {"kind": {"const": "a"}, "n": {"type": "integer"}},
          "required": ["kind", "n"]},
    "B": {"type": "object", "properties": {"kind": {"enum": ["b", "c"]}}, "required": ["kind"]},
}}


def test_one_of_several_kinds_is_checked_as_the_kind_it_names() -> None:
    assert said(TWO_KINDS, {"kind": "a", "n": 1}) == []
    assert said(TWO_KINDS, {"kind": "c"}) == []
    # its `kind` says it is an A: an A's problems, not "fits none"
    assert said(TWO_KINDS, {"kind": "a", "n": "1"}) == ["$.n: expected integer, got string"]
    assert said(TWO_KINDS, {"kind": "d"}) == ['$.kind: expected one of "a", "b", "c", got "d"']
    assert said(TWO_KINDS, {"n": 1}) == ["$.kind: required key missing"]
    # both fit: oneOf wants exactly one
    both = {"oneOf": [{"type": "integer"}, {"type": "number"}]}
    assert said(both, 1) == ["$: fits 2 of the alternatives, not exactly one"]
    assert said({"anyOf": both["oneOf"]}, 1) == []


def test_of_a_nullable_object_the_object_is_checked() -> None:
    schema = {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}], "$defs": TWO_KINDS["$defs"]}
    assert said(schema, None) == []
    assert said(schema, {"kind": "a"}) == ["$.n: required key missing"]
    assert said(schema, 3) == ["$: expected null or object, got integer"]


def test_not_and_boolean_schemas() -> None:
    assert said({"not": {}, "description": "no records here"}, {}) == ["$: no records here"]
    assert said({"type": "object", "properties": {"x": False}}, {"x": 1}) == [
        "$.x: no value is allowed here"]
    assert said({"type": "object", "properties": {"x": True}}, {"x": 1}) == []


def test_a_keyword_outside_the_subset_is_refused_not_passed_over() -> None:
    with pytest.raises(ValueError, match="minimum"):
        problems({"type": "integer", "minimum": 0}, 3)
    with pytest.raises(ValueError, match="only #/\\$defs/NAME"):
        problems({"$ref": "https://example.org/x.json"}, 3)
