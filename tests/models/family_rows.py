"""The rows of the README's table of model families (under **Reasoning models**), each with the
stub that stands for it (`verstehen.testing.reasoning_stubs`), a model verstehen opens on it,
and the refusals a run of that model meets on it: one per parameter a run must learn, none
for what verstehen knows or never sends.

The expected refusals are worked out from the rules, not read from the code: a server's first
400 naming a parameter of a known family's name makes the model take the whole family's
parameters (so an o-series name behind a URL is refused `max_tokens` once and nothing else);
Anthropic's models learn each refusal (a Claude Opus 4.7 without a budget is refused
`temperature` once, with a budget `thinking.type: enabled` once, since no temperature is sent
with thinking on).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from verstehen.testing import reasoning_stubs as stubs
from verstehen.testing.stub_families import Answer, FamilyStub

README = Path(__file__).resolve().parents[2] / "README.md"


@dataclass(frozen=True)
class Row:
    """One family: the model to open (`provider/name`), its stub, the reasoning budget a run
    gives it, and the refusals one run of it meets, by parameter."""

    model: str
    stub: Callable[[Answer], FamilyStub]
    budget: int | None = None
    refusals: dict[str, int] = field(default_factory=dict)

    def url(self, port: int) -> str:
        """The base URL of the stub as this model's provider takes it."""
        anthropic = self.model.startswith(("anthropic/", "litellm/anthropic/"))
        return f"http://127.0.0.1:{port}" + ("" if anthropic else "/v1")


# (the README row, a case of it); a row may have several cases (with and without a budget)
FAMILIES: list[tuple[str, Row]] = [
    ("OpenAI chat models", Row("openai/gpt-4o", lambda a: stubs.chat_model(a))),
    ("o1", Row("openai/o1", lambda a: stubs.o_series(answer=a, refuses_stop=False),
               refusals={"max_tokens": 1})),
    ("o3, o4-mini, gpt-5", Row("openai/o3", lambda a: stubs.o_series(answer=a),
                               refusals={"max_tokens": 1})),
    ("o1-mini, o1-preview", Row("openai/o1-mini", lambda a: stubs.o_series(
        answer=a, refuses_stop=False, refuses_system=True), refusals={"max_tokens": 1})),
    ("gpt-5.1 and later", Row("openai/gpt-5.1", lambda a: stubs.gpt_5_1(answer=a),
                              refusals={"max_tokens": 1})),
    ("vLLM, SGLang with a reasoning parser", Row(
        "openai/Qwen3-8B", lambda a: stubs.reasoning_parser(answer=a), budget=200)),
    ("Claude up to 4.6", Row("anthropic/claude-sonnet-4-5",
                             lambda a: stubs.anthropic_thinking(answer=a), budget=2048)),
    ("Claude Opus 4.7 and later", Row("anthropic/claude-opus-4-7",
                                      lambda a: stubs.anthropic_adaptive(answer=a),
                                      refusals={"temperature": 1})),
    ("Claude Opus 4.7 and later", Row("anthropic/claude-opus-4-7",
                                      lambda a: stubs.anthropic_adaptive(answer=a),
                                      budget=2048, refusals={"thinking": 1})),
    # a name LiteLLM does not know (it drops claude-opus-4-7's temperature by itself)
    ("LiteLLM", Row("litellm/anthropic/claude-next",
                    lambda a: stubs.anthropic_adaptive(answer=a), refusals={"temperature": 1})),
]
CASES = [(f"{row}{'' if case.budget is None else f' budget {case.budget}'}", case)
         for row, case in FAMILIES]


def readme_families() -> list[str]:
    """The first column of the README's table of families, in order."""
    text = README.read_text(encoding="utf-8")
    start = text.index("| family |")
    rows = text[start:].split("\n\n", 1)[0].splitlines()[2:]
    return [re.sub(r"[*`]", "", row.split("|")[1]).strip() for row in rows]
