"""`certify` and `audit` through the Python API against each family's stub (issue 47): the
oracle's answers from the stub, every call answered (no failed call, no error), each refusal
the family must teach met once per run and no other (the stub counts them), every paid call
one answered request, and the run's usage notes what was changed, never a fixed temperature
where one was sent.

certify: arithmetic/small, 8 questions, PG 0.5, RID 0.4: 8 right answers give the score's
lower bound L = 0.05^(1/8) = 0.69 >= 0.5 and the ridiculous rate's upper bound
U(0) = 1 - 0.025^(1/8) = 0.37 <= 0.4, so "understands". audit: game-theory/pure-nash, first
look 8, at most 16 questions, with its definition and incoherence steps (one model object for
the whole audit, so a refusal is met once in it too).
"""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from family_rows import CASES, Row

import verstehen as vs
from verstehen.methods.certification.scopes import get_scope
from verstehen.methods.certification.scopes.draw import question_at
from verstehen.testing.oracle import AnswerBook
from verstehen.testing.oracle.models import Responder
from verstehen.testing.stub_endpoints import StubEndpoints
from verstehen.testing.stub_families import FamilyStub

HAS_LITELLM = importlib.util.find_spec("litellm") is not None
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly. qualifier:UserWarning")
CERTIFY_SCOPE, AUDIT_SUBJECT = "arithmetic/small", "game-theory/pure-nash"


def oracle_book() -> AnswerBook:
    """The questions both runs ask (seed 0, canonical phrasing)."""
    book = AnswerBook()
    for name, count in ((CERTIFY_SCOPE, 8), (AUDIT_SUBJECT, 16)):
        scope = get_scope(name)
        for i in range(count):
            book.add(scope, question_at(scope, 0, i))
    return book


def answered(server: StubEndpoints, stub: FamilyStub) -> list[dict[str, Any]]:
    """The request bodies the stub answered (those it does not refuse)."""
    return [b for b in server.bodies[0] if "messages" in b and stub.refusal(b) is None]


def check_run(result: Any, row: Row, stub: FamilyStub, refused_before: Counter[str],
              answered_before: int, bodies: list[dict[str, Any]]) -> None:
    """No failed call, each expected refusal once in this run and no other, each paid call
    one answered request, no note of a fixed temperature where one was sent, and the notes
    kept in the run's summary.json."""
    assert result.failed_calls == 0
    usage = result.usage[row.model]
    assert usage.errors == 0
    assert stub.refused - refused_before == Counter(row.refusals)
    assert usage.calls - usage.cache_hits == stub.answered - answered_before
    if any("temperature" in b for b in bodies):
        assert not any("fixed at 1" in note for note in usage.notes)
    assert len(usage.notes) >= len(row.refusals)
    # what was changed is kept with the run (its summary.json's usage)
    kept = json.loads((result.run_dir / "summary.json").read_text())["usage"][row.model]
    assert tuple(kept["notes"]) == usage.notes
    # and in run.json, as soon as the calls end (an audit: in its lens folders' run.json)
    recorded = [note for path in (result.run_dir, *result.run_dir.rglob("*"))
                if (path / "run.json").is_file()
                for note in json.loads((path / "run.json").read_text())
                .get("model_notes", {}).get(row.model, [])]
    assert set(usage.notes) <= set(recorded)


@pytest.mark.parametrize(("name", "row"), CASES, ids=[name for name, _ in CASES])
def test_certify_and_audit_each_family(tmp_path: Path, name: str, row: Row) -> None:
    """certify, then audit (each its own session and cache), on the family's stub."""
    if row.model.startswith("litellm/") and not HAS_LITELLM:
        pytest.skip("the litellm extra is not installed")
    stub = row.stub(Responder(oracle_book()).reply)
    with StubEndpoints(1, route=stub) as server:
        where: dict[str, Any] = {"base_url": row.url(server.ports[0]),
                                 "reasoning_budget": row.budget,
                                 "runs_dir": tmp_path / "runs"}
        certified = vs.certify(row.model, CERTIFY_SCOPE, questions=8, rephrase=0, pg=0.5,
                               rid=0.4, cache=tmp_path / "certify.sqlite", **where)
        check_run(certified, row, stub, Counter(), 0, answered(server, stub))
        assert certified.verdict is not None
        assert certified.verdict.decision is vs.Decision.UNDERSTANDS
        before, done = Counter(stub.refused), stub.answered
        audited = vs.audit(row.model, subjects=AUDIT_SUBJECT, max_questions=16, first_look=8,
                           pg=0.5, rid=0.4, cache=tmp_path / "audit.sqlite", **where)
        check_run(audited, row, stub, before, done, answered(server, stub))
    (line,) = audited.targets
    assert line.decision is vs.Decision.UNDERSTANDS


def certified(family: str, tmp_path: Path) -> tuple[Row, Any, list[dict[str, Any]]]:
    """The family's row, a certify of 8 questions against its stub behind a URL, and the
    bodies of the requests it answered."""
    (row,) = [case for name, case in CASES if name == family]
    stub = row.stub(Responder(oracle_book()).reply)
    with StubEndpoints(1, route=stub) as server:
        result = vs.certify(row.model, CERTIFY_SCOPE, questions=8, rephrase=0, pg=0.5, rid=0.4,
                            base_url=row.url(server.ports[0]), runs_dir=tmp_path / "runs",
                            cache=tmp_path / "c.sqlite")
        return row, result, answered(server, stub)


def test_gpt_5_1_is_asked_at_the_temperature_given(tmp_path: Path) -> None:
    """gpt-5.1 behind a URL: every answered request of certify carries temperature 0 (certify
    is greedy), and nothing in the run says a temperature was fixed."""
    row, result, bodies = certified("gpt-5.1 and later", tmp_path)
    assert len(bodies) == 8 and all(b["temperature"] == 0.0 for b in bodies)
    notes = result.usage[row.model].notes
    assert notes and not any("fixed" in note for note in notes)
    assert any("its temperature is sent as asked" in note for note in notes)


def test_an_o_series_run_says_its_temperature_is_fixed(tmp_path: Path) -> None:
    """o3 behind a URL: no answered request carries a temperature, and the run's notes say
    it is fixed at 1."""
    row, result, bodies = certified("o3, o4-mini, gpt-5", tmp_path)
    assert len(bodies) == 8 and not any("temperature" in b for b in bodies)
    assert any("fixed at 1" in note for note in result.usage[row.model].notes)
