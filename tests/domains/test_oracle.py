"""The oracle and the adversary: for every scope `verstehen scopes` lists and every reply style,
with and without reasoning first, the oracle is graded 1 and the adversary 0 "wrong" (read, and
found wrong); the in-process models and the stub-endpoint route answer the same way."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from verstehen.domains.base import TASK_KINDS
from verstehen.domains.game_theory.parse import parse_games
from verstehen.methods.certification.scopes import get_scope, scope_names
from verstehen.methods.certification.scopes.parse_numbers import parse_number
from verstehen.models.base import GenerateParams, Model, user
from verstehen.models.openai_api import OpenAIModel
from verstehen.scopes.base import Question, Scope
from verstehen.testing.oracle import (
    STYLES,
    AdversaryModel,
    AnswerBook,
    OracleModel,
    adversary_reply,
    cut,
    oracle_reply,
    oracle_route,
)
from verstehen.testing.oracle.models import Cut
from verstehen.testing.stub_endpoints import StubEndpoints

PER_CONCEPT_TASK = 16  # questions per concept and task (classify draws both answers)
PER_OTHER_SCOPE = 60
REASONING = 600


def scope_specs(mcq: Path) -> list[str]:
    """Every listed scope, each concept once per task, the mcq form with the test's file."""
    specs = []
    for name in scope_names():
        if name.startswith("mcq:"):
            specs.append(f"mcq:{mcq}")
        elif name.startswith(("game-theory/", "poetry/")):
            specs += [f"{name}/{kind}" for kind in TASK_KINDS]
        else:
            specs.append(name)
    return specs


def questions(spec: str, n: int | None = None) -> tuple[Scope, list[Question]]:
    """A scope and n of its questions (different phrasings included)."""
    scope = get_scope(spec)
    count = n or (PER_CONCEPT_TASK if spec.count("/") == 2 else PER_OTHER_SCOPE)
    rng = np.random.default_rng(17)
    return scope, [scope.sample(rng) for _ in range(count)]


def test_every_listed_scope_is_covered(mcq_path: Path) -> None:
    specs = scope_specs(mcq_path)
    assert {"arithmetic", "arithmetic/small", f"mcq:{mcq_path}"} <= set(specs)
    assert sum(s.startswith(("game-theory/", "poetry/")) for s in specs) == 15 * 3
    assert len(STYLES) == 16


@pytest.mark.parametrize("spec", scope_specs(Path("MCQ")))
def test_oracle_right_and_adversary_wrong_in_every_style(spec: str, mcq_path: Path) -> None:
    scope, asked = questions(spec.replace("mcq:MCQ", f"mcq:{mcq_path}"))
    for q in asked:
        for style in STYLES:
            for tokens in (0, REASONING):
                right = oracle_reply(scope, q, style, tokens)
                graded = scope.grade(q, right)
                assert graded.score == 1.0, (spec, style, tokens, right, graded)
                wrong = adversary_reply(scope, q, style, tokens)
                graded = scope.grade(q, wrong)
                assert (graded.score, graded.outcome) == (0.0, "wrong"), (
                    spec, style, tokens, wrong, graded)


def _words_before(reply: str, final: str) -> int:
    return len(reply[:reply.rindex(final)].split())


def test_reasoning_is_about_as_long_as_asked_and_holds_distractors() -> None:
    scope, (q, *_) = questions("game-theory/pure-nash/classify", 1)
    reply = oracle_reply(scope, q, "reasoned", REASONING)
    said = "Yes" if q.answer else "No"
    assert 0.9 * REASONING <= _words_before(reply, f"ANSWER: {said}") <= 1.1 * REASONING
    prose = reply[:reply.rindex("ANSWER:")].lower()
    assert re.search(r"\byes\b", prose) and re.search(r"\bno\b", prose)
    assert f"maybe the answer is {'no' if q.answer else 'yes'}" in prose  # tentative, opposite

    scope, (q, *_) = questions("arithmetic/small", 1)
    reply = oracle_reply(scope, q, "bare", REASONING)
    prose = reply.rsplit("\n\n", 1)[0]
    others = {float(x) for x in re.findall(r"\d+(?:\.\d+)?", prose)} - {float(q.answer)}
    assert len(others) >= 3  # intermediate numbers before the final one
    assert parse_number(reply.rsplit("\n\n", 1)[1]) == q.answer

    scope, (q, *_) = questions("game-theory/zero-sum/generate", 1)
    games = parse_games(oracle_reply(scope, q, "table", REASONING))
    assert isinstance(games, list) and len(games) == 2 and games[0] != games[1]  # a draft

    scope, (q, *_) = questions("poetry/haiku/generate", 1)
    reply = oracle_reply(scope, q, "bare", REASONING)
    assert "A first draft line" in reply and len(reply.split()) > REASONING


def test_without_reasoning_a_reply_is_only_the_answer() -> None:
    scope, (q, *_) = questions("arithmetic/small", 1)
    assert oracle_reply(scope, q, "bare", 0) == scope.reference(q)  # type: ignore[attr-defined]
    assert oracle_reply(scope, q, "think", 0).startswith("<think>\n\n</think>")
    scope, (q, *_) = questions("game-theory/symmetric/edit", 1)
    assert "\\begin{pmatrix}" in oracle_reply(scope, q, "latex", 0)
    assert oracle_reply(scope, q, "table", 0).startswith("| |")
    with pytest.raises(ValueError, match="unknown style"):
        oracle_reply(scope, q, "haiku", 0)


def test_cut_stops_at_the_token_cap() -> None:
    assert cut("one two\nthree four", 3) == Cut("one two\nthree", "length", 3)
    assert cut("one two", 2) == cut("one two", None) == Cut("one two", "stop", 2)


def run(coro: Any) -> Any:
    """Run a coroutine to its end."""
    return asyncio.run(coro)


def book_of(specs: list[str]) -> tuple[AnswerBook, list[tuple[Scope, Question]]]:
    book, asked = AnswerBook(), []
    for spec in specs:
        scope, qs = questions(spec, 4)
        for q in qs:
            book.add(scope, q)
            asked.append((scope, q))
    return book, asked


SPECS = ["arithmetic", "game-theory/best-response", "poetry/rhyme", "poetry/haiku"]


def test_models_answer_the_book_cycling_through_the_styles() -> None:
    book, asked = book_of(SPECS)
    assert len(book) == len(asked) == 16

    async def answers(model: OracleModel) -> list[str]:
        params = GenerateParams(max_tokens=2000)
        return [(await model.generate(user(q.prompt), params)).text for _, q in asked]

    oracle, adversary = OracleModel(book), AdversaryModel(book)
    assert isinstance(oracle, Model) and isinstance(adversary, Model)
    for (scope, q), right, wrong in zip(asked, run(answers(oracle)), run(answers(adversary)),
                                        strict=True):
        assert scope.grade(q, right).score == 1.0
        assert scope.grade(q, wrong).outcome == "wrong"
    assert set(oracle.responder._styles.values()) == set(STYLES)  # 16 prompts, 16 styles
    again = run(oracle.generate(user(asked[0][1].prompt), GenerateParams(max_tokens=2000)))
    assert again.text == run(answers(oracle))[0]  # a prompt keeps its style
    unknown = run(oracle.generate(user("What is love?"), GenerateParams()))
    assert unknown.text == "I don't know." and unknown.finish_reason == "stop"
    assert oracle.identity()["provider"] == "oracle" and adversary.name == "oracle/adversary"


def test_a_model_with_reasoning_is_cut_at_the_cap() -> None:
    book, asked = book_of(["game-theory/pure-nash/classify"])
    model = OracleModel(book, style="reasoned", reasoning_tokens=REASONING)
    got = run(model.generate(user(asked[0][1].prompt), GenerateParams(max_tokens=24)))
    assert got.finish_reason == "length" and len(got.text.split()) == 24
    assert got.usage.completion_tokens == 24


@pytest.mark.parametrize("adversary", [False, True])
def test_the_route_answers_chat_completions_like_the_models(adversary: bool) -> None:
    book, asked = book_of(SPECS)
    route = oracle_route(book, adversary, reasoning_tokens=REASONING)

    async def ask(urls: list[str], cap: int) -> list[Any]:
        model = OpenAIModel("oracle", base_url=urls, timeout=10)
        try:
            return [await model.generate(user(q.prompt), GenerateParams(max_tokens=cap))
                    for _, q in asked]
        finally:
            await model.aclose()

    with StubEndpoints(1, route=route) as stubs:
        whole = run(ask(stubs.urls, 4000))
        short = run(ask(stubs.urls, 50))
    for (scope, q), reply in zip(asked, whole, strict=True):
        graded = scope.grade(q, reply.text)
        assert reply.finish_reason == "stop"
        assert (graded.outcome == "wrong") if adversary else graded.score == 1.0
    assert all(r.finish_reason == "length" and len(r.text.split()) == 50 for r in short)
