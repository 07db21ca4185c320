"""`verstehen report RUN...` and `verstehen runs`: flags and handlers."""

from __future__ import annotations

import argparse
from pathlib import Path

from verstehen.cli.flags import Parser, print_json
from verstehen.cli.parser import Subcommands
from verstehen.text.tables import table
from verstehen.text.terminal import cut, terminal_line
from verstehen.viewer.page import write_report
from verstehen.viewer.runs import list_runs

MODELS_CHARS = 200  # of a cell of `verstehen runs`' table (--json has every value whole)


def add_parsers(commands: Subcommands, engine: Parser) -> None:
    """Add `report` and `runs`."""
    report = commands.add_parser("report", help="one self-contained HTML page from run folders "
                                 "of any method (models side by side)")
    report.add_argument("runs", nargs="+", type=Path, metavar="RUN", help="run folders")
    report.add_argument("-o", "--out", type=Path, default=None,
                        help="HTML file to write (default RUN/report.html for one run folder, "
                             "./report.html for several)")
    report.set_defaults(func=cmd_report)

    runs = commands.add_parser("runs", help="past runs: id, command, models, status, findings")
    runs.add_argument("--runs-dir", type=Path, default=None,
                      help="parent of run folders (default $VERSTEHEN_RUNS_DIR or ./runs)")
    runs.add_argument("--json", action="store_true", help="print one JSON object")
    runs.set_defaults(func=cmd_runs)


def cmd_report(args: argparse.Namespace) -> int:
    """Write the report and print its path."""
    print(write_report(args.runs, args.out))
    return 0


def cmd_runs(args: argparse.Namespace) -> int:
    """List the run folders, oldest first."""
    lines = list_runs(args.runs_dir)
    if args.json:
        print_json({"runs": [{"id": r.run_id, "command": r.command, "models": list(r.models),
                              "status": r.status, "found": r.found, "path": str(r.path)}
                             for r in lines]})
        return 0
    if not lines:
        print("no runs yet")
        return 0
    # values from run folders, shown escaped; a huge model name is cut
    print(table(["run", "command", "models", "status", "found"],
                [[terminal_line(cell) for cell in (
                    r.run_id, r.command, cut(", ".join(r.models), MODELS_CHARS), r.status,
                    r.found)] for r in lines]))
    return 0
