"""`verstehen export RUN...`: run folders of any method as Inspect logs (`--inspect`) and as
tables of records and results (`--format csv|parquet`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from verstehen.cli.flags import Parser
from verstehen.cli.parser import Subcommands
from verstehen.errors import UserError
from verstehen.export.exported import exported
from verstehen.export.inspect_log import write_inspect_logs
from verstehen.export.tables import write_tables

INSPECT_DIR = Path("logs")  # where `inspect view` looks when given no --log-dir
TABLES_DIR = Path("tables")


def add_parsers(commands: Subcommands, engine: Parser) -> None:
    """Add `export`."""
    export = commands.add_parser(
        "export", help="run folders as Inspect logs (--inspect) or CSV/Parquet tables "
        "(--format)", description="Write finished run folders (any method; an audit as one "
        "Inspect log per lens folder) as Inspect logs, which `inspect view` opens, and as "
        "tables of their records and results.")
    export.add_argument("runs", nargs="+", type=Path, metavar="RUN", help="run folders")
    export.add_argument("--inspect", action="store_true",
                        help="write an Inspect log per run (needs verstehen[inspect])")
    export.add_argument("--format", choices=("csv", "parquet"), default=None,
                        help="write RUN-records and RUN-results tables (parquet needs "
                             "verstehen[frames])")
    export.add_argument("-o", "--out", type=Path, default=None,
                        help=f"folder to write into (default ./{INSPECT_DIR} for --inspect, "
                             f"./{TABLES_DIR} for --format)")
    export.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    """Write the logs and tables asked for; print each file's path."""
    if not args.inspect and args.format is None:
        raise UserError("say what to write: --inspect (Inspect logs), --format csv or "
                        "--format parquet (tables), or both")
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise UserError(f"{args.out} is a file: give a folder to write into with --out")
    for run_dir in args.runs:
        if args.inspect:
            for path in write_inspect_logs(run_dir, args.out or INSPECT_DIR):
                print(path)
        if args.format is not None:
            out = args.out or TABLES_DIR
            out.mkdir(parents=True, exist_ok=True)
            for path in write_tables(exported(run_dir), out, args.format, Path(run_dir).name):
                print(path)
    return 0
