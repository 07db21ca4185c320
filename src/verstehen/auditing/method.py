"""The audit, the main job, as `verstehen` knows it: `verstehen audit` and the audit folders it
makes, each holding its lens run folders (one folder per model)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Never

from verstehen.auditing import html
from verstehen.auditing.api import audit, run_audit
from verstehen.auditing.cli import AUDIT_COMMAND
from verstehen.auditing.options import AuditOptions
from verstehen.auditing.results import AuditResult
from verstehen.auditing.rows import AUDIT_ROWS
from verstehen.auditing.summary import AuditConfig
from verstehen.engine.store.safe_files import is_regular
from verstehen.methods.certification.method import decision_counts
from verstehen.methods.contract import Method, RunKind


def lens_runs(audit: Path) -> list[Path]:
    """The lens run folders of an audit folder (certification, definitions, incoherence), by
    model folder, then by name; links are never followed."""
    return [lens
            for model_dir in sorted(p for p in audit.iterdir() if p.is_dir() and not p.is_symlink())
            for lens in sorted(p for p in model_dir.iterdir()
                               if not p.is_symlink() and is_regular(p / "summary.json"))]


def drawn_as(info: Mapping[str, Any]) -> str:
    """An audit folder is drawn as one, except that one written before audits had subjects
    (its config names none) is a certification run."""
    config = info.get("config", {})
    return "audit" if isinstance(config, Mapping) and "subjects" in config else "certify"


AUDIT = RunKind(
    words=("audit",), result=AuditResult, section=html.section, compare=html.compare,
    headline=lambda r: decision_counts(t.decision for t in r.targets), drawn_as=drawn_as,
    inner_runs=lens_runs, options=AuditOptions, entry=run_audit, api=audit, rows=AUDIT_ROWS,
    records=Never, config=AuditConfig, example="verstehen.auditing.example:audit_example")
METHOD = Method("auditing", (AUDIT,), help_place=10, own=(AUDIT_COMMAND,))
