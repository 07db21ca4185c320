"""The Potemkin procedures' run life (engine.lifecycle.run_method): inside an outer session, as
the audit calls them, and a run whose tables cannot be made marked failed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from verstehen.engine.session import RunSettings, Session
from verstehen.methods.potemkin import selfjudge
from verstehen.methods.potemkin.incoherence import IncoherencePlan, run_incoherence
from verstehen.methods.potemkin.results import PotemkinIncoherenceResult, PotemkinRunResult
from verstehen.methods.potemkin.run import plan_run, run_potemkin
from verstehen.methods.potemkin.selfjudge import SelfJudgePlan, run_selfjudge
from verstehen.scopes.mcq import MCQScope
from verstehen.testing.scripted import ScriptedModel

CONCEPT = "game-theory/zero-sum"


def settings(tmp_path: Path) -> RunSettings:
    """Runs and cache under the test's folder."""
    return RunSettings(runs_dir=tmp_path / "runs", cache=tmp_path / "c.sqlite")


def run_json(run_dir: Path) -> dict:
    """A run folder's run.json."""
    return json.loads((run_dir / "run.json").read_text())


def test_two_procedures_in_one_outer_session_count_their_own_calls(tmp_path: Path) -> None:
    """The definition run asks 1 call (one concept, define only); incoherence with 2 examples
    per polarity asks 2 x 2 x (generate + classify) = 8. Each result counts its own calls, the
    runner counts all 9, and the session is left open for the caller to close."""
    model = ScriptedModel(reply=lambda p: "ANSWER: Yes" if p.startswith("Is the following")
                          else "<OUTPUT>\n[[(1, -1), (-2, 2)], [(0, 0), (3, -3)]]")

    async def audit_like() -> tuple[PotemkinRunResult, PotemkinIncoherenceResult]:
        session = Session.start(settings(tmp_path))
        try:
            defined = await run_potemkin(model, plan_run(concepts=[CONCEPT], tasks=("define",)),
                                         settings=settings(tmp_path), session=session)
            made = await run_incoherence(model, IncoherencePlan(per_concept=2),
                                         concepts=[CONCEPT], settings=settings(tmp_path),
                                         session=session)
            assert session.models == []  # a Model object is the caller's: nothing opened
            assert session.runner.usage["scripted/m"].calls == 9
        finally:
            await session.close()
        return defined, made

    defined, made = asyncio.run(audit_like())
    assert defined.usage["scripted/m"].calls == 1
    assert made.usage["scripted/m"].calls == 8
    for result, command in ((defined, "potemkin-run"), (made, "potemkin-incoherence")):
        folder = result.run_dir
        info = run_json(folder)
        assert info["command"] == command and info["status"] == "done"
        assert info["models"] == [{"provider": "scripted", "model": "scripted/m"}]
        assert json.loads((folder / "summary.json").read_text()) == json.loads(
            json.dumps(result.to_dict()))


def test_a_model_judging_itself_is_named_once_in_run_json(tmp_path: Path) -> None:
    """The judge is the answering model: run.json lists one model, its config names both."""
    model = ScriptedModel(reply=lambda p: "ANSWER: Yes")
    result = asyncio.run(run_potemkin(model, plan_run(concepts=[CONCEPT], tasks=("define",)),
                                      judge=model, settings=settings(tmp_path)))
    info = run_json(result.run_dir)
    assert info["models"] == [{"provider": "scripted", "model": "scripted/m"}]
    assert info["config"]["model"] == info["config"]["judge"] == "scripted/m"
    assert len(model.calls) == 2  # the definition, then the judge's verdict on it


def test_a_run_whose_tables_cannot_be_made_is_marked_failed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The calls were made and recorded, then reading them failed: run.json says failed and
    why, and no summary.json claims a result."""
    path = tmp_path / "dev.jsonl"
    path.write_text(json.dumps({"id": "q1", "question": {"stem": "Stem?", "choices": [
        {"label": lab, "text": f"choice {lab}"} for lab in "AB"]}, "answerKey": "A"}) + "\n")

    def broken(*args: object, **kwargs: object) -> object:
        raise ValueError("tables broke")

    monkeypatch.setattr(selfjudge, "summarize_selfjudge", broken)
    with pytest.raises(ValueError, match="tables broke"):
        asyncio.run(run_selfjudge(ScriptedModel(reply=lambda p: "ANSWER: No"), MCQScope(path),
                                  SelfJudgePlan(questions=1), settings=settings(tmp_path)))
    (folder,) = {p.parent for p in (tmp_path / "runs").rglob("run.json")}
    info = run_json(folder)
    assert info["status"] == "failed" and info["status_reason"] == "ValueError: tables broke"
    assert (folder / "records.jsonl").read_text().count('"kind": "concept"') == 1
    assert not (folder / "summary.json").exists()
