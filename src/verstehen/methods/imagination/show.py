"""The handlers of `verstehen imagine generate|answer|matrix|analyze` and their printouts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from verstehen.cli.flags import print_json
from verstehen.cli.legacy import create_store, finish_run
from verstehen.engine.store import RunStore
from verstehen.errors import UserError

GENERATE, ANSWER = "imagine-generate", "imagine-answer"


def _positive(flag: str, value: int | None) -> None:
    if value is not None and value < 1:
        raise UserError(f"{flag} must be at least 1, not {value}")


def _comma_list(text: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in text.split(",") if t.strip())


def read_runs(paths: list[Path], commands: tuple[str, ...]) -> list[tuple[RunStore, str]]:
    """Open run folders, each made by one of `commands`, or say which one is not."""
    out = []
    for path in paths:
        store = RunStore.open(path)
        command = store.info().get("command")
        if command not in commands:
            want = " or ".join(f"`{c.replace('-', ' ', 1)}`" for c in commands)
            raise UserError(f"{path} is a {command!r} run, not one of {want}")
        out.append((store, command))
    return out


def once_each(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Pooled runs count each question once, and each (question, AM) answer once: the last
    record wins (two runs of one command draw the same samples, so they share ids)."""
    last: dict[tuple[Any, ...], dict[str, Any]] = {}
    for r in records:
        key = (r["kind"], r["id"]) if r["kind"] == "question" else (
            r["kind"], r.get("question_id"), r.get("am"))
        last[key] = r
    return list(last.values())


# ---------------------------------------------------------------- generate

def generate_plan(args: argparse.Namespace) -> Any:
    """Check the generate flags and return the plan, before any call."""
    from verstehen.methods.imagination.generate import (
        KINDS,
        KNOWLEDGE_TOPICS,
        STORY_TOPICS,
        GeneratePlan,
    )

    kinds = _comma_list(args.kind)
    if not kinds or any(k not in KINDS for k in kinds):
        raise UserError(f"--kind takes a comma list of {', '.join(KINDS)}, not {args.kind!r}")
    if "sequential" in kinds and args.content == "story":
        raise UserError("--kind sequential is for knowledge questions (the paper has no "
                        "sequential stories): drop it or use --content knowledge")
    _positive("--per-topic", args.per_topic)
    _positive("--tries", args.tries)
    _positive("--max-tokens", args.max_tokens)
    if args.temperature < 0:
        raise UserError(f"--temperature must be at least 0, not {args.temperature}")
    default = STORY_TOPICS if args.content == "story" else KNOWLEDGE_TOPICS
    topics = _comma_list(args.topics) if args.topics is not None else default
    if not topics:
        raise UserError("--topics is empty: give comma-separated topics, e.g. physics,law")
    return GeneratePlan(kinds=kinds, content=args.content, topics=topics,
                        per_topic=args.per_topic, tries=args.tries,
                        temperature=args.temperature,
                        max_tokens=args.max_tokens, seed=args.seed)


def imagine_generate(args: argparse.Namespace, argv: list[str]) -> int:
    """The question model writes questions; print what was kept and dropped, and why."""
    from dataclasses import asdict

    from verstehen.methods.imagination.generate import run_generate
    from verstehen.models import split_name

    plan = generate_plan(args)
    split_name(args.model)

    async def body(session: Any) -> dict[str, Any]:
        model = session.open_model(args.model, base_url=args.base_url)
        store = create_store(args, argv, GENERATE, {"model": args.model,
                                                    "base_url": args.base_url,
                                                    **asdict(plan)}, [model.identity()])
        return await run_generate(session.runner, model, plan, store)

    return finish_run(args, f"questions {args.model}", body, show_questions)


def show_questions(summary: dict[str, Any]) -> None:
    """Kept and dropped questions per type, the reasons, and the next command."""
    from verstehen.report.tables import table

    rows = [[qtype, f"{t['filled']} of {t['slots']}", str(t["asked"]), str(t["kept"]),
             str(t["dropped"]), str(t["failed"]),
             "; ".join(f"{reason} ({n})" for reason, n in t["reasons"].items()) or "-"]
            for qtype, t in summary["by_type"].items()]
    print(f"{summary['qm']}: questions by type (DQ direct, CQ after a context, SQ five in a "
          "row); a slot is filled when a try gives a usable question")
    print(table(["type", "filled", "written", "kept", "dropped", "failed", "why dropped"], rows))
    print(f"next: verstehen imagine answer --questions {summary['run']} --model MODEL ...")


# ---------------------------------------------------------------- answer

def model_specs(names: list[str] | None, base_url: str | None) -> list[tuple[str, str | None]]:
    """`NAME` or `NAME@URL` per --model; --base-url serves the remote ones without @URL."""
    from verstehen.models import DEFAULT_MODEL

    specs = []
    for text in names or [DEFAULT_MODEL]:
        name, at, url = text.rpartition("@")
        if at and url.startswith(("http://", "https://")):
            specs.append((name, url))
        else:
            remote = not text.startswith("local/")
            specs.append((text, base_url if remote else None))
    return specs


def load_questions(paths: list[Path]) -> list[dict[str, Any]]:
    """The usable questions of `imagine generate` runs, or a UserError when there are none."""
    questions: list[dict[str, Any]] = []
    for store, _ in read_runs(paths, (GENERATE,)):
        questions += [r for r in store.records()
                      if r["kind"] == "question" and r["status"] == "ok"]
    questions = once_each(questions)
    if not questions:
        raise UserError("no usable questions in " + ", ".join(map(str, paths)) + ": every "
                        "reply was dropped (see the run's summary); generate more")
    return questions


def answer_plan(args: argparse.Namespace) -> Any:
    """Check the answer flags and return the plan, before any call."""
    from verstehen.methods.imagination.answer import AnswerPlan

    _positive("--max-tokens", args.max_tokens)
    if (args.method == "free") != (args.judge is not None):
        raise UserError("--method free needs --judge MODEL (and --judge only goes with it)")
    if args.choice_e and args.method in ("perplexity", "free"):
        raise UserError(f"--choice-e has no meaning with --method {args.method}")
    if args.prompt_variant != "1" and args.method != "generate":
        raise UserError("--prompt-variant is a wording of --method generate's prompt")
    return AnswerPlan(method=args.method, shuffle=not args.no_shuffle,
                      choice_e=args.choice_e, variant=args.prompt_variant,
                      fictionality=args.fictionality, max_tokens=args.max_tokens,
                      seed=args.seed)


def imagine_answer(args: argparse.Namespace, argv: list[str]) -> int:
    """Every answer model answers every question; print the QM x AM matrix, write PNG/CSV."""
    from dataclasses import asdict

    from verstehen.methods.imagination.answer import run_answer
    from verstehen.models import split_name

    plan = answer_plan(args)
    questions = load_questions(args.questions)
    specs = model_specs(args.model, args.base_url)
    for name in [n for n, _ in specs] + ([args.judge] if args.judge else []):
        split_name(name)  # a malformed name stops here, before the progress bar starts

    async def body(session: Any) -> dict[str, Any]:
        models = [session.open_model(name, base_url=url) for name, url in specs]
        if plan.method in ("letter", "perplexity"):
            for model in models:
                if not model.capabilities.logprobs:
                    raise UserError(f"{model.name} gives no exact log-probabilities, which "
                                    f"--method {plan.method} needs: use --method generate")
        judge = (session.open_model(args.judge, base_url=args.judge_base_url)
                 if args.judge else None)
        identities = [m.identity() for m in models] + ([judge.identity()] if judge else [])
        store = create_store(args, argv, ANSWER, {
            "questions": [str(p) for p in args.questions], "models": [n for n, _ in specs],
            "judge": args.judge, **asdict(plan)}, identities)
        summary = await run_answer(session.runner, models, questions, plan, store, judge)
        summary.update(write_matrix(list(store.records()), store.path))
        return summary

    return finish_run(args, f"answers ({len(specs)} models)", body, show_answers)


def write_matrix(records: list[dict[str, Any]], folder: Path) -> dict[str, str]:
    """matrix.csv and matrix.png of the answer records into `folder`."""
    from verstehen.methods.imagination.report import plot_matrix, write_matrix_csv
    from verstehen.methods.imagination.stats import pair_matrix

    matrix = pair_matrix([r for r in records if r["kind"] == "answer"])
    if not matrix:
        return {}
    folder.mkdir(parents=True, exist_ok=True)
    write_matrix_csv(matrix, folder / "matrix.csv")
    plot_matrix(matrix, folder / "matrix.png")
    return {"matrix_csv": str(folder / "matrix.csv"), "matrix_png": str(folder / "matrix.png")}


def show_answers(summary: dict[str, Any]) -> None:
    """The matrix as text, the outcome counts and where the figures are."""
    from verstehen.methods.imagination.report import matrix_text
    from verstehen.methods.imagination.stats import pair_matrix

    records = list(RunStore(Path(summary["run"])).records())
    print(matrix_text(pair_matrix([r for r in records if r["kind"] == "answer"])))
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(summary["outcomes"].items())))
    if summary["fiction_verdicts"]:
        _print_fiction(records)
    if "matrix_png" in summary:
        print(f"figures: {summary['matrix_png']}, {summary['matrix_csv']}")


def _print_fiction(records: list[dict[str, Any]]) -> None:
    from verstehen.methods.imagination.report import fiction_text
    from verstehen.methods.imagination.stats import fiction_rates

    print(fiction_text(fiction_rates([r for r in records if r["kind"] == "fiction"])))


# ---------------------------------------------------------------- matrix, analyze

def imagine_matrix(args: argparse.Namespace, argv: list[str]) -> int:
    """Pool answer runs into one QM x AM matrix; print it, write PNG and CSV."""
    from verstehen.methods.imagination.report import matrix_text
    from verstehen.methods.imagination.stats import pair_matrix

    records = once_each([r for store, _ in read_runs(args.runs, (ANSWER,))
                         for r in store.records()])
    out = args.out or args.runs[0]
    written = write_matrix(records, out)
    matrix = pair_matrix([r for r in records if r["kind"] == "answer"])
    if args.json:
        from dataclasses import asdict

        print_json({"matrix": [{"qtype": t, "qm": q, "am": a, **asdict(r)}
                               for (t, q, a), r in matrix.items()], **written})
        return 0
    print(matrix_text(matrix))
    if written:
        print(f"figures: {written['matrix_png']}, {written['matrix_csv']}")
    else:
        print("no answers in these runs", file=sys.stderr)
    return 0


def imagine_analyze(args: argparse.Namespace, argv: list[str]) -> int:
    """Length ranks, length deciles, warm-up positions, fictionality, question similarity."""
    from verstehen.methods.imagination.analyze import analyze

    return analyze(args, read_runs(args.runs, (GENERATE, ANSWER)))
