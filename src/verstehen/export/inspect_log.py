"""A run folder as Inspect logs, written through `inspect_ai.log`'s own API (the `inspect`
extra), so `inspect view` and `inspect_ai.analysis` open them.

A run kind says how its folder splits into logs (`RunRows.logs`, a `LogPart` each; one log of
everything unless it says): certify gives one log per (model, scope) verdict, whose samples
are the answers the verdict rests on, and its rephrasings in a log of their own. Each log has
one sample per question asked (prompt, reply, score, grade and the method's fields as
metadata) and the part's result groups as its results; the first number of the first group
is the headline (`results.headline`: what `inspect view` lists as the log's score), a
decision in words is the log's tags, and the run folder's tokens (`stats.model_usage`) and
time (`started_at`: run.json's `created`, `completed_at` that plus summary.json's seconds)
are its stats (a folder written as several logs gives each the folder's).

A folder whose kind keeps run folders inside it (an audit's lens folders) is written as the
logs of each inner folder, each with the outer folder's result groups of that model in its
results' metadata (see `verstehen.auditing.rows`).
"""

from __future__ import annotations

import datetime
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from verstehen import __version__
from verstehen.engine.store.safe_files import temporary_path
from verstehen.export.exported import ExportedRun, exported
from verstehen.export.extras import need
from verstehen.export.kinds import rows_of
from verstehen.rows import LogPart, ResultGroup, ResultValue, SampleRow

SCORER = "verstehen"  # the name of each sample's score and of the results' scorer


class LogMetadata(TypedDict):
    """The eval spec's metadata: the run folder, its command, seed and package versions (as
    run.json has them), what the log concludes in words, how many logs the folder gave (its
    tokens and time are the folder's, in each), and for a lens folder the outer folder and
    its command."""

    verstehen_run: str
    command: str
    seed: int | None
    versions: dict[str, str]
    logs_of_run: int
    about: NotRequired[str]
    outer_run: NotRequired[str]
    outer_command: NotRequired[str]


def write_inspect_logs(run_dir: Path | str, out_dir: Path) -> list[Path]:
    """Write the run folder's Inspect log(s) into `out_dir`; their paths."""
    need("inspect_ai.log", "inspect", "--inspect")
    run = exported(run_dir)
    inner = run.kind.inner_runs(run.run_dir) if run.kind.inner_runs is not None else ()
    if not inner:
        return _write_parts(run, out_dir, run.run_dir.name, None)
    paths = []
    for folder in inner:
        lens = exported(folder)
        mine = [g for g in run.results if g.model in (None, *_models(lens.rows, lens))]
        stem = f"{run.run_dir.name}_{folder.parent.name}_{folder.name}"
        paths += _write_parts(lens, out_dir, stem, (run, mine))
    return paths


def _write_parts(run: ExportedRun, out_dir: Path, stem: str,
                 outer: tuple[ExportedRun, list[ResultGroup]] | None) -> list[Path]:
    """Write each log the run's kind makes of it, named `STEM[_PART].eval`."""
    parts = rows_of(run.kind).logs(run.rows, run.results)
    names = unique_ids([_file_part(part.name) for part in parts])
    return [_write(run, part, out_dir / f"{stem}{'_' + name if name else ''}.eval", outer,
                   len(parts)) for part, name in zip(parts, names, strict=True)]


def _file_part(name: str) -> str:
    """A part's name as a piece of a file name: letters, digits, `.`, `-`; the rest `-`."""
    return re.sub(r"[^A-Za-z0-9.-]+", "-", name).strip("-.")


def _models(rows: Sequence[SampleRow], run: ExportedRun) -> list[str]:
    """The models the rows name, in the order met (not a judge's), else those run.json
    names."""
    asked = list(dict.fromkeys(r.model for r in rows if r.model is not None))
    return asked or [str(m.get("model")) for m in run.info.get("models", [])
                     if isinstance(m, dict)]


def _created(created: object) -> datetime.datetime:
    """run.json's `created` (now when it cannot be read)."""
    try:
        return datetime.datetime.strptime(str(created), "%Y-%m-%dT%H:%M:%S%z")
    except ValueError:
        return datetime.datetime.now(datetime.timezone.utc)


def _write(run: ExportedRun, part: LogPart, path: Path,
           outer: tuple[ExportedRun, list[ResultGroup]] | None, logs: int) -> Path:
    """Write one log of a run to `path` with `write_eval_log`."""
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalPlan,
        EvalResults,
        EvalSpec,
        write_eval_log,
    )

    created = _created(run.info.get("created", "")).isoformat()
    metadata: LogMetadata = {"verstehen_run": str(run.run_dir), "command": run.kind.kind,
                             "seed": run.info.get("seed"),
                             "versions": run.info.get("versions", {}), "logs_of_run": logs}
    if part.about:
        metadata["about"] = part.about
    # the outer folder's result groups of this model, under its command
    results_metadata: dict[str, list[dict[str, ResultValue]]] | None = None
    if outer is not None:
        metadata["outer_run"] = str(outer[0].run_dir)
        metadata["outer_command"] = outer[0].kind.kind
        results_metadata = {outer[0].kind.kind: [{"name": g.name, **g.as_values()}
                                                 for g in outer[1]]}
    models = _models(part.rows, run)
    scores = [_score(g) for g in part.results]
    headline = _headline(scores)
    run_id = str(run.info.get("run_id", run.run_dir.name))
    spec = EvalSpec(
        created=created, task=f"verstehen/{part.task or run.kind.kind}", run_id=run_id,
        eval_id=f"{run_id}/{part.name}" if part.name else run_id,
        dataset=EvalDataset(name=part.dataset or run.kind.kind, samples=len(part.rows)),
        model=", ".join(models) or "unknown", config=EvalConfig(),
        task_args=dict(run.info.get("config", {})), packages={"verstehen": __version__},
        tags=list(part.tags) or None, metadata=dict(metadata), headline_metric=headline)
    results = EvalResults(total_samples=len(part.rows), completed_samples=len(part.rows),
                          scores=scores, headline=headline, metadata=results_metadata)
    log = EvalLog(status="success" if run.info.get("status") == "done" else "cancelled",
                  eval=spec, plan=EvalPlan(), results=results, stats=_stats(run, models),
                  samples=_samples(part, models[0] if models else "unknown"))
    path.parent.mkdir(parents=True, exist_ok=True)
    with temporary_path(path, "remove it, or pass --out with another folder") as partial:
        write_eval_log(log, str(partial), format="eval")
    return path


def _stats(run: ExportedRun, models: Sequence[str]) -> Any:
    """The run folder's time and tokens as EvalStats: started when run.json was created,
    completed that plus summary.json's seconds; the tokens of every call of the log's models
    and of those no row names (a judge), the input tokens of calls the cache answered as
    `input_tokens_cache_read`."""
    from inspect_ai.log import EvalStats
    from inspect_ai.model import ModelUsage

    asked = {row.model for row in run.rows}
    started = _created(run.info.get("created", ""))
    completed = started + datetime.timedelta(seconds=run.seconds or 0.0)
    usage = {name: ModelUsage(
        input_tokens=counts.new_prompt_tokens, output_tokens=counts.completion_tokens,
        total_tokens=counts.prompt_tokens + counts.completion_tokens,
        input_tokens_cache_read=(counts.prompt_tokens - counts.new_prompt_tokens) or None,
        reasoning_tokens=counts.reasoning_tokens or None)
        for name, counts in run.usage.items() if name in models or name not in asked}
    return EvalStats(started_at=started.isoformat(), completed_at=completed.isoformat(),
                     model_usage=usage)


def _score(group: ResultGroup) -> Any:
    """A result group as an EvalScore: its numbers as metrics (in its order), the rest (its
    model and scope, words, yes or no, values not reached) in its metadata."""
    from inspect_ai.log import EvalMetric, EvalScore

    values = group.as_values()
    numbers = {k: v for k, v in values.items()
               if isinstance(v, (int, float)) and not isinstance(v, bool)}
    rest = {k: v for k, v in values.items() if k not in numbers}
    return EvalScore(name=group.name, scorer=SCORER,
                     metrics={k: EvalMetric(name=k, value=v) for k, v in numbers.items()},
                     metadata=rest or None)


def _headline(scores: Sequence[Any]) -> Any:
    """The first metric of the first score, as a HeadlineMetric (None: it has none)."""
    from inspect_ai.log import HeadlineMetric

    if not scores or not scores[0].metrics:
        return None
    return HeadlineMetric(scorer=SCORER, score=scores[0].name,
                          metric=next(iter(scores[0].metrics)))


def unique_ids(ids: Sequence[str]) -> list[str]:
    """The ids, a repeated one suffixed "#2", "#3"... (Inspect needs them unique)."""
    seen: Counter[str] = Counter()
    unique = []
    for one in ids:
        seen[one] += 1
        unique.append(one if seen[one] == 1 else f"{one}#{seen[one]}")
    return unique


def _samples(part: LogPart, default_model: str) -> list[Any]:
    """One EvalSample per row: the prompt as the user's message, the reply as the model's,
    the score (when graded) with the grade as its explanation; its metadata the part's
    fields for each sample, then the row's."""
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput
    from inspect_ai.scorer import Score

    samples = []
    for sample_id, row in zip(unique_ids([r.id for r in part.rows]), part.rows, strict=True):
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
            id=sample_id, epoch=1, input=row.input, target=row.expected or "",
            messages=messages, output=output, scores=scores,
            metadata={**part.sample_metadata, "model": row.model, "scope": row.scope,
                      "grade": row.grade, **row.metadata}))
    return samples
