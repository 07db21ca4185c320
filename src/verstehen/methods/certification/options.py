"""The parameters of `verstehen certify` and `certify()`, declared once, and the run they make.

`certify_async` and `certify` are made from CertifyOptions (`api_functions`); the CLI builds
the same options from its flags (`verstehen.cli.options`) and calls the same `run_certify`, so
a run folder made from Python is the one the command makes.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from verstehen.engine.session import RunSettings
from verstehen.methods.certification.parameters import (
    delta_option,
    first_look_option,
    pg_option,
    rid_option,
    rid_test_length_option,
    sequential_test_option,
)
from verstehen.methods.certification.results import CertifyResult
from verstehen.methods.certification.run import (
    DEFAULT_MAX_QUESTIONS,
    DEFAULT_QUESTIONS,
    build_scopes,
    certify_scopes,
    check_program_questions,
    criterion_for,
    make_plan,
    model_list,
    sequential_test_for,
)
from verstehen.methods.certification.sandbox import Limits, max_inputs
from verstehen.methods.certification.scopes.draw import PHRASINGS
from verstehen.methods.options import (
    COUNT,
    COUNT_OR_ZERO,
    SEED,
    SHARED,
    UNIT,
    Options,
    api_functions,
    option,
    options_class,
)
from verstehen.models import Model
from verstehen.scopes.base import Scope
from verstehen.wording import parameter

SCOPE_HELP = ("arithmetic, arithmetic/small, mcq:PATH (a CSQA, ARC or MMLU file or folder, or "
              "hf:DATASET[:CONFIG][@REVISION][#SPLIT]), or "
              "a concept such as game-theory/pure-nash or poetry/haiku/classify "
              "(`verstehen scopes` lists them); several (--scope again, or a list) each get a "
              "verdict of each model")
MODEL_HELP = ("provider/model; several (--model again, or a list) are each certified on every "
              "scope, in one run")


@options_class
class CertifyOptions(Options):
    """What a certification run asks of which model, and the criterion of its verdict."""

    # --model and --scope are written by hand: `certify --scores` takes both to pick a run's
    # answers, so on the CLI both default to None
    model: str | Model | Sequence[str | Model] = option(
        help=MODEL_HELP, flag=SHARED, many=True, kw_only=False)
    scope: str | Scope | Sequence[str | Scope] = option(
        help=SCOPE_HELP, flag=SHARED, many=True, kw_only=False)
    questions: int | None = option(
        default=None, kind=int, range=COUNT,
        shown=f"{DEFAULT_QUESTIONS}, or the fewest that can certify a perfect model when the "
              "criterion needs more: 2995 at RID 0.001",
        help="ask exactly N questions, plus --rephrase K rephrasings (default {default}); a "
             "budget that cannot reach a verdict is run with a warning naming one that can")
    sequential: bool = option(
        default=False, help="look at the answers as they come and stop when decisive (with "
                            "--scores: on the file's scores in order)")
    sequential_test: str | None = sequential_test_option("checkpoints 16, 32, 64", "runs")
    max_questions: int | None = option(
        default=None, kind=int, range=COUNT,
        shown=f"{DEFAULT_MAX_QUESTIONS}, or the look at which a perfect model is certified "
              "when later: 4283 at RID 0.001 (8192 by the doubling test)",
        help="budget of a sequential run (default {default}); a budget that cannot reach a "
             "verdict is run with a warning naming one that can")
    explanations: bool = option(
        default=False, help="ask for a program per question family and run it in a sandbox")
    program_questions: int = option(
        default=2000, range=COUNT,
        help="questions each program answers in the sandbox (default {default}, at most "
             f"{max_inputs(Limits()):,}: what its output limit holds)")
    pg: float | None = pg_option()
    rid: float | None = rid_option()
    rid_test_length: int | None = rid_test_length_option()
    delta: float | None = delta_option()
    first_look: int = first_look_option()
    rephrase: int = option(
        default=20, range=COUNT_OR_ZERO, metavar="K",
        help="ask K questions again in another phrasing, K calls more, said before the first")
    seed: int = option(default=0, range=SEED, help="question draws")
    phrasings: str = option(
        default="benchmark", choices=PHRASINGS,
        help="{default} (default): a concept's questions in the Potemkin benchmark's wording, "
             "other scopes' in a wording drawn per question; all: drawn for every scope")
    max_tokens: int | None = option(
        default=None, kind=int, range=COUNT,
        shown="the scope's, 1,024 and up, room for reasoning before the answer",
        help="every answer's token budget (default: {default})")
    idk_score: float | None = option(default=None, kind=float, range=UNIT, shown="the scope's",
                                     help="score of 'I don't know' (default: {default})")
    wrong_score: float | None = option(default=None, kind=float, range=UNIT, shown="0",
                                       help="score of a wrong choice in mcq scopes")

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("model", "scope"):  # one in a list is that one, as either face gives it
            value = getattr(self, name)
            if isinstance(value, tuple) and len(value) == 1:
                object.__setattr__(self, name, value[0])

    def model_list(self) -> list[str | Model]:
        """The models to certify, as a list (one given alone is a list of one)."""
        return model_list(self.model)

    def scope_list(self) -> list[str | Scope]:
        """The scopes to certify each model on, as a list (one alone is a list of one)."""
        return [self.scope] if isinstance(self.scope, (str, Scope)) else list(self.scope)


async def run_certify(options: CertifyOptions, settings: RunSettings) -> CertifyResult:
    """Certify `model` (one, or several side by side) on `scope` (one or several), one
    verdict per model and scope in one run folder: `questions` answers, or `sequential` looks
    up to `max_questions` (each by default 100 and 1024, or the fewest that can certify a
    perfect model when the criterion needs more); the verdict at (pg, rid, delta), each by default
    DEFAULT_CRITERION's (0.8, 0.2, 0.05), or a resumed run's own. A budget that cannot reach
    a verdict is run after a UserWarning naming one that can."""
    criterion = criterion_for(options.pg, options.rid, options.delta,
                              rid_test_length=options.rid_test_length, resume=settings.resume)
    program_questions = options.program_questions if options.explanations else None
    check_program_questions(program_questions)
    # the scope first, so a bad scope or file is named before the budget is judged
    scopes = build_scopes(options.scope_list(), idk_score=options.idk_score,
                          wrong_score=options.wrong_score, explanations=options.explanations)
    plan = make_plan(criterion, questions=options.questions, sequential=options.sequential,
                     max_questions=options.max_questions, first_look=options.first_look,
                     seed=options.seed, rephrase=options.rephrase,
                     explanations=options.explanations, max_tokens=options.max_tokens,
                     phrasings=options.phrasings,
                     sequential_test=sequential_test_for(options.sequential_test,
                                                         settings.resume))
    given = options.max_questions if plan.sequential else options.questions
    floor = DEFAULT_MAX_QUESTIONS if plan.sequential else DEFAULT_QUESTIONS
    if settings.announce and given is None and plan.questions > floor:
        print(f"note: {'looks up to ' if plan.sequential else ''}{plan.questions:,} questions, "
              f"the fewest that can certify a perfect model at PG {criterion.pg:g}, RID "
              f"{criterion.rid:.3g}, δ {criterion.delta:g} (choose with "
              f"{parameter('max_questions' if plan.sequential else 'questions')})",
              file=sys.stderr)
    return await certify_scopes(options.model_list(), scopes, plan,
                                program_questions=program_questions,
                                base_url=settings.base_url, settings=settings,
                                command="certify")


certify_async, certify = api_functions(CertifyOptions, run_certify, "certify")
