"""What every method's typed result shares: a JSON form read off its fields.

A result is a frozen dataclass; `to_dict()` turns it (and the dataclasses, enums, paths and
tuples inside it) into JSON values, field by field, so `summary.json` is the result itself. A
field whose JSON key must differ from its Python name (`with` is a keyword, `run_dir` is
written `run`) names the key in its metadata: `field(metadata=json_key("with"))`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any


def json_key(name: str) -> dict[str, str]:
    """Field metadata giving the field's key in the JSON form."""
    return {"json": name}


def to_jsonable(value: Any) -> Any:
    """`value` as JSON values: dataclasses by field, enums by value, paths as text."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.metadata.get("json", f.name): to_jsonable(getattr(value, f.name))
                for f in dataclasses.fields(value)}
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
        return to_jsonable(self)
