"""Certification from Python: `certify()` one scope.

It is synchronous (it works inside a notebook's running loop too) and has an `_async` twin;
both call the entry point `verstehen certify` calls, so their run folders are the same.
"""

from __future__ import annotations

from pathlib import Path

from verstehen.engine.session import RunSettings
from verstehen.engine.sync import synchronous
from verstehen.methods.certification.results import CertifyResult
from verstehen.methods.certification.run import (
    build_scopes,
    certify_scopes,
    criterion_for,
    make_plan,
)
from verstehen.models import Model
from verstehen.scopes.base import Scope


async def certify_async(model: str | Model, scope: str | Scope, *,
                        questions: int | None = None, sequential: bool = False,
                        max_questions: int | None = None, pg: float | None = None,
                        rid: float | None = None, delta: float | None = None,
                        rid_test_length: int | None = None, explanations: bool = False,
                        program_questions: int = 2000, first_look: int = 16,
                        rephrase: int = 20, seed: int = 0, phrasings: str = "benchmark",
                        max_tokens: int | None = None, idk_score: float | None = None,
                        wrong_score: float | None = None, base_url: str | None = None,
                        runs_dir: Path | str | None = None, cache: Path | str | None = None,
                        resume: Path | str | None = None,
                        progress: bool | None = None, max_connections: int | None = None,
                        max_attempts: int = 6, timeout: float | None = None,
                        threads: int | None = None) -> CertifyResult:
    """Certify `model` on one scope: `questions` answers, or `sequential` looks up to
    `max_questions` (each by default 100 and 1024, or the fewest that can certify a perfect
    model when the criterion needs more); the verdict at (pg, rid, delta), each by default
    DEFAULT_CRITERION's (0.8, 0.2, 0.05), or a resumed run's own. A budget that cannot reach
    a verdict is run after a UserWarning naming one that can."""
    scopes = build_scopes([scope], idk_score=idk_score, wrong_score=wrong_score,
                          explanations=explanations)
    criterion = criterion_for(pg, rid, delta, rid_test_length=rid_test_length, resume=resume)
    plan = make_plan(criterion, questions=questions, sequential=sequential,
                     max_questions=max_questions, first_look=first_look, seed=seed,
                     rephrase=rephrase, explanations=explanations, max_tokens=max_tokens,
                     phrasings=phrasings)
    settings = RunSettings(runs_dir=runs_dir, cache=cache, resume=resume, progress=progress,
                           max_connections=max_connections, max_attempts=max_attempts,
                           timeout=timeout, threads=threads)
    return await certify_scopes(model, scopes, plan,
                                program_questions=program_questions if explanations else None,
                                base_url=base_url, settings=settings, command="certify")


certify = synchronous(certify_async, "certify")
