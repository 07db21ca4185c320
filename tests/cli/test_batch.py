"""The batch job on a scripted model: a record that failed is retried on resume, once."""

from __future__ import annotations

import asyncio
from pathlib import Path

from verstehen.cli.batch import batch
from verstehen.engine.session import RunSettings
from verstehen.engine.store import RunStore
from verstehen.errors import CallFailed
from verstehen.models.base import GenerateParams
from verstehen.testing.scripted import ScriptedModel


def test_resuming_a_batch_retries_failed_records_once(tmp_path: Path) -> None:
    """A record that ended in an error is replaced on resume, never duplicated."""
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("a\nb\nc\n")
    settings = RunSettings(runs_dir=tmp_path / "runs", cache=tmp_path / "calls.sqlite")
    failing = ScriptedModel(script=lambda p, a: CallFailed("down") if p == "b" else None)
    first = asyncio.run(batch(failing, prompts, GenerateParams(), settings=settings))
    assert first.errors == first.failed_calls == 1 and first.records == first.expected == 3
    healthy = ScriptedModel()
    again = asyncio.run(batch(healthy, prompts, GenerateParams(), settings=settings,
                              resume=RunStore.open(first.run_dir)))
    assert again.run_dir == first.run_dir
    assert again.errors == 0 and healthy.calls == ["b"]
    assert sorted(r["id"] for r in RunStore(first.run_dir).records()) == ["1", "2", "3"]
