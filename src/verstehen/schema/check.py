"""A small JSON Schema checker for the subset `from_types` makes: type (one or a list), const,
enum, properties, required, additionalProperties, items, prefixItems, minItems, maxItems,
anyOf, oneOf, not, and `$ref` into the schema's own `$defs`. A keyword outside the subset is a
ValueError, so that the generator cannot emit one this checker would pass over.

Each problem names where in the value it is, as a JSONPath (`$.scopes[0].verdict.n`). Of
several alternatives (anyOf, oneOf) a value fits none of, the problems shown are those of the
one it was meant to be: the one its type admits, or whose constant key (`kind`) it has.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from verstehen.schema.from_types import Schema

ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "title", "description"})
SUPPORTED = ANNOTATIONS | {"$ref", "type", "const", "enum", "properties", "required",
                           "additionalProperties", "items", "prefixItems", "minItems",
                           "maxItems", "anyOf", "oneOf", "not"}
JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


Where = tuple[str | int, ...]  # the keys and indexes leading to a value


@dataclass(frozen=True)
class Problem:
    """Where a value departs from its schema (the keys and indexes leading to it) and how."""

    where: Where
    message: str

    @property
    def path(self) -> str:
        """Where, as a JSONPath (`$.scopes[0].verdict.n`)."""
        return "$" + "".join(f"[{part}]" if isinstance(part, int) else
                             f".{part}" if PLAIN_KEY.fullmatch(part) else
                             f"[{json.dumps(part, ensure_ascii=False)}]" for part in self.where)

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def problems(schema: Schema | bool, value: Any) -> list[Problem]:
    """What in `value` (parsed JSON) its schema does not allow; none when it fits."""
    return Checker(schema).problems(value)


def keywords(schema: Any) -> set[str]:
    """Every keyword used in a schema, its `$defs` included (to compare with SUPPORTED)."""
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for key, sub in schema.items():
        if key in ("properties", "$defs"):
            subs = list(sub.values())
        elif key in ("anyOf", "oneOf", "prefixItems"):
            subs = list(sub)
        elif key in ("items", "additionalProperties", "not"):
            subs = [sub]
        else:
            subs = []
        for item in subs:
            found |= keywords(item)
    return found


def json_type(value: Any) -> str:
    """The JSON type of a parsed value (an integral number is "integer")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def fits_type(value: Any, name: str) -> bool:
    """True when `value` is of the JSON type `name` (an integer is a number; 2.0 an integer)."""
    actual = json_type(value)
    if name == "integer" and actual == "number":
        return float(value).is_integer()
    return actual == name or (name == "number" and actual == "integer")


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


class Checker:
    """One schema, to check many values against (each of records.jsonl's lines)."""

    def __init__(self, schema: Schema | bool) -> None:
        self.schema = schema
        self.root = schema if isinstance(schema, dict) else {}
        self.known: set[int] = set()  # ids of the schemas whose keywords were checked
        self.fixed: dict[int, dict[str, list[Any]]] = {}  # their constant keys, by id

    def problems(self, value: Any) -> list[Problem]:
        """What in `value` (parsed JSON) the schema does not allow; none when it fits."""
        return self.check(self.schema, value, ())

    def resolve(self, schema: Schema | bool) -> Schema | bool:
        """The schema a `$ref` (to this schema's `$defs`) points at, through any chain."""
        seen = 0
        while isinstance(schema, dict) and "$ref" in schema:
            ref = schema["$ref"]
            if not ref.startswith("#/$defs/") or seen > 50:
                raise ValueError(f"unsupported $ref {ref!r}: only #/$defs/NAME")
            target = self.root.get("$defs", {}).get(ref.removeprefix("#/$defs/"))
            if target is None:
                raise ValueError(f"$ref {ref!r} names no definition")
            schema, seen = target, seen + 1
        return schema

    def check(self, schema: Schema | bool, value: Any, path: Where) -> list[Problem]:
        """What in `value`, found at `path`, the (sub)schema does not allow."""
        schema = self.resolve(schema)
        if schema is True:
            return []
        if schema is False:
            return [Problem(path, "no value is allowed here")]
        if id(schema) not in self.known:
            if unknown := set(schema) - SUPPORTED:
                raise ValueError(f"the checker does not know the keywords {sorted(unknown)}")
            self.known.add(id(schema))
        if "type" in schema:
            names = [schema["type"]] if isinstance(schema["type"], str) else schema["type"]
            if not any(fits_type(value, name) for name in names):
                return [Problem(path, f"expected {' or '.join(names)}, got {json_type(value)}")]
        if "const" in schema and not _same(value, schema["const"]):
            return [Problem(path, f"expected {_shown(schema['const'])}, got {_shown(value)}")]
        if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
            listed = ", ".join(_shown(option) for option in schema["enum"])
            return [Problem(path, f"expected one of {listed}, got {_shown(value)}")]
        if "not" in schema and not self.check(schema["not"], value, path):
            return [Problem(path, schema.get("description") or "not allowed here")]
        found: list[Problem] = []
        if isinstance(value, dict):
            found += self._object(schema, value, path)
        if isinstance(value, list):
            found += self._array(schema, value, path)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                found += self._alternatives(schema[key], value, path, exactly_one=key == "oneOf")
        return found

    def _object(self, schema: Schema, value: dict[str, Any], path: Where) -> list[Problem]:
        found = [Problem((*path, key), "required key missing")
                 for key in schema.get("required", ()) if key not in value]
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                found += self.check(properties[key], item, (*path, key))
            elif extra is False:
                found.append(Problem((*path, key), "key not allowed here"))
            else:
                found += self.check(extra, item, (*path, key))
        return found

    def _array(self, schema: Schema, value: list[Any], path: Where) -> list[Problem]:
        found = []
        if len(value) < schema.get("minItems", 0):
            found.append(Problem(path, f"expected at least {schema['minItems']} items, got "
                                       f"{len(value)}"))
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            found.append(Problem(path, f"expected at most {schema['maxItems']} items, got "
                                       f"{len(value)}"))
        leading = schema.get("prefixItems", [])
        for index, item in enumerate(value):
            sub = leading[index] if index < len(leading) else schema.get("items", True)
            found += self.check(sub, item, (*path, index))
        return found

    def _alternatives(self, options: list[Schema], value: Any, path: Where,
                      exactly_one: bool) -> list[Problem]:
        # an object schema whose constant key (`kind`) the value contradicts cannot fit it
        fitting = [o for o in options if not self._contradicts(o, value)
                   and not self.check(o, value, path)]
        if len(fitting) == 1 or (fitting and not exactly_one):
            return []
        if fitting:
            return [Problem(path, f"fits {len(fitting)} of the alternatives, not exactly one")]
        meant = [o for o in options
                 if any(fits_type(value, name) for name in self._types(o))]
        if isinstance(value, dict) and len(meant) > 1:
            return self._by_constant(meant, value, path)
        if len(meant) == 1:
            return self.check(meant[0], value, path)
        names = [t for t in JSON_TYPES if any(t in self._types(o) for o in options)]
        return [Problem(path, f"expected {' or '.join(names)}, got {json_type(value)}")]

    def _by_constant(self, options: list[Schema], value: dict[str, Any],
                     path: Where) -> list[Problem]:
        """Of several object schemas, the one whose constant key (`kind`) the value has."""
        constants = [self._constants(o) for o in options]
        shared = set.intersection(*(set(c) for c in constants))
        for key in sorted(shared):
            if key not in value:
                return [Problem((*path, key), "required key missing")]
            matching = [o for o, c in zip(options, constants, strict=True)
                        if any(_same(value[key], v) for v in c[key])]
            if len(matching) == 1:
                return self.check(matching[0], value, path)
            if not matching:
                listed = ", ".join(_shown(v) for c in constants for v in c[key])
                return [Problem((*path, key),
                                f"expected one of {listed}, got {_shown(value[key])}")]
        return [Problem(path, "fits none of the alternatives: "
                              + "; ".join(str(p) for p in self.check(options[0], value, path)))]

    def _contradicts(self, schema: Schema | bool, value: Any) -> bool:
        """True when `value` is an object whose constant key differs from `schema`'s."""
        return isinstance(value, dict) and any(
            key in value and not any(_same(value[key], v) for v in fixed)
            for key, fixed in self._constants(schema).items())

    def _constants(self, schema: Schema | bool) -> dict[str, list[Any]]:
        """The keys of an object schema whose values are fixed (const or enum), with them."""
        schema = self.resolve(schema)
        if not isinstance(schema, dict):
            return {}
        if id(schema) in self.fixed:
            return self.fixed[id(schema)]
        out = self.fixed[id(schema)] = {}
        for key, sub in schema.get("properties", {}).items():
            sub = self.resolve(sub)
            if isinstance(sub, dict) and "const" in sub:
                out[key] = [sub["const"]]
            elif isinstance(sub, dict) and "enum" in sub:
                out[key] = list(sub["enum"])
        return out

    def _types(self, schema: Schema | bool) -> set[str]:
        """The JSON types a schema may admit (all, when it does not say)."""
        schema = self.resolve(schema)
        if not isinstance(schema, dict):
            return set(JSON_TYPES) if schema else set()
        if "type" in schema:
            return {schema["type"]} if isinstance(schema["type"], str) else set(schema["type"])
        fixed = [schema["const"]] if "const" in schema else schema.get("enum")
        if fixed is not None:
            return {json_type(v) for v in fixed}
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return set().union(*(self._types(o) for o in schema[key]))
        return set(JSON_TYPES)


def _same(value: Any, expected: Any) -> bool:
    """JSON equality of scalars: true is not 1, and 1 is 1.0."""
    if isinstance(value, bool) or isinstance(expected, bool):
        return value is expected
    return bool(value == expected)
