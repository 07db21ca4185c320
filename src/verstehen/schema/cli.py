"""`verstehen schema`: the JSON Schemas of run folders, printed (`schema KIND [--file F]`) or
written (`-o DIR`), and run folders checked against them (`schema --check RUN...`)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from verstehen.cli.flags import EXIT_USER_ERROR, Parser
from verstehen.cli.parser import Subcommands
from verstehen.engine.store.safe_files import write_file
from verstehen.errors import UserError
from verstehen.methods import registry
from verstehen.methods.contract import RunKind
from verstehen.schema.documents import BASE_ID, FILES, File, kind_schema, known_kind, schema_id
from verstehen.schema.folders import check_run
from verstehen.text.terminal import terminal_line


def add_parsers(commands: Subcommands, engine: Parser) -> None:
    """Add `schema`."""
    schema = commands.add_parser(
        "schema", help="JSON Schemas of run folders; check folders against them (--check)",
        description="Print the JSON Schema (draft 2020-12) of one file of a kind of run "
        "folder (run.json, a line of records.jsonl, summary.json), write them all with -o, "
        "or check run folders against their kind's schemas with --check (one line per "
        f"problem, exit {EXIT_USER_ERROR} when there is one). The schemas are made from the "
        "typed results and records, and versioned in their $id "
        f"({schema_id('KIND', 'FILE')}).")
    schema.add_argument("names", nargs="*", metavar="KIND|RUN",
                        help="a run kind (certify, potemkin-run, ...); with --check, run "
                             "folders")
    schema.add_argument("--file", choices=FILES, default=None,
                        help="which file's schema: run (run.json), records (a line of "
                             "records.jsonl) or summary (summary.json, the default)")
    schema.add_argument("-o", "--out", type=Path, default=None,
                        help="write the schemas (of KIND, or of every kind) into this folder, "
                             "as <version>/<kind>/<file>.json, the path of their $id")
    schema.add_argument("--check", action="store_true",
                        help="check the run folders named (an audit with its lens folders)")
    schema.set_defaults(func=cmd_schema)


def cmd_schema(args: argparse.Namespace) -> int:
    """Check folders, write schemas, or print one."""
    if args.check:
        if not args.names or args.out is not None or args.file is not None:
            raise UserError("schema --check takes run folders only: verstehen schema --check "
                            "RUN...")
        return check_folders([Path(name) for name in args.names])
    if len(args.names) > 1:
        raise UserError(f"name one run kind, not {len(args.names)} (or --check RUN... to check "
                        "run folders)")
    kinds = [_kind(args.names[0])] if args.names else list(registry.run_kinds())
    if args.out is not None:
        for path in write_schemas(kinds, args.out, [args.file] if args.file else FILES):
            print(path)
        return 0
    if not args.names:
        raise UserError(f"name a run kind to print its schema ({_kinds()}), or write them all "
                        "with -o DIR")
    print(json.dumps(kind_schema(kinds[0], cast(File, args.file or "summary")), indent=2,
                     ensure_ascii=False))
    return 0


def check_folders(runs: list[Path]) -> int:
    """Print each problem of the folders on a line (`RUN: ok` for one without);
    EXIT_USER_ERROR when any has one."""
    failed = False
    for run in runs:
        found = check_run(run)
        for line in found:
            print(terminal_line(line))  # values of the folder, escaped
        if not found:
            print(f"{run}: ok")
        failed = failed or bool(found)
    return EXIT_USER_ERROR if failed else 0


def write_schemas(kinds: list[RunKind[Any]], out: Path, files: Sequence[File]) -> list[Path]:
    """Write each kind's schemas under `out` at the path of their `$id`; the paths written."""
    if out.exists() and not out.is_dir():
        raise UserError(f"{out} is a file: give a folder to write the schemas into with -o")
    written = []
    for kind in kinds:
        for file in files:
            schema = kind_schema(kind, file)
            path = out / schema["$id"].removeprefix(BASE_ID + "/")
            path.parent.mkdir(parents=True, exist_ok=True)
            write_file(path, json.dumps(schema, indent=2, ensure_ascii=False) + "\n",
                       "remove it, or pass -o with another folder")
            written.append(path)
    return written


def _kind(name: str) -> RunKind[Any]:
    kind = known_kind(name)
    if kind is None:
        raise UserError(f"no kind of run folder is called {name!r}: give one of {_kinds()}")
    return kind


def _kinds() -> str:
    return ", ".join(kind.kind for kind in registry.run_kinds())
