"""The parameters of `potemkin run`, `potemkin incoherence` and `potemkin selfjudge`, each
declared once (`verstehen.methods.options`), and the entry points that run them: the API
functions (`api.py`) and the CLI handlers (`cli.py`) both call `run_potemkin_options`,
`run_incoherence_options` and `run_selfjudge_options`, so their run folders are the same."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from verstehen.engine.session import RunSettings
from verstehen.methods.options import (
    COUNT,
    SHARED,
    Options,
    Range,
    max_tokens_option,
    option,
    options_class,
    seed_option,
)
from verstehen.methods.potemkin.benchmark import BENCHMARK
from verstehen.methods.potemkin.incoherence import plan_incoherence, run_incoherence
from verstehen.methods.potemkin.items import ALL_TASKS
from verstehen.methods.potemkin.results import (
    PotemkinIncoherenceResult,
    PotemkinRunResult,
    PotemkinSelfjudgeResult,
)
from verstehen.methods.potemkin.run import SOURCES, RunPlan, plan_run, run_potemkin
from verstehen.methods.potemkin.selfjudge import CONCEPT_STEPS, plan_selfjudge, run_selfjudge
from verstehen.methods.potemkin.stats import UNPARSED
from verstehen.models import Model
from verstehen.readers import base_url, model_name
from verstehen.scopes.mcq import MCQ_SPEC, MCQScope
from verstehen.text.tables import plural

UNPARSED_HELP = ("an unreadable generate or edit answer (no matrix, no poem) counts as wrong, "
                 "as in the paper, or is left out of the rates (exclude); unreadable classify "
                 "answers are always left out")
MODEL_HELP = "provider/model"
TEMPERATURE = Range(0, 10)  # as the shared --temperature reads it


@options_class
class PotemkinRunOptions(Options):
    """The parameters of `verstehen potemkin run` and `potemkin()`."""

    model: str | Model = option(help=MODEL_HELP, flag=SHARED, kw_only=False)
    judge: str | Model | None = option(
        default=None, read=model_name,
        help="provider/model grading definitions and free-text answers")
    judge_base_url: str | Sequence[str] | None = option(
        default=None, read=base_url, help="server of the judge model")
    concepts: str | Sequence[str] | None = option(
        default=None, many=True,
        help="keys, names or domains, comma-separated (default: the exactly graded ones, or "
             "all 32 with --benchmark-dir)")
    tasks: str | Sequence[str] = option(default=ALL_TASKS, help="default {default}")
    benchmark_dir: Path | str | None = option(
        default=None, read=Path, reads=BENCHMARK,
        help="a checkout of github.com/MarinaMancoridis/PotemkinBenchmark")
    source: str | None = option(
        default=None, choices=SOURCES,
        help="items from the generators, the benchmark or both (default: benchmark when "
             "--benchmark-dir is given, else generated)")
    items_per_concept: int | None = option(
        default=None, kind=int, range=COUNT, metavar="N",
        help="items per concept and task: generated (default 4), or the first N of the "
             "benchmark's (default all)")
    unparsed: str = option(default="wrong", choices=UNPARSED, help=UNPARSED_HELP)
    seed: int = seed_option()
    max_tokens: int | None = max_tokens_option()


@options_class
class PotemkinIncoherenceOptions(Options):
    """The parameters of `verstehen potemkin incoherence` and `potemkin_incoherence()`."""

    model: str | Model = option(help=MODEL_HELP, flag=SHARED, kw_only=False)
    concepts: str | Sequence[str] | None = option(
        default=None, many=True, help="keys, names or domains (default all 32)")
    per_concept: int = option(default=5, range=COUNT,
                              help="instances and as many non-instances per concept")
    temperature: float = option(default=0.7, range=TEMPERATURE,
                                help="of the generations, so examples differ")
    seed: int = seed_option()
    max_tokens: int | None = max_tokens_option()


@options_class
class PotemkinSelfjudgeOptions(Options):
    """The parameters of `verstehen potemkin selfjudge` and `potemkin_selfjudge()`."""

    model: str | Model = option(help=MODEL_HELP, flag=SHARED, kw_only=False)
    benchmark: str | MCQScope = option(
        help="mcq:PATH, mcq:hf:DATASET[:CONFIG][@REVISION][#SPLIT] or mcq:hf:./FOLDER[#SPLIT] "
             "(MMLU, ARC or CSQA)",
        kw_only=False, reads=MCQ_SPEC)
    questions: int = option(default=20, range=COUNT, help="benchmark questions")
    subquestions: int = option(default=5, range=COUNT,
                               help="related questions per correctly answered one")
    concept: str = option(
        default="ask", choices=CONCEPT_STEPS,
        help="ask: the model says whether each question relies on a concept and names it, and "
             "questions that do not are skipped (the paper's code; one more call per "
             "question); subject: the MCQ subject's name is the concept of every question")
    seed: int = seed_option()
    max_tokens: int | None = max_tokens_option()


def run_plan(options: PotemkinRunOptions) -> RunPlan:
    """The checked plan of a `potemkin run`: every item built, no call made."""
    return plan_run(concepts=options.concepts, tasks=options.tasks, source=options.source,
                    benchmark_dir=options.benchmark_dir,
                    items_per_concept=options.items_per_concept, seed=options.seed,
                    max_tokens=options.max_tokens, unparsed=options.unparsed)


async def run_potemkin_options(options: PotemkinRunOptions, settings: RunSettings, *,
                       plan: RunPlan | None = None) -> PotemkinRunResult:
    """Define each concept (the keystone), then classify, generate and edit; Tables 1 and 6 and
    the keystone expansion once definitions are graded (by `judge`, or by people: see
    `annotate_export`). Concepts default to the exactly graded ones; an unreadable
    generate or edit answer counts as wrong (`unparsed="exclude"` leaves it out)."""
    plan = plan or run_plan(options)
    if settings.announce and plan.benchmark_items is not None:
        left = sum(plan.benchmark_skipped.values())
        print(f"benchmark: {plural(plan.benchmark_items, 'item')} read, "
              f"{plural(left, 'row')} left out (concepts outside the paper's final 32; counts "
              "by reason in run.json)", file=sys.stderr)
    return await run_potemkin(options.model, plan, judge=options.judge,
                              base_url=settings.base_url,
                              judge_base_url=options.judge_base_url, settings=settings)


async def run_incoherence_options(options: PotemkinIncoherenceOptions,
                          settings: RunSettings) -> PotemkinIncoherenceResult:
    """The model writes `per_concept` instances and as many non-instances of each concept (all
    32 unless given), then classifies each: incoherence = 2 x mismatch rate (paper Table 7)."""
    plan = plan_incoherence(per_concept=options.per_concept, temperature=options.temperature,
                            max_tokens=options.max_tokens, seed=options.seed)
    return await run_incoherence(options.model, plan, concepts=options.concepts,
                                 base_url=settings.base_url, settings=settings)


async def run_selfjudge_options(options: PotemkinSelfjudgeOptions, settings: RunSettings
                                ) -> PotemkinSelfjudgeResult:
    """The automatic lower bound on a multiple-choice benchmark ("mcq:PATH"): the model says
    which concept each question relies on (`concept="subject"`: the subject's name), then
    judges its own answers to related questions, and altered versions of them."""
    scope, plan = plan_selfjudge(options.benchmark, questions=options.questions,
                                 subquestions=options.subquestions, seed=options.seed,
                                 max_tokens=options.max_tokens, concept=options.concept)
    return await run_selfjudge(options.model, scope, plan, base_url=settings.base_url,
                               settings=settings)
