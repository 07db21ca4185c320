"""Can a capable model be certified? The oracle and the adversary through the real CLI and a
stub OpenAI-compatible server on 127.0.0.1: the oracle is certified on every target of
`verstehen audit --subject all` with the audit's defaults, the adversary is found not to
understand any; and a reply that reasons for 600 tokens before its answer, on every scope, is
graded by that answer, counted in a real tokenizer's tokens by a stub that stops at the cap
it is sent, as a server does."""

from __future__ import annotations

import json
from pathlib import Path

import llama_cpp
import pytest

from verstehen.auditing.plan import make_plan
from verstehen.methods.certification.scopes import get_scope, scope_names
from verstehen.methods.certification.scopes.draw import question_at
from verstehen.scopes.base import Scope
from verstehen.testing.oracle import AnswerBook, oracle_route
from verstehen.testing.stub_endpoints import StubEndpoints

from conftest import Cli

REASONING = 600  # words of reasoning before the answer: more tokens than that in any tokenizer


class SmolTokens:
    """SmolLM2's own tokenizer (vocabulary only), so the stub counts tokens as a server of
    that model would."""

    def __init__(self, path: Path) -> None:
        self.llm = llama_cpp.Llama(str(path), vocab_only=True, verbose=False)

    def encode(self, text: str) -> list[int]:
        """Token ids, no BOS."""
        return self.llm.tokenize(text.encode(), add_bos=False, special=False)

    def decode(self, ids: list[int]) -> str:
        """The text of token ids."""
        return self.llm.detokenize(ids).decode("utf-8", errors="ignore")


@pytest.fixture(scope="module")
def tokens(smol_path: Path) -> SmolTokens:
    """One tokenizer for the module."""
    return SmolTokens(smol_path)


def book_for(scopes: list[Scope], count: int, seed: int = 0) -> AnswerBook:
    """The questions a run of `count` per scope asks (canonical phrasing), by prompt."""
    book = AnswerBook()
    for scope in scopes:
        for i in range(count):
            book.add(scope, question_at(scope, seed, i))
    return book


def audit_all(cli: Cli, route, tmp: Path) -> dict:
    """`verstehen audit --subject all` with the defaults against one stub endpoint."""
    with StubEndpoints(1, route=route) as stub:
        done = cli(["audit", "--model", "openai/capable", "--base-url", stub.urls[0],
                    "--subject", "all", "--json", "--no-progress", "--runs-dir", str(tmp)])
    assert done.returncode == 0, done.stderr
    assert "budget: up to 512 questions per target" in done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("adversary", [False, True])
def test_the_oracle_understands_every_target_and_the_adversary_none(
        cli: Cli, tmp_path: Path, adversary: bool) -> None:
    plan = make_plan("all")
    scopes = [get_scope(t.scope) for t in plan.targets]
    # the betting test certifies a perfect model at 20 questions (plan.reach; the doubling
    # test took 32), and finds an always wrong one not to understand at the first look, 8
    route = oracle_route(book_for(scopes, 64), adversary)
    summary = audit_all(cli, route, tmp_path)
    lines = summary["targets"]
    assert {line["key"] for line in lines} == {t.key for t in plan.targets}
    assert len(lines) == 13 + 2  # every exact concept, arithmetic/small and arithmetic
    want = "does_not_understand" if adversary else "understands"
    targets = {t.key: t for t in plan.targets}
    for line in lines:
        reach = plan.reach_of(targets[line["key"]])
        asked = reach.does_not_at if adversary else reach.understands_at
        assert line["verdict"]["decision"] == want, line["key"]
        assert line["asked"] == asked == line["verdict"]["n"], line["key"]
        assert line["asked"] < 32 if not adversary else line["asked"] == 8
        assert line["verdict"]["details"]["test"] == "betting"
    certify_run = Path(summary["runs"][0]["certify"])
    answers = [json.loads(x) for x in (certify_run / "records.jsonl").read_text().splitlines()]
    answers = [r for r in answers if r["kind"] == "answer"]
    outcomes = {r["outcome"] for r in answers}
    # the adversary is read and found wrong, never unreadable: a wrong answer, not a format
    assert outcomes == ({"wrong"} if adversary else {"correct"})
    # every concept's first look covered classify, generate and edit
    for line in lines:
        if line["key"].startswith(("game-theory/", "poetry/")):
            families = {r["family"] for r in answers if r["scope"] == line["key"]}
            assert families == {"classify", "generate", "edit"}, line["key"]


def every_scope(mcq: Path) -> list[str]:
    """Every scope `verstehen scopes` lists, with the test's mcq file."""
    return [f"mcq:{mcq}" if name.startswith("mcq:") else name for name in scope_names()]


def certify_each(cli: Cli, specs: list[str], route, tmp: Path, *extra: str) -> list[dict]:
    """The answer records of `verstehen certify --questions 8` on each scope."""
    records = []
    with StubEndpoints(1, route=route) as stub:
        for spec in specs:
            done = cli(["certify", "--model", "openai/capable", "--base-url", stub.urls[0],
                        "--scope", spec, "--questions", "8", "--rephrase", "0", "--pg", "0.6",
                        "--rid", "0.4", "--json", "--no-progress", "--runs-dir", str(tmp),
                        *extra])
            assert done.returncode == 0, done.stderr
            run = Path(json.loads(done.stdout)["run"])
            records += [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]
    assert len(records) == 8 * len(specs)
    return records


@pytest.mark.parametrize("adversary", [False, True])
def test_a_reply_that_reasons_600_tokens_first_is_graded_by_its_answer(
        cli: Cli, tmp_path: Path, mcq_path: Path, tokens: SmolTokens, adversary: bool) -> None:
    specs = every_scope(mcq_path)
    book = book_for([get_scope(s) for s in specs], 8)
    route = oracle_route(book, adversary, reasoning_tokens=REASONING, tokenizer=tokens)
    records = certify_each(cli, specs, route, tmp_path)
    for r in records:
        assert len(tokens.encode(r["text"])) > REASONING  # it did reason at length
        assert not r["truncated"], (r["scope"], r["family"])
        assert r["outcome"] == ("wrong" if adversary else "correct"), (r["scope"], r["reason"])


def test_the_stub_stops_at_the_cap_it_is_sent_and_the_cut_reply_is_truncated(
        cli: Cli, tmp_path: Path, mcq_path: Path, tokens: SmolTokens) -> None:
    """With every budget set to 300 tokens, the 600-token reasoning is cut before its answer:
    each reply is 300 of the tokenizer's tokens, and every one is graded truncated, score 0
    (the reasoning's draft answers, right or not, are never taken for the final one)."""
    specs = every_scope(mcq_path)
    book = book_for([get_scope(s) for s in specs], 8)
    route = oracle_route(book, reasoning_tokens=REASONING, tokenizer=tokens)
    records = certify_each(cli, specs, route, tmp_path, "--max-tokens", "300")
    for r in records:
        assert r["truncated"] and (r["score"], r["outcome"]) == (0.0, "truncated"), r["scope"]
        assert "300-token cap" in r["reason"] and r["parsed"] is None
        assert len(tokens.encode(r["text"])) <= 302  # detokenized and re-encoded: ±2


def test_the_audit_reports_answers_cut_off_at_the_cap(cli: Cli, tmp_path: Path,
                                                      tokens: SmolTokens) -> None:
    """600 tokens of reasoning under a 300-token budget: the answers are cut before they end,
    graded truncated, counted per target and said in one line under the table."""
    scope = get_scope("game-theory/pure-nash")
    route = oracle_route(book_for([scope], 64), reasoning_tokens=REASONING, tokenizer=tokens)
    with StubEndpoints(1, route=route) as stub:
        args = ["audit", "--model", "openai/capable", "--base-url", stub.urls[0], "--subject",
                "game-theory/pure-nash", "--max-tokens", "300", "--no-progress",
                "--runs-dir", str(tmp_path)]
        shown = cli(args)
        summary = json.loads(cli([*args, "--json"]).stdout)
    (line,) = summary["targets"]
    assert line["truncated"] > 0 and line["verdict"]["decision"] == "does_not_understand"
    assert f"{line['truncated']} answers cut off at the token cap" in shown.stdout
    assert "raise --max-tokens" in shown.stdout
