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
    print_json,
    settings_from,
)
from verstehen.cli.inputs import declare_reads
from verstehen.cli.options import add_options, options_from
from verstehen.cli.resume import add_resume_flag
from verstehen.cli.runs import EXIT_CALL_FAILED, finish
from verstehen.cli.verdicts import (
    VerdictCase,
    VerdictSuite,
    add_verdict_flags,
    end_with_verdicts,
)
from verstehen.engine.store.inputs import FILE
from verstehen.errors import UserError
from verstehen.methods.certification.api import (
    mean_bounds,
    questions_needed,
    scores_decision,
)
from verstehen.methods.certification.options import (
    MODEL_HELP,
    SCOPE_HELP,
    CertifyOptions,
    run_certify,
)
from verstehen.methods.certification.parameters import (
    SCORES_HELP,
    BoundsParameters,
    CertifyScoresParameters,
    PlanParameters,
)
from verstehen.methods.certification.results import CertifyResult
from verstehen.methods.certification.run import criterion_for
from verstehen.methods.certification.scopes import scope_listing
from verstehen.methods.certification.text import explain
from verstehen.models import DEFAULT_MODEL
from verstehen.scopes.mcq import MCQ_SPEC
from verstehen.text.tables import plural


def add_parsers(commands: argparse._SubParsersAction[Parser], engine: Parser) -> None:
    """Add certify (its flags from CertifyOptions), scopes, bounds and plan to the command
    tree."""
    cert = commands.add_parser("certify", parents=[engine],
                               help="verdict on a scope: understands, does not, inconclusive")
    # by hand: --scores decides from a file, where --model and --scope pick a run's answers
    cert.add_argument("--model", dest="model", type=model_name, default=None, action="append",
                      metavar="MODEL", help=f"{MODEL_HELP} (default {DEFAULT_MODEL})")
    declare_reads(cert.add_argument("--scope", dest="scope", default=None, action="append",
                                    metavar="SCOPE", help=SCOPE_HELP),
                  MCQ_SPEC)
    declare_reads(cert.add_argument("--scores", type=Path, default=None, help=SCORES_HELP),
                  FILE)
    add_options(cert, CertifyOptions)
    cert.add_argument("--json", action="store_true", help="print one JSON object")
    cert.add_argument("--runs-dir", type=Path, default=None,
                      help="parent of run folders (default $VERSTEHEN_RUNS_DIR or ./runs)")
    cert.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    add_resume_flag(cert)
    add_verdict_flags(cert)
    cert.set_defaults(func=cmd_certify)

    scopes = commands.add_parser("scopes", help="the scopes certify can ask")
    scopes.set_defaults(func=cmd_scopes)

    bounds = commands.add_parser("bounds", help="Chernoff and Hoeffding bounds on a mean")
    add_options(bounds, BoundsParameters)
    bounds.add_argument("--json", action="store_true", help="print one JSON object")
    bounds.set_defaults(func=cmd_bounds)

    plan = commands.add_parser("plan", help="how many questions a verdict will likely need")
    add_options(plan, PlanParameters)
    plan.add_argument("--json", action="store_true", help="print one JSON object")
    plan.set_defaults(func=cmd_plan)


def cmd_scopes(args: argparse.Namespace) -> int:
    """List the scopes with a line on each."""
    print(scope_listing())
    print("\n`verstehen audit --subject S` audits arithmetic and the concept scopes by subject")
    return 0


def cmd_bounds(args: argparse.Namespace) -> int:
    """Print L and U (Chernoff) and Hoeffding's interval for an observed mean."""
    out = mean_bounds(options_from(BoundsParameters, args))
    if args.json:
        print_json(out.to_dict())
        return 0
    print(out.text())
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    """Print how many questions the fixed and the sequential procedures likely need."""
    out = questions_needed(options_from(PlanParameters, args))
    if args.json:
        print_json(out.to_dict())
        return 0
    print(out.text())
    return 0


def cmd_certify(args: argparse.Namespace) -> int:
    """Decide from a scores file, or ask a model a scope's questions and decide (a resumed
    run under the PG, RID and δ in its run.json where its command line gave none)."""
    if args.scores is not None:
        return _certify_scores(args)
    if args.scope is None:
        raise UserError("certify needs --scope SCOPE (`verstehen scopes` lists them) or "
                        "--scores FILE")
    options = options_from(CertifyOptions, args, model=args.model or DEFAULT_MODEL)
    result = asyncio.run(run_certify(options, settings_from(args)))
    code = finish(args, result, lambda done: print(done.text()))
    limited = sum(len(scope.sandbox_limits) for scope in result.scopes)
    if limited and code == 0:  # an unfinished run, though no call failed
        print(f"{plural(limited, 'program')} could not be run to the end in the sandbox (a "
              "busy machine), so no verdict: rerun the same command to retry",
              file=sys.stderr)
        code = EXIT_CALL_FAILED
    return end_with_verdicts(args, _verdict_suite(result), code)


def _verdict_suite(result: CertifyResult) -> VerdictSuite:
    """Each (model, scope) verdict, for --fail-on and --junit: one testcase each."""
    return VerdictSuite("certify", tuple(
        VerdictCase(result.model_of(scope), scope.scope, scope.verdict,
                    _no_verdict(scope.failed_calls))
        for scope in result.scopes), result.criterion, result.run_dir, result.seconds)


def _no_verdict(failed_calls: int) -> str:
    """Why a scope has no verdict: its failed calls, else programs the sandbox left unrun."""
    if failed_calls:
        return (f"no verdict: {plural(failed_calls, 'call')} failed; resume the run to retry "
                "them")
    return "no verdict: the sandbox could not run every program to the end; rerun to retry"


def _certify_scores(args: argparse.Namespace) -> int:
    """`certify --scores FILE`: the verdict on the file's scores, printed."""
    criterion = criterion_for(args.pg, args.rid, args.delta,
                              rid_test_length=args.rid_test_length, resume=args.resume)
    if args.questions is not None or args.explanations:
        raise UserError("--scores decides from the file's scores: leave out --questions "
                        "and --explanations")
    for flag, given in (("--model", args.model), ("--scope", args.scope)):
        if given is not None and len(given) > 1:
            raise UserError(f"--scores makes one verdict, on the answers of one {flag[2:]} of "
                            f"a run's records: give {flag} once (or run certify without "
                            "--scores for several)")
    model, scope = (None if given is None else given[0] for given in (args.model, args.scope))
    # the criterion as resolved (a resumed run's own where the flags gave none)
    done = scores_decision(options_from(CertifyScoresParameters, args, pg=criterion.pg,
                                        rid=criterion.rid, delta=criterion.delta,
                                        rid_test_length=None, model=model, scope=scope))
    if args.json:
        print_json(done.to_dict())
    else:
        print("\n".join(explain(done.verdict)))
    return end_with_verdicts(args, VerdictSuite(
        "certify", (VerdictCase(model or "scores", scope or str(args.scores), done.verdict),),
        criterion), 0)
