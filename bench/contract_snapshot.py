"""What a user sees of every method, written to files, to compare two revisions byte for byte:
the `--help` of every command, `verstehen runs` of a set of run folders, the report page of
each folder, and each folder's summary.json (its paths, times and usage left out).

    # the run folders, made once by the older revision (scripted models, no embedded model)
    PYTHONPATH=OLD/src python bench/contract_snapshot.py /tmp/old /tmp/runs --make --tests OLD/tests
    # the same folders read by each revision, then compared
    PYTHONPATH=NEW/src python bench/contract_snapshot.py /tmp/new /tmp/runs
    diff -r /tmp/old /tmp/new && echo identical
    # summary.json as each revision writes it: make the folders again with the newer one
    PYTHONPATH=NEW/src python bench/contract_snapshot.py /tmp/new-made /tmp/runs-new --make
    diff /tmp/old/summaries.json /tmp/new-made/summaries.json

The run folders come from the test suite's examples (`tests/export/made_runs.py` of `--tests`,
the revision's own).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
VOLATILE = {"seconds", "run", "usage", "run_dir"}  # differ between two makings of a folder


def helps(parser: argparse.ArgumentParser, words: list[str]) -> Iterator[tuple[list[str], str]]:
    """(command words, its --help) for the parser and every subcommand below it."""
    yield words, parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from helps(sub, [*words, name])


def steady(value: Any) -> Any:
    """A summary without what differs between two makings of the same run."""
    if isinstance(value, dict):
        return {k: steady(v) for k, v in value.items() if k not in VOLATILE
                and not str(k).endswith(("_png", "_csv"))}
    if isinstance(value, list):
        return [steady(v) for v in value]
    return value


def main() -> None:
    """Write help.txt, runs.txt, one report page per folder and summaries.json to OUT."""
    os.environ["COLUMNS"] = "100"  # argparse wraps help to the terminal's width
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("out", type=Path)
    cli.add_argument("runs", type=Path, help="where the run folders are (or are made)")
    cli.add_argument("--make", action="store_true", help="make the run folders first")
    cli.add_argument("--tests", type=Path, default=HERE.parent / "tests",
                     help="the tests folder whose export/made_runs.py makes them")
    args = cli.parse_args()
    from verstehen.cli.main import build_parser
    from verstehen.viewer.page import build_page

    args.out.mkdir(parents=True, exist_ok=True)
    text = "".join(f"=== {' '.join(w)}\n{h}\n" for w, h in helps(build_parser([]), []))
    (args.out / "help.txt").write_text(text)
    if args.make:
        sys.path[:0] = [str(args.tests)]
        from export import made_runs

        made = made_runs._make(args.runs)
        (args.runs / "made.json").write_text(json.dumps({k: str(v) for k, v in made.items()}))
    folders = json.loads((args.runs / "made.json").read_text())
    summaries = {kind: steady(json.loads((Path(p) / "summary.json").read_text()))
                 for kind, p in sorted(folders.items())}
    (args.out / "summaries.json").write_text(json.dumps(summaries, indent=1, sort_keys=True))
    for kind, path in sorted(folders.items()):
        (args.out / f"report-{kind}.html").write_text(build_page([Path(path)]).html())
    listed = subprocess.run([sys.executable, "-m", "verstehen", "runs", "--runs-dir",
                             str(args.runs / "runs")], capture_output=True, text=True,
                            check=False)
    (args.out / "runs.txt").write_text(listed.stdout + listed.stderr)
    print(f"{len(text.splitlines())} lines of --help, {len(folders)} run folders -> {args.out}")


if __name__ == "__main__":
    main()
