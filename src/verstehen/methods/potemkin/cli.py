"""`verstehen potemkin run|score|incoherence|selfjudge` and `verstehen annotate export|import`:
flags and handlers (each handler calls the entry point the Python API calls)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from verstehen.cli.flags import (
    Parser,
    base_url,
    model_flag,
    model_name,
    positive_int,
    print_json,
    run_flags,
    settings_from,
    temperature,
)
from verstehen.cli.runs import finish
from verstehen.methods.potemkin.annotate import (
    audit_lens_rates,
    audit_lens_text,
    export_items,
    import_labels,
    open_run,
)
from verstehen.methods.potemkin.incoherence import plan_incoherence, run_incoherence
from verstehen.methods.potemkin.items import ALL_TASKS
from verstehen.methods.potemkin.outputs import score_files, summarize_run
from verstehen.methods.potemkin.report import scores_text
from verstehen.methods.potemkin.run import SOURCES, plan_run, run_potemkin
from verstehen.methods.potemkin.selfjudge import CONCEPT_STEPS, plan_selfjudge, run_selfjudge
from verstehen.methods.potemkin.stats import EXPANSIONS, UNPARSED
from verstehen.report.tables import plural

TASK_LIST = ",".join(ALL_TASKS)


def model_run_flags(engine: Parser) -> Parser:
    """The run flags (engine, --max-tokens, --seed, --runs-dir, --no-progress, --json) and
    --model."""
    flags = Parser(add_help=False, parents=[run_flags(engine)])
    model_flag(flags)
    return flags


def unparsed_flag(parser: argparse.ArgumentParser) -> None:
    """--unparsed wrong|exclude: what an unreadable generate or edit answer counts as."""
    parser.add_argument("--unparsed", choices=UNPARSED, default="wrong",
                        help="an unreadable generate or edit answer (no matrix, no poem) counts "
                             "as wrong, as in the paper, or is left out of the rates (exclude); "
                             "unreadable classify answers are always left out (default wrong)")


def add_parsers(commands: argparse._SubParsersAction, engine: Parser) -> None:
    """Add `potemkin` (run, score, incoherence, selfjudge) and `annotate` (export, import)."""
    pot = commands.add_parser("potemkin", help="potemkin understanding: define a concept, "
                              "then fail to use it (Mancoridis et al. 2025)")
    sub = pot.add_subparsers(dest="potemkin_command", metavar="STEP", parser_class=Parser,
                             required=True)
    run = sub.add_parser("run", parents=[model_run_flags(engine)],
                         help="define, classify, generate, edit per concept; tables")
    run.add_argument("--judge", type=model_name, default=None,
                     help="provider/model grading definitions and free-text answers")
    run.add_argument("--judge-base-url", type=base_url, default=None,
                     help="server of the judge model")
    run.add_argument("--concepts", action="append", default=None,
                     help="keys, names or domains, comma-separated (default: the exactly "
                          "graded ones, or all 32 with --benchmark-dir)")
    run.add_argument("--tasks", default=TASK_LIST, help=f"default {TASK_LIST}")
    run.add_argument("--benchmark-dir", type=Path, default=None,
                     help="a checkout of github.com/MarinaMancoridis/PotemkinBenchmark")
    run.add_argument("--source", choices=SOURCES, default=None,
                     help="items from the generators, the benchmark or both (default: "
                          "benchmark when --benchmark-dir is given, else generated)")
    run.add_argument("--items-per-concept", type=positive_int, default=None, metavar="N",
                     help="items per concept and task: generated (default 4), or the first N "
                          "of the benchmark's (default all)")
    unparsed_flag(run)
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
    inc.add_argument("--concepts", action="append", default=None,
                     help="keys, names or domains (default all 32)")
    inc.add_argument("--per-concept", type=positive_int, default=5,
                     help="instances and as many non-instances per concept (default 5)")
    inc.add_argument("--temperature", type=temperature, default=0.7,
                     help="of the generations, so examples differ (default 0.7)")
    inc.set_defaults(func=cmd_incoherence)

    sj = sub.add_parser("selfjudge", parents=[model_run_flags(engine)],
                        help="lower bound: the model judges its own answers to related questions")
    sj.add_argument("--benchmark", required=True, help="mcq:PATH (MMLU, ARC or CSQA)")
    sj.add_argument("--questions", type=positive_int, default=20,
                    help="benchmark questions (default 20)")
    sj.add_argument("--subquestions", type=positive_int, default=5,
                    help="related questions per correctly answered one (default 5)")
    sj.add_argument("--concept", choices=CONCEPT_STEPS, default="ask",
                    help="ask: the model says whether each question relies on a concept and "
                         "names it, and questions that do not are skipped (the paper's code; "
                         "one more call per question); subject: the MCQ subject's name is the "
                         "concept of every question (default ask)")
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
    plan = plan_run(concepts=args.concepts, tasks=args.tasks, source=args.source,
                    benchmark_dir=args.benchmark_dir, items_per_concept=args.items_per_concept,
                    seed=args.seed, max_tokens=args.max_tokens, unparsed=args.unparsed)
    if plan.benchmark_items is not None:
        left = sum(plan.benchmark_skipped.values())
        print(f"benchmark: {plural(plan.benchmark_items, 'item')} read, "
              f"{plural(left, 'row')} left out (concepts outside the paper's final 32; counts "
              "by reason in run.json)", file=sys.stderr)
    result = asyncio.run(run_potemkin(args.model, plan, judge=args.judge,
                                      base_url=args.base_url,
                                      judge_base_url=args.judge_base_url,
                                      settings=settings_from(args)))
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
    plan = plan_incoherence(per_concept=args.per_concept, temperature=args.temperature,
                            max_tokens=args.max_tokens, seed=args.seed)
    result = asyncio.run(run_incoherence(args.model, plan, concepts=args.concepts,
                                         base_url=args.base_url, settings=settings_from(args)))
    return finish(args, result, lambda done: print(done.text()))


def cmd_selfjudge(args: argparse.Namespace) -> int:
    """The automatic lower bound on an MCQ benchmark."""
    scope, plan = plan_selfjudge(args.benchmark, questions=args.questions,
                                 subquestions=args.subquestions, seed=args.seed,
                                 max_tokens=args.max_tokens, concept=args.concept)
    result = asyncio.run(run_selfjudge(args.model, scope, plan, base_url=args.base_url,
                                       settings=settings_from(args)))
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
