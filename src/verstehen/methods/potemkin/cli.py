"""`verstehen potemkin run|score|incoherence|selfjudge` and `verstehen annotate export|import`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from verstehen.cli.flags import Parser
from verstehen.errors import UserError

TASK_LIST = "define,classify,generate,edit"


def _run_flags(engine: argparse.ArgumentParser) -> Parser:
    from verstehen.cli.flags import run_flags
    from verstehen.models import DEFAULT_MODEL

    flags = Parser(add_help=False, parents=[run_flags(engine)])
    flags.add_argument("--model", default=DEFAULT_MODEL, help=f"default {DEFAULT_MODEL}")
    return flags


def add_parsers(commands: Any, engine: argparse.ArgumentParser) -> None:
    """Add `potemkin` (run, score, incoherence, selfjudge) and `annotate` (export, import)."""
    pot = commands.add_parser("potemkin", help="potemkin understanding: define a concept, "
                              "then fail to use it (Mancoridis et al. 2025)")
    pot.set_defaults(func=lambda args: cmd_potemkin(args, args.argv))
    sub = pot.add_subparsers(dest="potemkin_command", metavar="STEP", parser_class=Parser,
                             required=True)
    run = sub.add_parser("run", parents=[_run_flags(engine)],
                         help="define, classify, generate, edit per concept; tables")
    run.add_argument("--judge", default=None,
                     help="provider/model grading definitions and free-text answers")
    run.add_argument("--judge-base-url", default=None, help="server of the judge model")
    run.add_argument("--concepts", action="append", default=None,
                     help="keys, names or domains, comma-separated (default: the exactly "
                          "graded ones, or all 32 with --benchmark-dir)")
    run.add_argument("--tasks", default=TASK_LIST, help=f"default {TASK_LIST}")
    run.add_argument("--benchmark-dir", type=Path, default=None,
                     help="a checkout of github.com/MarinaMancoridis/PotemkinBenchmark")
    run.add_argument("--source", choices=["generated", "benchmark", "both"], default=None,
                     help="items from the generators, the benchmark or both (default: "
                          "benchmark when --benchmark-dir is given, else generated)")
    run.add_argument("--items-per-concept", type=int, default=None, metavar="N",
                     help="items per concept and task: generated (default 4), or the first N "
                          "of the benchmark's (default all)")

    score = sub.add_parser("score", help="Table 1, Table 6 and keystone expansion of records")
    score.add_argument("records", nargs="+", type=Path,
                       help="CSV or JSONL with model, domain, concept, task, keystone, correct "
                            "(or a run folder)")
    score.add_argument("--plot", type=Path, default=None, help="write the keystone plot (PNG)")
    score.add_argument("--all-models", action="store_true",
                       help="keystone expansion over every model, not only those above chance")
    score.add_argument("--next-uses", type=int, default=10, metavar="N",
                       help="keystone expansion: understood = the next N use answers all right "
                            "(default 10, the paper's)")
    score.add_argument("--json", action="store_true")

    inc = sub.add_parser("incoherence", parents=[_run_flags(engine)],
                         help="generate an (non-)instance, then classify it: 2 x mismatch rate")
    inc.add_argument("--concepts", action="append", default=None,
                     help="keys, names or domains (default all 32)")
    inc.add_argument("--per-concept", type=int, default=5,
                     help="instances and as many non-instances per concept (default 5)")
    inc.add_argument("--temperature", type=float, default=0.7,
                     help="of the generations, so examples differ (default 0.7)")

    sj = sub.add_parser("selfjudge", parents=[_run_flags(engine)],
                        help="lower bound: the model judges its own answers to related questions")
    sj.add_argument("--benchmark", required=True, help="mcq:PATH (MMLU, ARC or CSQA)")
    sj.add_argument("--questions", type=int, default=20, help="benchmark questions (default 20)")
    sj.add_argument("--subquestions", type=int, default=5,
                    help="related questions per correctly answered one (default 5)")

    ann = commands.add_parser("annotate", help="label a potemkin run's answers by hand")
    ann.set_defaults(func=lambda args: cmd_annotate(args, args.argv))
    steps = ann.add_subparsers(dest="annotate_command", metavar="STEP", parser_class=Parser,
                               required=True)
    exp = steps.add_parser("export", help="write a CSV of the answers to label")
    exp.add_argument("run", type=Path, help="a potemkin run folder")
    exp.add_argument("--out", type=Path, default=None,
                     help="CSV to write (default RUN/to-label.csv)")
    exp.add_argument("--all", action="store_true",
                     help="also answers the checkers and labels graded (to check them)")
    imp = steps.add_parser("import", help="read labels back and recompute the tables")
    imp.add_argument("run", type=Path, help="the potemkin run folder")
    imp.add_argument("file", type=Path, help="the exported CSV with its label column filled")
    imp.add_argument("--json", action="store_true")


def cmd_potemkin(args: argparse.Namespace, argv: list[str]) -> int:
    """Dispatch to the potemkin step."""
    from verstehen.methods.potemkin import show as steps

    return getattr(steps, f"potemkin_{args.potemkin_command}")(args, argv)


def cmd_annotate(args: argparse.Namespace, argv: list[str]) -> int:
    """Export answers to label, or import labels and recompute."""
    from verstehen.engine.store import RunStore
    from verstehen.methods.potemkin.annotate import export_items, import_labels

    store = RunStore.open(args.run)
    if store.info().get("command") != "potemkin-run":
        raise UserError(f"{args.run} is not a `potemkin run` folder")
    if args.annotate_command == "export":
        out = args.out or store.path / "to-label.csv"
        n = export_items(store, out, everything=args.all)
        print(f"{n} answers to label: {out} (fill the label column with yes or no, then "
              f"`verstehen annotate import {store.path} {out}`)")
        return 0
    read, stored = import_labels(store, args.file)
    from verstehen.methods.potemkin.run import summarize_run
    from verstehen.methods.potemkin.show import show_run

    summary = summarize_run(store, keystone_asked=store.info()["config"]["keystone_asked"])
    print(f"{read} labels read, {stored} stored in {store.path}", file=sys.stderr)
    show_run(summary, store.path, as_json=args.json)
    return 0
