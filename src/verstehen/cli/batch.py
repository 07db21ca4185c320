"""Answer every prompt of a file with one model, into a resumable run folder."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verstehen.engine.runner import Runner
from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.models.base import GenerateParams, Message, Model, user


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


async def run_batch(
    runner: Runner,
    model: Model,
    items: list[PromptItem],
    store: RunStore,
    params: GenerateParams,
    samples: int = 1,
) -> dict[str, Any]:
    """Answer each (prompt, sample) the run lacks, retrying failed ones; return the summary."""
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
    records = list(store.records())
    summary = {
        "records": len(records),
        "expected": len(items) * samples,
        "errors": sum(r["error"] is not None for r in records),
        "usage": runner.usage_summary(),
    }
    store.write_summary(summary)
    return summary
