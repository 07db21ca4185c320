"""Tables with one shape (issue 44): the records and results tables of two runs of every kind
(the same questions asked of other models), as data frames, CSV and Parquet, concatenated with
pandas, join. Every table has `run_id`, `model` and `scope` with one meaning; ids are unique
across runs; no table has `target` (the expected answer is `expected`); decisions are spelled
as the data spells them, in the tables and in `--fail-on`.

Before: the certify results table had no model column, records of two runs shared their ids
and carried no run, `target` was the expected answer in records and the scope in the audit's
results, and `--fail-on` listed `does-not-understand` where the data says
`does_not_understand`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from every_method import each_kind
from made_runs import OTHER, made_runs, other_runs, summary

from verstehen.cli.verdicts import FAIL_ON_HELP, FAIL_ON_WORDS, fail_on
from verstehen.export.exported import results_frame
from verstehen.export.frames import record_table, records_frame, result_table
from verstehen.methods import registry
from verstehen.methods.certification.rows import verdict_values
from verstehen.methods.certification.scopes import get_scope
from verstehen.methods.certification.verdict import Decision
from verstehen.methods.contract import RunKind
from verstehen.rows import ResultGroup, SampleRow

from conftest import Cli

pd = pytest.importorskip("pandas")

RECORD_COLUMNS = ["run_id", "id", "item", "model", "scope", "input", "reply", "expected",
                  "score", "grade"]
RESULT_COLUMNS = ["run_id", "id", "result", "model", "scope"]
# result groups that pool every model of their run (model None): potemkin run's overall rows
POOLED = re.compile(r"keystone/overall|table1/overall/[a-z]+|waiting")
HOW = ["frames", "csv", "parquet"]
exportable = each_kind(lambda kind: kind.rows is not None)


def run_json(run: Path) -> dict[str, Any]:
    """run.json of a run folder, read here."""
    return json.loads((run / "run.json").read_text())


def models_of(run: Path) -> set[str]:
    """The models a run names: run.json's, and an audit's summary's (its lenses ask them)."""
    return {m["model"] for m in run_json(run)["models"]} | set(summary(run).get("models", []))


def tables(how: str, run: Path, out: Path, cli: Cli) -> tuple[Any, Any]:
    """A run's records and results tables: as data frames, or exported and read back."""
    if how == "frames":
        return records_frame(run), results_frame(run)
    done = cli(["export", str(run), "--format", how, "-o", str(out)])
    assert done.returncode == 0, done.stderr
    records, results = done.stdout.split()
    if how == "csv":
        return pd.read_csv(records, dtype=str), pd.read_csv(results, dtype=str)
    return pd.read_parquet(records), pd.read_parquet(results)


def missing(value: Any) -> bool:
    """None, NaN or pandas' NA: an empty cell however the table kept it."""
    return value is None or bool(pd.isna(value))


@exportable
@pytest.mark.parametrize("how", HOW)
def test_each_kinds_tables_have_the_one_shape(
        kind: RunKind[Any], how: str, cli: Cli, tmp_path: Path,
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Two runs of the kind, the same questions asked of other models: the shared columns
    first, `run_id` on every row, ids unique and made of the run's id and the item, the same
    items in both, every record's model one its run names (the second set's models its
    runs only), and a scope on all its records or on none (a scope's key)."""
    if how == "parquet":
        pytest.importorskip("pyarrow")
    runs = [made_runs(tmp_path_factory)[kind.kind], other_runs(tmp_path_factory)[kind.kind]]
    items = []
    for second, run in enumerate(runs):
        run_id = run_json(run)["run_id"]
        records, results = tables(how, run, tmp_path / run_id, cli)
        assert len(records) > 0
        assert list(records.columns[:len(RECORD_COLUMNS)]) == RECORD_COLUMNS
        assert list(results.columns[:len(RESULT_COLUMNS)]) == RESULT_COLUMNS
        assert "target" not in {*records.columns, *results.columns}
        assert set(records["run_id"]) == set(results["run_id"]) == {run_id}
        assert records["id"].is_unique and results["id"].is_unique
        assert (records["id"] == records["run_id"] + "/" + records["item"]).all()
        assert (results["id"] == results["run_id"] + "/" + results["result"]).all()
        items.append(frozenset(records["item"]))
        assert not records["model"].map(missing).any()
        for table in (records, results):
            for model in set(table.loc[~table["model"].map(missing), "model"]):
                assert model in models_of(run) and model.endswith(OTHER) == bool(second)
        scoped = ~records["scope"].map(missing)
        assert scoped.all() or not scoped.any()
        for scope in set(records.loc[scoped, "scope"]):
            assert get_scope(scope).name == scope
    # the same questions under the same items (an audit's start with its lens folders' names)
    assert items[0] == items[1] or kind.inner_runs is not None


@pytest.mark.every_method
@pytest.mark.parametrize("how", HOW)
def test_tables_of_every_kind_concatenate_and_group_by_model_and_run(
        how: str, cli: Cli, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    if how == "parquet":
        pytest.importorskip("pyarrow")
    firsts, seconds = made_runs(tmp_path_factory), other_runs(tmp_path_factory)
    runs = {run_json(run)["run_id"]: (kind, run)
            for made in (firsts, seconds) for kind, run in made.items()}
    # every kind of run folder that can be exported, twice
    assert set(firsts) == set(seconds) == {k.kind for k in registry.run_kinds() if k.rows}
    assert len(runs) == 2 * len(firsts)
    record_tables, result_tables = [], []
    for run_id, (kind, run) in runs.items():
        records, results = tables(how, run, tmp_path / run_id, cli)
        record_tables.append(records.assign(kind=kind))
        result_tables.append(results.assign(kind=kind))
    records = pd.concat(record_tables, ignore_index=True)
    results = pd.concat(result_tables, ignore_index=True)

    # ids: unique across every run, the run's id then the item
    assert records["id"].is_unique and results["id"].is_unique
    assert set(records.groupby("run_id").size().index) == set(runs)

    # model: grouped by model, the second set's models hold the second set's runs only
    seconds_ids = {run_json(run)["run_id"] for run in seconds.values()}
    assert not records["model"].map(missing).any()
    for table in (records, results):
        named = table[~table["model"].map(missing)]
        by_model = named.groupby("model")["run_id"].agg(set)
        for model, run_ids in by_model.items():
            assert {r in seconds_ids for r in run_ids} == {model.endswith(OTHER)}, model
    pooled = results[results["model"].map(missing)]
    assert pooled["result"].map(POOLED.fullmatch).all()
    assert set(pooled["kind"]) == {"potemkin-run"}
    assert set(results.loc[results["kind"] == "certify", "model"]) == {
        "scripted/calc", "scripted/calc" + OTHER}

    # a verdict (a decision of a kind whose results are each about one scope) joins the rows
    # of the questions it rests on, by run, model and scope
    decided = set(results.loc[results["decision"].notna(), "kind"])
    assert {"certify", "audit"} <= decided
    verdicts = results[results["kind"].isin(decided)]
    assert not verdicts["scope"].map(missing).any()
    asked = records[records["kind"].isin(decided)]
    joined = asked.merge(verdicts, on=["run_id", "model", "scope"], how="left",
                         suffixes=("", "_result"), indicator=True)
    assert (joined["_merge"] == "both").all()
    assert len(joined) == len(asked)
    per_verdict = asked.groupby(["run_id", "model", "scope"]).size()
    assert len(per_verdict) == len(verdicts)

    # decisions: the enum's values, as --fail-on takes them
    decisions = set(results["decision"].dropna())
    assert decisions and decisions <= {d.value for d in Decision} == set(FAIL_ON_WORDS)


def test_fail_on_takes_the_decisions_as_the_data_spells_them(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`--fail-on does_not_understand` is read silently and listed in its help; the spelling
    of before, with hyphens, is still read, with one line giving the new one."""
    assert fail_on("does_not_understand,inconclusive") == {Decision.DOES_NOT_UNDERSTAND,
                                                           Decision.INCONCLUSIVE}
    assert capsys.readouterr().err == ""
    for decision in Decision:
        assert decision.value in FAIL_ON_HELP
    assert "does-not-understand" not in FAIL_ON_HELP
    assert fail_on("does-not-understand,understands") == {Decision.DOES_NOT_UNDERSTAND,
                                                          Decision.UNDERSTANDS}
    assert capsys.readouterr().err.splitlines() == [
        "verstehen: warning: --fail-on does-not-understand is now spelled "
        "does_not_understand, as the data spells it; the old spelling goes in the next "
        "release"]


def test_a_missing_verdict_is_an_empty_decision_cell() -> None:
    """A scope whose calls all failed has no verdict: its decision cell is empty, never a word
    outside the enum's values, so the column holds only what `--fail-on` takes."""
    assert verdict_values(None) == {"decision": None}


@pytest.mark.parametrize("name", ["run_id", "id", "model", "scope", "expected", "target"])
def test_a_method_cannot_name_its_own_column_as_a_shared_or_retired_one(name: str) -> None:
    """A method's metadata or result value named as a column every table has, or as `target`
    (two meanings before), is refused: each shared name keeps one meaning."""
    row = SampleRow(id="q1", model="m", scope=None, input="2+2?", reply="4", expected="4",
                    score=1.0, grade="correct", metadata={name: "x"})
    with pytest.raises(ValueError, match=name):
        record_table("run", [row])
    if name != "expected":
        with pytest.raises(ValueError, match=name):
            result_table("run", [ResultGroup("g", "m", None, {name: 1})])
