"""`records_frame`, `results_frame` and `verstehen export --format csv|parquet`: on the example
run of each exportable run kind, tables whose counts and means are summary.json's (each worked
out here from the paper's definitions, on the rows, not read from the exporter's results)."""

from __future__ import annotations

import csv
import json
import math
import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from every_method import each_kind
from made_runs import made_runs, summary
from test_inspect_export import export

from verstehen.errors import UserError
from verstehen.export.exported import results_frame
from verstehen.export.frames import records_frame, to_frame
from verstehen.methods.contract import RunKind

pd = pytest.importorskip("pandas")
Rows = list[dict]


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def yes(value: object) -> bool:
    """True for a yes however the table kept it (a bool, or "True" in CSV)."""
    return value is True or value == "True"


def score(row: dict) -> float | None:
    """A row's score however the table kept it (NaN or an empty cell: none)."""
    value = row["score"]
    if value is None or value == "" or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


def check_certify(rows: Rows, s: dict) -> None:
    scope = s["scopes"][0]
    answers = [r for r in rows if r["kind"] == "answer"]
    assert len(answers) == scope["asked"] == scope["verdict"]["n"]
    assert mean([score(r) for r in answers]) == pytest.approx(scope["verdict"]["mean_score"])
    # a score of exactly 0 is ridiculous (Procedure 4.1)
    assert mean([score(r) == 0.0 for r in answers]) == scope["verdict"]["ridiculous_rate"]
    assert sum(r["kind"] == "rephrase" for r in rows) == scope["rephrase"]["n"]


def check_potemkin_run(rows: Rows, s: dict) -> None:
    defined = [r for r in rows if r["task"] == "define"]
    assert sum(score(r) == 1.0 for r in defined) == s["keystone_rate"]["overall"]["passed"]
    for task, chance_scale in (("classify", 2), ("generate", 1), ("edit", 1)):
        # paper: 1 - accuracy over answers whose definition was right, classify doubled (a
        # yes/no question at chance scores 1/2); an unreadable generate or edit answer counts
        # wrong, an unreadable classification is left out
        mine = [r for r in rows if r["task"] == task and yes(r["keystone"])]
        graded = [score(r) if score(r) is not None else 0.0 for r in mine
                  if score(r) is not None or (task != "classify" and r["grade"] == "unparsed")]
        want = s["table1"]["overall"][task]
        assert len(graded) == want["n"]
        assert chance_scale * (1 - mean(graded)) == pytest.approx(want["rate"])


def check_incoherence(rows: Rows, s: dict) -> None:
    classified = [score(r) for r in rows if score(r) is not None]
    # Table 7: twice the share of own examples the model classifies against what it was asked
    assert len(classified) == s["overall"]["n"]
    assert 2 * (1 - mean(classified)) == pytest.approx(s["overall"]["incoherence"])


def check_generate(rows: Rows, s: dict) -> None:
    assert sum(r["grade"] == "ok" for r in rows) == s["kept"]
    assert len(rows) == sum(t["asked"] for t in s["by_type"].values())


def check_answer(rows: Rows, s: dict) -> None:
    for cell in s["matrix"]:
        mine = [r for r in rows if r["am"] == cell["am"]]
        assert len(mine) == cell["n"]
        answered = [score(r) for r in mine if r["grade"] in ("correct", "wrong")]
        declined = [r for r in mine if r["grade"] in ("refused", "choice_e")]
        assert len(answered) == cell["answered"] and len(declined) == cell["declined"]
        # kappa: mean correctness of the answers given; alpha: the share answered
        assert (mean(answered) if answered else None) == cell["kappa"]
        assert len(answered) / (len(answered) + len(declined)) == cell["alpha"]


def check_consistency(rows: Rows, s: dict) -> None:
    anchors = [r for r in rows if r["kind"] == "anchor"]
    facts = {r["item"].removeprefix("fact/"): r for r in rows if r["kind"] == "fact"}
    assert (len(anchors), len(facts)) == (s["anchors"], s["facts"])
    assert sum(yes(r["positive"]) for r in facts.values()) == s["positive_facts"]
    assert mean([score(r) for r in anchors]) == pytest.approx(s["consistency"]["s_a"])
    # Sahu et al. Eq. 1: an anchor's S_B is the mean of its positive facts' share right and
    # its negative facts' share right; the run's S_B is its mean over the anchors
    backgrounds = []
    for anchor in anchors:
        names = json.loads(anchor["facts"])  # a list column is kept as JSON text
        sides = [[score(facts[n]) for n in names if yes(facts[n]["positive"]) == positive]
                 for positive in (True, False)]
        shares = [Fraction(int(sum(side)), len(side)) for side in sides if side]
        backgrounds.append(sum(shares) / len(shares))
    assert float(mean(backgrounds)) == pytest.approx(s["consistency"]["s_b"])


def check_audit(rows: Rows, s: dict) -> None:
    for target in s["targets"]:
        mine = [r for r in rows if r["lens"] == "certify" and r["kind"] == "answer"
                and r["scope"] == target["scope"]]
        assert len(mine) == target["asked"] == target["verdict"]["n"]
        assert mean([score(r) for r in mine]) == pytest.approx(target["verdict"]["mean_score"])
    pairs = [r for r in rows if r["lens"] == "potemkin-incoherence"]
    assert len(pairs) == sum(t["incoherence"]["n"] for t in s["targets"])


def check_rows(rows: Rows, s: dict) -> None:
    """What every kind's rows hold: something asked, each row a run's id."""
    assert rows and all(r["run_id"] for r in rows)


# each method's own worked-out check of its kind's rows against its summary (a kind without
# one: `check_rows` only)
CHECKS: dict[str, Callable[[Rows, dict], None]] = {
    "certify": check_certify, "potemkin-run": check_potemkin_run,
    "potemkin-incoherence": check_incoherence, "imagine-generate": check_generate,
    "imagine-answer": check_answer, "consistency": check_consistency, "audit": check_audit}
exportable = each_kind(lambda kind: kind.rows is not None)


def check(kind: RunKind[Any], rows: Rows, s: dict) -> None:
    """The rows of a run of `kind` against its summary."""
    check_rows(rows, s)
    CHECKS.get(kind.kind, check_rows)(rows, s)


@exportable
def test_records_frame_counts_and_means_are_the_summarys(kind, tmp_path_factory):
    run = made_runs(tmp_path_factory)[kind.kind]
    frame = records_frame(run)
    assert list(frame.columns[:10]) == ["run_id", "id", "item", "model", "scope", "input",
                                        "reply", "expected", "score", "grade"]
    rows = [{k: (None if v is pd.NA else v) for k, v in row.items()}
            for row in frame.astype(object).where(frame.notna(), None).to_dict("records")]
    check(kind, rows, summary(run))


@exportable
def test_csv_tables_give_the_same_counts_and_means(kind, tmp_path, tmp_path_factory):
    run = made_runs(tmp_path_factory)[kind.kind]
    records, results = export(str(run), "--format", "csv", "--out", str(tmp_path))
    assert records.name == f"{run.name}-records.csv" and results.name == f"{run.name}-results.csv"
    check(kind, list(csv.DictReader(records.open(encoding="utf-8"))), summary(run))
    assert len(list(csv.DictReader(results.open(encoding="utf-8")))) == len(results_frame(run))


@exportable
def test_parquet_tables_give_the_same_counts_and_means(kind, tmp_path, tmp_path_factory):
    pytest.importorskip("pyarrow")
    run = made_runs(tmp_path_factory)[kind.kind]
    records, results = export(str(run), "--format", "parquet", "--out", str(tmp_path))
    frame = pd.read_parquet(records)
    rows = frame.astype(object).where(frame.notna(), None).to_dict("records")
    check(kind, rows, summary(run))
    assert len(pd.read_parquet(results)) == len(results_frame(run))


def test_results_frame_holds_the_verdict_and_to_frame_the_records(tmp_path_factory):
    run = made_runs(tmp_path_factory)["certify"]
    results = results_frame(run)
    verdict = summary(run)["scopes"][0]["verdict"]
    (row,) = results.to_dict("records")
    assert row["result"] == "arithmetic/small" and row["decision"] == verdict["decision"]
    assert (row["model"], row["scope"]) == ("scripted/calc", "arithmetic/small")
    assert (row["score_lower"], row["score_upper"]) == (verdict["score_lower"],
                                                         verdict["score_upper"])

    class Result:  # what to_frame reads of a typed result
        run_dir = Path(run)

    assert to_frame(Result()).equals(records_frame(run))


def test_a_frame_without_pandas_says_what_to_install(tmp_path_factory, monkeypatch):
    run = made_runs(tmp_path_factory)["certify"]
    monkeypatch.setitem(sys.modules, "pandas", None)  # import fails as if absent
    with pytest.raises(UserError, match=r"pip install 'verstehen\[frames\]'"):
        records_frame(run)
