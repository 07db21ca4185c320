"""A run's status in run.json (running, interrupted, done, failed) and what `RunStore.resume`
accepts: the same command with the same settings, its earlier records kept aside."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verstehen.engine.store import RunStore, marked_on_error, stopped_runs
from verstehen.errors import UserError

CONFIG = {"model": "scripted/m", "questions": 10}


def make(runs: Path, config: dict = CONFIG) -> RunStore:
    """A new run folder of `certify` with `config`."""
    return RunStore.create(runs, command="certify", argv=["certify"], config=config, seed=0,
                           models=[])


def stored(store: RunStore) -> tuple[str, str | None]:
    """Status and reason as run.json holds them."""
    info = json.loads((store.path / "run.json").read_text())
    return info["status"], info["status_reason"]


def test_a_run_is_running_until_its_summary_then_done(tmp_path):
    """create: running (and held, so not read as interrupted); the summary: done."""
    store = make(tmp_path)
    assert stored(store) == ("running", None)
    assert RunStore.existing(store.path).status() == "running"
    store.write_summary({})
    assert stored(store) == ("done", None)


def test_an_error_or_ctrl_c_inside_the_block_marks_the_run(tmp_path):
    """A UserError marks failed with its text; KeyboardInterrupt marks interrupted; the
    folder is let go, so a resume in the same process can take it."""
    with pytest.raises(UserError), marked_on_error():
        failing = make(tmp_path / "a")
        raise UserError("the scope is gone")
    assert stored(failing) == ("failed", "the scope is gone")
    assert stopped_runs()[-1] is failing
    with pytest.raises(KeyboardInterrupt), marked_on_error():
        stopping = make(tmp_path / "b")
        raise KeyboardInterrupt
    assert stored(stopping) == ("interrupted", "interrupted (Ctrl-C)")
    assert RunStore.resume(stopping.path, command="certify", config=CONFIG).path == \
        stopping.path


def test_a_summary_written_later_by_another_command_leaves_the_status(tmp_path):
    """Rescoring an interrupted run (not this process's run) does not call it done."""
    with pytest.raises(KeyboardInterrupt), marked_on_error():
        store = make(tmp_path)
        raise KeyboardInterrupt
    RunStore.existing(store.path).write_summary({})
    assert stored(store)[0] == "interrupted"


def test_resume_keeps_earlier_records_aside_and_refuses_other_runs(tmp_path):
    """The records move to records.before-resume.jsonl (appended); another command or a
    changed setting is refused in one line naming it."""
    store = make(tmp_path)
    store.append({"n": 1})
    store.release()
    with pytest.raises(UserError, match="is a run of 'certify', not 'audit'"):
        RunStore.resume(store.path, command="audit", config=CONFIG)
    with pytest.raises(UserError, match="made with questions = 10, not 20"):
        RunStore.resume(store.path, command="certify", config={**CONFIG, "questions": 20})
    again = RunStore.resume(store.path, command="certify", config=CONFIG)
    assert again.records_path.read_text() == ""
    assert (store.path / "records.before-resume.jsonl").read_text() == '{"n": 1}\n'
    assert stored(again)[0] == "running"


def test_a_run_from_before_statuses_reads_from_its_summary(tmp_path):
    """Older run folders have no status: a summary means done, none means interrupted."""
    store = make(tmp_path)
    store.release()
    info = json.loads((store.path / "run.json").read_text())
    del info["status"], info["status_reason"]
    (store.path / "run.json").write_text(json.dumps(info))
    assert RunStore.existing(store.path).status() == "interrupted"
    (store.path / "summary.json").write_text("{}")
    assert RunStore.existing(store.path).status() == "done"
