"""What run.json and records.jsonl may hold, and reading one line of records.jsonl
(no run folder needed: these are the checks `RunStore` applies)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

DROPPED_FILE = "records.dropped.jsonl"
# the keys of run.json and their types (create writes them all; a reader needs none but command)
# of the published run-folder schemas (verstehen.schema); a run.json without it is of 1
SCHEMA_VERSION = 1
RUN_KEYS: dict[str, type | tuple[type, ...]] = {
    "schema_version": int, "run_id": str, "command": str, "argv": list, "config": dict,
    "seed": (int, type(None)),
    "created": str, "versions": dict, "models": list, "status": str,
    "status_reason": (str, type(None)), "cache": (str, type(None)), "inputs": list,
    "model_notes": dict}
RUN_LIST_ITEMS: dict[str, type] = {"argv": str, "models": dict, "inputs": dict}


@dataclass(frozen=True)
class RecordLine:
    """One newline-ended line of records.jsonl: its record, or why it holds none."""

    number: int
    raw: bytes
    record: dict[str, Any] | None
    problem: str | None


def parse_line(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """(record, None) for a line holding a JSON object, else (None, what it holds)."""
    try:
        value = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    except json.JSONDecodeError as exc:
        return None, f"not JSON ({exc.msg})"
    if not isinstance(value, dict):
        return None, f"a JSON {json_kind(value)}, not an object"
    return value, None


def json_kind(value: object) -> str:
    """The JSON name of a parsed value's type."""
    kinds = ((bool, "boolean"), (int, "number"), (float, "number"), (str, "string"),
             (list, "list"), (dict, "object"))
    return "null" if value is None else next(n for t, n in kinds if isinstance(value, t))


def run_json_problem(info: dict[str, Any]) -> str | None:
    """Which key of run.json has a type `create` never writes there, if one has."""
    for key, kind in RUN_KEYS.items():
        if key not in info:
            continue
        value = info[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"{key!r} is a JSON {json_kind(value)}"
        item = RUN_LIST_ITEMS.get(key)
        # RUN_LIST_ITEMS names list keys only, and `value` passed their isinstance check
        if item is not None and not all(isinstance(v, item) for v in cast(list[Any], value)):
            return f"{key!r} holds an item that is not a JSON {json_kind(item())}"
    return None
