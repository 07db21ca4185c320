"""The parameters of `imagine generate` and `imagine answer`, each declared once
(`verstehen.methods.options`), and the entry points that run them: the API functions (`api.py`)
and the CLI handlers (`cli.py`) both call `imagine_generate_run` and `imagine_answer_run`, so
their run folders are the same."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from verstehen.engine.session import RunSettings
from verstehen.errors import UserError
from verstehen.methods.imagination import run
from verstehen.methods.imagination.answer import AnswerPlan
from verstehen.methods.imagination.choices import METHODS, VARIANTS
from verstehen.methods.imagination.generate import (
    KINDS,
    KNOWLEDGE_TOPICS,
    STORY_TOPICS,
    GeneratePlan,
)
from verstehen.methods.imagination.results import ImagineAnswerResult, ImagineGenerateResult
from verstehen.methods.imagination.runs import QUESTION_RUNS
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
from verstehen.models import DEFAULT_MODEL, Model
from verstehen.readers import base_url, model_name
from verstehen.wording import parameter, setting

CONTENTS = ("knowledge", "story")
TEMPERATURE = Range(0, 10)  # as the shared --temperature reads it
# a run folder, or an earlier result
RunFolder = str | Path | ImagineGenerateResult | ImagineAnswerResult


def run_folders(runs: RunFolder | Sequence[RunFolder]) -> list[Path]:
    """Run folders given as paths or as the results of earlier steps."""
    if isinstance(runs, (str, Path, ImagineGenerateResult, ImagineAnswerResult)):
        runs = [runs]
    return [r.run_dir if isinstance(r, (ImagineGenerateResult, ImagineAnswerResult)) else Path(r)
            for r in runs]


@options_class
class ImagineGenerateOptions(Options):
    """The parameters of `verstehen imagine generate` and `imagine_generate()`."""

    model: str | Model = option(help="the question model", flag=SHARED, kw_only=False)
    topics: str | Sequence[str] | None = option(
        default=None, help="comma-separated (default: the paper's 17 college subjects, or its "
                           "10 story topics with --content story)")
    per_topic: int | None = option(
        default=None, kind=int, range=COUNT,
        help="slots per topic and kind (default the paper's: 20 direct and 20 context "
             "questions, 10 five-question sequential replies)")
    tries: int = option(
        default=1, range=COUNT,
        help="draw a question again when its reply does not parse, up to this many times per "
             "question (default {default}: no retry)")
    kinds: str | Sequence[str] = option(
        default=("direct", "context"), flag="--kind", metavar="KIND",
        help=f"comma list of {', '.join(KINDS)}")
    content: str = option(
        default="knowledge", choices=CONTENTS,
        help="knowledge questions, or story questions with the paper's story topics")
    temperature: float = option(
        default=1.0, range=TEMPERATURE,
        help="sampling temperature of the question model (default {default}, the paper's)")
    seed: int = seed_option()
    max_tokens: int | None = max_tokens_option()


@options_class
class ImagineAnswerOptions(Options):
    """The parameters of `verstehen imagine answer` and `imagine_answer()`."""

    questions: RunFolder | Sequence[RunFolder] = option(
        flag="--questions", kind=Path, metavar="RUN", kw_only=False, nargs="+",
        reads=QUESTION_RUNS,
        help="run folders of `imagine generate`")
    models: str | Model | Sequence[str | Model] = option(
        default=(DEFAULT_MODEL,), flag="--model", many=True, metavar="MODEL",
        help="an answer model, repeatable; NAME@URL for a server")
    method: str = option(
        default="generate", choices=METHODS,
        help="generate (Table 4), letter (next-token probability after 'Answer:'), perplexity "
             "(likeliest choice text), free (no choices, judged 0-100); default {default}")
    shuffle: bool = option(default=True, flag="--no-shuffle",
                           help="show the choices in the question model's order (from "
                                "Python: shuffle=False; True shows them in a seeded order)")
    choice_e: bool = option(
        default=False, help="add 'E. This question cannot be answered since the concept does "
                            "not exist.'")
    prompt_variant: str = option(default="1", choices=VARIANTS,
                                 help="Table 14 wording 1-4 or cot")
    judge: str | Model | None = option(default=None, read=model_name,
                                       help="grades free responses (--method free)")
    judge_base_url: str | Sequence[str] | None = option(default=None, read=base_url,
                                                        help="server of the judge model")
    fictionality: bool = option(
        default=False, help="also ask each answer model whether each context paragraph "
                            "describes a real concept")
    seed: int = seed_option()
    max_tokens: int | None = max_tokens_option()


def _names(value: str | Sequence[str]) -> tuple[str, ...]:
    """A comma-separated text, or the names as given."""
    if isinstance(value, str):
        return tuple(t.strip() for t in value.split(",") if t.strip())
    return tuple(value)


def generate_plan(options: ImagineGenerateOptions) -> GeneratePlan:
    """The checked plan of a generate run (what the declaration cannot check: the kinds and
    topics, given as lists or comma-separated text, and that they go together); topics by
    default the paper's 17 college subjects (or its 10 story topics)."""
    kinds, content = options.kinds, options.content
    chosen = _names(kinds)
    if not chosen or any(k not in KINDS for k in chosen):
        shown = kinds if isinstance(kinds, str) else ",".join(kinds)
        raise UserError(f"{parameter('kinds')} takes a comma list of {', '.join(KINDS)}, "
                        f"not {shown!r}")
    if "sequential" in chosen and content == "story":
        raise UserError(f"{setting('kinds', 'sequential')} is for knowledge questions (the "
                        "paper has no sequential stories): drop it or use "
                        f"{setting('content', 'knowledge')}")
    default = STORY_TOPICS if content == "story" else KNOWLEDGE_TOPICS
    subjects = _names(options.topics) if options.topics is not None else default
    if not subjects:
        raise UserError("--topics is empty: give comma-separated topics, e.g. physics,law")
    return GeneratePlan(kinds=chosen, content=content, topics=subjects,
                        per_topic=options.per_topic, tries=options.tries,
                        temperature=options.temperature, max_tokens=options.max_tokens,
                        seed=options.seed)


async def imagine_generate_run(options: ImagineGenerateOptions,
                               settings: RunSettings) -> ImagineGenerateResult:
    """The question model writes `per_topic` questions per topic and kind (direct, context,
    sequential replies of five) about made-up concepts; topics and counts default to the
    paper's (17 subjects; 20, 20 and 10)."""
    return await run.generate_questions(options.model, generate_plan(options),
                                        base_url=settings.base_url, settings=settings)


async def imagine_answer_run(options: ImagineAnswerOptions,
                             settings: RunSettings) -> ImagineAnswerResult:
    """Every answer model answers the questions of `imagine_generate` runs (their folders or
    results); κ and α per (qtype, QM, AM). `method`: generate, letter, perplexity or free."""
    plan = AnswerPlan(method=options.method, shuffle=options.shuffle, choice_e=options.choice_e,
                      variant=options.prompt_variant, fictionality=options.fictionality,
                      max_tokens=options.max_tokens, seed=options.seed)
    models = options.models
    answerers = ([models] if isinstance(models, str) or not isinstance(models, Sequence)
                 else list(models))
    return await run.answer_questions(run_folders(options.questions), answerers, plan,
                                      judge=options.judge,
                                      judge_base_url=options.judge_base_url,
                                      base_url=settings.base_url, settings=settings)
