"""`verstehen batch`: answer every prompt of a file with one model, into a resumable run folder.

Not one of the methods: a generic "answer this file" job on the engine, on which the
kill-and-resume guarantee can be seen in isolation.

A resume checks what it reads: run.json must be a batch run's, the prompts file must be the
one the run was made from (its SHA-256 is in run.json), and every record it cannot use (not a
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
import shlex
import sys
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from verstehen.cli.basic import params_from
from verstehen.cli.flags import (
    NO_PROGRESS_HELP,
    Parser,
    generation_flags,
    positive_int,
    print_json,
    settings_from,
)
from verstehen.cli.prompts_file import (
    PromptItem,
    PromptsFile,
    prompts_sha256,
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
from verstehen.models.remote import without_credentials
from verstehen.models.served_at import has_url
from verstehen.results import JsonForm, json_key
from verstehen.text.tables import plural
from verstehen.text.terminal import terminal_line

NONE = type(None)
# the config keys a resume takes from run.json (`ResumedConfig`), and the types `batch` writes
# them with
RESUMED: dict[str, type | tuple[type, ...]] = {
    "model": str, "prompts": str, "samples": int, "temperature": (int, float, NONE),
    "max_tokens": (int, NONE), "seed": (int, NONE), "base_url": (str, list, NONE)}
# calls under way at once: a few per connection (so that none idles while results are written),
# at least a few dozen, and never so many that their tasks alone fill memory
WINDOW_PER_CONNECTION, WINDOW_MIN, WINDOW_MAX = 4, 32, 16_384


class ResumedConfig(TypedDict):
    """The settings a resume takes from a batch run's run.json (`RESUMED` checks them)."""

    model: str
    prompts: str
    samples: int
    temperature: float | None
    max_tokens: int | None
    seed: int | None
    base_url: str | list[str] | None


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


def check_unchanged(store: RunStore, prompts: Path) -> None:
    """UserError when the prompts file is not the one `store`'s run was made from (a run made
    before run.json kept the SHA-256 cannot be checked)."""
    made_from = store.info().get("config", {}).get("prompts_sha256")
    try:
        now = prompts_sha256(prompts)
    except OSError:
        return  # reading it again says what is wrong with it
    if isinstance(made_from, str) and now != made_from:
        raise UserError(f"prompts file {prompts} changed since run {store.run_id} was made "
                        f"(sha256 {made_from[:12]}... then, {now[:12]}... now): resume with "
                        "the original file, or start a new run")


def resumed_config(store: RunStore) -> ResumedConfig:
    """The settings a batch run was made with, from its run.json (UserError naming the file
    when it is not a batch run's)."""
    info = store.info()
    where = store.path / "run.json"
    for key in ("command", "config"):
        if key not in info:
            raise UserError(f"{where}: no {key!r}: it was edited or is not verstehen's; start a "
                            "new run")
    if info["command"] != "batch":
        raise UserError(f"{store.path} is a {info['command']!r} run, not a batch run: only "
                        "batch runs resume; rerun its command instead")
    config = info["config"]
    for name, kind in RESUMED.items():
        if name not in config:
            raise UserError(f"{where}: config has no {name!r}: it was edited; start a new run")
        value = config[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise UserError(f"{where}: config {name!r} is {json.dumps(value)[:40]}, which batch "
                            "never writes: it was edited; start a new run")
    if config["samples"] < 1:
        raise UserError(f"{where}: config 'samples' is {config['samples']}, not at least 1: it "
                        "was edited; start a new run")
    return ResumedConfig(model=config["model"], prompts=config["prompts"],
                         samples=config["samples"], temperature=config["temperature"],
                         max_tokens=config["max_tokens"], seed=config["seed"],
                         base_url=config["base_url"])


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


def add_parsers(commands: argparse._SubParsersAction, engine: Parser) -> None:
    """Add `batch`."""
    cmd = commands.add_parser("batch", parents=[engine, generation_flags()],
                              help="answer every prompt of a file into a run folder")
    cmd.add_argument("model", nargs="?", help=f"provider/model, e.g. {DEFAULT_MODEL}")
    cmd.add_argument("prompts", nargs="?", type=Path,
                     help=".txt (one prompt a line) or .jsonl with prompt or messages")
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
    if args.resume is not None:
        config = resumed_config(RunStore.existing(args.resume))
        check_destinations(RunStore.existing(args.resume), config, args)
        check_folder_cache(RunStore.existing(args.resume), args.cache)
        store = RunStore.open(args.resume)
        for name, value in config.items():
            setattr(args, name, value)
    elif args.model is None or args.prompts is None:
        raise UserError("batch needs MODEL and PROMPTS, or --resume RUN_FOLDER")
    result = asyncio.run(batch(args.model, Path(args.prompts), params_from(args),
                               samples=args.samples, base_url=args.base_url,
                               settings=settings_from(args), resume=store))
    return finish(args, result, lambda done: print_json(done.to_dict()))


def check_destinations(store: RunStore, config: ResumedConfig, args: argparse.Namespace
                       ) -> None:
    """Refuse, in one line, a resume whose typed command does not repeat where the run's calls
    went (its --base-url, a model given NAME@URL): a run folder is data and never chooses them.
    The key (--api-key-env) and the cache are the typed command's alone."""
    checks = [("--base-url", _urls(config["base_url"]), _urls(args.base_url))]
    if has_url(config["model"]):
        checks.append(("", [config["model"]], [args.model] if args.model else []))
    for flag, made, typed in checks:
        if [without_credentials(v) for v in made] == [without_credentials(v) for v in typed]:
            continue
        if made:
            shown = " ".join(f"{flag} {_shown(v)}".strip() for v in made)
            raise UserError(f"{store.path} was made with {shown}; a run folder cannot choose "
                            f"where calls go: add {shown} to resume against it")
        given = " ".join(f"{flag} {_shown(v)}".strip() for v in typed)
        raise UserError(f"{store.path} was made without {flag or 'a model at a URL'}; a resume "
                        f"cannot add {given}: start a new run to use it")


def _urls(value: str | list[str] | tuple[str, ...] | None) -> list[str]:
    return [] if value is None else [value] if isinstance(value, str) else list(value)


def _shown(value: str) -> str:
    """A value as one would type it: credentials left out, quoted, controls escaped."""
    return shlex.quote(terminal_line(str(without_credentials(value))))
