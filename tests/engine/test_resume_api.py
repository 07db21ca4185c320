"""A run stopped by Ctrl-C part way goes on from Python with `resume=`: each run kind's example
run is interrupted by a real SIGINT sent from inside a scripted model's call, marked
interrupted in its run.json, and made again going on with the same folder; the resumed run
finishes with as many records as an uninterrupted one, and together the two parts pay for no
call twice beyond those that were in flight when the interrupt came."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from every_method import each_kind

from verstehen.engine.session import RunSettings
from verstehen.methods import registry
from verstehen.methods.contract import RunKind
from verstehen.methods.options import Options
from verstehen.models.base import Completion, GenerateParams, Message
from verstehen.testing.scripted import ScriptedModel

IN_FLIGHT = ScriptedModel.max_connections  # calls that may be under way at the interrupt


class Calls:
    """Every scripted model's calls in this process, counted (generations and
    log-probabilities); the call numbered `interrupt_at` first sends this process SIGINT, as
    Ctrl-C does."""

    def __init__(self) -> None:
        self.count = 0
        self.interrupt_at: int | None = None

    def start(self, interrupt_at: int | None = None) -> None:
        """Count from 0 again; Ctrl-C at that call."""
        self.count, self.interrupt_at = 0, interrupt_at

    def one(self) -> None:
        """A call begins."""
        self.count += 1
        if self.count == self.interrupt_at:
            self.interrupt_at = None  # one Ctrl-C
            os.kill(os.getpid(), signal.SIGINT)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    """Every ScriptedModel's calls counted (and interrupted when asked) for one test."""
    counted = Calls()
    generate, logprobs = ScriptedModel.generate, ScriptedModel.logprobs

    async def counted_generate(self: ScriptedModel, messages: list[Message],
                               params: GenerateParams) -> Completion:
        counted.one()
        return await generate(self, messages, params)

    async def counted_logprobs(self: ScriptedModel, context: str,
                               continuations: list[str]) -> list[float]:
        counted.one()
        return await logprobs(self, context, continuations)

    monkeypatch.setattr(ScriptedModel, "generate", counted_generate)
    monkeypatch.setattr(ScriptedModel, "logprobs", counted_logprobs)
    yield counted


def resuming(monkeypatch: pytest.MonkeyPatch, kind: RunKind[Any], run: Path) -> None:
    """From now on the kind's API call is given `resume=run`, and every other call (a run
    its example makes first, as `imagine answer` its questions) goes on with its own folder
    of before, as a resumed job's steps do."""
    settings = Options.run_settings

    def run_settings(self: Options) -> RunSettings:
        made = settings(self)
        if kind.options is not None and isinstance(self, kind.options):
            return dataclasses.replace(made, resume=run)
        return dataclasses.replace(made, reuse_runs=True)

    monkeypatch.setattr(Options, "run_settings", run_settings)


def record_lines(run: Path) -> list[str]:
    """Every record line of a run folder and of the run folders inside it."""
    return [line for path in sorted(run.rglob("records.jsonl"))
            for line in path.read_text().splitlines()]


def statuses(run: Path) -> dict[str, str]:
    """The status in every run.json of a run folder and the folders inside it, by command."""
    return {(info := json.loads(p.read_text()))["command"]: info["status"]
            for p in run.rglob("run.json")}


def folders_of(kind: RunKind[Any], runs_dir: Path) -> list[Path]:
    """The run folders of `kind` right under runs_dir."""
    return [p for p in sorted(runs_dir.iterdir())
            if json.loads((p / "run.json").read_text())["command"] == kind.kind]


@each_kind(lambda kind: kind.resumable)
def test_interrupted_run_resumes_from_python(kind: RunKind[Any], calls: Calls, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C half way, then `resume=`: the same records as a run never stopped, each call
    paid once (beyond those in flight), and run.json says interrupted, then done."""
    assert kind.example is not None, f"{kind.kind} declares no example run"
    whole_run = registry.example_run(kind, tmp_path / "whole", tmp_path / "whole.sqlite")
    assert whole_run is not None and statuses(whole_run)[kind.kind] == "done"
    total = calls.count
    assert total >= 2, f"{kind.kind}'s example made too few calls to stop part way"

    where = {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}
    calls.start(interrupt_at=total // 2 + 1)
    with pytest.raises(KeyboardInterrupt):
        registry.example_run(kind, **where)
    first = calls.count
    [run] = folders_of(kind, where["runs_dir"])
    assert set(statuses(run).values()) <= {"interrupted", "done"}
    assert json.loads((run / "run.json").read_text())["status"] == "interrupted"
    assert not (run / "summary.json").exists()

    resuming(monkeypatch, kind, run)
    calls.start()
    assert registry.example_run(kind, **where) == run
    assert folders_of(kind, where["runs_dir"]) == [run]  # no second folder
    assert set(statuses(run).values()) == {"done"}
    assert statuses(run).keys() == statuses(whole_run).keys()  # each step once, no copies
    assert len(record_lines(run)) == len(record_lines(whole_run))
    assert 0 < calls.count < total  # the first part's answers came from the cache
    assert first + calls.count <= total + IN_FLIGHT
