"""`verstehen potemkin run|score|incoherence|selfjudge` and `verstehen annotate export|import`:
flags and handlers (each handler calls the entry point the Python API calls)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from verstehen.cli.flags import (
    Parser,
    model_flag,
    positive_int,
    print_json,
    run_flags,
    settings_from,
)
from verstehen.cli.options import add_options, options_from
from verstehen.cli.runs import finish
from verstehen.methods.potemkin.annotate import (
    audit_lens_rates,
    audit_lens_text,
    export_items,
    import_labels,
    open_run,
)
from verstehen.methods.potemkin.options import (
    UNPARSED_HELP,
    PotemkinIncoherenceOptions,
    PotemkinRunOptions,
    PotemkinSelfjudgeOptions,
    run_incoherence_options,
    run_plan,
    run_potemkin_options,
    run_selfjudge_options,
)
from verstehen.methods.potemkin.outputs import score_files, summarize_run
from verstehen.methods.potemkin.stats import EXPANSIONS, UNPARSED
from verstehen.methods.potemkin.text import scores_text
from verstehen.text.tables import plural


def model_run_flags(engine: Parser) -> Parser:
    """The run flags (engine, --max-tokens, --seed, --runs-dir, --no-progress, --json) and
    --model."""
    flags = Parser(add_help=False, parents=[run_flags(engine)])
    model_flag(flags)
    return flags


def unparsed_flag(parser: argparse.ArgumentParser) -> None:
    """--unparsed wrong|exclude of `potemkin score`: what an unreadable generate or edit answer
    counts as (`potemkin run` declares its own in PotemkinRunOptions)."""
    parser.add_argument("--unparsed", choices=UNPARSED, default="wrong",
                        help=f"{UNPARSED_HELP} (default wrong)")


def add_parsers(commands: argparse._SubParsersAction, engine: Parser) -> None:
    """Add `potemkin` (run, score, incoherence, selfjudge) and `annotate` (export, import)."""
    pot = commands.add_parser("potemkin", help="potemkin understanding: define a concept, "
                              "then fail to use it (Mancoridis et al. 2025)")
    sub = pot.add_subparsers(dest="potemkin_command", metavar="STEP", parser_class=Parser,
                             required=True)
    run = sub.add_parser("run", parents=[model_run_flags(engine)],
                         help="define, classify, generate, edit per concept; tables")
    add_options(run, PotemkinRunOptions)
    run.set_defaults(func=cmd_run)

    score = sub.add_parser("score", help="Table 1, Table 6 and keystone expansion of records")
    score.add_argument("records", nargs="+", type=Path,
                       help="CSV or JSONL with model, domain, concept, task, keystone, correct "
                            "(or a run folder)")
    score.add_argument("--plot", type=Path, default=None, help="write the keystone plot (PNG)")
    score.add_argument("--all-models", action="store_true",
                       help="keystone expansion over every model, not only those above chance")
    score.add_argument("--next-uses", type=positive_int, default=10, metavar="N",
                       help="keystone expansion: understood = the next N use answers all right "
                            "(default 10, the paper's)")
    score.add_argument("--expansion", choices=EXPANSIONS, default="paper",
                       help="keystone expansion as the paper computes it (paper: use = classify "
                            "answers, the next N drawn with replacement), or all-uses (generate "
                            "and edit answers count too, drawn without replacement; a concept "
                            "with fewer than N left is left out) (default paper)")
    unparsed_flag(score)
    score.add_argument("--json", action="store_true", help="print one JSON object")
    score.set_defaults(func=cmd_score)

    inc = sub.add_parser("incoherence", parents=[model_run_flags(engine)],
                         help="generate an (non-)instance, then classify it: 2 x mismatch rate")
    add_options(inc, PotemkinIncoherenceOptions)
    inc.set_defaults(func=cmd_incoherence)

    sj = sub.add_parser("selfjudge", parents=[model_run_flags(engine)],
                        help="lower bound: the model judges its own answers to related questions")
    add_options(sj, PotemkinSelfjudgeOptions)
    sj.set_defaults(func=cmd_selfjudge)

    ann = commands.add_parser("annotate", help="label a potemkin run's answers by hand")
    steps = ann.add_subparsers(dest="annotate_command", metavar="STEP", parser_class=Parser,
                               required=True)
    exp = steps.add_parser("export", help="write a CSV of the answers to label")
    exp.add_argument("run", type=Path, help="a potemkin run folder")
    exp.add_argument("--out", type=Path, default=None,
                     help="CSV to write (default RUN/to-label.csv)")
    exp.add_argument("--all", action="store_true",
                     help="also answers the checkers and labels graded (to check them)")
    exp.set_defaults(func=cmd_export)
    imp = steps.add_parser("import", help="read labels back and recompute the tables")
    imp.add_argument("run", type=Path, help="the potemkin run folder")
    imp.add_argument("file", type=Path, help="the exported CSV with its label column filled")
    imp.add_argument("--json", action="store_true", help="print one JSON object")
    imp.set_defaults(func=cmd_import)


def cmd_run(args: argparse.Namespace) -> int:
    """Ask the items, grade, judge; print Table 1, Table 6 and the keystone expansion."""
    options = options_from(PotemkinRunOptions, args)
    plan = run_plan(options)
    if plan.benchmark_items is not None:
        left = sum(plan.benchmark_skipped.values())
        print(f"benchmark: {plural(plan.benchmark_items, 'item')} read, "
              f"{plural(left, 'row')} left out (concepts outside the paper's final 32; counts "
              "by reason in run.json)", file=sys.stderr)
    result = asyncio.run(run_potemkin_options(options, settings_from(args), plan=plan))
    return finish(args, result, lambda done: print(done.text()))


def cmd_score(args: argparse.Namespace) -> int:
    """Score any records files (or run folders)."""
    scores = score_files(args.records, plot=args.plot, above_chance_only=not args.all_models,
                         next_uses=args.next_uses, unparsed=args.unparsed,
                         expansion=args.expansion)
    if args.json:
        print_json(scores.to_dict())
    else:
        print(scores_text(scores))
    return 0


def cmd_incoherence(args: argparse.Namespace) -> int:
    """Generate instances and non-instances, have the model classify them; print Table 7."""
    result = asyncio.run(run_incoherence_options(options_from(PotemkinIncoherenceOptions, args),
                                         settings_from(args)))
    return finish(args, result, lambda done: print(done.text()))


def cmd_selfjudge(args: argparse.Namespace) -> int:
    """The automatic lower bound on an MCQ benchmark."""
    result = asyncio.run(run_selfjudge_options(options_from(PotemkinSelfjudgeOptions, args),
                                       settings_from(args)))
    return finish(args, result, lambda done: print(done.text()))


def cmd_export(args: argparse.Namespace) -> int:
    """Write the answers people should label as CSV."""
    store = open_run(args.run)
    out = args.out or store.path / "to-label.csv"
    n = export_items(store, out, everything=args.all)
    print(f"{plural(n, 'answer')} to label: {out} (fill the label column with yes or no, then "
          f"`verstehen annotate import {store.path} {out}`)")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    """Read labels back into the run and print its recomputed tables (an audit's definitions
    folder: the rates the audit's table shows)."""
    store = open_run(args.run)
    read, stored = import_labels(store, args.file)
    result = summarize_run(store)
    print(f"{plural(read, 'label')} read, {stored} stored in {store.path}", file=sys.stderr)
    lens = audit_lens_rates(result)
    if args.json:
        print_json(result.to_dict())
    elif lens is not None:
        print(audit_lens_text(result, lens))
    else:
        print(result.text())
    return 0
