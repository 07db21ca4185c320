"""What a `potemkin run` folder holds besides its records, written where a result is made: the
standard records file (potemkin-records.csv) and Figure 4 (keystone-expansion.png), beside
summary.json (the engine writes it after a run; `summarize_run` after labels are imported); and
`potemkin score`'s plot. The numbers come from `summary.py`, which reads only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from verstehen.engine.store import RunStore
from verstehen.engine.store.safe_files import read_regular
from verstehen.engine.usage import ModelUsage
from verstehen.methods.potemkin.plots import plot_expansion
from verstehen.methods.potemkin.records import RECORDS_FILE, write_records
from verstehen.methods.potemkin.results import PotemkinRunResult
from verstehen.methods.potemkin.stats import PotemkinScores
from verstehen.methods.potemkin.summary import PLOT_FILE, scores_of_files, summarize


def write_outputs(store: RunStore, *, keystone_asked: bool, seconds: float | None,
                  usage: dict[str, ModelUsage] | None,
                  unparsed: str = "wrong") -> PotemkinRunResult:
    """Write potemkin-records.csv and the plot of a run folder; the result, whose dict is its
    summary.json (`unparsed`: what an unreadable generate or edit answer counts as, "wrong" or
    "exclude")."""
    result, records = summarize(store, keystone_asked=keystone_asked, seconds=seconds,
                                usage=usage, unparsed=unparsed)
    write_records(store.path / RECORDS_FILE, records)
    if result.plot is not None and result.keystone_expansion is not None:
        plot_expansion(result.keystone_expansion, store.path / PLOT_FILE)
    return result


def summarize_run(store: RunStore) -> PotemkinRunResult:
    """Recompute a run folder (after labels were imported): its records file, plot and
    summary.json, keeping the asking run's seconds and usage."""
    path = store.path / "summary.json"
    before = json.loads(read_regular(path)) if os.path.lexists(path) else {}  # never a link
    usage = before.get("usage")
    config = store.info()["config"]
    result = write_outputs(store, keystone_asked=config["keystone_asked"],
                           seconds=before.get("seconds"),
                           usage=None if usage is None else {
                               name: ModelUsage(**counts) for name, counts in usage.items()},
                           unparsed=config.get("unparsed", "wrong"))
    store.write_summary(result.to_dict())
    return result


def score_files(paths: Sequence[Path | str], *, plot: Path | str | None = None,
                above_chance_only: bool = True, next_uses: int = 10,
                unparsed: str = "wrong", expansion: str = "paper") -> PotemkinScores:
    """The scores of records files (`summary.scores_of_files`); with `plot`, the keystone plot
    written there too."""
    scores = scores_of_files(paths, above_chance_only=above_chance_only, next_uses=next_uses,
                             unparsed=unparsed, expansion=expansion)
    if plot is None:
        return scores
    plot_expansion(scores.keystone_expansion, Path(plot))
    return replace(scores, plot=str(plot))
