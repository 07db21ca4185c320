"""The certification entry point: one model on several scopes, into one run folder.

`certify_scopes` is what `verstehen certify`, the Python API's `certify()` and the audit's
certification lens call; the helpers before it check the inputs and build every scope
before any model call, so a bad spec costs nothing.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from verstehen.engine.lifecycle import Context, Made, Started, run_method
from verstehen.engine.notices import warn
from verstehen.engine.session import RunSettings, Session
from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.methods.certification.bounds import rid_for_test_length
from verstehen.methods.certification.explain import run_explained
from verstehen.methods.certification.plan import (
    DEFAULT_CRITERION,
    samples_needed,
    sequential_samples_needed,
)
from verstehen.methods.certification.procedure import CertifyPlan, block_of, run_certify
from verstehen.methods.certification.records import CertifyConfig
from verstehen.methods.certification.results import CertifyResult
from verstehen.methods.certification.sandbox import MESSAGE_HEAD, Limits, max_inputs
from verstehen.methods.certification.scope_result import ScopeResult
from verstehen.methods.certification.scopes import get_scope
from verstehen.methods.certification.scopes.draw import DRAW
from verstehen.methods.certification.sequential import budget_warnings, schedule_of
from verstehen.methods.certification.verdict import (
    DEFAULT_TEST,
    DOUBLING,
    SEQUENTIAL_TESTS,
    Criterion,
)
from verstehen.models import Model, model_name
from verstehen.models.endpoints import one_or_several
from verstehen.models.served_at import BaseUrl
from verstehen.scopes.base import ExplainableScope, Scope
from verstehen.text.tables import plural
from verstehen.wording import parameter, setting

DEFAULT_QUESTIONS, DEFAULT_MAX_QUESTIONS = 100, 1024


def criterion_of(pg: float | None, rid: float | None, delta: float | None, *,
                 rid_test_length: int | None = None) -> Criterion:
    """The checked (PG, RID, δ), each None taking the default criterion's value; RID may come
    from a test length (no ridiculous answer in N_T questions with probability 1-δ)."""
    default = DEFAULT_CRITERION
    delta = default.delta if delta is None else delta
    try:
        if rid_test_length is not None:
            rid = float(rid_for_test_length(rid_test_length, delta))
        return Criterion(default.pg if pg is None else pg, default.rid if rid is None else rid,
                         delta)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def resumed_criterion(resume: Path | str) -> dict[str, float]:
    """The PG, RID and δ a run folder was made with (from its run.json), to go on with it
    under its own criterion rather than today's default; {} for what it does not hold."""
    config: Any = RunStore.existing(Path(resume)).info().get("config")
    if not isinstance(config, dict):
        return {}
    return {key: float(value) for key in ("pg", "rid", "delta")
            if isinstance(value := config.get(key), int | float) and not isinstance(value, bool)}


def criterion_for(pg: float | None = None, rid: float | None = None,
                  delta: float | None = None, *, rid_test_length: int | None = None,
                  resume: Path | str | None = None) -> Criterion:
    """The criterion of a run: each value given, else (when resuming) the run's own, else the
    default one. A run folder made under an older default thus goes on under its own."""
    own = resumed_criterion(resume) if resume is not None else {}
    if rid_test_length is None and rid is None:
        rid = own.get("rid")
    return criterion_of(own.get("pg") if pg is None else pg, rid,
                        own.get("delta") if delta is None else delta,
                        rid_test_length=rid_test_length)


def sequential_test_for(given: str | None, resume: Path | str | None = None) -> str:
    """The sequential test of a run: the one given, else a resumed run's own (one naming none
    was decided by the doubling test, the only one before), else the betting test."""
    if given is not None:
        return given
    if resume is None:
        return DEFAULT_TEST
    config: Any = RunStore.existing(Path(resume)).info().get("config")
    own = config.get("sequential_test") if isinstance(config, dict) else None
    return own if isinstance(own, str) and own in SEQUENTIAL_TESTS else DOUBLING


def default_budget(criterion: Criterion, *, sequential: bool, first_look: int = 16,
                   test: str = DEFAULT_TEST) -> int:
    """The budget when none is given: 100 questions (sequential: looks up to 1024), or more
    when the criterion needs more to certify even a perfect model (fixed: samples_needed;
    sequential: the look sequential_samples_needed names)."""
    floor = DEFAULT_MAX_QUESTIONS if sequential else DEFAULT_QUESTIONS
    needed = (sequential_samples_needed(criterion, 1.0, 0.0, first=first_look, test=test)
              if sequential else samples_needed(criterion, 1.0, 0.0))
    return max(floor, needed or floor)


def make_plan(criterion: Criterion, *, questions: int | None = None, sequential: bool = False,
              max_questions: int | None = None, first_look: int = 16, seed: int = 0,
              rephrase: int = 20, explanations: bool = False, max_tokens: int | None = None,
              phrasings: str = "benchmark", sequential_test: str = DEFAULT_TEST) -> CertifyPlan:
    """What to ask: `questions` (fixed n) or sequential looks up to `max_questions` (by
    `sequential_test`); either defaults to `default_budget`. A budget that cannot reach a
    verdict even for a perfect model (or one always wrong) gets a warning naming values that
    would (with explanations, programs answer the questions and the direct budget is not
    checked); `max_tokens` replaces every answer's token budget."""
    if sequential and questions is not None:
        raise UserError(f"give {parameter('questions')} (fixed) or "
                        f"{setting('sequential', True)} with {parameter('max_questions')}, "
                        "not both")
    if explanations and sequential:
        raise UserError(f"{setting('explanations', True)} works with "
                        f"{parameter('questions')}, not with {setting('sequential', True)}")
    if max_questions is not None and not sequential:
        raise UserError(f"{parameter('max_questions')} is the budget of a sequential run: add "
                        f"{setting('sequential', True)}, or give {parameter('questions')}")
    if sequential_test not in SEQUENTIAL_TESTS:
        raise UserError(f"{parameter('sequential_test')} must be one of "
                        f"{', '.join(SEQUENTIAL_TESTS)}, not {sequential_test!r}")
    given = max_questions if sequential else questions
    n = given or default_budget(criterion, sequential=sequential, first_look=first_look,
                                test=sequential_test)
    notes: tuple[str, ...] = ()
    if not explanations and (not sequential or first_look <= n):
        notes = tuple(budget_warnings(criterion, n, sequential=sequential,
                                      first_look=first_look, test=sequential_test,
                                      still="it can still find that the model does not "
                                            "understand"))
    return CertifyPlan(criterion, n, sequential=sequential, first_look=first_look, seed=seed,
                       rephrase=rephrase, max_tokens=max_tokens, phrasings=phrasings,
                       warnings=notes, sequential_test=sequential_test)


def calls_line(scopes: Sequence[Scope], plan: CertifyPlan,
               program_questions: int | None = None, models: int = 1) -> str:
    """The calls a run will make, said before the first: questions plus rephrasings (and the
    programs asked for, with explanations), e.g. "50 questions + 20 rephrasings (--rephrase
    20) = 70 calls"; "up to" where the run may stop early; each of several models asks them
    all ("for 2 models x 3 scopes")."""
    many = len(scopes) * models
    per = (f" for {models} models x {plural(len(scopes), 'scope')}" if models > 1
           else f" for {many} scopes" if many > 1 else "")
    if program_questions is not None:
        programs = models * sum(len(s.families) for s in scopes
                                if isinstance(s, ExplainableScope))
        questions = many * plan.questions
        return (f"{programs} program requests + up to {questions:,} questions{per} = up to "
                f"{programs + questions:,} calls")
    rephrased = models * sum(min(plan.rephrase, plan.questions) for s in scopes
                             if s.phrasings > 1)
    questions = many * plan.questions
    upto = "up to " if plan.sequential else ""
    looks = ""
    if plan.sequential:
        looks = f" ({looks_words(plan, {block_of(s) for s in scopes})})"
    asked = f"{upto}{questions:,} questions{looks}{per}"
    rephrasing = setting("rephrase", plan.rephrase)
    if not rephrased:
        why = f" ({rephrasing})" if plan.rephrase == 0 else " (one phrasing: none to rephrase)"
        return f"{asked} = {upto}{questions:,} calls{why}"
    return (f"{asked} + {upto}{rephrased:,} rephrasings ({rephrasing}) = "
            f"{upto}{questions + rephrased:,} calls")


def looks_words(plan: CertifyPlan, blocks: set[int]) -> str:
    """The looks of a sequential plan: "looks at 16, 32, 64, ..., 1,024", or, of the betting
    test where scopes look at blocks of different sizes, where they start and how they grow."""
    if len(blocks) > 1 and plan.sequential_test != DOUBLING:
        return (f"looks from {plan.first_look}, about 1/8 apart in whole blocks, up to "
                f"{plan.questions:,}")
    shown = schedule_of(plan.sequential_test, plan.first_look, plan.questions,
                        next(iter(blocks), 1))
    return "looks at " + ", ".join(f"{n:,}" for n in shown[:3]) + (
        f", ..., {shown[-1]:,}" if len(shown) > 3 else "")


def build_scopes(specs: Sequence[str | Scope], *, idk_score: float | None = None,
                 wrong_score: float | None = None, explanations: bool = False) -> list[Scope]:
    """Every scope of the specs (names as `verstehen scopes` lists them, or Scope objects)."""
    scopes = [spec if not isinstance(spec, str) else
              get_scope(spec, idk_score=idk_score, wrong_score=wrong_score) for spec in specs]
    if explanations:
        for scope in scopes:
            if not isinstance(scope, ExplainableScope):
                raise UserError(f"scope {scope.name} has no question families a program could "
                                f"answer: drop {setting('explanations', True)}")
    return scopes


def check_program_questions(count: int | None) -> None:
    """UserError unless each program's answers always fit the sandbox's output limit."""
    if count is None:
        return
    limits = Limits()
    if not 1 <= count <= max_inputs(limits):
        raise UserError(
            f"{parameter('program_questions')} must lie in [1, {max_inputs(limits):,}], not "
            f"{count:,}: a program's answers must fit the sandbox's "
            f"{limits.output_bytes // 2**20} MiB of "
            f"output, {limits.answer_bytes + MESSAGE_HEAD} bytes each at most")


def model_list(model: str | Model | Sequence[str | Model]) -> list[str | Model]:
    """The models of a run, as a list (one given alone is a list of one)."""
    return [model] if isinstance(model, (str, Model)) else list(model)


def _served(models: list[str | Model], base_url: str | Sequence[str] | None
            ) -> list[tuple[str | Model, BaseUrl]]:
    """Each model with the server it is called at: one model at `base_url` (as always); of
    several, `base_url` serves the openai/ and anthropic/ ones, as in the audit (local/ models
    run in-process and Model objects are open already), and one serving none is refused."""
    urls = one_or_several(base_url)
    if len(models) == 1:
        return [(models[0], urls)]
    served = [(m, urls if isinstance(m, str) and not m.startswith("local/") else None)
              for m in models]
    if urls is not None and all(url is None for _, url in served):
        raise UserError("--base-url serves the openai/ and anthropic/ models, and this run "
                        "has none (local/ models run in-process): leave it out")
    return served


async def certify_scopes(model: str | Model | Sequence[str | Model], scopes: Sequence[Scope],
                         plan: CertifyPlan, *, program_questions: int | None = None,
                         base_url: str | Sequence[str] | None = None,
                         settings: RunSettings | None = None, command: str = "certify",
                         session: Session | None = None) -> CertifyResult:
    """Certify each model on each scope into one run folder (one verdict per model and scope,
    each record naming its model); with `program_questions`, by Procedure 5.1 (a program per
    question family, each answering that many questions). The models are asked one after
    another, each one's scopes together. In an open `session` (a job of several steps), the
    session is used and left open."""
    settings = settings or RunSettings()
    check_program_questions(program_questions)
    models = model_list(model)
    if not models:
        raise UserError("give at least one model to certify")
    served = _served(models, base_url)
    names = [model_name(m) for m in models]
    if len(set(names)) != len(names):
        raise UserError(f"a model is named twice: {', '.join(names)}; give each once")
    named = [s.name for s in scopes]
    if not named or len(set(named)) != len(named):
        raise UserError(f"give each scope once, and at least one: {', '.join(named) or 'none'}")
    criterion = plan.criterion

    # the state: the models opened, and each (model, scope)'s result as it is decided
    async def start(session: Session) -> Started[tuple[list[Model], list[ScopeResult]]]:
        opened = [session.open_model(m, base_url=url) for m, url in served]
        if len({m.name for m in opened}) != len(opened):  # records tell models by name
            raise UserError(f"two models go by one name: {', '.join(m.name for m in opened)}")
        # one model's config is what it always was, so its folders of before resume
        config: CertifyConfig = ({"model": names[0]} if len(names) == 1
                                 else {"models": [m.name for m in opened]})
        config.update({"scopes": [s.name for s in scopes], "pg": criterion.pg,
                       "rid": criterion.rid, "delta": criterion.delta,
                       "questions": plan.questions, "sequential": plan.sequential,
                       "first_look": plan.first_look, "rephrase": plan.rephrase,
                       "max_tokens": plan.max_tokens, "phrasings": plan.phrasings,
                       "draw": DRAW, "explanations": program_questions is not None,
                       "base_url": base_url})
        if plan.sequential and plan.sequential_test != DOUBLING:
            # a config naming no test was decided by the doubling one (folders of before)
            config["sequential_test"] = plan.sequential_test
        return Started(config, plan.seed, list(opened), (opened, []))

    async def ask(context: Context[tuple[list[Model], list[ScopeResult]]]) -> None:
        session, store = context.session, context.store
        opened, results = context.state
        if settings.announce:  # before the first call, on stderr (stdout may be --json)
            print(f"{command}: {calls_line(scopes, plan, program_questions, len(opened))}",
                  file=sys.stderr)
        for i, one in enumerate(opened):
            # each model adds its calls when it starts: until the last does, more follow
            with session.runner.progress.growing(i < len(opened) - 1):
                made = await _ask_model(session, store, one, scopes, plan, program_questions)
            results.extend(made if len(opened) == 1 else
                           [replace(result, model=one.name) for result in made])

    def finish(store: RunStore, state: tuple[list[Model], list[ScopeResult]],
               made: Made) -> CertifyResult:
        # one model's result has the shape it always had; several go by their records' names
        several = () if len(names) == 1 else tuple(m.name for m in state[0])
        return CertifyResult(run_dir=made.run_dir, model=", ".join(several) or names[0],
                             models=several, criterion=criterion, scopes=tuple(state[1]),
                             seconds=made.seconds, usage=made.usage)

    for note in plan.warnings:
        warn(note, announce=settings.announce)
    return await run_method(settings, command=command, label=f"{command} {', '.join(names)}",
                            start=start, ask=ask, finish=finish, session=session)


async def _ask_model(session: Session, store: RunStore, opened: Model, scopes: Sequence[Scope],
                     plan: CertifyPlan, program_questions: int | None) -> list[ScopeResult]:
    """One model's verdict on each scope: the scopes asked together, or one after another
    with explanations."""
    if program_questions is None:
        # the scopes are asked together: a model that decodes many replies at once (the
        # in-process one) keeps its batch full while one scope waits for its last reply.
        # Each adds its questions as it starts.
        with session.runner.progress.together(len(scopes)) as mark:

            async def certify(part: int) -> ScopeResult:
                mark(part)
                return await run_certify(session.runner, opened, scopes[part], store, plan)

            return list(await asyncio.gather(*(certify(i) for i in range(len(scopes)))))
    results = []
    for i, scope in enumerate(scopes):
        # each scope adds its programs when it starts: until the last does, more follow
        with session.runner.progress.growing(i < len(scopes) - 1):
            assert isinstance(scope, ExplainableScope)
            results.append(await run_explained(session.runner, opened, scope, store, plan,
                                               program_questions))
    return results
