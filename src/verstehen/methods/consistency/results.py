"""The typed result of a conceptual-consistency run (summary.json is `to_dict()`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from verstehen.engine.runner import ModelUsage
from verstehen.methods.consistency.summary import ConsistencySummary
from verstehen.results import json_key


@dataclass(frozen=True)
class ConsistencyResult(ConsistencySummary):
    """A conceptual-consistency run: the summary of its records (CC in `.consistency`, the
    tables in `.by_relation`, `.by_concept` and `.bias`), its run folder and figures (paper
    Figures 5 and 6), its wall seconds and the calls and tokens of the model."""

    run_dir: Path = field(metadata=json_key("run"))
    relations_png: Path
    bias_png: Path
    seconds: float
    usage: dict[str, ModelUsage]
