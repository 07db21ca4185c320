"""Shared imagination from Python: `imagine_generate()` (a question model invents questions),
`imagine_answer()` (answer models answer them), `imagine_matrix()` and `imagine_analyze()`
(read run folders).

The two that call models are synchronous (they work inside a notebook's running loop too) and
have `_async` twins; they call the entry points the CLI calls, so their run folders are the
same as `verstehen imagine generate|answer` makes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Unpack

from verstehen.engine.session import RunSettings
from verstehen.engine.settings import EngineKeywords, EngineSettings
from verstehen.engine.sync import synchronous
from verstehen.methods.imagination.analyze import analyze_runs, pool_matrix
from verstehen.methods.imagination.answer import AnswerPlan
from verstehen.methods.imagination.results import (
    AnalyzeResult,
    AnswerResult,
    GenerateResult,
    MatrixResult,
)
from verstehen.methods.imagination.run import answer_questions, generate_plan, generate_questions
from verstehen.models import DEFAULT_MODEL, Model

RunFolder = str | Path | GenerateResult | AnswerResult


def run_folders(runs: RunFolder | Sequence[RunFolder]) -> list[Path]:
    """Run folders given as paths or as the results of earlier steps."""
    if isinstance(runs, (str, Path, GenerateResult, AnswerResult)):
        runs = [runs]
    return [r.run_dir if isinstance(r, (GenerateResult, AnswerResult)) else Path(r)
            for r in runs]


async def imagine_generate_async(
        model: str | Model, *, topics: str | Sequence[str] | None = None,
        per_topic: int | None = None,
        kinds: str | Sequence[str] = ("direct", "context"), content: str = "knowledge",
        tries: int = 1, temperature: float = 1.0, max_tokens: int | None = None, seed: int = 0,
        resume: Path | str | None = None, engine: EngineSettings | None = None,
        **keywords: Unpack[EngineKeywords]) -> GenerateResult:
    """The question model writes `per_topic` questions per topic and kind (direct, context,
    sequential replies of five) about made-up concepts; topics and counts default to the
    paper's (17 subjects; 20, 20 and 10)."""
    plan = generate_plan(kinds=kinds, content=content, topics=topics, per_topic=per_topic,
                         tries=tries, temperature=temperature, max_tokens=max_tokens, seed=seed)
    settings = RunSettings.of(engine, keywords, resume=resume)
    return await generate_questions(model, plan, base_url=settings.base_url,
                                    settings=settings)


async def imagine_answer_async(
        questions: RunFolder | Sequence[RunFolder], *,
        models: str | Model | Sequence[str | Model] = (DEFAULT_MODEL,),
        method: str = "generate", shuffle: bool = True, choice_e: bool = False,
        prompt_variant: str = "1", judge: str | Model | None = None,
        judge_base_url: str | Sequence[str] | None = None, fictionality: bool = False,
        max_tokens: int | None = None, seed: int = 0, resume: Path | str | None = None,
        engine: EngineSettings | None = None,
        **keywords: Unpack[EngineKeywords]) -> AnswerResult:
    """Every answer model answers the questions of `imagine_generate` runs (their folders or
    results); κ and α per (qtype, QM, AM). `method`: generate, letter, perplexity or free."""
    plan = AnswerPlan(method=method, shuffle=shuffle, choice_e=choice_e, variant=prompt_variant,
                      fictionality=fictionality, max_tokens=max_tokens, seed=seed)
    settings = RunSettings.of(engine, keywords, resume=resume)
    answerers = [models] if isinstance(models, str) or not isinstance(models, Sequence) \
        else list(models)
    return await answer_questions(run_folders(questions), answerers, plan, judge=judge,
                                  judge_base_url=judge_base_url, base_url=settings.base_url,
                                  settings=settings)


def imagine_matrix(runs: RunFolder | Sequence[RunFolder], *,
                   out: Path | str | None = None) -> MatrixResult:
    """Answer runs pooled into one QM x AM grid; matrix.csv and matrix.png into `out`
    (default: a new folder under the runs folder; the runs are only read)."""
    return pool_matrix(run_folders(runs), None if out is None else Path(out))


def imagine_analyze(runs: RunFolder | Sequence[RunFolder], *, similarity: str = "tfidf",
                    out: Path | str | None = None) -> AnalyzeResult:
    """Length ranks, rates by length and position, fictionality and question similarity
    (tfidf, embeddings or none) of generate and answer runs; length-ranks.png into `out`."""
    return analyze_runs(run_folders(runs), similarity=similarity,
                        out=None if out is None else Path(out))


imagine_generate = synchronous(imagine_generate_async, "imagine_generate")
imagine_answer = synchronous(imagine_answer_async, "imagine_answer")
