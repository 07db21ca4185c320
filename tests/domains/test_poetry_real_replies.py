"""bench/real_poems.py on the real replies of the shared data (skipped when it is absent): every
reply is graded or has the reader's reason, and every disagreement with the authors' label is
explained in the bench's table, which names no row that agrees."""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from conftest import SHARED_DATA, needs_shared

BENCH = Path(__file__).resolve().parents[2] / "bench" / "real_poems.py"
POEMS = SHARED_DATA / "RealReplies" / "poems.jsonl"
pytestmark = needs_shared("RealReplies/poems.jsonl")


@cache
def bench() -> ModuleType:
    """The bench module, loaded from its file (bench/ is no package)."""
    spec = importlib.util.spec_from_file_location("bench_real_poems", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being defined
    spec.loader.exec_module(module)
    return module


def test_every_reply_is_graded_or_says_why_not() -> None:
    rows = bench().poem_rows(POEMS)
    assert len(rows) == 32 and len({r.key for r in rows}) == 32
    for r in rows:
        assert (r.verdict is None) == (r.read is None)
        assert r.why_unread if r.read is None else r.checks


def test_the_explanations_match_the_disagreements() -> None:
    module = bench()
    rows = module.poem_rows(POEMS)
    assert module.stale_explanations(rows) == []
    assert len(dict(module.EXPLAINED)) == len(module.EXPLAINED)
    report = "\n".join(module.poem_lines(rows))
    assert "(not explained)" not in report and "stale" not in report
