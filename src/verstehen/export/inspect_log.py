"""A run folder as an Inspect log, written through `inspect_ai.log`'s own API (the `inspect`
extra): one sample per question asked (prompt, reply, score, grade and the method's fields as
metadata), the run's results (verdicts, bounds, rates) as the log's results, so `inspect view`
and `inspect_ai.analysis` open it.

A folder whose kind keeps run folders inside it (an audit's lens folders) is written as one
log per inner folder, each with the outer folder's result groups of that model in its
results' metadata (see `verstehen.auditing.rows`).
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from verstehen import __version__
from verstehen.engine.store.safe_files import temporary_path
from verstehen.export.exported import ExportedRun, exported
from verstehen.export.extras import need
from verstehen.export.sample import ResultGroup, ResultValue, SampleRow

SCORER = "verstehen"  # the name of each sample's score and of the results' scorer


class LogMetadata(TypedDict):
    """The eval spec's metadata: the run folder, its command, seed and package versions (as
    run.json has them), and for a lens folder the outer folder and its command."""

    verstehen_run: str
    command: str
    seed: int | None
    versions: dict[str, str]
    outer_run: NotRequired[str]
    outer_command: NotRequired[str]


def write_inspect_logs(run_dir: Path | str, out_dir: Path) -> list[Path]:
    """Write the run folder's Inspect log(s) into `out_dir`; their paths."""
    need("inspect_ai.log", "inspect", "--inspect")
    run = exported(run_dir)
    inner = run.kind.inner_runs(run.run_dir) if run.kind.inner_runs is not None else ()
    if not inner:
        return [_write(run, out_dir / f"{run.run_dir.name}.eval", None)]
    paths = []
    for folder in inner:
        lens = exported(folder)
        mine = [g for g in run.results if g.values.get("model") in (None, *_models(lens))]
        name = f"{run.run_dir.name}_{folder.parent.name}_{folder.name}.eval"
        paths.append(_write(lens, out_dir / name, (run, mine)))
    return paths


def _models(run: ExportedRun) -> list[str]:
    """The models the rows name, in the order met (not a judge's), else those run.json
    names."""
    asked = list(dict.fromkeys(r.model for r in run.rows if r.model is not None))
    return asked or [str(m.get("model")) for m in run.info.get("models", [])
                     if isinstance(m, dict)]


def _created(created: object) -> str:
    """run.json's `created` in ISO 8601 with a colon in its offset, as Inspect writes it."""
    text = str(created)
    try:
        return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S%z").isoformat()
    except ValueError:
        return datetime.datetime.now(datetime.timezone.utc).isoformat()


def _write(run: ExportedRun, path: Path, outer: tuple[ExportedRun, list[ResultGroup]] | None
           ) -> Path:
    """Write one run's log to `path` with `write_eval_log`."""
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalPlan,
        EvalResults,
        EvalSpec,
        EvalStats,
        write_eval_log,
    )

    created = _created(run.info.get("created", ""))
    metadata: LogMetadata = {"verstehen_run": str(run.run_dir), "command": run.kind.kind,
                             "seed": run.info.get("seed"),
                             "versions": run.info.get("versions", {})}
    # the outer folder's result groups of this model, under its command
    results_metadata: dict[str, list[dict[str, ResultValue]]] | None = None
    if outer is not None:
        metadata["outer_run"] = str(outer[0].run_dir)
        metadata["outer_command"] = outer[0].kind.kind
        results_metadata = {outer[0].kind.kind: [{"name": g.name, **g.values}
                                                 for g in outer[1]]}
    models = _models(run)
    spec = EvalSpec(
        created=created, task=f"verstehen/{run.kind.kind}",
        run_id=str(run.info.get("run_id", run.run_dir.name)),
        eval_id=str(run.info.get("run_id", run.run_dir.name)),
        dataset=EvalDataset(name=run.kind.kind, samples=len(run.rows)),
        model=", ".join(models) or "unknown", config=EvalConfig(),
        task_args=dict(run.info.get("config", {})), packages={"verstehen": __version__},
        metadata=dict(metadata))
    results = EvalResults(total_samples=len(run.rows), completed_samples=len(run.rows),
                          scores=[_score(g) for g in run.results], metadata=results_metadata)
    log = EvalLog(status="success" if run.info.get("status") == "done" else "cancelled",
                  eval=spec, plan=EvalPlan(), results=results,
                  stats=EvalStats(started_at=created, completed_at=created),
                  samples=_samples(run.rows, models[0] if models else "unknown"))
    path.parent.mkdir(parents=True, exist_ok=True)
    with temporary_path(path, "remove it, or pass --out with another folder") as partial:
        write_eval_log(log, str(partial), format="eval")
    return path


def _score(group: ResultGroup) -> Any:
    """A result group as an EvalScore: its numbers as metrics, the rest (words, yes or no,
    values not reached) in its metadata."""
    from inspect_ai.log import EvalMetric, EvalScore

    numbers = {k: v for k, v in group.values.items()
               if isinstance(v, (int, float)) and not isinstance(v, bool)}
    rest = {k: v for k, v in group.values.items() if k not in numbers}
    return EvalScore(name=group.name, scorer=SCORER,
                     metrics={k: EvalMetric(name=k, value=v) for k, v in numbers.items()},
                     metadata=rest or None)


def unique_ids(rows: Sequence[SampleRow]) -> list[str]:
    """The rows' ids, a repeated one suffixed "#2", "#3"... (Inspect needs them unique)."""
    seen: Counter[str] = Counter()
    ids = []
    for row in rows:
        seen[row.id] += 1
        ids.append(row.id if seen[row.id] == 1 else f"{row.id}#{seen[row.id]}")
    return ids


def _samples(rows: Sequence[SampleRow], default_model: str) -> list[Any]:
    """One EvalSample per row: the prompt as the user's message, the reply as the model's,
    the score (when graded) with the grade as its explanation."""
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput
    from inspect_ai.scorer import Score

    samples = []
    for sample_id, row in zip(unique_ids(rows), rows, strict=True):
        model = row.model or default_model
        messages: list[Any] = [ChatMessageUser(content=row.input)]
        if row.reply is not None:
            messages.append(ChatMessageAssistant(content=row.reply, model=model))
        output = (ModelOutput.from_content(model, row.reply) if row.reply is not None
                  else ModelOutput(model=model, error=str(row.metadata.get("error") or
                                                          "no reply")))
        scores = {} if row.score is None else {SCORER: Score(
            value=row.score, answer=row.reply, explanation=row.grade)}
        samples.append(EvalSample(
            id=sample_id, epoch=1, input=row.input, target=row.target or "",
            messages=messages, output=output, scores=scores,
            metadata={"model": row.model, "grade": row.grade, **row.metadata}))
    return samples
