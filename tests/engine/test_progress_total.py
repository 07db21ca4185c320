"""The progress total while it still grows (issue 21, item 11c): a sequential test adds its
looks one by one (16 -> 26 -> 42 -> 52), so until the last is added the total is shown as
provisional ("16/26+") with no ETA; once final, the ETA is the time left at the rate so far."""

from __future__ import annotations

import asyncio
import io
import sys
from itertools import accumulate
from pathlib import Path

import pytest

import verstehen as vs
import verstehen.engine.session as session_module
from verstehen.engine.progress import NullProgress, PlainProgress, make_progress
from verstehen.engine.session import RunSettings, Session
from verstehen.methods.certification.example import calculator
from verstehen.methods.certification.procedure import CertifyPlan
from verstehen.methods.certification.run import build_scopes, certify_scopes
from verstehen.methods.certification.verdict import Criterion
from verstehen.testing.scripted import ScriptedModel


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_growing_total_is_provisional_and_gives_a_lower_bound_eta() -> None:
    clock, out = Clock(), io.StringIO()
    progress = PlainProgress("certify m", stream=out, every=0.0, clock=clock)
    with progress.growing():
        progress.add_total(16)
        for _ in range(16):
            clock.now += 1.0
            progress.advance(cached=False, error=False)
        assert progress.line("certify m") == ("certify m: 16/16+ done, 0 cached, 0 retries, "
                                              "0 errors, no ETA yet (more calls may follow)")
        progress.add_total(10)
        # 16 calls answered in 16 s, 10 known calls left: at least 10 s, a lower bound
        assert progress.line("x").endswith("16/26+ done, 0 cached, 0 retries, 0 errors, "
                                           "ETA ≥ 10s (more calls may follow)")
    progress.add_total(10)  # the last look: nothing follows it
    clock.now += 4.0
    progress.advance(cached=False, error=False)
    # 17 calls in 20 s, 19 left
    assert progress.line("x") == "x: 17/36 done, 0 cached, 0 retries, 0 errors, ETA 22s"
    lines = out.getvalue().splitlines()
    assert lines[0] == "certify m: 1/16+ done, 0 cached, 0 retries, 0 errors, " \
                       "no ETA yet (more calls may follow)"
    assert lines[-1].startswith("certify m: 17/36 done") and lines[-1].endswith("ETA 22s")


def test_nested_growth_ends_with_the_outermost() -> None:
    progress = NullProgress()
    with progress.growing():
        with progress.growing():
            progress.add_total(4)
        assert progress.provisional
        with progress.growing(False):  # a step that adds all it will at once
            assert progress.provisional
    assert not progress.provisional
    progress.retry()
    progress.advance(cached=False, error=True)
    assert "1 retry, 1 error," in progress.line("x")


class Recorder(NullProgress):
    """Counts, and what the total looked like at each addition."""

    def __init__(self) -> None:
        super().__init__()
        self.added: list[tuple[int, bool]] = []

    def add_total(self, n: int) -> None:
        """Record the addition and whether more may follow it."""
        super().add_total(n)
        self.added.append((n, self.provisional))


def _certify(tmp_path: Path, plan: CertifyPlan, scopes: list[str]) -> Recorder:
    settings = RunSettings(runs_dir=tmp_path / "runs", cache=tmp_path / "calls.sqlite")
    session = Session.start(settings)
    recorder = Recorder()
    session.runner.progress = recorder
    # right on about half the questions, ridiculous on the rest
    half = ScriptedModel("scripted/half", reply=lambda p: calculator(p) if len(p) % 2 else "%%")

    async def go() -> None:
        try:
            await certify_scopes(half, build_scopes(scopes), plan, settings=settings,
                                 session=session)
        finally:
            await session.close()

    asyncio.run(go())
    return recorder


def test_a_sequential_certification_says_its_total_is_provisional_until_the_last_look(
        tmp_path: Path) -> None:
    # at PG 0.6 and RID 0.3 a model right on about half the questions is undecided for a
    # while: looks at 8, 16, 32 and 64 questions, each but the last may be followed by more
    undecided = CertifyPlan(Criterion(0.6, 0.3, 0.05), 64, sequential=True, first_look=8,
                            rephrase=0)
    added = _certify(tmp_path, undecided, ["arithmetic/small"]).added
    assert len(added) >= 2 and added[0] == (8, True)
    for (_, provisional), total in zip(added, accumulate(n for n, _ in added), strict=True):
        assert provisional == (total < 64)
    fixed = CertifyPlan(Criterion(0.8, 0.2, 0.05), 20, rephrase=0)
    assert _certify(tmp_path, fixed, ["arithmetic/small"]).added == [(20, False)]
    two = _certify(tmp_path, fixed, ["arithmetic/small", "arithmetic"]).added
    assert two == [(20, True), (20, False)]
    rephrased = CertifyPlan(Criterion(0.8, 0.2, 0.05), 20, rephrase=5)
    assert _certify(tmp_path, rephrased, ["arithmetic/small"]).added == [(20, True), (5, False)]


def test_an_audit_total_is_provisional_until_its_last_lens_adds_its_calls(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder()
    monkeypatch.setattr(session_module, "make_progress", lambda *_, **__: recorder)
    model = ScriptedModel("scripted/yes", reply=lambda p: "ANSWER: Yes")
    vs.audit(model, subjects="game-theory/zero-sum", runs_dir=tmp_path / "runs",
             cache=tmp_path / "calls.sqlite")
    # the lenses start together, each adding its calls as it starts: certification's first
    # look, the definition and the examples (2 calls for each of 2); while the sequential test
    # may ask more, each addition is provisional, and once it has decided nothing is
    assert sorted(recorder.added) == [(1, True), (4, True), (8, True)]
    assert not recorder.provisional


def test_parts_started_together_keep_the_total_provisional_until_each_has_added() -> None:
    """Two procedures run together (an audit's lenses, a certification's scopes): the first
    one's addition is provisional, the second's is final, whichever task runs first."""
    counts = Recorder()

    async def part(mark, number: int, delay: float) -> None:
        mark(number)
        await asyncio.sleep(delay)
        counts.add_total(number + 1)

    async def go() -> None:
        with counts.together(2) as mark:
            await asyncio.gather(part(mark, 0, 0.05), part(mark, 1, 0.0))

    asyncio.run(go())
    assert counts.added == [(2, True), (1, False)]
    with counts.together(2):
        pass  # parts that never add end the wait too
    assert not counts.provisional


def test_the_api_default_shows_progress_in_a_notebook_only(monkeypatch):
    """progress=None (the Python API's default): plain lines inside a Jupyter kernel, where a
    run was silent for its whole length (issue 30), and nothing elsewhere."""
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    assert type(make_progress("run", None)) is NullProgress
    monkeypatch.setitem(sys.modules, "ipykernel", sys)  # any module stands for the kernel
    shown = make_progress("run", None)
    assert type(shown) is not NullProgress  # plain lines, or a live bar on a terminal
    shown.close()
    assert type(make_progress("run", False)) is NullProgress
