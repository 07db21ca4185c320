"""`verstehen audit`: flags (from AuditOptions) and handler (the handler calls the entry point
the Python API calls)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from verstehen.auditing.api import run_audit
from verstehen.auditing.options import AuditOptions
from verstehen.auditing.results import AuditResult
from verstehen.auditing.text import show
from verstehen.cli.flags import Parser, run_flags, settings_from
from verstehen.cli.options import add_options, options_from
from verstehen.cli.runs import finish
from verstehen.cli.verdicts import (
    VerdictCase,
    VerdictSuite,
    add_verdict_flags,
    end_with_verdicts,
)
from verstehen.viewer.page import REPORT_FILE


def add_parsers(commands: argparse._SubParsersAction[Parser], engine: Parser) -> None:
    """Add `audit`: the main job."""
    audit = commands.add_parser(
        "audit", parents=[run_flags(engine)],
        help="the main job: does the model understand a subject's concepts? (one report)",
        epilog="Models side by side may be called at different places: --model "
               "local/smollm2-135m --model openai/m@http://127.0.0.1:8000/v1 compares the "
               "embedded model with one served at that URL. --base-url serves the openai/ "
               "and anthropic/ models given without @URL; local/ models ignore it (a --base-url "
               "that serves none of the models is refused).")
    add_options(audit, AuditOptions)
    add_verdict_flags(audit)
    audit.set_defaults(func=cmd_audit)


def cmd_audit(args: argparse.Namespace) -> int:
    """Audit the models; print the per-target table and the report's path."""
    result = asyncio.run(run_audit(options_from(AuditOptions, args), settings_from(args)))
    code = finish(args, result, show)
    print(f"report: {result.run_dir / REPORT_FILE}", file=sys.stderr if args.json else sys.stdout)
    return end_with_verdicts(args, verdict_suite(result), code)


def verdict_suite(result: AuditResult) -> VerdictSuite:
    """Each (model, target)'s certification verdict, for --fail-on and --junit."""
    return VerdictSuite("audit", tuple(VerdictCase(line.model, line.key, line.verdict)
                                       for line in result.targets),
                        result.criterion, result.run_dir, result.seconds)
