"""The certification commands: certify, scopes, bounds and plan (flags and handlers)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

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
from verstehen.domains.catalog import canonical_name
from verstehen.errors import UserError
from verstehen.methods.certification.decide import certify
from verstehen.methods.certification.plan import (
    DEFAULT_DELTA,
    DEFAULT_PG,
    DEFAULT_RID,
    Nearby,
    nearby_criterion,
    samples_needed,
    sequential_samples_needed,
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
from verstehen.methods.certification.sequential import certify_sequential
from verstehen.methods.certification.verdict import Criterion, Verdict
from verstehen.models import DEFAULT_MODEL
from verstehen.report.tables import plural
from verstehen.scopes import SCOPE_HELP as SCOPE_LISTING
from verstehen.scopes.draw import PHRASINGS
from verstehen.stats import bounds as b
from verstehen.textfiles import read_text

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
    flags.add_argument("--first-look", type=positive_int, default=16,
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
    plan.add_argument("--first-look", type=positive_int, default=16,
                      help="first checkpoint of sequential looks (default %(default)s)")
    plan.set_defaults(func=cmd_plan)


def criterion_from(args: argparse.Namespace) -> Criterion:
    """The checked (PG, RID, δ) of the flags."""
    return criterion_of(args.pg, args.rid, args.delta, rid_test_length=args.rid_test_length)


def read_scores(path: Path, scope: str | None = None) -> list[float]:
    """Scores from a file: one number a line, JSONL objects with a "score" field, or a run's
    records.jsonl, of which the asked answers of one scope count (`scope`, needed when the
    records hold several; rephrasings, explanations and failed calls are left out)."""
    if not path.is_file():
        raise UserError(f"scores file not found: {path}")
    rows: list[tuple[int, Any]] = []
    for n, line in enumerate(read_text(path, "scores file").splitlines(), 1):
        text = line.strip()
        if not text:
            continue
        try:
            rows.append((n, json.loads(text)))
        except ValueError:
            rows.append((n, text))
    if any(isinstance(value, dict) and "kind" in value for _, value in rows):
        rows = _asked_answers(path, rows, scope)
    elif scope is not None:
        raise UserError(f"{path} holds plain scores, not a run's records: --scope picks the "
                        "answers of one scope from records.jsonl; leave it out here")
    scores = []
    for n, value in rows:
        try:
            score = float(value["score"] if isinstance(value, dict) else value)
        except (ValueError, KeyError, TypeError):
            shown = json.dumps(value) if not isinstance(value, str) else value
            raise UserError(f"{path}:{n}: {shown[:40]!r} is not a score: write one number in "
                            "[0, 1] a line, or JSON objects with a \"score\" field") from None
        if not 0 <= score <= 1:
            raise UserError(f"{path}:{n}: score {score} is outside [0, 1]")
        scores.append(score)
    if not scores:
        raise UserError(f"{path} has no scores: write one number in [0, 1] a line")
    return scores


def _asked_answers(path: Path, rows: list[tuple[int, Any]], scope: str | None
                   ) -> list[tuple[int, Any]]:
    """The records of asked answers that were graded, of one scope (UserError naming the
    scopes when there are several and none was chosen)."""
    answers = [(n, r) for n, r in rows if isinstance(r, dict) and r.get("kind") == "answer"
               and r.get("score") is not None]
    scopes = sorted({str(r.get("scope")) for _, r in answers})
    if scope is not None:
        wanted = canonical_name(scope)
        if wanted not in scopes:
            raise UserError(f"{path} has no graded answers of scope {scope!r}: its scopes are "
                            f"{', '.join(scopes) or 'none'}")
        return [(n, r) for n, r in answers if r.get("scope") == wanted]
    if len(scopes) > 1:
        raise UserError(f"{path} holds the answers of {len(scopes)} scopes "
                        f"({', '.join(scopes)}): choose one with --scope")
    return answers


def cmd_scopes(args: argparse.Namespace) -> int:
    """List the scopes with a line on each."""
    print(SCOPE_LISTING)
    print("\n`verstehen audit --subject S` audits arithmetic and the concept scopes by subject")
    return 0


def cmd_bounds(args: argparse.Namespace) -> int:
    """Print L and U (Chernoff) and Hoeffding's interval for an observed mean."""
    out = {"mean": args.mean, "n": args.n, "delta": args.delta,
           "chernoff_lower": b.chernoff_lower(args.mean, args.n, args.delta),
           "chernoff_upper": b.chernoff_upper(args.mean, args.n, args.delta),
           "hoeffding_lower": b.hoeffding_lower(args.mean, args.n, args.delta),
           "hoeffding_upper": b.hoeffding_upper(args.mean, args.n, args.delta)}
    if args.json:
        print_json(out)
        return 0
    print(f"mean {args.mean:g} over n = {args.n}, each bound holds with probability "
          f">= {1 - args.delta:g}")
    print(f"  Chernoff (KL):  L = {out['chernoff_lower']:.9f}   U = {out['chernoff_upper']:.9f}")
    print(f"  Hoeffding:      L = {out['hoeffding_lower']:.9f}   U = {out['hoeffding_upper']:.9f}"
          "  (outside [0, 1] means uninformative)")
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    """Print how many questions the fixed and the sequential procedures likely need."""
    criterion = criterion_from(args)
    try:
        fixed = samples_needed(criterion, args.expected_score, args.expected_rid,
                               power=args.power)
        sequential = sequential_samples_needed(criterion, args.expected_score, args.expected_rid,
                                               first=args.first_look, power=args.power)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    expected = ("understands" if args.expected_score > criterion.pg
                and args.expected_rid < criterion.rid else "does not understand")
    near = None if fixed is not None else nearby_criterion(
        criterion, args.expected_score, args.expected_rid, first=args.first_look,
        power=args.power)
    out = {"pg": criterion.pg, "rid": criterion.rid, "delta": criterion.delta,
           "expected_score": args.expected_score, "expected_rid": args.expected_rid,
           "power": args.power, "expected_verdict": expected, "fixed_questions": fixed,
           "sequential_questions": sequential, "first_look": args.first_look,
           "nearby": None if near is None else {
               "pg": near.criterion.pg, "rid": near.criterion.rid,
               "fixed_questions": near.fixed_questions,
               "sequential_questions": near.sequential_questions}}
    if args.json:
        print_json(out)
        return 0
    if fixed is None:
        print(f"no number of questions will likely decide: {_on_threshold(criterion, args)}"
              + ("" if near is None else f"; {_nearby_words(criterion, near)}"))
        return 0
    print(f"expected verdict: {expected} (PG {criterion.pg:g}, RID {criterion.rid:g}, "
          f"δ {criterion.delta:g})")
    print(f"  fixed n:     {fixed} questions")
    print(f"  sequential:  stops by the checkpoint at {sequential} questions "
          f"(looks at {args.first_look}, {2 * args.first_look}, ...)")
    return 0


def _on_threshold(criterion: Criterion, args: argparse.Namespace) -> str:
    """Which expected rate sits on which threshold (or too near to tell apart)."""
    parts = []
    if args.expected_score <= criterion.pg:
        parts.append(f"the expected score {args.expected_score:g} sits on PG {criterion.pg:g}")
    if args.expected_rid >= criterion.rid:
        parts.append(f"the expected rate {args.expected_rid:g} sits on RID {criterion.rid:g}")
    return " and ".join(parts) or "the expected rates sit too near PG or RID"


def _nearby_words(criterion: Criterion, near: Nearby) -> str:
    """The flags of a nearby criterion that decides, and the questions it then needs."""
    flags = " ".join(f"--{name} {new:g}" for name, old, new in (
        ("pg", criterion.pg, near.criterion.pg), ("rid", criterion.rid, near.criterion.rid))
        if new != old)
    looks = ("" if near.sequential_questions is None
             else f", sequential looks up to {near.sequential_questions:,}")
    return (f"with {flags}, \"understands\" likely comes within {near.fixed_questions:,} "
            f"questions at a fixed n{looks}")


def scores_verdict(scores: list[float], criterion: Criterion,
                   args: argparse.Namespace) -> Verdict:
    """Procedure 4.1 on every score; with --sequential, the looks at --first-look, twice
    that, ... up to --max-questions (default: the file's length), on the scores in order."""
    if not args.sequential:
        if args.max_questions is not None:
            raise UserError("--max-questions is the budget of a sequential run: add "
                            "--sequential, or leave it out")
        return certify(scores, criterion.pg, criterion.rid, criterion.delta)
    budget = args.max_questions or len(scores)
    if args.first_look > min(budget, len(scores)):
        raise UserError(f"the first look is at {plural(args.first_look, 'score')} but "
                        f"{'the file holds' if budget >= len(scores) else '--max-questions is'} "
                        f"{min(budget, len(scores))}: lower --first-look")
    return certify_sequential(scores, criterion.pg, criterion.rid, criterion.delta,
                              first=args.first_look, max_n=budget)


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
        verdict = scores_verdict(read_scores(args.scores, args.scope), criterion, args)
        if args.json:
            print_json({"scores": str(args.scores), "verdict": verdict.to_dict()})
        else:
            print("\n".join(explain(verdict)))
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
