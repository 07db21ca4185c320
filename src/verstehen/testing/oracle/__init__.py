"""An oracle and an adversary for every scope, for tests and benchmarks.

`oracle_reply(scope, question, style, reasoning_tokens)` is the right answer written in one of
the `STYLES` (the formats capable models use, `styles`), after about `reasoning_tokens` words of
reasoning with distractors (`reasoning`); the scope grades it 1. `adversary_reply` is a
plausible wrong answer in the same style (`near_miss`), which the scope reads and grades 0
"wrong". `AnswerBook`, `OracleModel`, `AdversaryModel` and `oracle_route` (`models`) put them
behind the `Model` interface and a stub OpenAI endpoint.
"""

from __future__ import annotations

from verstehen.testing.oracle.models import (
    AdversaryModel,
    AnswerBook,
    OracleModel,
    cut,
    oracle_route,
)
from verstehen.testing.oracle.replies import adversary_reply, oracle_reply, right_and_wrong
from verstehen.testing.oracle.styles import STYLES

__all__ = ["STYLES", "AdversaryModel", "AnswerBook", "OracleModel", "adversary_reply", "cut",
           "oracle_reply", "oracle_route", "right_and_wrong"]
