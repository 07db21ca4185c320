"""The schemas of one kind of run folder: run.json, a line of records.jsonl and summary.json,
each made from the types that write it (`from_types`), never by hand.

summary.json is the kind's result dataclass; a records.jsonl line is one of the kind's record
TypedDicts (its `RunKind.records`, or for a built-in kind declared before that field, the
table below), told apart by their `kind` key; run.json is `RunJson`, its command the kind's.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, Never

from verstehen.engine.store.files import SCHEMA_VERSION
from verstehen.methods import registry
from verstehen.methods.contract import RunKind
from verstehen.schema.from_types import Definitions, Schema, schema_of
from verstehen.schema.run_json import RunJson

File = Literal["run", "records", "summary"]
FILES: tuple[File, ...] = typing.get_args(File)
BASE_ID = "https://verstehen.dev/schema"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
TITLES = {"run": "run.json", "records": "a line of records.jsonl", "summary": "summary.json"}
# the record types of the built-in kinds, until each RunKind declares its own (`records=`)
def records_type(kind: RunKind[Any]) -> Any:
    """The type of a records.jsonl line of `kind`: a record TypedDict, a union of them, Never
    (it writes none), or None (undeclared: any JSON object)."""
    return kind.records


def schema_id(kind: str, file: str) -> str:
    """The `$id` of a schema: `https://verstehen.dev/schema/1/certify/summary.json`."""
    return f"{BASE_ID}/{SCHEMA_VERSION}/{kind}/{file}.json"


def kind_schema(kind: RunKind[Any], file: File) -> Schema:
    """The JSON Schema of one file of `kind`'s run folders."""
    defs = Definitions()
    if file == "run":
        body = schema_of(RunJson, defs)
        run_json = defs.schemas["RunJson"]
        run_json["properties"]["command"] = {"const": kind.kind}
        if kind.config is not None:
            run_json["properties"]["config"] = schema_of(kind.config, defs)
        run_json["properties"]["schema_version"]["description"] = (
            f"the version of these schemas the folder was written for; a folder without it "
            f"is of version 1 (this is version {SCHEMA_VERSION})")
    elif file == "records":
        body = _records(records_type(kind), defs)
    else:
        body = schema_of(kind.result, defs)
    return {"$schema": DRAFT, "$id": schema_id(kind.kind, file),
            "title": f"{kind.kind}: {TITLES[file]}", **body,
            **({"$defs": defs.schemas} if defs.schemas else {})}


def _records(declared: Any, defs: Definitions) -> Schema:
    """A records.jsonl line: one of the record types (their `kind` keys tell them apart)."""
    if declared is None:
        return {"type": "object", "description": "records of a kind that declares none"}
    if declared is Never:
        return {"not": {}, "description": "this kind of run folder writes no records"}
    union = typing.get_origin(declared) in (typing.Union, types.UnionType)
    members = typing.get_args(declared) if union else (declared,)
    if len(members) == 1:
        return schema_of(members[0], defs)
    return {"oneOf": [schema_of(member, defs) for member in members]}


def kind_schemas(kind: RunKind[Any]) -> dict[str, Schema]:
    """The three schemas of `kind`'s run folders, by file (run, records, summary)."""
    return {file: kind_schema(kind, file) for file in FILES}


def known_kind(name: str) -> RunKind[Any] | None:
    """The run kind of that name ("certify", "potemkin-run", or its words "potemkin run")."""
    return registry.run_kind(name.replace(" ", "-"))
