"""The shared-imagination entry points that call models, each into one run folder:
`generate_questions` (a question model invents questions) and `answer_questions` (answer
models answer them).

`imagine_generate_run` and `imagine_answer_run` (options.py, which the CLI and the Python API
call) call these; the checks run and the questions are read before any model call, so a bad
flag or an empty question run costs nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from verstehen.engine.lifecycle import Context, Made, Started, run_method
from verstehen.engine.session import RunSettings, Session
from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.methods.imagination.answer import AnswerPlan, run_answer
from verstehen.methods.imagination.generate import (
    GeneratePlan,
    count_questions,
    qm_label,
    run_generate,
)
from verstehen.methods.imagination.records import (
    AnswerRunRecord,
    read_answer_run,
    read_question_run,
)
from verstehen.methods.imagination.results import ImagineAnswerResult, ImagineGenerateResult
from verstehen.methods.imagination.runs import ANSWER, CONTENT_IDS, GENERATE, load_questions
from verstehen.methods.imagination.stats import MatrixRow, fiction_rates, pair_matrix
from verstehen.methods.imagination.text import write_matrix
from verstehen.models import DEFAULT_MODEL, Model, model_name, split_name
from verstehen.models.served_at import ServedModel, served_models


def _check_names(models: Sequence[str | Model]) -> None:
    """A malformed model name stops here, before the progress display starts."""
    for model in models:
        if isinstance(model, str):
            split_name(model)


async def generate_questions(model: str | Model, plan: GeneratePlan, *,
                             base_url: str | Sequence[str] | None = None,
                             settings: RunSettings | None = None) -> ImagineGenerateResult:
    """The question model writes the plan's questions into a new run folder; what was kept
    and dropped per question type, and why."""
    settings = settings or RunSettings()
    _check_names([model])
    name = model_name(model)

    async def start(session: Session) -> Started[Model]:
        opened = session.open_model(model, base_url=base_url)
        return Started({"model": name, "base_url": base_url, **asdict(plan)}, plan.seed,
                       [opened], opened)

    async def ask(context: Context[Model]) -> None:
        await run_generate(context.runner, context.state, plan, context.store)

    def finish(store: RunStore, opened: Model, made: Made) -> ImagineGenerateResult:
        by_type = count_questions(read_question_run(store))
        return ImagineGenerateResult(qm=qm_label(opened.name, plan.temperature), by_type=by_type,
                              kept=sum(t.kept for t in by_type.values()),
                              failed_calls=sum(t.failed for t in by_type.values()),
                              run_dir=made.run_dir, seconds=made.seconds, usage=made.usage)

    return await run_method(settings, command=GENERATE, label=f"questions {name}",
                            start=start, ask=ask, finish=finish)


def check_answer_plan(plan: AnswerPlan, judge: str | Model | None) -> None:
    """Refuse an option that does not go with another (the options' declaration refuses a
    method, wording or budget that does not exist)."""
    if (plan.method == "free") != (judge is not None):
        raise UserError("--method free needs --judge MODEL (and --judge only goes with it)")
    if plan.choice_e and plan.method in ("perplexity", "free"):
        raise UserError(f"--choice-e has no meaning with --method {plan.method}")
    if plan.variant != "1" and plan.method != "generate":
        raise UserError("--prompt-variant is a wording of --method generate's prompt")


def model_specs(models: Sequence[str | Model] | None,
                base_url: str | Sequence[str] | None) -> list[ServedModel]:
    """`NAME` or `NAME@URL` per model; `base_url` serves the remote ones without @URL."""
    return served_models(models or [DEFAULT_MODEL], base_url)


def _answer_result(records: list[AnswerRunRecord], matrix: tuple[MatrixRow, ...],
                   files: tuple[Path | None, Path | None], made: Made,
                   repeated: int) -> ImagineAnswerResult:
    answers = [r for r in records if r["kind"] == "answer"]
    fiction = [r for r in records if r["kind"] == "fiction"]
    return ImagineAnswerResult(
        matrix=matrix, outcomes=dict(Counter(r["outcome"] for r in answers)),
        fiction_verdicts=dict(Counter(r["verdict"] for r in fiction)),
        fiction=fiction_rates(fiction),
        failed_calls=sum(r["outcome"] == "error" for r in answers)
        + sum(r["verdict"] == "error" for r in fiction),
        run_dir=made.run_dir, matrix_csv=files[0], matrix_png=files[1], seconds=made.seconds,
        usage=made.usage, repeated_questions=repeated)


async def answer_questions(questions: Sequence[Path], models: Sequence[str | Model] | None,
                           plan: AnswerPlan, *, judge: str | Model | None = None,
                           judge_base_url: str | Sequence[str] | None = None,
                           base_url: str | Sequence[str] | None = None,
                           settings: RunSettings | None = None) -> ImagineAnswerResult:
    """Every answer model answers every usable question of the `imagine generate` runs (a
    question written twice once), into a new run folder with matrix.csv and matrix.png; κ and
    α per (content, qtype, QM, AM)."""
    settings = settings or RunSettings()
    check_answer_plan(plan, judge)
    asked = load_questions(questions)
    specs = model_specs(models, base_url)
    _check_names([m for m, _ in specs] + ([judge] if judge is not None else []))

    async def start(session: Session) -> Started[tuple[list[Model], Model | None]]:
        opened = [session.open_model(m, base_url=url) for m, url in specs]
        if plan.method in ("letter", "perplexity"):
            for model in opened:
                if not model.capabilities.logprobs:
                    raise UserError(f"{model.name} gives no exact log-probabilities, which "
                                    f"--method {plan.method} needs: use --method generate")
        grader = (session.open_model(judge, base_url=judge_base_url)
                  if judge is not None else None)
        config = {"questions": [str(p) for p in questions],
                  "models": [model_name(m) for m, _ in specs],
                  "judge": None if judge is None else model_name(judge), **asdict(plan),
                  "question_ids": CONTENT_IDS}
        return Started(config, plan.seed, [*opened, *([grader] if grader else [])],
                       (opened, grader))

    async def ask(context: Context[tuple[list[Model], Model | None]]) -> None:
        models, judge = context.state
        await run_answer(context.runner, models, asked.records, plan, context.store, judge)

    def finish(store: RunStore, _: object, made: Made) -> ImagineAnswerResult:
        records = read_answer_run(store)
        matrix = pair_matrix([r for r in records if r["kind"] == "answer"])
        return _answer_result(records, matrix, write_matrix(matrix, store.path), made,
                              asked.repeats)

    return await run_method(settings, command=ANSWER, label=f"answers ({len(specs)} models)",
                            start=start, ask=ask, finish=finish)
