"""Human labels for a Potemkin run: export the items to label as CSV, import the labels back.

People label definitions and the judge-graded use answers (optionally every answer, to check the
checkers). Labels land in the run folder's annotations.jsonl; people's labels beat the judge's.

An audit's Potemkin folder holds only definitions: its use answers are the audit's certification
answers, graded by code, so after an import its rates are read from there (`audit_lens_rates`),
as the audit's table computes them, and printed as such (`audit_lens_text`).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verstehen.domains.catalog import BY_KEY, canonical_name
from verstehen.engine.store import RunStore
from verstehen.engine.store.csv_files import from_spreadsheet, write_csv
from verstehen.engine.store.safe_files import is_regular, read_regular
from verstehen.errors import UserError
from verstehen.methods.potemkin.lines import CertifiedAnswer, certified_answers
from verstehen.methods.potemkin.results import PotemkinRunResult
from verstehen.methods.potemkin.run import COMMAND
from verstehen.methods.potemkin.stats import TASKS, PotemkinRate, potemkin_rates
from verstehen.methods.potemkin.summary import (
    ANNOTATIONS_FILE,
    certification_use_records,
    latest,
    read_annotations,
)
from verstehen.methods.potemkin.text import format_rate
from verstehen.text.tables import table
from verstehen.textfiles import read_text

AUDIT, CERTIFY = "audit", "certify"  # the commands of an audit folder and its certify lens

COLUMNS = ["id", "model", "concept", "task", "definition", "question", "response", "label"]
YES = {"1", "yes", "y", "true", "correct", "right"}
NO = {"0", "no", "n", "false", "incorrect", "wrong"}


def open_run(path: Path) -> RunStore:
    """The `potemkin run` folder at `path` (UserError for any other folder)."""
    store = RunStore.open(Path(path))
    if store.info().get("command") != COMMAND:
        raise UserError(f"{path} is not a `potemkin run` folder")
    return store


def export_items(store: RunStore, out: Path, *, everything: bool = False) -> int:
    """Write the answers people should label to `out`; return how many rows were written."""
    answers, _ = latest(store)
    labels = read_annotations(store)
    rows = []
    for item_id, answer in answers.items():
        if answer["error"] is not None or (answer["grading"] != "judge" and not everything):
            continue
        concept = BY_KEY[answer["concept"]]
        label = labels.get(item_id)
        rows.append({"id": item_id, "model": answer["model"], "concept": concept.name,
                     "task": answer["task"], "definition": concept.definition,
                     "question": answer["prompt"], "response": answer["text"],
                     "label": "" if label is None else ("yes" if label else "no")})
    write_csv(out, COLUMNS, ([row[c] for c in COLUMNS] for row in rows),
              advice="remove it, or pass --out with another path", spreadsheet=True)
    return len(rows)


def parse_label(value: str, where: str) -> bool | None:
    """yes/no (1/0, true/false, correct/incorrect) -> bool; empty -> None (not labelled)."""
    text = value.strip().lower()
    if not text:
        return None
    if text in YES:
        return True
    if text in NO:
        return False
    raise UserError(f"{where}: label {value!r} is not yes or no (leave it empty to skip the row)")


def import_labels(store: RunStore, path: Path) -> tuple[int, int]:
    """Merge the labels of a CSV into the run; return (labels read, labels now stored)."""
    if not path.is_file():
        raise UserError(f"labels file not found: {path}")
    answers, _ = latest(store)
    with io.StringIO(read_text(path, "labels file"), newline="") as handle:
        reader = csv.DictReader(handle)
        missing = {"id", "label"} - set(reader.fieldnames or [])
        if missing:
            raise UserError(f"{path}: no column {sorted(missing)[0]!r} (export one with "
                            "`verstehen annotate export RUN` and fill in its label column)")
        new: dict[str, bool] = {}
        for row in reader:
            where = f"{path}:{reader.line_num}"
            # the `'` export_items put before a cell a spreadsheet would run is taken back
            label = parse_label(from_spreadsheet(row["label"] or ""), where)
            if label is None:
                continue
            item_id = from_spreadsheet(row["id"] or "")
            if item_id not in answers:
                raise UserError(f"{where}: id {item_id!r} is not an answer of {store.path}: "
                                "label the file exported from this run")
            new[item_id] = label
    merged = read_annotations(store) | new
    store.rewrite([{"id": k, "label": v} for k, v in merged.items()], ANNOTATIONS_FILE)
    return len(new), len(merged)


@dataclass(frozen=True)
class AuditConcept:
    """One concept of an audit, as its table shows it for one model: the definition's grade
    (None: not graded yet) and the potemkin rate per task of the audit's certification answers
    (empty unless the definition is right)."""

    key: str
    name: str
    keystone: bool | None
    rates: dict[str, PotemkinRate]


@dataclass(frozen=True)
class AuditLensRates:
    """What an audit's definitions folder stands for: the audit, the certification folder
    whose answers are the use answers (None: none was written), and each concept's line."""

    audit_dir: Path
    certify_dir: Path | None
    concepts: tuple[AuditConcept, ...]


def _run_info(folder: Path) -> dict[str, Any] | None:
    """A folder's run.json (free-form: the config of whichever command made it), or None."""
    path = folder / "run.json"
    return json.loads(read_regular(path)) if is_regular(path) else None


def audit_lens_rates(result: PotemkinRunResult) -> AuditLensRates | None:
    """When `result` is an audit's definitions folder (`<audit>/<model>/<run>`, asked only
    `define`), its concepts' rates as the audit computes them; None for any other run."""
    run, model_dir = result.run_dir, result.run_dir.parent
    mine, audit = _run_info(run), _run_info(model_dir.parent)
    if mine is None or audit is None or audit.get("command") != AUDIT \
            or mine["config"].get("tasks") != ["define"]:
        return None
    certify = None  # the newest certify folder beside this one, as the audit reads it
    for folder in sorted(model_dir.iterdir()):
        info = _run_info(folder) if folder.is_dir() else None
        if info is not None and info.get("command") == CERTIFY:
            certify = folder
    answers: dict[str, list[CertifiedAnswer]] = {}
    for record in certified_answers(RunStore(certify).records()) if certify is not None else []:
        answers.setdefault(canonical_name(record["scope"]), []).append(record)
    keystones = {canonical_name(k.concept): k.keystone for k in result.keystones}
    model = mine["config"]["model"]
    concepts = []
    for target in audit["config"]["targets"]:
        key = canonical_name(target["key"])
        if not target["concept"]:
            continue
        uses = certification_use_records(model, canonical_name(target["subject"]),
                                         target["name"],
                                         answers.get(canonical_name(target["scope"]), []))
        concepts.append(AuditConcept(key, target["name"], keystones.get(key),
                                     potemkin_rates(uses) if keystones.get(key) else {}))
    return AuditLensRates(model_dir.parent, certify, tuple(concepts))


def audit_lens_text(result: PotemkinRunResult, lens: AuditLensRates) -> str:
    """An audit's definitions folder after `annotate import`: its keystones, then each
    concept's potemkin rates as the audit's table has them (of its certification answers)."""
    where = "" if lens.certify_dir is None else f" ({lens.certify_dir})"
    rows = [[c.name, {True: "right", False: "wrong", None: "not graded yet"}[c.keystone],
             *(format_rate(c.rates[t]) if t in c.rates else
               "— (the definition is wrong)" if c.keystone is False else
               "— (waits for the definition's grade)" for t in TASKS)] for c in lens.concepts]
    return "\n".join([
        *result.grading_lines(),
        f"\nthis folder holds the definitions of the audit {lens.audit_dir}: its use answers "
        f"are the audit's certification answers, graded by code{where}",
        "potemkin rates of those answers given a right definition, as the audit's report "
        "shows them",
        table(["concept", "definition", *TASKS], rows),
        "classify is scaled ×2 so chance accuracy (1/2) reads 1; standard errors in "
        "parentheses; n counts the answers in the rate; an unreadable classify answer is left "
        "out, an unreadable generate or edit answer counts as wrong (as in the audit)",
        f"report: `verstehen report {lens.audit_dir}`"])
