"""CertifyOptions from the CLI's flags and from Python's keywords are one thing; answer records
read back keep their line in records.jsonl."""

from __future__ import annotations

from typing import Any

import pytest

from verstehen.cli.main import build_parser
from verstehen.cli.options import options_from
from verstehen.errors import UserError
from verstehen.methods.certification.options import CertifyOptions
from verstehen.methods.certification.records import read_answers
from verstehen.models import DEFAULT_MODEL


def test_flags_and_keywords_give_the_same_parameters() -> None:
    """The flags typed and the keywords given name the same values; the criterion's defaults
    stay None (the default criterion, or a resumed run's own), on both faces."""
    args = build_parser().parse_args(["certify", "--scope", "arithmetic/small", "--questions",
                                      "7", "--pg", "0.7", "--rephrase", "0", "--seed", "3"])
    typed = options_from(CertifyOptions, args, model=DEFAULT_MODEL)
    given = CertifyOptions(DEFAULT_MODEL, "arithmetic/small", questions=7, pg=0.7, rephrase=0,
                           seed=3)
    assert typed.values() == given.values()
    assert (given.rid, given.delta, given.first_look, given.program_questions) == (
        None, None, 16, 2000)


def test_python_refuses_what_the_flags_refuse() -> None:
    """A count of 0 questions is refused from Python as from the CLI (it once ran the default
    budget silently)."""
    with pytest.raises(UserError, match="questions must be at least 1, not 0"):
        CertifyOptions("openai/m", "arithmetic", questions=0)


def answer(kind: str, index: int) -> dict[str, Any]:
    """An answer record of the keys a run writes (values beside the point here)."""
    return {"kind": kind, "scope": "arithmetic", "model": "m", "index": index,
            "question_id": f"q{index}", "family": "+", "phrasing": 0, "prompt": "1 + 1 =",
            "expected": 2.0, "text": "2", "parsed": 2.0, "outcome": "correct", "score": 1.0,
            "reason": None, "truncated": False, "cached": False, "error": None}


def test_read_answers_keep_their_lines_and_skip_other_kinds() -> None:
    """Lines 0 and 2 are answers, line 1 a program: the answers come back numbered 0 and 2."""
    lines = [answer("answer", 0), {"kind": "explanation", "scope": "arithmetic"},
             answer("rephrase", 0)]
    read = list(read_answers(lines))
    assert [(r["kind"], r["_line"]) for r in read] == [("answer", 0), ("rephrase", 2)]
    assert "_line" not in lines[0]  # the records given are left as they were
