"""`verstehen batch`: answer every prompt of a file with one model, into a resumable run folder.

Not one of the methods: a generic "answer this file" job on the engine, on which the
kill-and-resume guarantee can be seen in isolation.

A resume checks what it reads: run.json must be a batch run's, the prompts file must be the
one the run was made from (its SHA-256 is in run.json; a run.json without it is resumed only
from the prompts file typed again, `batch --resume RUN PROMPTS`, and a path in run.json is
never followed through a link in the run folder), and every record it cannot use (not a
JSON object, no answer and no error, an id the prompts file lacks, a second record of one
prompt and sample) moves to records.dropped.jsonl and is asked again, and where calls go
(--base-url, a model given NAME@URL) must be typed again: a run folder never chooses it.

The prompts file is streamed (cli/prompts_file.py), with a bounded window of calls under way:
a file of a million prompts starts calling at once and is never held in memory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from verstehen.cli.basic import params_from
from verstehen.cli.batch_resume import (
    RESUMED as RESUMED,  # its old home: tests and callers import it here
)
from verstehen.cli.batch_resume import (
    ResumedConfig as ResumedConfig,
)
from verstehen.cli.batch_resume import (
    check_destinations,
    check_unchanged,
    resumed_config,
    resumed_prompts,
    typed_prompts,
)
from verstehen.cli.flags import (
    NO_PROGRESS_HELP,
    Parser,
    generation_flags,
    positive_int,
    print_json,
    settings_from,
)
from verstehen.cli.inputs import UNNAMED
from verstehen.cli.parser import Subcommands
from verstehen.cli.prompts_file import (
    PromptItem,
    PromptsFile,
    scan_prompts,
)
from verstehen.cli.prompts_file import (
    load_prompts as load_prompts,  # the name's old home: tests and callers import it here
)
from verstehen.cli.resume import check_folder_cache
from verstehen.cli.runs import finish
from verstehen.engine.runner import Runner
from verstehen.engine.session import RunSettings, Session, in_session
from verstehen.engine.store import RunStore
from verstehen.engine.usage import ModelUsage
from verstehen.errors import UserError
from verstehen.models import DEFAULT_MODEL
from verstehen.models.base import GenerateParams, Message, Model
from verstehen.results import JsonForm, json_key
from verstehen.text.tables import plural
from verstehen.text.terminal import terminal_line

# calls under way at once: a few per connection (so that none idles while results are written),
# at least a few dozen, and never so many that their tasks alone fill memory
WINDOW_PER_CONNECTION, WINDOW_MIN, WINDOW_MAX = 4, 32, 16_384


class BatchConfig(TypedDict):
    """A batch run's config in run.json (runs made before `prompts_sha256` was kept lack it)."""

    model: str
    prompts: str
    prompts_sha256: str
    samples: int
    temperature: float
    max_tokens: int
    seed: int
    base_url: str | None


class AnswerUsage(TypedDict):
    """An answer's token counts in its record."""

    prompt_tokens: int
    completion_tokens: int


class BatchRecord(TypedDict):
    """One line of a batch run's records.jsonl: a prompt's sample, answered or failed (then
    `text`, `finish_reason` and `usage` are null and `error` says why)."""

    id: str
    sample: int
    model: str
    messages: list[Message]
    text: str | None
    finish_reason: str | None
    usage: AnswerUsage | None
    error: str | None


@dataclass(frozen=True)
class BatchResult(JsonForm):
    """A batch run: records written, records expected, records that ended in an error."""

    run_dir: Path = field(metadata=json_key("run"))
    records: int
    expected: int
    errors: int
    usage: dict[str, ModelUsage]

    @property
    def failed_calls(self) -> int:
        """Prompts whose call failed (a --resume tries them again)."""
        return self.errors


def record_problem(ids: AbstractSet[str], samples: int
                   ) -> Callable[[Mapping[str, object]], str | None]:
    """What makes a batch record unusable on resume (None: a finished answer, or a recorded
    failure with its error, which is asked again)."""

    def problem(record: Mapping[str, object]) -> str | None:
        rid, sample = record.get("id"), record.get("sample")
        if not isinstance(rid, str):
            return 'no "id" string'
        if rid not in ids:
            return f"id {rid!r} is not in the prompts file"
        if not isinstance(sample, int) or isinstance(sample, bool) or not 0 <= sample < samples:
            return f"sample {json.dumps(sample)[:20]} is not one of 0..{samples - 1}"
        error = record.get("error")
        if error is not None and not isinstance(error, str):
            return '"error" is neither a message nor null'
        if error is None and not isinstance(record.get("text"), str):
            return 'neither a "text" answer nor an "error"'
        return None

    return problem


def call_window(runner: Runner, model: Model) -> int:
    """How many calls a batch keeps under way at once: enough to keep every connection busy
    while finished ones are written, few enough that a long file is never held in memory."""
    limit = runner.connection_limit()
    per_endpoint: int = limit if limit else getattr(model, "max_connections", 1)
    connections = per_endpoint * getattr(model, "endpoint_count", 1)
    return min(max(WINDOW_PER_CONNECTION * connections, WINDOW_MIN), WINDOW_MAX)


async def run_batch(runner: Runner, model: Model, prompts: PromptsFile, store: RunStore,
                    params: GenerateParams, samples: int = 1, *, announce: bool = False) -> None:
    """Answer each (prompt, sample) the run lacks, retrying failed ones; records it cannot use
    are dropped (to records.dropped.jsonl) and asked again. Prompts are streamed from the file
    with a bounded window of calls under way. `announce`: say so on stderr, and how many calls
    are left to make."""
    ids = prompts.ids() if store.records_path.stat().st_size else frozenset()
    repair = store.repair(record_problem(ids, samples), key=lambda r: (r["id"], r["sample"]))
    if repair.dropped and announce:
        print(terminal_line(repair.say(store)), file=sys.stderr)
    finished = [r for r in repair.kept if r.get("error") is None]
    if len(finished) < len(repair.kept):
        store.rewrite(finished)  # failures were never cached: try them again
    done = {(r["id"], r["sample"]) for r in finished}
    del ids, repair, finished  # a long run's records: only the keys of the done ones are kept
    left = prompts.count * samples - len(done)
    if announce:
        print(f"{plural(left, 'call')} to make ({len(done)} of {prompts.count * samples} "
              "answers already in the run)", file=sys.stderr)
    runner.progress.add_total(left)
    todo = ((item, s) for item in prompts.items() for s in range(samples)
            if (item.id, s) not in done)

    async def answer(item: PromptItem, sample: int) -> None:
        result = await runner.generate(model, item.messages, params, sample_index=sample)
        out = result.value
        record: BatchRecord = {
            "id": item.id,
            "sample": sample,
            "model": model.name,
            "messages": item.messages,
            "text": out.text if result.ok else None,
            "finish_reason": out.finish_reason if result.ok else None,
            "usage": {"prompt_tokens": out.usage.prompt_tokens,
                      "completion_tokens": out.usage.completion_tokens} if result.ok else None,
            "error": result.error,
        }
        store.append(record)

    stopping = asyncio.Event()

    async def worker() -> None:
        for item, sample in todo:  # one generator shared: each (prompt, sample) taken once
            if stopping.is_set():
                return
            await answer(item, sample)

    window = min(call_window(runner, model), left)
    workers = [asyncio.ensure_future(worker()) for _ in range(window)]
    if not workers:
        return
    try:
        # not gather: a cancelled gather waits for every worker, and a worker whose call
        # swallowed its cancellation would go on to the next prompt
        ended, _ = await asyncio.wait(workers, return_when=asyncio.FIRST_EXCEPTION)
        for task in ended:
            if (error := task.exception()) is not None:
                raise error  # one worker's error ends the batch
    finally:  # the others stop taking prompts; the session closes once they have left
        stopping.set()
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)


async def batch(model_name: str | Model, prompts: Path, params: GenerateParams, *,
                samples: int = 1, base_url: str | None = None,
                settings: RunSettings | None = None, resume: RunStore | None = None
                ) -> BatchResult:
    """Answer a prompts file into a new run folder (or finish `resume`); summary.json."""
    settings = settings or RunSettings()
    if resume is not None:
        check_unchanged(resume, prompts)
    checked = scan_prompts(prompts, keep_ids=resume is not None)
    if resume is not None:
        resume.begin()
    label = model_name if isinstance(model_name, str) else model_name.name

    async def body(session: Session) -> RunStore:
        model = session.open_model(model_name, base_url=base_url)
        config: BatchConfig = {
            "model": label, "prompts": str(prompts.resolve()),
            "prompts_sha256": checked.sha256, "samples": samples,
            "temperature": params.temperature, "max_tokens": params.max_tokens,
            "seed": params.seed, "base_url": base_url}
        # the run folder takes the config of any method
        store = resume or settings.create_run("batch", config, params.seed,
                                              [model.identity()])
        if resume is not None and settings.announce:
            print(f"run folder: {store.path}", file=sys.stderr)
        await run_batch(session.runner, model, checked, store, params, samples,
                        announce=settings.announce)
        return store

    timed = await in_session(settings, f"batch {label}", body)
    store = timed.value
    records = errors = 0
    for record in store.records():
        records += 1
        errors += record.get("error") is not None
    result = BatchResult(store.path, records, checked.count * samples, errors, timed.usage)
    store.write_summary(result.to_dict())
    return result


def add_parsers(commands: Subcommands, engine: Parser) -> None:
    """Add `batch`."""
    cmd = commands.add_parser("batch", parents=[engine, generation_flags()],
                              help="answer every prompt of a file into a run folder")
    cmd.add_argument("model", nargs="?", help=f"provider/model, e.g. {DEFAULT_MODEL}")
    cmd.add_argument("prompts", nargs="?", type=Path,
                     help=".txt (one prompt a line) or .jsonl with prompt or messages (with "
                          "--resume, PROMPTS alone names the run's prompts file again)")
    cmd.add_argument("--samples", type=positive_int, default=1, help="answers per prompt")
    cmd.add_argument("--runs-dir", type=Path, default=None,
                     help="parent of run folders (default $VERSTEHEN_RUNS_DIR or ./runs)")
    cmd.add_argument("--resume", type=Path, default=None,
                     help="a run folder to finish: makes only the calls it lacks")
    cmd.add_argument("--no-progress", action="store_true", help=NO_PROGRESS_HELP)
    cmd.set_defaults(func=cmd_batch)


def cmd_batch(args: argparse.Namespace) -> int:
    """Answer a prompts file into a run folder, or finish one with --resume; print JSON."""
    store = None
    UNNAMED.set(())
    if args.resume is not None:
        existing = RunStore.existing(args.resume)
        config = resumed_config(existing)
        typed = typed_prompts(args, config)
        check_destinations(existing, config, args)
        check_folder_cache(existing, args.cache)
        prompts = resumed_prompts(existing, config, typed, args.argv)
        store = RunStore.open(args.resume)
        for name, value in config.items():
            setattr(args, name, value)
        args.prompts = prompts
    elif args.model is None or args.prompts is None:
        raise UserError("batch needs MODEL and PROMPTS, or --resume RUN_FOLDER")
    result = asyncio.run(batch(args.model, Path(args.prompts), params_from(args),
                               samples=args.samples, base_url=args.base_url,
                               settings=settings_from(args), resume=store))
    return finish(args, result, lambda done: print_json(done.to_dict()))


