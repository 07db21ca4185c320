"""The audit from Python: `audit()` (and `audit_async()`), the same job as `verstehen audit`,
its report.html written into the audit folder; both faces call `run_audit`."""

from __future__ import annotations

from verstehen.auditing.options import AuditOptions
from verstehen.auditing.results import AuditResult
from verstehen.auditing.run import run_plan
from verstehen.engine.session import RunSettings
from verstehen.methods.options import api_functions
from verstehen.viewer.page import REPORT_FILE, write_report


async def run_audit(options: AuditOptions, settings: RunSettings) -> AuditResult:
    """Audit each model on the subjects' concepts (default game theory; "all" for every exact
    concept and arithmetic): certification, definition, incoherence; report.html in its folder.

    A model named `NAME@URL` is called at that server; `base_url` (one URL, or a list of
    replicas) serves the openai/ and anthropic/ models named without one (local/ models and
    Model objects ignore it; one that serves none is refused). A judge may be `NAME@URL` too,
    else `judge_base_url` serves it."""
    result = await run_plan(options.model_list(), options.plan(), judge=options.judge,
                            base_url=settings.base_url, judge_base_url=options.judge_base_url,
                            settings=settings)
    write_report([result.run_dir], result.run_dir / REPORT_FILE)
    return result


audit_async, audit = api_functions(AuditOptions, run_audit, "audit")
