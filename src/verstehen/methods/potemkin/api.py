"""Potemkin understanding from Python: `potemkin()` (define, then use), `potemkin_incoherence()`,
`potemkin_selfjudge()`, `potemkin_score()` of records files, and the human labels of a run
(`annotate_export()`, `annotate_import()`).

The three that call models are synchronous (they work inside a notebook's running loop too) and
have `_async` twins; they call the entry points the CLI calls, so their run folders are the same
as `verstehen potemkin run|incoherence|selfjudge` makes (and `verstehen annotate` works on them).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from verstehen.methods.options import api_functions
from verstehen.methods.potemkin.annotate import export_items, import_labels, open_run
from verstehen.methods.potemkin.display import PotemkinScoresShown
from verstehen.methods.potemkin.options import (
    PotemkinIncoherenceOptions,
    PotemkinRunOptions,
    PotemkinSelfjudgeOptions,
    run_incoherence_options,
    run_potemkin_options,
    run_selfjudge_options,
)
from verstehen.methods.potemkin.outputs import score_files, summarize_run
from verstehen.methods.potemkin.results import PotemkinRunResult
from verstehen.methods.potemkin.stats import PotemkinScores

RunFolder = str | Path | PotemkinRunResult


def _folder(run: RunFolder) -> Path:
    return run.run_dir if isinstance(run, PotemkinRunResult) else Path(run)


def potemkin_score(records: RunFolder | Sequence[RunFolder], *, plot: Path | str | None = None,
                   above_chance_only: bool = True, next_uses: int = 10,
                   unparsed: str = "wrong", expansion: str = "paper") -> PotemkinScores:
    """Tables 1 and 6 and the keystone expansion of records files (CSV or JSONL with model,
    domain, concept, task, keystone, correct) or `potemkin` runs; `plot` writes Figure 4; an
    empty `correct` of generate or edit counts as wrong (`unparsed="exclude"`: left out).
    `expansion="paper"` computes Figure 4 as the paper does (classify answers, the next ones
    drawn with replacement); "all-uses" counts generate and edit too, drawn without."""
    given = [records] if isinstance(records, (str, Path, PotemkinRunResult)) else records
    return PotemkinScoresShown.of(score_files([_folder(r) for r in given], plot=plot,
                       above_chance_only=above_chance_only, next_uses=next_uses,
                       unparsed=unparsed, expansion=expansion))


def annotate_export(run: RunFolder, out: Path | str | None = None, *,
                           everything: bool = False) -> Path:
    """Write the answers people should label (definitions and judge-graded answers; with
    `everything`, all) as CSV, by default RUN/to-label.csv; the CSV's path."""
    store = open_run(_folder(run))
    path = Path(out) if out is not None else store.path / "to-label.csv"
    export_items(store, path, everything=everything)
    return path


def annotate_import(run: RunFolder, labels: Path | str) -> PotemkinRunResult:
    """Read the label column (yes or no) of an exported CSV into the run; the run's result
    recomputed (people's labels beat the judge's)."""
    store = open_run(_folder(run))
    import_labels(store, Path(labels))
    return summarize_run(store)


potemkin_run_async, potemkin_run = api_functions(PotemkinRunOptions, run_potemkin_options,
                                                "potemkin_run")
potemkin_incoherence_async, potemkin_incoherence = api_functions(
    PotemkinIncoherenceOptions, run_incoherence_options, "potemkin_incoherence")
potemkin_selfjudge_async, potemkin_selfjudge = api_functions(
    PotemkinSelfjudgeOptions, run_selfjudge_options, "potemkin_selfjudge")
