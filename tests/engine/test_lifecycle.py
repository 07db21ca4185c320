"""One run's life (`engine.lifecycle.run_method`): the folder is made after `start`, records
written by `ask` are there for `finish`, summary.json is the result's JSON form and the run is
done; a step that raises leaves no folder (start) or a folder marked failed with the reason."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from verstehen.engine.lifecycle import Context, Made, Started, run_method
from verstehen.engine.session import RunSettings, Session
from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.models.base import GenerateParams, Model, user
from verstehen.testing.scripted import ScriptedModel


@dataclass(frozen=True)
class Counted:
    """A toy result: how many replies, and where."""

    replies: int
    run_dir: Path
    seconds: float

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {"replies": self.replies, "run": str(self.run_dir), "seconds": self.seconds}


def settings(tmp_path: Path) -> RunSettings:
    """Runs and cache under tmp_path."""
    return RunSettings(runs_dir=tmp_path / "runs", cache=tmp_path / "calls.sqlite")


def run(tmp_path: Path, model: ScriptedModel, *, fail_in: str = "") -> Counted:
    """Ask the model three prompts through run_method; `fail_in` names a step that raises."""

    async def start(session: Session) -> Started[Model]:
        if fail_in == "start":
            raise UserError("refused before the folder")
        opened = session.open_model(model)
        return Started({"prompts": 3}, 7, [opened], opened)

    async def ask(context: Context[Model]) -> None:
        for i in range(3):
            got = await context.generate(context.state, user(f"p{i}"), GenerateParams(),
                                         sample=0)
            context.record({"i": i, "text": got.value.text if got.ok else None})
        if fail_in == "ask":
            raise RuntimeError("the procedure broke")

    def finish(store: RunStore, opened: Model, made: Made) -> Counted:
        if fail_in == "finish":
            raise ValueError("the summary broke")
        return Counted(sum(r["text"] is not None for r in store.records()), made.run_dir,
                       made.seconds)

    return asyncio.run(run_method(settings(tmp_path), command="toy", label="toy",
                                  start=start, ask=ask, finish=finish))


def test_a_run_is_made_asked_and_summarized(tmp_path: Path) -> None:
    """The folder holds run.json (config, seed, model identity), the three records and the
    result's JSON; the run is done; usage counted the three calls."""
    model = ScriptedModel()
    result = run(tmp_path, model)
    assert result.replies == 3 and model.calls == ["p0", "p1", "p2"]
    info = json.loads((result.run_dir / "run.json").read_text())
    assert (info["command"], info["config"], info["seed"]) == ("toy", {"prompts": 3}, 7)
    assert info["models"] == [model.identity()]
    assert json.loads((result.run_dir / "summary.json").read_text()) == result.to_dict()
    assert RunStore(result.run_dir).status() == "done"


def test_a_refused_start_makes_no_folder(tmp_path: Path) -> None:
    """start raises before the folder exists: nothing under runs_dir."""
    with pytest.raises(UserError, match="refused"):
        run(tmp_path, ScriptedModel(), fail_in="start")
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


@pytest.mark.parametrize(("step", "reason"), [("ask", "RuntimeError: the procedure broke"),
                                              ("finish", "ValueError: the summary broke")])
def test_a_failed_step_marks_the_run_failed(tmp_path: Path, step: str, reason: str) -> None:
    """ask or finish raises: the exception comes through, run.json says failed and why, the
    records written before it are kept, and there is no summary."""
    with pytest.raises((RuntimeError, ValueError)):
        run(tmp_path, ScriptedModel(), fail_in=step)
    [folder] = (tmp_path / "runs").iterdir()
    info = json.loads((folder / "run.json").read_text())
    assert (info["status"], info["status_reason"]) == ("failed", reason)
    assert len(list(RunStore(folder).records())) == 3
    assert not (folder / "summary.json").exists()
