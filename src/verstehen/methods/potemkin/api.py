"""Potemkin understanding from Python: `potemkin()` (define, then use), `potemkin_incoherence()`,
`potemkin_selfjudge()`, `potemkin_score()` of records files, and the human labels of a run
(`potemkin_export_labels()`, `potemkin_import_labels()`).

The three that call models are synchronous (they work inside a notebook's running loop too) and
have `_async` twins; they call the entry points the CLI calls, so their run folders are the same
as `verstehen potemkin run|incoherence|selfjudge` makes (and `verstehen annotate` works on them).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Unpack

from verstehen.engine.session import RunSettings
from verstehen.engine.settings import EngineKeywords, EngineSettings
from verstehen.engine.sync import synchronous
from verstehen.methods.potemkin.annotate import export_items, import_labels, open_run
from verstehen.methods.potemkin.display import PotemkinScoresShown
from verstehen.methods.potemkin.incoherence import plan_incoherence, run_incoherence
from verstehen.methods.potemkin.items import ALL_TASKS
from verstehen.methods.potemkin.outputs import score_files, summarize_run
from verstehen.methods.potemkin.results import (
    IncoherenceResult,
    PotemkinResult,
    SelfJudgeResult,
)
from verstehen.methods.potemkin.run import plan_run, run_potemkin
from verstehen.methods.potemkin.selfjudge import plan_selfjudge, run_selfjudge
from verstehen.methods.potemkin.stats import PotemkinScores
from verstehen.models import Model
from verstehen.scopes.mcq import MCQScope

RunFolder = str | Path | PotemkinResult


def _folder(run: RunFolder) -> Path:
    return run.run_dir if isinstance(run, PotemkinResult) else Path(run)


async def potemkin_async(
        model: str | Model, *, concepts: str | Sequence[str] | None = None,
        tasks: str | Sequence[str] = ALL_TASKS, judge: str | Model | None = None,
        source: str | None = None, benchmark_dir: Path | str | None = None,
        items_per_concept: int | None = None, seed: int = 0, max_tokens: int | None = None,
        unparsed: str = "wrong", judge_base_url: str | Sequence[str] | None = None,
        resume: Path | str | None = None, engine: EngineSettings | None = None,
        **keywords: Unpack[EngineKeywords]) -> PotemkinResult:
    """Define each concept (the keystone), then classify, generate and edit; Tables 1 and 6 and
    the keystone expansion once definitions are graded (by `judge`, or by people: see
    `potemkin_export_labels`). Concepts default to the exactly graded ones; an unreadable
    generate or edit answer counts as wrong (`unparsed="exclude"` leaves it out)."""
    plan = plan_run(concepts=concepts, tasks=tasks, source=source, benchmark_dir=benchmark_dir,
                    items_per_concept=items_per_concept, seed=seed, max_tokens=max_tokens,
                    unparsed=unparsed)
    settings = RunSettings.of(engine, keywords, resume=resume)
    return await run_potemkin(model, plan, judge=judge, base_url=settings.base_url,
                              judge_base_url=judge_base_url, settings=settings)


async def potemkin_incoherence_async(
        model: str | Model, *, concepts: str | Sequence[str] | None = None,
        per_concept: int = 5, temperature: float = 0.7, max_tokens: int | None = None,
        seed: int = 0, resume: Path | str | None = None, engine: EngineSettings | None = None,
        **keywords: Unpack[EngineKeywords]) -> IncoherenceResult:
    """The model writes `per_concept` instances and as many non-instances of each concept (all
    32 unless given), then classifies each: incoherence = 2 x mismatch rate (paper Table 7)."""
    plan = plan_incoherence(per_concept=per_concept, temperature=temperature,
                            max_tokens=max_tokens, seed=seed)
    settings = RunSettings.of(engine, keywords, resume=resume)
    return await run_incoherence(model, plan, concepts=concepts, base_url=settings.base_url,
                                 settings=settings)


async def potemkin_selfjudge_async(
        model: str | Model, benchmark: str | MCQScope, *, questions: int = 20,
        subquestions: int = 5, concept: str = "ask", seed: int = 0,
        max_tokens: int | None = None, resume: Path | str | None = None,
        engine: EngineSettings | None = None,
        **keywords: Unpack[EngineKeywords]) -> SelfJudgeResult:
    """The automatic lower bound on a multiple-choice benchmark ("mcq:PATH"): the model says
    which concept each question relies on (`concept="subject"`: the subject's name), then
    judges its own answers to related questions, and altered versions of them."""
    scope, plan = plan_selfjudge(benchmark, questions=questions, subquestions=subquestions,
                                 seed=seed, max_tokens=max_tokens, concept=concept)
    settings = RunSettings.of(engine, keywords, resume=resume)
    return await run_selfjudge(model, scope, plan, base_url=settings.base_url,
                               settings=settings)


def potemkin_score(records: RunFolder | Sequence[RunFolder], *, plot: Path | str | None = None,
                   above_chance_only: bool = True, next_uses: int = 10,
                   unparsed: str = "wrong", expansion: str = "paper") -> PotemkinScores:
    """Tables 1 and 6 and the keystone expansion of records files (CSV or JSONL with model,
    domain, concept, task, keystone, correct) or `potemkin` runs; `plot` writes Figure 4; an
    empty `correct` of generate or edit counts as wrong (`unparsed="exclude"`: left out).
    `expansion="paper"` computes Figure 4 as the paper does (classify answers, the next ones
    drawn with replacement); "all-uses" counts generate and edit too, drawn without."""
    given = [records] if isinstance(records, (str, Path, PotemkinResult)) else records
    return PotemkinScoresShown.of(score_files([_folder(r) for r in given], plot=plot,
                       above_chance_only=above_chance_only, next_uses=next_uses,
                       unparsed=unparsed, expansion=expansion))


def potemkin_export_labels(run: RunFolder, out: Path | str | None = None, *,
                           everything: bool = False) -> Path:
    """Write the answers people should label (definitions and judge-graded answers; with
    `everything`, all) as CSV, by default RUN/to-label.csv; the CSV's path."""
    store = open_run(_folder(run))
    path = Path(out) if out is not None else store.path / "to-label.csv"
    export_items(store, path, everything=everything)
    return path


def potemkin_import_labels(run: RunFolder, labels: Path | str) -> PotemkinResult:
    """Read the label column (yes or no) of an exported CSV into the run; the run's result
    recomputed (people's labels beat the judge's)."""
    store = open_run(_folder(run))
    import_labels(store, Path(labels))
    return summarize_run(store)


potemkin = synchronous(potemkin_async, "potemkin")
potemkin_incoherence = synchronous(potemkin_incoherence_async, "potemkin_incoherence")
potemkin_selfjudge = synchronous(potemkin_selfjudge_async, "potemkin_selfjudge")
