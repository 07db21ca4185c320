"""Tables of runs of several models (issue 44): a certify of two models on two scopes and an
audit of two models, as data frames, concatenated with a run of one model and grouped by model.
Each (model, scope) has one verdict row, which joins the rows of the answers it rests on by
`run_id`, `model` and `scope`; their mean is the verdict's mean score; ids are unique.

Before: the certify results table had no model column, a run of several models kept only the
last model, and records carried no run."""

from __future__ import annotations

from pathlib import Path

import pytest
from made_runs import made_runs

import verstehen as vs
from verstehen.auditing.example import CONCEPTS, oracle
from verstehen.export.exported import results_frame
from verstehen.export.frames import records_frame
from verstehen.methods.certification.example import calculator
from verstehen.testing.scripted import ScriptedModel

pd = pytest.importorskip("pandas")

SMALL, FULL = "arithmetic/small", "arithmetic"
RIGHT, BLANK = "scripted/right", "scripted/blank"
KEYS = ["run_id", "model", "scope"]


def blank() -> ScriptedModel:
    """A model that knows nothing: every answer scores 0."""
    return ScriptedModel(BLANK, reply=lambda prompt: "I don't know.")


def frames(run: Path, kind: str) -> tuple[object, object]:
    """A run's records and results frames, each with its kind."""
    return records_frame(run).assign(kind=kind), results_frame(run).assign(kind=kind)


def test_runs_of_several_models_group_by_model_and_join_their_verdicts(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Grouped by model, each model holds the rows of the runs that asked it; each verdict
    row joins the answers it rests on, whose mean is its mean score."""
    where = {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}
    certified = vs.certify([ScriptedModel(RIGHT, reply=calculator), blank()], [SMALL, FULL],
                           questions=16, pg=0.8, rid=0.2, **where).run_dir
    audited = vs.audit([ScriptedModel(RIGHT, reply=oracle(CONCEPTS)), blank()],
                       subjects=",".join(CONCEPTS), **where).run_dir
    alone = made_runs(tmp_path_factory)["certify"]  # one model, scripted/calc
    made = [frames(certified, "certify"), frames(audited, "audit"), frames(alone, "certify")]
    records = pd.concat([r for r, _ in made], ignore_index=True)
    results = pd.concat([r for _, r in made], ignore_index=True)
    assert records["id"].is_unique and results["id"].is_unique
    assert records["run_id"].nunique() == results["run_id"].nunique() == 3

    # grouped by model: each model's rows, in each run that asked it
    runs_of = records.groupby("model")["run_id"].agg(frozenset)
    assert set(runs_of.index) == {RIGHT, BLANK, "scripted/calc"}
    assert runs_of[RIGHT] == runs_of[BLANK] == {certified.name, audited.name}
    verdicts = results.groupby(["kind", "model"])["scope"].agg(frozenset)
    assert verdicts["certify", RIGHT] == verdicts["certify", BLANK] == {SMALL, FULL}
    assert verdicts["audit", RIGHT] == verdicts["audit", BLANK] == set(CONCEPTS)
    assert verdicts["certify", "scripted/calc"] == {SMALL}
    decisions = results.set_index(["run_id", "model", "scope"])["decision"]
    for scope in (SMALL, FULL):
        assert decisions[certified.name, RIGHT, scope] == "understands"
        assert decisions[certified.name, BLANK, scope] == "does_not_understand"
    for concept in CONCEPTS:
        assert decisions[audited.name, BLANK, concept] == "does_not_understand"

    # each verdict joins the answers it rests on; their mean is its mean score
    answers = records[records["kind"].eq("certify") & records["grade"].notna()]
    answers = answers[answers["item"].str.contains("/answer/")]
    means = answers.groupby(KEYS)["score"].mean().rename("answers_mean").reset_index()
    joined = results[results["kind"] == "certify"].merge(means, on=KEYS, how="outer",
                                                         validate="one_to_one", indicator=True)
    assert (joined["_merge"] == "both").all() and len(joined) == 5
    assert joined["answers_mean"].tolist() == pytest.approx(joined["mean_score"].tolist())
    # the audit's rows join its verdicts by model and target, whichever lens asked them
    audit = records[records["kind"] == "audit"].merge(
        results[results["kind"] == "audit"][KEYS], on=KEYS, how="left", indicator=True,
        validate="many_to_one")
    assert (audit["_merge"] == "both").all()
    assert set(audit["lens"]) == {"certify", "potemkin-run", "potemkin-incoherence"}
