"""`verstehen batch`: answer every prompt of a file with one model, into a resumable run folder.

Not one of the methods: a generic "answer this file" job on the engine, on which the
kill-and-resume guarantee can be seen in isolation.

A resume checks what it reads: run.json must be a batch run's, the prompts file must be the
one the run was made from (its SHA-256 is in run.json), and every record it cannot use (not a
JSON object, no answer and no error, an id the prompts file lacks, a second record of one
prompt and sample) moves to records.dropped.jsonl and is asked again.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verstehen.cli.basic import params_from
from verstehen.cli.flags import Parser, generation_flags, positive_int, print_json, settings_from
from verstehen.cli.runs import finish
from verstehen.engine.runner import ModelUsage, Runner
from verstehen.engine.session import RunSettings, Session, in_session
from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.models import DEFAULT_MODEL
from verstehen.models.base import GenerateParams, Message, Model, user
from verstehen.report.tables import plural
from verstehen.results import JsonForm, json_key
from verstehen.textfiles import read_text

NONE = type(None)
# the config keys a resume takes from run.json, and the types `batch` writes them with
RESUMED: dict[str, type | tuple[type, ...]] = {
    "model": str, "prompts": str, "samples": int, "temperature": (int, float, NONE),
    "max_tokens": (int, NONE), "seed": (int, NONE), "base_url": (str, list, NONE)}
SUFFIXES = {".txt": "one prompt a line", ".jsonl": 'one {"prompt"} or {"messages"} object a line'}


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


@dataclass(frozen=True)
class PromptItem:
    """One prompt of a prompts file."""

    id: str
    messages: list[Message]


def load_prompts(path: Path) -> list[PromptItem]:
    """Prompts from a .txt file (one a line) or .jsonl ({"id", "prompt" or "messages"})."""
    kinds = "; ".join(f"{suffix} ({what})" for suffix, what in SUFFIXES.items())
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise UserError(f"prompts file {path}: a {suffix or 'suffix-less'} file is not a "
                        f"prompts file: give {kinds}")
    # split at line ends only: str.splitlines would also split a prompt at \f or U+2028
    lines = [line.removesuffix("\r") for line in read_text(path, "prompts file").split("\n")]
    if suffix == ".txt":
        items = [PromptItem(str(n), user(line)) for n, line in enumerate(lines, 1)
                 if line.strip()]
    else:
        items, first_line = [], {}
        for n, line in enumerate(lines, 1):
            if line.strip():
                item = _jsonl_item(path, n, line)
                if item.id in first_line:
                    raise UserError(f"{path}:{n}: id {item.id!r} is the id of line "
                                    f"{first_line[item.id]} too; give every prompt a distinct id")
                first_line[item.id] = n
                items.append(item)
    if not items:
        raise UserError(f"prompts file {path} holds no prompts: write one a line")
    return items


def _jsonl_item(path: Path, n: int, line: str) -> PromptItem:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}:{n}: not JSON ({exc.msg}); write one object a line") from None
    if not isinstance(row, dict) or not ("prompt" in row or "messages" in row):
        raise UserError(f'{path}:{n}: needs a "prompt" string or a "messages" list')
    if "messages" in row:
        messages = row["messages"]
        if not isinstance(messages, list) or not messages or not all(
            isinstance(m, dict) and m.get("role") in {"system", "user", "assistant"}
            and isinstance(m.get("content"), str) for m in messages
        ):
            raise UserError(f"{path}:{n}: messages must be a non-empty list "
                            "[{role, content}, ...]")
    elif isinstance(row["prompt"], str) and row["prompt"].strip():
        messages = user(row["prompt"])
    else:
        raise UserError(f'{path}:{n}: "prompt" must be a non-empty string, not '
                        f"{json.dumps(row['prompt'])[:40]}")
    given = row.get("id", n)
    if not isinstance(given, str | int) or isinstance(given, bool) or given == "":
        raise UserError(f'{path}:{n}: "id" must be a non-empty string or an integer, not '
                        f"{json.dumps(given)[:40]}")
    return PromptItem(str(given), messages)


def prompts_sha256(path: Path) -> str:
    """The SHA-256 of a prompts file's bytes, as run.json keeps it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


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


def resumed_config(store: RunStore) -> dict[str, Any]:
    """The settings a batch run was made with, from its run.json (UserError naming the file
    when it is not a batch run's)."""
    info = store.info()
    where = store.path / "run.json"
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
    return config


def record_problem(ids: set[str], samples: int) -> Callable[[dict[str, Any]], str | None]:
    """What makes a batch record unusable on resume (None: a finished answer, or a recorded
    failure with its error, which is asked again)."""

    def problem(record: dict[str, Any]) -> str | None:
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


async def run_batch(runner: Runner, model: Model, items: list[PromptItem], store: RunStore,
                    params: GenerateParams, samples: int = 1, *, announce: bool = False) -> None:
    """Answer each (prompt, sample) the run lacks, retrying failed ones; records it cannot use
    are dropped (to records.dropped.jsonl) and asked again. `announce`: say so on stderr, and
    how many calls are left to make."""
    repair = store.repair(record_problem({item.id for item in items}, samples),
                          key=lambda r: (r["id"], r["sample"]))
    if repair.dropped and announce:
        print(repair.say(store), file=sys.stderr)
    finished = [r for r in repair.kept if r.get("error") is None]
    if len(finished) < len(repair.kept):
        store.rewrite(finished)  # failures were never cached: try them again
    done = {(r["id"], r["sample"]) for r in finished}
    todo = [(item, s) for item in items for s in range(samples) if (item.id, s) not in done]
    if announce:
        print(f"{plural(len(todo), 'call')} to make ({len(done)} of {len(items) * samples} answers "
              "already in the run)", file=sys.stderr)
    runner.progress.add_total(len(todo))

    async def answer(item: PromptItem, sample: int) -> None:
        result = await runner.generate(model, item.messages, params, sample_index=sample)
        out = result.value
        store.append({
            "id": item.id,
            "sample": sample,
            "model": model.name,
            "messages": item.messages,
            "text": out.text if result.ok else None,
            "finish_reason": out.finish_reason if result.ok else None,
            "usage": {"prompt_tokens": out.usage.prompt_tokens,
                      "completion_tokens": out.usage.completion_tokens} if result.ok else None,
            "error": result.error,
        })

    await asyncio.gather(*(answer(item, s) for item, s in todo))


async def batch(model_name: str | Model, prompts: Path, params: GenerateParams, *,
                samples: int = 1, base_url: str | None = None,
                settings: RunSettings | None = None, resume: RunStore | None = None
                ) -> BatchResult:
    """Answer a prompts file into a new run folder (or finish `resume`); summary.json."""
    settings = settings or RunSettings()
    if resume is not None:
        check_unchanged(resume, prompts)
    items = load_prompts(prompts)
    if resume is not None:
        resume.begin()
    label = model_name if isinstance(model_name, str) else model_name.name

    async def body(session: Session) -> RunStore:
        model = session.open_model(model_name, base_url=base_url)
        store = resume or settings.create_run("batch", {
            "model": label, "prompts": str(prompts.resolve()),
            "prompts_sha256": prompts_sha256(prompts), "samples": samples,
            "temperature": params.temperature, "max_tokens": params.max_tokens,
            "seed": params.seed, "base_url": base_url}, params.seed, [model.identity()])
        if resume is not None and settings.announce:
            print(f"run folder: {store.path}", file=sys.stderr)
        await run_batch(session.runner, model, items, store, params, samples,
                        announce=settings.announce)
        return store

    timed = await in_session(settings, f"batch {label}", body)
    store = timed.value
    records = list(store.records())
    result = BatchResult(store.path, len(records), len(items) * samples,
                         sum(r.get("error") is not None for r in records), timed.usage)
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
    cmd.add_argument("--no-progress", action="store_true")
    cmd.set_defaults(func=cmd_batch)


def cmd_batch(args: argparse.Namespace) -> int:
    """Answer a prompts file into a run folder, or finish one with --resume; print JSON."""
    store = None
    if args.resume is not None:
        store = RunStore.open(args.resume)
        config = resumed_config(store)
        for name in RESUMED:
            setattr(args, name, config[name])
    elif args.model is None or args.prompts is None:
        raise UserError("batch needs MODEL and PROMPTS, or --resume RUN_FOLDER")
    result = asyncio.run(batch(args.model, Path(args.prompts), params_from(args),
                               samples=args.samples, base_url=args.base_url,
                               settings=settings_from(args), resume=store))
    return finish(args, result, lambda done: print_json(done.to_dict()))
