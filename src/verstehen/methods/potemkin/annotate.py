"""Human labels for a Potemkin run: export the items to label as CSV, import the labels back.

People label definitions and the judge-graded use answers (optionally every answer, to check the
checkers). Labels land in the run folder's annotations.jsonl; people's labels beat the judge's.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from verstehen.domains.catalog import BY_KEY
from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.methods.potemkin.run import COMMAND
from verstehen.methods.potemkin.summary import ANNOTATIONS_FILE, latest, read_annotations
from verstehen.textfiles import read_text

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
    try:
        with out.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
    except OSError as exc:
        raise UserError(f"cannot write {out} ({exc.strerror or exc}): pass --out with a "
                        "writable path") from None
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
            label = parse_label(row["label"] or "", where)
            if label is None:
                continue
            if row["id"] not in answers:
                raise UserError(f"{where}: id {row['id']!r} is not an answer of {store.path}: "
                                "label the file exported from this run")
            new[row["id"]] = label
    merged = read_annotations(store) | new
    store.rewrite([{"id": k, "label": v} for k, v in merged.items()], ANNOTATIONS_FILE)
    return len(new), len(merged)
