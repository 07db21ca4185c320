"""An audit folder as rows (its lens folders' rows, each marked with its lens) and results (one
per model and target), for `verstehen export` and `records_frame` (`verstehen.export`).

`verstehen export --inspect` writes one Inspect log per lens folder (the run kind's
`inner_runs`), not one for the audit: each lens folder is a run of its own kind, with one model
and its own scores (a scope's verdict, a definition's grade, an example's coherence), which is
what one Inspect log holds; the audit's own lines travel in each log's results metadata.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from verstehen.auditing.results import AuditResult, TargetAudit
from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.methods import registry
from verstehen.methods.certification.rows import CERTIFY_ROWS, verdict_values
from verstehen.methods.potemkin.rows import INCOHERENCE_ROWS, RUN_ROWS
from verstehen.rows import ResultGroup, ResultValue, RunRows, SampleRow

# the lenses an audit runs, by the command in their run.json
LENS_ROWS = {"certify": CERTIFY_ROWS, "potemkin-run": RUN_ROWS,
             "potemkin-incoherence": INCOHERENCE_ROWS}


def audit_rows(run_dir: Path) -> list[SampleRow]:
    """Every lens folder's rows (each lens's own columns, see its rows.py), model folder by
    model folder; each row's id starts with its lens folder's name, and two metadata
    columns come first: `lens` (certify, potemkin-run, potemkin-incoherence) and
    `lens_run` (the lens folder's name)."""
    # the audit's declaration lists its lens folders; read through the registry, as method.py
    # imports this module to declare AUDIT_ROWS
    audit = registry.run_kind("audit")
    assert audit is not None and audit.inner_runs is not None
    rows = []
    for lens in audit.inner_runs(Path(run_dir)):
        kind = RunStore.existing(lens).info().get("command")
        declared = LENS_ROWS.get(str(kind))
        if declared is None:
            raise UserError(f"{lens} is a {kind!r} folder, which an audit does not make: "
                            "export it on its own")
        rows += [replace(row, id=f"{lens.name}/{row.id}",
                         metadata={"lens": kind, "lens_run": lens.name, **row.metadata})
                 for row in declared.rows(lens)]
    return rows


def target_values(line: TargetAudit) -> dict[str, ResultValue]:
    """One model on one target: certification's verdict (see certification's rows.py), the
    keystone, each task's potemkin rate, the incoherence and the share of examples the
    checker rejects."""
    values: dict[str, ResultValue] = {**verdict_values(line.verdict), "asked": line.asked,
                                      "keystone": line.keystone}
    for task, rate in sorted(line.potemkin.items()):
        values[f"potemkin_{task}"] = rate.rate
    values["incoherence"] = None if line.incoherence is None else line.incoherence.incoherence
    values["checker_wrong"] = line.checker_wrong
    return values


def audit_results(result: AuditResult) -> list[ResultGroup]:
    """One group per model and target, `MODEL/TARGET` (its model, and the target's key as its
    scope): certification's `decision`, `n`, `mean_score`, `ridiculous_rate`, its four
    bounds, PG, RID, delta, `asked`, `keystone`, `potemkin_TASK` for each task rated,
    `incoherence`, `checker_wrong`."""
    return [ResultGroup(f"{line.model}/{line.key}", line.model, line.key, target_values(line))
            for line in result.targets]


AUDIT_ROWS = RunRows(rows=audit_rows, results=audit_results)
