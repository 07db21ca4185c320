"""`verstehen audit`: flags and handler (the handler calls the entry point the Python API calls)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from verstehen.auditing.api import audit_and_report
from verstehen.auditing.plan import (
    DEFAULT_DELTA,
    DEFAULT_FIRST_LOOK,
    DEFAULT_MAX_QUESTIONS,
    DEFAULT_PG,
    DEFAULT_RID,
    make_plan,
    subject_names,
)
from verstehen.auditing.text import show
from verstehen.cli.flags import (
    Parser,
    base_url,
    model_name,
    nonnegative_int,
    positive_int,
    probability,
    run_flags,
    settings_from,
)
from verstehen.cli.runs import finish
from verstehen.errors import UserError
from verstehen.methods.certification.scopes.draw import PHRASINGS
from verstehen.models import DEFAULT_MODEL
from verstehen.models.served_at import split_at_url
from verstehen.viewer.page import REPORT_FILE


def add_parsers(commands: argparse._SubParsersAction, engine: Parser) -> None:
    """Add `audit`: the main job."""
    audit = commands.add_parser(
        "audit", parents=[run_flags(engine)],
        help="the main job: does the model understand a subject's concepts? (one report)",
        epilog="Models side by side may be called at different places: --model "
               "local/smollm2-135m --model openai/m@http://127.0.0.1:8000/v1 compares the "
               "embedded model with one served at that URL. --base-url serves the openai/ "
               "and anthropic/ models given without @URL; local/ models ignore it (a --base-url "
               "that serves none of the models is refused).")
    audit.add_argument("--model", type=served_model, action="append", default=None,
                       help=f"repeatable: models side by side (default {DEFAULT_MODEL}); "
                            "NAME@URL calls one at its own OpenAI- or Anthropic-compatible "
                            "server, e.g. openai/m@http://127.0.0.1:8000/v1 (others served "
                            "go to --base-url; local/ models ignore --base-url)")
    audit.add_argument("--subject", "--scope", dest="subject", action="append", default=None,
                       help=f"repeatable: {', '.join(subject_names())}, or a concept key from "
                            "`verstehen concepts --exact` (default game-theory)")
    audit.add_argument("--judge", type=served_model, default=None,
                       help="provider/model grading the definitions (else people do, with "
                            "`verstehen annotate`); NAME@URL for one at its own server")
    audit.add_argument("--judge-base-url", type=base_url, default=None,
                       help="server of the judge model (when not given as NAME@URL)")
    audit.add_argument("--pg", type=probability, default=DEFAULT_PG,
                       help=f"passing grade (default {DEFAULT_PG})")
    audit.add_argument("--rid", type=probability, default=DEFAULT_RID,
                       help=f"highest tolerable rate of ridiculous answers (default "
                            f"{DEFAULT_RID}: a concept's wrong answers all score 0)")
    audit.add_argument("--delta", type=probability, default=DEFAULT_DELTA,
                       help="a decisive verdict is wrong with probability at most δ "
                            f"(default {DEFAULT_DELTA:g})")
    audit.add_argument("--max-questions", type=positive_int, default=DEFAULT_MAX_QUESTIONS,
                       help=f"budget per target of the sequential test (default "
                            f"{DEFAULT_MAX_QUESTIONS}; a target stops early once decided, or "
                            "once 'understands' is out of reach)")
    audit.add_argument("--first-look", type=positive_int, default=DEFAULT_FIRST_LOOK,
                       help=f"first checkpoint of the sequential test (default "
                            f"{DEFAULT_FIRST_LOOK})")
    audit.add_argument("--rephrase", type=nonnegative_int, default=0, metavar="K",
                       help="ask K questions per target again in another phrasing (default 0)")
    audit.add_argument("--phrasings", choices=PHRASINGS, default="benchmark",
                       help="benchmark (default): a concept's questions in the Potemkin "
                            "benchmark's wording; all: a wording drawn per question")
    audit.add_argument("--examples", type=nonnegative_int, default=1, metavar="N",
                       help="incoherence: N instances and N non-instances per concept "
                            "(default 1; 0 skips)")
    audit.set_defaults(func=cmd_audit)


def served_model(text: str) -> str:
    """A model name `provider/model`, or `provider/model@URL` for an openai/ or anthropic/
    model at its own server (the URL checked as --base-url's is)."""
    try:
        name, _ = split_at_url(model_name(text))
    except UserError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    model_name(name)
    return text


def cmd_audit(args: argparse.Namespace) -> int:
    """Audit the models; print the per-target table and the report's path."""
    plan = make_plan(args.subject, pg=args.pg, rid=args.rid, delta=args.delta,
                     max_questions=args.max_questions, first_look=args.first_look,
                     rephrase=args.rephrase, examples=args.examples, seed=args.seed,
                     max_tokens=args.max_tokens, phrasings=args.phrasings)
    result = asyncio.run(audit_and_report(
        args.model or [DEFAULT_MODEL], plan, judge=args.judge, base_url=args.base_url,
        judge_base_url=args.judge_base_url, settings=settings_from(args)))
    code = finish(args, result, show)
    print(f"report: {result.run_dir / REPORT_FILE}", file=sys.stderr if args.json else sys.stdout)
    return code
