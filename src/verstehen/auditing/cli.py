"""`verstehen audit`: its flags (from AuditOptions, and the verdict flags) and its handler,
which calls the entry point the Python API calls, then says where the report is."""

from __future__ import annotations

import argparse
import asyncio
import sys

from verstehen.auditing.api import run_audit
from verstehen.auditing.options import AuditOptions
from verstehen.auditing.results import AuditResult
from verstehen.auditing.text import show
from verstehen.methods.certification.verdict_suite import VerdictCase, VerdictSuite
from verstehen.methods.contract import CommandLine, OwnCommand
from verstehen.viewer.page import REPORT_FILE


def add_audit(audit: argparse.ArgumentParser, cli: CommandLine) -> None:
    """The flags of `audit` and its handler."""
    cli.add_options(audit, AuditOptions)
    cli.add_verdict_flags(audit)

    def run(args: argparse.Namespace) -> int:
        """Audit the models; print the per-target table and the report's path."""
        result = asyncio.run(run_audit(cli.options_from(AuditOptions, args),
                                       cli.settings_from(args)))
        code = cli.finish(args, result, show)
        print(f"report: {result.run_dir / REPORT_FILE}",
              file=sys.stderr if args.json else sys.stdout)
        return cli.end_with_verdicts(args, verdict_suite(result), code)

    audit.set_defaults(func=run)


def verdict_suite(result: AuditResult) -> VerdictSuite:
    """Each (model, target)'s certification verdict, for --fail-on and --junit."""
    return VerdictSuite("audit", tuple(VerdictCase(line.model, line.key, line.verdict)
                                       for line in result.targets),
                        result.criterion, result.run_dir, result.seconds)


AUDIT_COMMAND = OwnCommand(
    ("audit",), "the main job: does the model understand a subject's concepts? (one report)",
    add_audit, parents="run",
    epilog="Models side by side may be called at different places: --model "
           "local/smollm2-135m --model openai/m@http://127.0.0.1:8000/v1 compares the "
           "embedded model with one served at that URL. --base-url serves the openai/ "
           "and anthropic/ models given without @URL; local/ models ignore it (a --base-url "
           "that serves none of the models is refused).")
