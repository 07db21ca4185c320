"""The certification commands: certify, scopes, bounds and plan (flags and handlers)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from verstehen.cli.flags import (
    NO_PROGRESS_HELP,
    Parser,
    model_name,
    nonnegative_int,
    positive_int,
    print_json,
    probability,
    seed,
    settings_from,
    unit_interval,
)
from verstehen.cli.resume import add_resume_flag
from verstehen.cli.runs import EXIT_CALL_FAILED, finish
from verstehen.errors import UserError
from verstehen.methods.certification.api import (
    DEFAULT_FIRST_LOOK,
    NearbyCriterion,
    QuestionsNeeded,
    bounds,
    certify_scores,
    plan,
)
from verstehen.methods.certification.plan import (
    DEFAULT_DELTA,
    DEFAULT_PG,
    DEFAULT_RID,
)
from verstehen.methods.certification.report import explain
from verstehen.methods.certification.run import (
    DEFAULT_MAX_QUESTIONS,
    DEFAULT_QUESTIONS,
    build_scopes,
    certify_scopes,
    check_program_questions,
    criterion_for,
    criterion_of,
    make_plan,
)
from verstehen.methods.certification.sandbox import Limits, max_inputs
from verstehen.methods.certification.scopes import SCOPE_HELP as SCOPE_LISTING
from verstehen.methods.certification.scopes.draw import PHRASINGS
from verstehen.methods.certification.verdict import Criterion
from verstehen.models import DEFAULT_MODEL
from verstehen.report.tables import plural

SCOPE_HELP = ("arithmetic, arithmetic/small, mcq:PATH (a CSQA, ARC or MMLU file or folder), or "
              "a concept such as game-theory/pure-nash or poetry/haiku/classify "
              "(`verstehen scopes` lists them)")


def criterion_flags() -> Parser:
    """--pg, --rid (or --rid-test-length), --delta and --json, defaulting to the criterion
    audit uses too (DEFAULT_CRITERION)."""
    flags = Parser(add_help=False)
    flags.add_argument("--pg", type=probability, default=DEFAULT_PG,
                       help="passing grade: the mean score to reach (default %(default)s)")
    flags.add_argument("--rid", type=probability, default=DEFAULT_RID,
                       help="highest tolerable rate of ridiculous answers, those scoring 0 "
                            "(default %(default)s; on a concept every wrong answer scores 0)")
    flags.add_argument("--rid-test-length", type=positive_int, default=None, metavar="N_T",
                       help="derive RID so no ridiculous answer occurs in N_T questions "
                            "with probability 1-δ (paper section 3)")
    flags.add_argument("--delta", type=probability, default=DEFAULT_DELTA,
                       help="a decisive verdict is wrong with probability at most δ "
                            "(default %(default)s)")
    flags.add_argument("--json", action="store_true", help="print one JSON object")
    return flags


def asking_flags() -> Parser:
    """Flags of commands that ask a model a scope's questions."""
    flags = Parser(add_help=False)
    flags.add_argument("--seed", type=seed, default=0,
                       help="question draws (default 0)")
    flags.add_argument("--first-look", type=positive_int, default=DEFAULT_FIRST_LOOK,
                       help="first checkpoint of sequential looks (default %(default)s)")
    flags.add_argument("--rephrase", type=nonnegative_int, default=20, metavar="K",
                       help="ask K questions again in another phrasing, K calls more, said "
                            "before the first (default %(default)s)")
    flags.add_argument("--phrasings", choices=PHRASINGS, default="benchmark",
                       help="benchmark (default): a concept's questions in the Potemkin "
                            "benchmark's wording, other scopes' in a wording drawn per "
                            "question; all: drawn for every scope")
    flags.add_argument("--max-tokens", type=positive_int, default=None,
                       help="every answer's token budget (default: the scope's, 1,024 and "
                            "up, room for reasoning before the answer)")
    flags.add_argument("--idk-score", type=unit_interval, default=None,
                       help="score of 'I don't know' (default: the scope's)")
    flags.add_argument("--wrong-score", type=unit_interval, default=None,
                       help="score of a wrong choice in mcq scopes (default 0)")
    flags.add_argument("--runs-dir", type=Path, default=None,
                       help="parent of run folders (default $VERSTEHEN_RUNS_DIR or ./runs)")
    flags.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    return flags


def add_parsers(commands: argparse._SubParsersAction, engine: Parser) -> None:
    """Add certify, scopes, bounds and plan to the command tree."""
    cert = commands.add_parser("certify", parents=[engine, criterion_flags(), asking_flags()],
                               help="verdict on a scope: understands, does not, inconclusive")
    cert.add_argument("--model", type=model_name, default=None,
                      help=f"provider/model (default {DEFAULT_MODEL})")
    cert.add_argument("--scope", default=None, help=SCOPE_HELP)
    cert.add_argument("--scores", type=Path, default=None,
                      help="decide from a file of scores (one a line, or JSONL with 'score'), "
                           "or from a run's records.jsonl: the asked answers of --scope")
    cert.add_argument("--questions", type=positive_int, default=None,
                      help=f"ask exactly N questions, plus --rephrase K rephrasings (default "
                           f"{DEFAULT_QUESTIONS}, or the fewest that can certify a perfect "
                           "model when the criterion needs more: 2995 at RID 0.001); a budget "
                           "that cannot reach a verdict is run with a warning naming one that "
                           "can")
    cert.add_argument("--sequential", action="store_true",
                      help="look at checkpoints 16, 32, 64, ... and stop when decisive (with "
                           "--scores: on the file's scores in order)")
    cert.add_argument("--max-questions", type=positive_int, default=None,
                      help=f"budget of a sequential run (default {DEFAULT_MAX_QUESTIONS}, or "
                           "the checkpoint at which a perfect model is certified when later: "
                           "8192 at RID 0.001); a budget that cannot reach a verdict is run "
                           "with a warning naming one that can")
    cert.add_argument("--explanations", action="store_true",
                      help="ask for a program per question family and run it in a sandbox")
    cert.add_argument("--program-questions", type=positive_int, default=2000,
                      help="questions each program answers in the sandbox (default 2000, at "
                           f"most {max_inputs(Limits()):,}: what its output limit holds)")
    add_resume_flag(cert)
    cert.set_defaults(func=cmd_certify)

    scopes = commands.add_parser("scopes", help="the scopes certify can ask")
    scopes.set_defaults(func=cmd_scopes)

    bounds = commands.add_parser("bounds", help="Chernoff and Hoeffding bounds on a mean")
    bounds.add_argument("--mean", type=unit_interval, required=True,
                        help="observed mean in [0, 1]")
    bounds.add_argument("--n", type=positive_int, required=True, help="number of samples")
    bounds.add_argument("--delta", type=probability, default=0.05,
                        help="the bounds hold with probability 1 - delta (default 0.05)")
    bounds.add_argument("--json", action="store_true", help="print one JSON object")
    bounds.set_defaults(func=cmd_bounds)

    plan = commands.add_parser("plan", parents=[criterion_flags()],
                               help="how many questions a verdict will likely need")
    plan.add_argument("--expected-score", type=unit_interval, required=True,
                      help="expected mean score in [0, 1]")
    plan.add_argument("--expected-rid", type=unit_interval, required=True,
                      help="expected rate of ridiculous answers")
    plan.add_argument("--power", type=probability, default=0.5,
                      help="chance the verdict comes by then (0.5 = plug in the expected rates)")
    plan.add_argument("--first-look", type=positive_int, default=DEFAULT_FIRST_LOOK,
                      help="first checkpoint of sequential looks (default %(default)s)")
    plan.set_defaults(func=cmd_plan)


def criterion_from(args: argparse.Namespace) -> Criterion:
    """The checked (PG, RID, δ) of the flags."""
    return criterion_of(args.pg, args.rid, args.delta, rid_test_length=args.rid_test_length)


def cmd_scopes(args: argparse.Namespace) -> int:
    """List the scopes with a line on each."""
    print(SCOPE_LISTING)
    print("\n`verstehen audit --subject S` audits arithmetic and the concept scopes by subject")
    return 0


def cmd_bounds(args: argparse.Namespace) -> int:
    """Print L and U (Chernoff) and Hoeffding's interval for an observed mean."""
    out = bounds(args.mean, args.n, delta=args.delta)
    if args.json:
        print_json(out.to_dict())
        return 0
    print(f"mean {out.mean:g} over n = {out.n}, each bound holds with probability "
          f">= {1 - out.delta:g}")
    print(f"  Chernoff (KL):  L = {out.chernoff_lower:.9f}   U = {out.chernoff_upper:.9f}")
    print(f"  Hoeffding:      L = {out.hoeffding_lower:.9f}   U = {out.hoeffding_upper:.9f}"
          "  (outside [0, 1] means uninformative)")
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    """Print how many questions the fixed and the sequential procedures likely need."""
    out = plan(args.expected_score, args.expected_rid, pg=args.pg, rid=args.rid,
               delta=args.delta, rid_test_length=args.rid_test_length, power=args.power,
               first_look=args.first_look)
    if args.json:
        print_json(out.to_dict())
        return 0
    if out.fixed_questions is None:
        print(f"no number of questions will likely decide: {_on_threshold(out)}"
              + ("" if out.nearby is None else f"; {_nearby_words(out, out.nearby)}"))
        return 0
    print(f"expected verdict: {out.expected_verdict} (PG {out.pg:g}, RID {out.rid:g}, "
          f"δ {out.delta:g})")
    print(f"  fixed n:     {out.fixed_questions} questions")
    print(f"  sequential:  stops by the checkpoint at {out.sequential_questions} questions "
          f"(looks at {out.first_look}, {2 * out.first_look}, ...)")
    return 0


def _on_threshold(out: QuestionsNeeded) -> str:
    """Which expected rate sits on which threshold (or too near to tell apart)."""
    parts = []
    if out.expected_score <= out.pg:
        parts.append(f"the expected score {out.expected_score:g} sits on PG {out.pg:g}")
    if out.expected_rid >= out.rid:
        parts.append(f"the expected rate {out.expected_rid:g} sits on RID {out.rid:g}")
    return " and ".join(parts) or "the expected rates sit too near PG or RID"


def _nearby_words(out: QuestionsNeeded, near: NearbyCriterion) -> str:
    """The flags of a nearby criterion that decides, and the questions it then needs."""
    flags = " ".join(f"--{name} {new:g}" for name, old, new in (
        ("pg", out.pg, near.pg), ("rid", out.rid, near.rid)) if new != old)
    looks = ("" if near.sequential_questions is None
             else f", sequential looks up to {near.sequential_questions:,}")
    return (f"with {flags}, \"understands\" likely comes within {near.fixed_questions:,} "
            f"questions at a fixed n{looks}")


def cmd_certify(args: argparse.Namespace) -> int:
    """Decide from a scores file, or ask a model a scope's questions and decide (a resumed
    run under the PG, RID and δ in its run.json: its flags are its own, the defaults may not
    be)."""
    criterion = criterion_for(resume=args.resume) if args.resume else criterion_from(args)
    if args.scores is not None:
        if args.model:
            raise UserError("--scores decides from a file: leave out --model")
        if args.questions is not None or args.explanations:
            raise UserError("--scores decides from the file's scores: leave out --questions "
                            "and --explanations")
        done = certify_scores(args.scores, pg=criterion.pg, rid=criterion.rid,
                              delta=criterion.delta, scope=args.scope,
                              sequential=args.sequential, first_look=args.first_look,
                              max_questions=args.max_questions)
        if args.json:
            print_json(done.to_dict())
        else:
            print("\n".join(explain(done.verdict)))
        return 0
    if args.scope is None:
        raise UserError("certify needs --scope SCOPE (`verstehen scopes` lists them) or "
                        "--scores FILE")
    program_questions = args.program_questions if args.explanations else None
    check_program_questions(program_questions)
    # the scope first, so a bad scope or file is named before the budget is judged
    scopes = build_scopes([args.scope], idk_score=args.idk_score, wrong_score=args.wrong_score,
                          explanations=args.explanations)
    plan = make_plan(criterion, questions=args.questions, sequential=args.sequential,
                     max_questions=args.max_questions, first_look=args.first_look,
                     seed=args.seed, rephrase=args.rephrase, explanations=args.explanations,
                     max_tokens=args.max_tokens, phrasings=args.phrasings)
    floor = DEFAULT_MAX_QUESTIONS if plan.sequential else DEFAULT_QUESTIONS
    if (args.max_questions if plan.sequential else args.questions) is None \
            and plan.questions > floor:
        print(f"note: {'looks up to ' if plan.sequential else ''}{plan.questions:,} questions, "
              f"the fewest that can certify a perfect model at PG {criterion.pg:g}, RID "
              f"{criterion.rid:.3g}, δ {criterion.delta:g} (choose with "
              f"--{'max-questions' if plan.sequential else 'questions'})", file=sys.stderr)
    result = asyncio.run(certify_scopes(
        args.model or DEFAULT_MODEL, scopes, plan, program_questions=program_questions,
        base_url=args.base_url, settings=settings_from(args), command="certify"))
    code = finish(args, result, lambda done: print(done.text()))
    limited = sum(len(scope.sandbox_limits) for scope in result.scopes)
    if limited and code == 0:  # an unfinished run, though no call failed
        print(f"{plural(limited, 'program')} could not be run to the end in the sandbox (a "
              "busy machine), so no verdict: rerun the same command to retry",
              file=sys.stderr)
        return EXIT_CALL_FAILED
    return code
