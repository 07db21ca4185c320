"""Checking run folders against their kind's schemas: one line per problem, naming the file,
the line of records.jsonl where it is one, and the JSONPath in it
(`RUN/summary.json: $.scopes[0].verdict.n: expected integer, got string`).

A folder's kind is run.json's command (as the kind reads it: an old audit folder is a
certification run); its schema version is run.json's `schema_version`, 1 when absent. An
audit's lens folders are checked with it. Files are read as the run store reads them: never
through a link.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from verstehen.engine.store.files import SCHEMA_VERSION, parse_line
from verstehen.engine.store.safe_files import exists_unfollowed, read_regular
from verstehen.errors import UserError
from verstehen.methods import registry
from verstehen.methods.contract import RunKind
from verstehen.schema.check import Checker, problems
from verstehen.schema.documents import kind_schema
from verstehen.textfiles import text_of

MOST_PER_FILE = 20  # problems listed per file; the rest are counted
UNFINISHED = ("running", "interrupted", "failed")  # statuses of a folder that may lack a summary


def check_run(run_dir: Path, *, records: bool = True) -> list[str]:
    """The problems of a run folder (and of the run folders it holds), one line each; none
    when every file fits its schema (run.json and summary.json only, without `records`)."""
    run_dir = Path(run_dir)
    info, problem = _read_json(run_dir / "run.json")
    if problem is not None:
        return [problem]
    if not isinstance(info, dict):
        return [f"{run_dir / 'run.json'}: $: expected object, got {type(info).__name__}"]
    version = info.get("schema_version", 1)
    if version != SCHEMA_VERSION:
        return [f"{run_dir / 'run.json'}: $.schema_version: {json.dumps(version)}; this "
                f"verstehen checks schema version {SCHEMA_VERSION} (a newer verstehen "
                "wrote it, or it was edited)"]
    kind = _kind(info)
    if kind is None:
        return [f"{run_dir / 'run.json'}: $.command: no installed method makes "
                f"{json.dumps(info.get('command'))} run folders"]
    found = _limited(run_dir / "run.json", (str(p) for p in problems(
        kind_schema(kind, "run"), info)))
    found += _records(run_dir, kind) if records else []
    found += _summary(run_dir, kind, info.get("status"))
    for inner in kind.inner_runs(run_dir) if kind.inner_runs else ():
        found += check_run(inner, records=records)
    return found


def require_fit(run_dir: Path) -> None:
    """Nothing when a run folder fits its kind's schemas; otherwise UserError in one line: its
    first problem, how many more, and the command that lists them all."""
    found = check_run(run_dir)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise UserError(f"{found[0]}{more}: the folder was edited or is not verstehen's; "
                        f"`verstehen schema --check {run_dir}` lists every problem")


def _kind(info: dict[str, Any]) -> RunKind[Any] | None:
    """The kind a folder is read as: its command's, or the one that kind draws it as."""
    kind = registry.run_kind(info.get("command"))
    if kind is not None and kind.drawn_as is not None:
        kind = registry.run_kind(kind.drawn_as(info)) or kind
    return kind


def _records(run_dir: Path, kind: RunKind[Any]) -> list[str]:
    path = run_dir / "records.jsonl"
    if not exists_unfollowed(path):
        return []  # a reader takes a folder without records.jsonl as one without records
    try:
        data = read_regular(path)
    except UserError as exc:  # a link, or not a regular file: it names the path
        return [str(exc)]
    except OSError as exc:
        return [f"{path}: cannot read ({exc.strerror or exc})"]
    checker = Checker(kind_schema(kind, "records"))

    def lines() -> Iterator[str]:
        for number, raw in enumerate(data.splitlines(keepends=True), 1):
            if not raw.endswith(b"\n") or not raw.strip():
                continue  # a blank line, or a last line cut short: readers skip both
            record, problem = parse_line(raw)
            if record is None:
                yield f"{number}: {problem}"
                continue
            for found in checker.problems(record):
                yield f"{number}: {found}"

    return _limited(path, lines(), separator=":")


def _summary(run_dir: Path, kind: RunKind[Any], status: object) -> list[str]:
    path = run_dir / "summary.json"
    if not exists_unfollowed(path):
        return [] if status in UNFINISHED else [
            f"{path}: missing, though run.json's status is {json.dumps(status)}"]
    summary, problem = _read_json(path)
    if problem is not None:
        return [problem]
    return _limited(path, (str(p) for p in problems(kind_schema(kind, "summary"), summary)))


def _read_json(path: Path) -> tuple[Any, str | None]:
    """(the parsed file, None), or (None, the line saying why it cannot be read)."""
    try:
        return json.loads(text_of(read_regular(path), path, path.name)), None
    except FileNotFoundError:
        return None, f"{path}: missing: is this a run folder?"
    except json.JSONDecodeError as exc:
        return None, f"{path}: not JSON ({exc})"
    except UserError as exc:  # not text, or a link: it names the path
        return None, str(exc)
    except OSError as exc:
        return None, f"{path}: cannot read ({exc.strerror or exc})"


def _limited(path: Path, lines: Iterator[str], separator: str = ": ") -> list[str]:
    """Up to MOST_PER_FILE lines `PATH: LINE`, then one counting the rest."""
    out: list[str] = []
    more = 0
    for line in lines:
        if len(out) < MOST_PER_FILE:
            out.append(f"{path}{separator}{line}")
        else:
            more += 1
    if more:
        out.append(f"{path}: {more} more problems")
    return out
