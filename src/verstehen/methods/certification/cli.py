"""The certification commands the method adds itself: `certify` (its flags: --model and --scope by
hand, --scores, the verdict flags; its handler) and `scopes`; `bounds` and `plan` are derived
from their declarations."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from verstehen.engine.store.inputs import FILE
from verstehen.errors import UserError
from verstehen.methods.certification.api import scores_decision
from verstehen.methods.certification.options import (
    MODEL_HELP,
    SCOPE_HELP,
    CertifyOptions,
    run_certify,
)
from verstehen.methods.certification.parameters import (
    SCORES_HELP,
    CertifyScoresParameters,
)
from verstehen.methods.certification.results import CertifyResult
from verstehen.methods.certification.run import criterion_for
from verstehen.methods.certification.scopes import scope_listing
from verstehen.methods.certification.text import explain
from verstehen.methods.certification.verdict_suite import VerdictCase, VerdictSuite
from verstehen.methods.contract import CommandLine, OwnCommand
from verstehen.models import DEFAULT_MODEL
from verstehen.readers import model_name
from verstehen.results import EXIT_CALL_FAILED
from verstehen.scopes.mcq import MCQ_SPEC
from verstehen.text.tables import plural


def add_certify(cert: argparse.ArgumentParser, cli: CommandLine) -> None:
    """The flags of `certify`: --model and --scope (by hand: --scores decides from a file,
    where they pick a run's answers), --scores, CertifyOptions', the run's and the verdicts'."""
    cert.add_argument("--model", dest="model", type=model_name, default=None, action="append",
                      metavar="MODEL", help=f"{MODEL_HELP} (default {DEFAULT_MODEL})")
    cli.declare_reads(cert.add_argument("--scope", dest="scope", default=None,
                                        action="append", metavar="SCOPE", help=SCOPE_HELP),
                      MCQ_SPEC)
    cli.declare_reads(cert.add_argument("--scores", type=Path, default=None, help=SCORES_HELP),
                      FILE)
    cli.add_options(cert, CertifyOptions)
    cert.add_argument("--json", action="store_true", help="print one JSON object")
    cert.add_argument("--runs-dir", type=Path, default=None,
                      help="parent of run folders (default $VERSTEHEN_RUNS_DIR or ./runs)")
    cert.add_argument("--no-progress", action="store_true", help=cli.no_progress_help)
    cli.add_resume_flag(cert)
    cli.add_verdict_flags(cert)

    def certify(args: argparse.Namespace) -> int:
        """Decide from a scores file, or ask a model a scope's questions and decide (a resumed
        run under the PG, RID and δ in its run.json where its command line gave none)."""
        if args.scores is not None:
            return _certify_scores(args, cli)
        if args.scope is None:
            raise UserError("certify needs --scope SCOPE (`verstehen scopes` lists them) or "
                            "--scores FILE")
        options = cli.options_from(CertifyOptions, args, model=args.model or DEFAULT_MODEL)
        result = asyncio.run(run_certify(options, cli.settings_from(args)))
        code = cli.finish(args, result, lambda done: print(done.text()))
        limited = sum(len(scope.sandbox_limits) for scope in result.scopes)
        if limited and code == 0:  # an unfinished run, though no call failed
            print(f"{plural(limited, 'program')} could not be run to the end in the sandbox (a "
                  "busy machine), so no verdict: rerun the same command to retry",
                  file=sys.stderr)
            code = EXIT_CALL_FAILED
        return cli.end_with_verdicts(args, _verdict_suite(result), code)

    cert.set_defaults(func=certify)


def add_scopes(parser: argparse.ArgumentParser, cli: CommandLine) -> None:
    """`scopes` takes no flags: its handler lists the scopes with a line on each."""

    def scopes(args: argparse.Namespace) -> int:
        print(scope_listing())
        print("\n`verstehen audit --subject S` audits arithmetic and the concept scopes by "
              "subject")
        return 0

    parser.set_defaults(func=scopes)


CERTIFY = OwnCommand(("certify",), "verdict on a scope: understands, does not, inconclusive",
                     add_certify, parents="engine")
SCOPES = OwnCommand(("scopes",), "the scopes certify can ask", add_scopes)


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


def _certify_scores(args: argparse.Namespace, cli: CommandLine) -> int:
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
    done = scores_decision(cli.options_from(CertifyScoresParameters, args, pg=criterion.pg,
                                        rid=criterion.rid, delta=criterion.delta,
                                        rid_test_length=None, model=model, scope=scope))
    if args.json:
        cli.print_json(done.to_dict())
    else:
        print("\n".join(explain(done.verdict)))
    return cli.end_with_verdicts(args, VerdictSuite(
        "certify", (VerdictCase(model or "scores", scope or str(args.scores), done.verdict),),
        criterion), 0)
