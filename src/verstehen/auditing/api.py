"""The audit from Python: `audit()` (and `audit_async()`), the same job as `verstehen audit`,
its report.html written into the audit folder."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Unpack

from verstehen.auditing.plan import (
    DEFAULT_DELTA,
    DEFAULT_FIRST_LOOK,
    DEFAULT_MAX_QUESTIONS,
    DEFAULT_PG,
    DEFAULT_RID,
    AuditPlan,
    make_plan,
)
from verstehen.auditing.results import AuditResult
from verstehen.auditing.run import run_audit
from verstehen.engine.session import RunSettings
from verstehen.engine.settings import EngineKeywords, EngineSettings
from verstehen.engine.sync import synchronous
from verstehen.models import DEFAULT_MODEL, Model
from verstehen.viewer.page import REPORT_FILE, write_report


async def audit_and_report(models: Sequence[str | Model], plan: AuditPlan, *,
                           judge: str | Model | None = None,
                           base_url: str | Sequence[str] | None = None,
                           judge_base_url: str | None = None,
                           settings: RunSettings | None = None) -> AuditResult:
    """Run the audit, then write its report.html into the audit folder."""
    result = await run_audit(models, plan, judge=judge, base_url=base_url,
                             judge_base_url=judge_base_url, settings=settings)
    write_report([result.run_dir], result.run_dir / REPORT_FILE)
    return result


async def audit_async(
        models: str | Model | Sequence[str | Model] = DEFAULT_MODEL, *,
        subjects: str | Sequence[str] | None = None, judge: str | Model | None = None,
        pg: float = DEFAULT_PG, rid: float = DEFAULT_RID, delta: float = DEFAULT_DELTA,
        max_questions: int = DEFAULT_MAX_QUESTIONS, first_look: int = DEFAULT_FIRST_LOOK,
        rephrase: int = 0, examples: int = 1, seed: int = 0, max_tokens: int | None = None,
        phrasings: str = "benchmark", judge_base_url: str | None = None,
        resume: Path | str | None = None, engine: EngineSettings | None = None,
        **keywords: Unpack[EngineKeywords]) -> AuditResult:
    """Audit each model on the subjects' concepts (default game theory; "all" for every exact
    concept and arithmetic): certification, definition, incoherence; report.html in its folder.

    A model named `NAME@URL` is called at that server; `base_url` (one URL, or a list of
    replicas) serves the openai/ and anthropic/ models named without one (local/ models and
    Model objects ignore it; one that serves none is refused). A judge may be `NAME@URL` too,
    else `judge_base_url` serves it."""
    plan = make_plan(subjects, pg=pg, rid=rid, delta=delta, max_questions=max_questions,
                     first_look=first_look, rephrase=rephrase, examples=examples, seed=seed,
                     max_tokens=max_tokens, phrasings=phrasings)
    settings = RunSettings.of(engine, keywords, resume=resume)
    given = [models] if isinstance(models, (str, Model)) else list(models)
    return await audit_and_report(given, plan, judge=judge, base_url=settings.base_url,
                                  judge_base_url=judge_base_url, settings=settings)


audit = synchronous(audit_async, "audit")
