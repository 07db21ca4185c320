"""The handlers of `verstehen potemkin run|score|incoherence|selfjudge` and their printouts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from verstehen.cli.flags import print_json
from verstehen.cli.legacy import create_store, finish_run
from verstehen.errors import UserError


def _check_tokens(args: argparse.Namespace) -> None:
    if args.max_tokens is not None and args.max_tokens < 1:
        raise UserError(f"--max-tokens must be at least 1, not {args.max_tokens}")


# ---------------------------------------------------------------- run

def plan_items(args: argparse.Namespace) -> tuple[list[Any], tuple[str, ...], str,
                                                  dict[str, int]]:
    """Check the flags and build every item before any call.

    Returns the items, the tasks, the item source and the benchmark rows left out by reason.
    """
    from verstehen.domains.catalog import CONCEPTS
    from verstehen.methods.potemkin.items import ALL_TASKS, build_items, resolve_concepts

    tasks = tuple(t.strip() for t in args.tasks.split(",") if t.strip())
    bad = [t for t in tasks if t not in ALL_TASKS]
    if bad or not tasks:
        raise UserError(f"--tasks takes a comma list of {', '.join(ALL_TASKS)}, not "
                        f"{args.tasks!r}")
    source = args.source or ("benchmark" if args.benchmark_dir else "generated")
    if source != "generated" and args.benchmark_dir is None:
        raise UserError(f"--source {source} needs --benchmark-dir (a checkout of "
                        "github.com/MarinaMancoridis/PotemkinBenchmark)")
    if args.items_per_concept is not None and args.items_per_concept < 1:
        raise UserError(f"--items-per-concept must be at least 1, not {args.items_per_concept}")
    _check_tokens(args)
    benchmark = None
    if args.benchmark_dir is not None:
        from verstehen.methods.potemkin.benchmark import load_benchmark

        benchmark = load_benchmark(args.benchmark_dir)
    default = CONCEPTS if source != "generated" else [c for c in CONCEPTS if c.scope]
    concepts = resolve_concepts(args.concepts, default)
    items = build_items(concepts, tasks, source=source, per_concept=args.items_per_concept,
                        seed=args.seed, benchmark=benchmark)
    if not any(i.task != "define" for i in items) and tasks != ("define",):
        raise UserError("no use-task items for these concepts and tasks: choose other "
                        "--concepts or pass --benchmark-dir")
    if benchmark is None:
        return items, tasks, source, {}
    left = sum(benchmark.skipped.values())
    print(f"benchmark: {len(benchmark.items)} items read, {left} rows left out (concepts "
          "outside the paper's final 32; counts by reason in run.json)", file=sys.stderr)
    return items, tasks, source, benchmark.skipped


def potemkin_run(args: argparse.Namespace, argv: list[str]) -> int:
    """Ask the items, grade, judge; print Table 1, Table 6 and the keystone expansion."""
    from verstehen.methods.potemkin.run import run_potemkin

    items, tasks, source, skipped = plan_items(args)
    keystone_asked = "define" in tasks

    async def body(session: Any) -> dict[str, Any]:
        model = session.open_model(args.model, base_url=args.base_url)
        judge = session.open_model(args.judge, base_url=args.judge_base_url) \
            if args.judge else None
        store = create_store(args, argv, "potemkin-run", {
            "model": args.model, "judge": args.judge, "tasks": list(tasks), "source": source,
            "concepts": sorted({i.concept.key for i in items}), "items": len(items),
            "items_per_concept": args.items_per_concept, "max_tokens": args.max_tokens,
            "benchmark_dir": str(args.benchmark_dir) if args.benchmark_dir else None,
            "keystone_asked": keystone_asked, "base_url": args.base_url,
            "judge_base_url": args.judge_base_url, "benchmark_skipped": skipped,
        }, [model.identity()] + ([judge.identity()] if judge and judge is not model else []))
        return await run_potemkin(session.runner, model, judge, items, store, seed=args.seed,
                                  max_tokens=args.max_tokens, keystone_asked=keystone_asked)

    return finish_run(args, f"potemkin {args.model}", body,
                   lambda s: show_run(s, Path(s["run"]), as_json=False))


def show_run(summary: dict[str, Any], folder: Path, *, as_json: bool) -> None:
    """Print a run's tables (from its records file), keystones, grading and agreement."""
    if as_json:
        print_json(summary)
        return
    keystones = summary["keystones"]
    if summary["keystone_asked"]:
        known = [k for k in keystones if k["keystone"] is not None]
        passed = sum(bool(k["keystone"]) for k in known)
        print(f"keystone (definition) correct for {passed} of {len(known)} graded concepts"
              + (f"; {len(keystones) - len(known)} definitions not graded yet"
                 if len(known) < len(keystones) else ""))
    else:
        print("keystone not asked (--tasks without define): rates are not conditioned on "
              "a definition")
    print("grades by: " + ", ".join(f"{k} {v}" for k, v in sorted(summary["grades_by"].items())))
    if summary["waiting_for_keystone"]:
        waiting = sum(summary["waiting_for_keystone"].values())
        print(f"{waiting} use answers wait for their concept's definition to be graded "
              f"(--judge, or `verstehen annotate export {folder}`)")
    for name, a in summary["agreement"].items():
        kappa = "undefined" if a["kappa"] is None else f"{a['kappa']:.2f}"
        print(f"{name.replace('_', ' ')}: Cohen's kappa {kappa}, agree {a['agree']:.0%} "
              f"(n {a['n']})")
    if "table1" in summary:
        print()
        print_tables([folder / summary["records_file"]], None, above_chance_only=True)
        if summary.get("plot"):
            print(f"plot: {folder / summary['plot']}")
    else:
        print("no graded use answers yet: no tables")
    if summary["unparsed_reasons"]:
        print(f"unparsed answers, most common reason: {next(iter(summary['unparsed_reasons']))}")
    print(f"records: {folder / summary['records_file']} (all answers: "
          f"{folder / 'records.jsonl'})")


# ---------------------------------------------------------------- score

def print_tables(paths: list[Path], plot: Path | None, *, above_chance_only: bool,
                 next_uses: int = 10) -> None:
    """Table 1, Table 6 and the keystone expansion of records files."""
    from verstehen.methods.potemkin.report import (
        expansion_text,
        plot_expansion,
        table1_text,
        table6_text,
    )
    from verstehen.methods.potemkin.stats import keystone_expansion, table1, table6

    records = read_all(paths)
    print("Potemkin rate per model and task (paper Table 1)")
    print(table1_text(table1(records)))
    print("\nPer domain (paper Table 6)")
    print(table6_text(table6(records)))
    expansion = keystone_expansion(records, above_chance_only=above_chance_only,
                                   next_uses=next_uses)
    print("\nKeystone expansion (paper Figure 4)")
    print(expansion_text(expansion))
    if plot is not None:
        plot_expansion(expansion, plot)
        print(f"plot: {plot}")


def read_all(paths: list[Path]) -> list[Any]:
    """Records of several files (a run folder stands for its potemkin-records.csv)."""
    from verstehen.methods.potemkin.records import read_records
    from verstehen.methods.potemkin.run import RECORDS_FILE
    from verstehen.methods.potemkin.stats import check_keystones

    records = []
    for path in paths:
        if path.is_dir():
            file = path / RECORDS_FILE
            if file.is_file() and len(file.read_text(encoding="utf-8").splitlines()) < 2:
                raise UserError(f"{path} has no graded use answers yet: grade its definitions "
                                f"(`verstehen annotate export {path}`, or rerun with --judge)")
            path = file
        records += read_records(path)
    check_keystones(records)
    return records


def potemkin_score(args: argparse.Namespace, argv: list[str]) -> int:
    """Score any records files."""
    if args.next_uses < 1:
        raise UserError(f"--next-uses must be at least 1, not {args.next_uses}")
    chance = not args.all_models
    if args.json:
        from verstehen.methods.potemkin.report import plot_expansion
        from verstehen.methods.potemkin.stats import keystone_expansion, score_summary

        records = read_all(args.records)
        summary = score_summary(records, above_chance_only=chance, next_uses=args.next_uses)
        if args.plot is not None:
            plot_expansion(keystone_expansion(records, above_chance_only=chance,
                                              next_uses=args.next_uses), args.plot)
            summary["plot"] = str(args.plot)
        print_json(summary)
        return 0
    print_tables(args.records, args.plot, above_chance_only=chance, next_uses=args.next_uses)
    return 0


# ---------------------------------------------------------------- incoherence

def potemkin_incoherence(args: argparse.Namespace, argv: list[str]) -> int:
    """Generate instances and non-instances, have the model classify them; print Table 7."""
    from verstehen.domains.catalog import CONCEPTS
    from verstehen.methods.potemkin.incoherence import IncoherencePlan, run_incoherence
    from verstehen.methods.potemkin.items import resolve_concepts

    _check_tokens(args)
    if args.per_concept < 1:
        raise UserError(f"--per-concept must be at least 1, not {args.per_concept}")
    if args.temperature < 0:
        raise UserError(f"--temperature must be at least 0, not {args.temperature}")
    concepts = resolve_concepts(args.concepts, CONCEPTS)
    plan = IncoherencePlan(args.per_concept, args.temperature, args.max_tokens, args.seed)

    async def body(session: Any) -> dict[str, Any]:
        model = session.open_model(args.model, base_url=args.base_url)
        store = create_store(args, argv, "potemkin-incoherence", {
            "model": args.model, "concepts": [c.key for c in concepts],
            "per_concept": plan.per_concept, "temperature": plan.temperature,
            "max_tokens": plan.max_tokens, "base_url": args.base_url}, [model.identity()])
        return await run_incoherence(session.runner, model, concepts, store, plan)

    return finish_run(args, f"incoherence {args.model}", body, show_incoherence)


def _rate(value: float | None, se: float | None, n: int) -> str:
    return f"—  (n {n})" if value is None else f"{value:.2f} ({se:.2f})  n {n}"


def show_incoherence(summary: dict[str, Any]) -> None:
    """Incoherence per domain and overall (paper Table 7) and the checker's view."""
    from verstehen.report.tables import table

    rows = [[domain, _rate(d["incoherence"], d["se"], d["n"]), str(d["unparsed"])]
            for domain, d in summary["by_domain"].items()]
    o = summary["overall"]
    rows.append(["Overall", _rate(o["incoherence"], o["se"], o["n"]), str(o["unparsed"])])
    print(f"{summary['model']}: incoherence = 2 x mismatch rate (0 coherent, 1 chance), "
          "standard errors in parentheses")
    print(table(["domain", "incoherence", "unparsed"], rows))
    c = summary["checker"]
    if c["n"]:
        print(f"\nexactly graded concepts: the example misses what was asked in "
              f"{_rate(c['wrong'], c['se'], c['n'])}")
        print("  " + "; ".join(f"{k} {v}" for k, v in c["cells"].items()))
    if summary["unchecked_reasons"]:
        print(f"  not checked, most common reason: {next(iter(summary['unchecked_reasons']))}")
    print(f"\nrecords: {summary['run']}/records.jsonl ({summary['seconds']} s)")


# ---------------------------------------------------------------- selfjudge

def potemkin_selfjudge(args: argparse.Namespace, argv: list[str]) -> int:
    """The automatic lower bound on an MCQ benchmark."""
    from verstehen.methods.potemkin.selfjudge import SelfJudgePlan, run_selfjudge
    from verstehen.scopes import get_scope
    from verstehen.scopes.mcq import MCQScope

    _check_tokens(args)
    if args.questions < 1 or args.subquestions < 1:
        raise UserError("--questions and --subquestions must be at least 1")
    scope = get_scope(args.benchmark)
    if not isinstance(scope, MCQScope):
        raise UserError(f"--benchmark takes mcq:PATH (a multiple-choice file), not "
                        f"{args.benchmark!r}")
    plan = SelfJudgePlan(args.questions, args.subquestions, args.seed, args.max_tokens)

    async def body(session: Any) -> dict[str, Any]:
        model = session.open_model(args.model, base_url=args.base_url)
        store = create_store(args, argv, "potemkin-selfjudge", {
            "model": args.model, "benchmark": args.benchmark, "questions": plan.questions,
            "subquestions": plan.subquestions, "max_tokens": plan.max_tokens,
            "base_url": args.base_url}, [model.identity()])
        summary = await run_selfjudge(session.runner, model, scope, store, plan)
        summary["model"] = args.model
        return summary

    return finish_run(args, f"selfjudge {args.model}", body, show_selfjudge)


def show_selfjudge(summary: dict[str, Any]) -> None:
    """The lower bound with its SE, the judge's two sides, and what was skipped."""
    print(f"{summary['model']}: {summary['answered_correctly']} of {summary['questions']} "
          f"benchmark questions answered correctly; {summary['related_questions']} related "
          f"questions; {summary['judgments']} judgments")
    if summary["potemkin_rate"] is None:
        print("potemkin rate (lower bound): —  (no judgment could be read)")
    else:
        print(f"potemkin rate (lower bound) = 2 x (1 - judge accuracy) = "
              f"{summary['potemkin_rate']:.2f} ({summary['se']:.2f}), n {summary['judgments']}"
              f" judgments over {summary['clusters']} questions (SE clustered by question)")
    for key, words in (("judge_accepts_correct", "judged its own answer correct"),
                       ("judge_rejects_altered", "judged the altered answer incorrect")):
        s = summary[key]
        if s["n"]:
            print(f"  {words}: {s['rate']:.0%} of {s['n']}")
    if summary["skipped"]:
        print("skipped: " + ", ".join(f"{k} {v}" for k, v in summary["skipped"].items()))
    print(f"answers without the final tag (whole reply used): {summary['untagged_answers']}; "
          f"alterations identical to the answer: {summary['unchanged_alterations']}")
    print(f"\nrecords: {summary['run']}/records.jsonl ({summary['seconds']} s)")
