"""A small finished echo run folder made with a scripted model, for the tests that every run
kind goes through (`RunKind.example`)."""

from __future__ import annotations

from pathlib import Path

from toy_method.run import echo
from verstehen.testing.scripted import ScriptedModel


def example_run(runs_dir: Path, cache: Path, tag: str = "") -> Path:
    """Three prompts asked twice of a model that answers "blue" to everything."""
    model = ScriptedModel(f"scripted/echo{tag}", reply=lambda prompt: "blue")
    return echo(model, prompts=3, runs_dir=runs_dir, cache=cache).run_dir
