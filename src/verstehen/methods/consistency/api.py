"""Conceptual consistency from Python: `consistency()`, and its twin `consistency_async()`.

The synchronous one works inside a notebook's running loop too; both call the entry point the
CLI calls, so their run folders are the same as `verstehen consistency` makes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Unpack

from verstehen.data.mcq import MCQItem
from verstehen.engine.session import RunSettings
from verstehen.engine.settings import EngineKeywords, EngineSettings
from verstehen.engine.sync import synchronous
from verstehen.methods.consistency.knowledge import RELATIONS_14, KnowledgeBase
from verstehen.methods.consistency.procedure import ConsistencyPlan
from verstehen.methods.consistency.results import ConsistencyResult
from verstehen.methods.consistency.run import run_consistency
from verstehen.models import Model


async def consistency_async(
        model: str | Model, *, questions: Path | str | Sequence[MCQItem],
        kb: Path | str | KnowledgeBase, limit: int | None = None,
        relations: str | Sequence[str] = RELATIONS_14, max_path_length: int = 1,
        question_style: str = "fixed", resamples: int = 1000, seed: int = 0,
        max_tokens: int | None = None, answer_by: str = "auto",
        resume: Path | str | None = None, engine: EngineSettings | None = None,
        **keywords: Unpack[EngineKeywords]) -> ConsistencyResult:
    """Conceptual consistency of `model` on the first `limit` CSQA-format `questions` (a file or
    loaded items) with background facts from `kb` (an edge table, ConceptNet's assertions, or a
    loaded KnowledgeBase): CC with its bootstrap interval, S_B, S_A and the breakdowns.
    `answer_by`: auto, likelihood or generation, as `verstehen consistency --answer-by`."""
    # the plan splits a comma-separated str itself; as a tuple, its field's type
    names = tuple(relations.split(",") if isinstance(relations, str) else relations)
    plan = ConsistencyPlan(relations=names, max_path_length=max_path_length,
                           template_style=question_style, seed=seed, max_tokens=max_tokens,
                           answer_by=answer_by)
    settings = RunSettings.of(engine, keywords, resume=resume)
    return await run_consistency(model, questions, kb, plan, limit=limit, resamples=resamples,
                                 base_url=settings.base_url, settings=settings)


consistency = synchronous(consistency_async, "consistency")
