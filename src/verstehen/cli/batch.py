"""`verstehen batch`: answer every prompt of a file with one model, into a resumable run folder.

Not one of the methods: a generic "answer this file" job on the engine, on which the
kill-and-resume guarantee can be seen in isolation.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from verstehen.cli.basic import params_from
from verstehen.cli.flags import Parser, generation_flags, positive_int, print_json, settings_from
from verstehen.cli.runs import finish
from verstehen.engine.runner import ModelUsage, Runner
from verstehen.engine.session import RunSettings, Session, in_session
from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.models import DEFAULT_MODEL
from verstehen.models.base import GenerateParams, Message, Model, user
from verstehen.results import JsonForm, json_key

RESUMED = ("model", "prompts", "samples", "temperature", "max_tokens", "seed", "base_url")


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
    if not path.is_file():
        raise UserError(f"prompts file not found: {path}")
    lines = path.read_text(encoding="utf-8").splitlines()
    if path.suffix != ".jsonl":
        return [PromptItem(str(n), user(line)) for n, line in enumerate(lines, 1) if line.strip()]
    items = []
    for n, line in enumerate(lines, 1):
        if line.strip():
            items.append(_jsonl_item(path, n, line))
    ids = [item.id for item in items]
    if len(set(ids)) != len(ids):
        raise UserError(f"{path}: ids repeat; give every prompt a distinct id")
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
        if not isinstance(messages, list) or not all(
            isinstance(m, dict) and m.get("role") in {"system", "user", "assistant"}
            and isinstance(m.get("content"), str) for m in messages
        ):
            raise UserError(f"{path}:{n}: messages must be [{{role, content}}, ...]")
    else:
        messages = user(str(row["prompt"]))
    return PromptItem(str(row.get("id", n)), messages)


async def run_batch(runner: Runner, model: Model, items: list[PromptItem], store: RunStore,
                    params: GenerateParams, samples: int = 1) -> None:
    """Answer each (prompt, sample) the run lacks, retrying failed ones."""
    records = list(store.records())
    finished = [r for r in records if r["error"] is None]
    if len(finished) < len(records):
        store.rewrite(finished)  # failures were never cached: try them again
    done = {(r["id"], r["sample"]) for r in finished}
    todo = [(item, s) for item in items for s in range(samples) if (item.id, s) not in done]
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
    items = load_prompts(prompts)
    label = model_name if isinstance(model_name, str) else model_name.name

    async def body(session: Session) -> RunStore:
        model = session.open_model(model_name, base_url=base_url)
        store = resume or settings.create_run("batch", {
            "model": label, "prompts": str(prompts.resolve()), "samples": samples,
            "temperature": params.temperature, "max_tokens": params.max_tokens,
            "seed": params.seed, "base_url": base_url}, params.seed, [model.identity()])
        if resume is not None and settings.announce:
            print(f"run folder: {store.path}", file=sys.stderr)
        await run_batch(session.runner, model, items, store, params, samples)
        return store

    timed = await in_session(settings, f"batch {label}", body)
    store = timed.value
    records = list(store.records())
    result = BatchResult(store.path, len(records), len(items) * samples,
                         sum(r["error"] is not None for r in records), timed.usage)
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
        config = store.info()["config"]
        for name in RESUMED:
            setattr(args, name, config[name])
    elif args.model is None or args.prompts is None:
        raise UserError("batch needs MODEL and PROMPTS, or --resume RUN_FOLDER")
    result = asyncio.run(batch(args.model, Path(args.prompts), params_from(args),
                               samples=args.samples, base_url=args.base_url,
                               settings=settings_from(args), resume=store))
    return finish(args, result, lambda r: print_json(r.to_dict()))
