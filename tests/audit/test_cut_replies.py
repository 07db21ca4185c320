"""Cut off is cut off: the oracle's and the adversary's replies, cut at every token of a real
tokenizer in every reply style, are never graded right. A reply the server cut at its cap may
still have changed its answer (the adversary's draft style first writes the right answer, then
corrects it), so whatever a cut holds is `truncated`; and a reply that ends inside its
reasoning block is truncated whatever the server said."""

from __future__ import annotations

from pathlib import Path

import llama_cpp
import numpy as np
import pytest

from verstehen.grading import grade_reply
from verstehen.methods.certification.scopes import get_scope
from verstehen.scopes.base import Question, Scope
from verstehen.testing.oracle import STYLES, adversary_reply, oracle_reply

# one scope per kind of answer: yes/no, a matrix (generate and edit), a poem, a blank's fill,
# a word, a number, a choice
SCOPES = ("game-theory/pure-nash/classify", "game-theory/strict-dominance/generate",
          "game-theory/zero-sum/edit", "poetry/haiku/generate", "poetry/anapest/edit",
          "poetry/slant-rhyme/generate", "arithmetic/small", "MCQ")
REASONING = 30  # words of reasoning (with its drafts and distractors) before the answer


@pytest.fixture(scope="module")
def tokenizer(smol_path: Path) -> llama_cpp.Llama:
    """SmolLM2's tokenizer alone (no weights): cuts fall where a real server's would."""
    return llama_cpp.Llama(str(smol_path), vocab_only=True, verbose=False)


def cuts(llm: llama_cpp.Llama, text: str) -> list[str]:
    """The reply cut after each of its tokens but the last."""
    ids = llm.tokenize(text.encode(), add_bos=False, special=False)
    return [llm.detokenize(ids[:k]).decode("utf-8", errors="ignore") for k in range(1, len(ids))]


def one_question(spec: str, mcq: Path) -> tuple[Scope, Question]:
    """The scope and its first question drawn from a fixed seed."""
    scope = get_scope(f"mcq:{mcq}" if spec == "MCQ" else spec)
    return scope, scope.sample(np.random.default_rng(5))


@pytest.mark.parametrize("spec", SCOPES)
def test_no_cut_of_any_reply_is_graded_right(spec: str, mcq_path: Path,
                                             tokenizer: llama_cpp.Llama) -> None:
    scope, question = one_question(spec, mcq_path)
    graded_cuts = 0
    for style in STYLES:
        for write in (oracle_reply, adversary_reply):
            reply = write(scope, question, style, REASONING)
            whole = grade_reply(scope.grade(question, reply), reply, "stop", 1024)
            assert whole.outcome == ("correct" if write is oracle_reply else "wrong"), (
                style, reply, whole)
            for k, text in enumerate(cuts(tokenizer, reply), 1):
                graded = grade_reply(scope.grade(question, text), text, "length", k)
                assert (graded.score, graded.outcome) == (0.0, "truncated"), (style, text)
                assert f"{k}-token cap" in graded.reason
                graded_cuts += 1
    assert graded_cuts > 40 * len(STYLES)  # every style, with its reasoning, cut at every token


@pytest.mark.parametrize("spec", SCOPES)
def test_a_reply_cut_inside_its_reasoning_block_is_truncated_without_a_finish_reason(
        spec: str, mcq_path: Path, tokenizer: llama_cpp.Llama) -> None:
    """Stored replies (a benchmark's, an export's) carry no finish reason: a reply that ends
    inside `<think>` is still known to be cut, and the draft answers in it are not read."""
    scope, question = one_question(spec, mcq_path)
    for write in (oracle_reply, adversary_reply):
        reply = write(scope, question, "think", REASONING)
        inside = reply.index("</think>")
        for text in cuts(tokenizer, reply):
            if text.startswith("<think>") and len(text) <= inside:
                graded = grade_reply(scope.grade(question, text), text, None, None)
                assert (graded.score, graded.outcome) == (0.0, "truncated"), text
