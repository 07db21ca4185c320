"""The audit of a checked plan: each model through every lens into one audit folder (the
parameters' entry point, `run_audit`, is in api.py).

Per model, one session (one model load, one progress line): certification of every target's
scope (the sequential test), then, for the concept targets, the definitions (Potemkin's
keystone, graded by the judge when one is given) and the model's own examples
(incoherence). Each lens writes an ordinary run folder inside the audit folder, so
`verstehen annotate`, `potemkin score` and `report` read it as they read any other.

Each model is called at its own server: its NAME@URL, else the --base-url for a served
(openai/, anthropic/) model, else its provider's (a local/ model runs in-process). Every model
is checked (key set, server reachable) before the audit folder is made.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from verstehen.auditing.plan import AuditPlan, budget_line, reach_warnings
from verstehen.auditing.results import AuditResult
from verstehen.auditing.summary import (
    COMMAND,
    AuditConfig,
    model_folder,
    summarize_audit,
    target_configs,
)
from verstehen.engine.notices import warn
from verstehen.engine.session import RunSettings, Session, check_openable
from verstehen.engine.store import RunStore, marked_on_error
from verstehen.engine.usage import ModelUsage
from verstehen.errors import UserError
from verstehen.methods.certification.procedure import CertifyPlan
from verstehen.methods.certification.run import build_scopes, certify_scopes
from verstehen.methods.certification.verdict import DOUBLING, SEQUENTIAL_TESTS
from verstehen.methods.potemkin.incoherence import plan_incoherence, run_incoherence
from verstehen.methods.potemkin.run import plan_run, run_potemkin
from verstehen.models import Model, check_model, model_name
from verstehen.models.endpoints import one_or_several
from verstehen.models.served_at import BaseUrl, ServedModel, column_names, served_models
from verstehen.scopes.base import Scope


async def _one_model(model: str | Model, base_url: BaseUrl, plan: AuditPlan,
                     scopes: list[Scope], settings: RunSettings, *, lens_settings: RunSettings,
                     judge: ServedModel | None) -> dict[str, ModelUsage]:
    """Every lens for one model (called at `base_url`) in one session; the calls and tokens
    it made."""
    certify_plan = CertifyPlan(plan.criterion, plan.max_questions, sequential=True,
                               first_look=plan.first_look, seed=plan.seed,
                               rephrase=plan.rephrase, max_tokens=plan.max_tokens,
                               phrasings=plan.phrasings, sequential_test=plan.test)
    keys = [c.key for c in plan.concepts]
    session = Session.start(settings, model_name(model))
    usage: dict[str, ModelUsage] = {}

    def count(lens_usage: dict[str, ModelUsage]) -> None:
        for name, counts in lens_usage.items():
            usage.setdefault(name, ModelUsage()).absorb(counts)

    async def certification() -> dict[str, ModelUsage] | None:
        return (await certify_scopes(model, scopes, certify_plan, base_url=base_url,
                                     settings=lens_settings, command="certify",
                                     session=session)).usage

    async def definitions() -> dict[str, ModelUsage] | None:
        return (await run_potemkin(
            model, plan_run(concepts=keys, tasks=("define",), seed=plan.seed,
                            max_tokens=plan.max_tokens),
            judge=None if judge is None else judge.model, base_url=base_url,
            judge_base_url=None if judge is None else judge.base_url,
            settings=lens_settings, session=session)).usage

    async def examples() -> dict[str, ModelUsage] | None:
        return (await run_incoherence(
            model, plan_incoherence(per_concept=plan.examples, max_tokens=plan.max_tokens,
                                    seed=plan.seed),
            concepts=keys, base_url=base_url, settings=lens_settings, session=session)).usage

    lenses = [certification]
    if keys:
        lenses.append(definitions)
    if keys and plan.examples:
        lenses.append(examples)
    try:
        # the lenses run together (an in-process model decodes all their replies in one batch,
        # full while one lens waits for its slowest reply); each adds its calls as it starts
        with session.runner.progress.together(len(lenses)) as mark:

            async def lens(part: int) -> dict[str, ModelUsage] | None:
                mark(part)
                return await lenses[part]()

            tasks = [asyncio.ensure_future(lens(part)) for part in range(len(lenses))]
            try:
                outcomes = await asyncio.gather(*tasks)
            except BaseException:  # one lens failed: the others stop too
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                raise
        for lens_usage in outcomes:
            count(lens_usage or {})
    finally:
        await session.close()
    return usage


def resolved_test(plan: AuditPlan, resume: Path | str | None) -> AuditPlan:
    """The plan with its sequential test settled: the one given, else a resumed audit's own
    (a config naming none: the doubling test), else the default."""
    if plan.sequential_test is not None or resume is None:
        return replace(plan, sequential_test=plan.test)
    config = RunStore.existing(Path(resume)).info().get("config")
    own = config.get("sequential_test") if isinstance(config, dict) else None
    return replace(plan, sequential_test=own if own in SEQUENTIAL_TESTS else DOUBLING)


async def run_plan(models: Sequence[str | Model], plan: AuditPlan, *,
                   judge: str | Model | None = None,
                   base_url: str | Sequence[str] | None = None,
                   judge_base_url: str | None = None,
                   settings: RunSettings | None = None) -> AuditResult:
    """Audit each model on the plan's targets into a new audit folder; one line per (model,
    target): verdict with bounds, keystone, potemkin rates, incoherence and the evidence.

    A model given as NAME@URL is called at its URL; `base_url` serves the openai/ and
    anthropic/ models given without one (local/ models ignore it); the judge likewise."""
    settings = settings or RunSettings()
    if not models:
        raise UserError("give at least one model to audit")
    served = served_models(models, base_url)
    judging = served_models([judge], judge_base_url)[0] if judge is not None else None
    if base_url is not None and all(url != one_or_several(base_url) for _, url in served):
        raise UserError("--base-url serves the openai/ and anthropic/ models given without "
                        "@URL, and this audit has none (local/ models run in-process)")
    names = column_names(served)
    if len(set(names)) != len(names):
        raise UserError(f"a model is named twice: {', '.join(names)}")
    # every model that cannot be opened is refused before the audit's folder is made (and
    # so before the first model's first call)
    for model, url in [*served, *([judging] if judging is not None else [])]:
        if isinstance(model, str):
            check_model(model)
            check_openable(model, base_url=url, api_key_env=settings.api_key_env)
    scopes = build_scopes([t.scope for t in plan.targets])  # before any folder or model
    plan = resolved_test(plan, settings.resume)
    for warning in reach_warnings(plan):
        warn(warning, announce=settings.announce)
    if settings.announce:
        print(f"budget: {budget_line(plan, len(names))}", file=sys.stderr)
    c = plan.criterion
    config = AuditConfig(
        models=names, subjects=list(plan.subjects), targets=target_configs(plan.targets),
        pg=c.pg, rid=c.rid, delta=c.delta, max_questions=plan.max_questions,
        first_look=plan.first_look, rephrase=plan.rephrase, examples=plan.examples,
        max_tokens=plan.max_tokens, phrasings=plan.phrasings,
        judge=None if judging is None else model_name(judging.model), base_url=base_url,
        model_urls=[url for _, url in served],
        judge_base_url=None if judging is None else judging.base_url)
    if plan.test != DOUBLING:  # a config naming no test: the doubling one (audits of before)
        config["sequential_test"] = plan.test
    with marked_on_error():
        store = settings.create_run(COMMAND, dict(config), plan.seed, [])
        started = time.monotonic()
        usage: dict[str, ModelUsage] = {}
        for (model, url), name in zip(served, names, strict=True):
            lens_settings = settings.nested(model_folder(store.path, name))
            made = await _one_model(model, url, plan, scopes, settings,
                                    lens_settings=lens_settings, judge=judging)
            if name != model_name(model) and model_name(model) in made:
                # two servers of one model name: its calls go under the name of its column
                made[name] = made.pop(model_name(model))
            for called, counts in made.items():
                usage.setdefault(called, ModelUsage()).absorb(counts)
        return summarize_audit(store.path, seconds=round(time.monotonic() - started, 1),
                               usage=dict(sorted(usage.items())))
