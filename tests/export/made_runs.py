"""Run folders of every method, made once per test session with scripted models (no embedded
model), as the methods' own tests make them: the exporter's tests read them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from certification.test_certify_procedure import calculator
from imagination.test_imagine_api import qm
from potemkin.test_potemkin_api import answerer, relies_then_a

import verstehen as vs
from verstehen.methods.consistency.api import consistency
from verstehen.methods.imagination.api import imagine_answer, imagine_generate
from verstehen.methods.potemkin.api import potemkin_incoherence, potemkin_run, potemkin_selfjudge
from verstehen.testing.scripted import ScriptedModel

from audit.test_audit import CONCEPTS, oracle
from consistency.test_consistency_api import write_data

# certify: 20 questions, 2 of them asked again in another phrasing
QUESTIONS, REPHRASED = 20, 2
_MADE: dict[str, Path] = {}
_OTHER: dict[str, Path] = {}
OTHER = "-other"  # what the second set's model names end with


def zero_sum_maker(prompt: str) -> str:
    """Makes the same zero-sum game whatever it is asked for, and calls every example an
    instance: coherent for the instances asked, incoherent for the non-instances."""
    if prompt.startswith("Is the following"):
        return "ANSWER: Yes"
    return "<OUTPUT>\n[[(1, -1), (-2, 2)], [(0, 0), (3, -3)]]"


def made_runs(factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One finished run folder of each kind, by run kind (made at the first call)."""
    if not _MADE:
        _MADE.update(_make(factory.mktemp("export-runs")))
    return _MADE


def other_runs(factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A second finished run folder of each kind, asked the same questions (so the same ids
    within each folder) of models whose names end with OTHER."""
    if not _OTHER:
        _OTHER.update(_make(factory.mktemp("export-other-runs"), OTHER))
    return _OTHER


def _make(base: Path, tag: str = "") -> dict[str, Path]:
    """One run folder of each kind; every model's name ends with `tag`."""

    def named(model: ScriptedModel) -> ScriptedModel:
        model.name += tag
        return model

    where = {"runs_dir": base / "runs", "cache": base / "calls.sqlite"}
    made = {"certify": vs.certify(
        named(ScriptedModel("scripted/calc", reply=calculator)), "arithmetic/small",
        questions=QUESTIONS, rephrase=REPHRASED, pg=0.6, rid=0.3, **where).run_dir}
    judge = named(ScriptedModel("scripted/judge", reply=lambda p: "ANSWER: Yes"))
    made["potemkin-run"] = potemkin_run(
        named(answerer()), concepts="game-theory/strict-dominance", items_per_concept=1,
        judge=judge, **where).run_dir
    made["potemkin-incoherence"] = potemkin_incoherence(
        named(ScriptedModel("scripted/maker", reply=zero_sum_maker)),
        concepts="game-theory/zero-sum", per_concept=2, **where).run_dir
    generated = imagine_generate(named(qm()), topics="physics,law", per_topic=2, kinds="direct",
                                 **where)
    made["imagine-generate"] = generated.run_dir
    made["imagine-answer"] = imagine_answer(generated, models=[
        named(ScriptedModel("scripted/c", reply=lambda p: "Answer: C")),
        named(ScriptedModel("scripted/no", reply=lambda p: "This concept does not exist."))],
        shuffle=False, **where).run_dir
    questions, kb = write_data(base)
    made["consistency"] = consistency(named(ScriptedModel("scripted/lp")),
                                      questions=questions, kb=kb, resamples=50, **where).run_dir
    made["audit"] = vs.audit(
        named(ScriptedModel("scripted/oracle", reply=oracle(CONCEPTS))),
        subjects=",".join(CONCEPTS), **where).run_dir
    dev = base / "dev.jsonl"
    dev.write_text(json.dumps({"id": "q1", "question": {"stem": "Stem?", "choices": [
        {"label": x, "text": f"choice {x}"} for x in "ABCDE"]}, "answerKey": "A"}) + "\n")
    made["potemkin-selfjudge"] = potemkin_selfjudge(
        named(ScriptedModel(reply=relies_then_a)), f"mcq:{dev}", questions=1, subquestions=2,
        **where).run_dir
    return made


def records(run: Path) -> list[dict]:
    """The records of a run folder, read here (not through the exporter)."""
    return [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines() if x]


def summary(run: Path) -> dict:
    """summary.json of a run folder."""
    return json.loads((run / "summary.json").read_text())
