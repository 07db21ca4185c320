"""The embedded model's threads: fixed by flag or variable, else the cores others leave free."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import llama_cpp.llama_cpp as low
import pytest

from verstehen.engine.session import RunSettings, Session
from verstehen.errors import UserError
from verstehen.models import GenerateParams, user
from verstehen.models.threads import ENV_VARIABLE, ThreadPolicy, cores_available


def test_a_fixed_count_wins(monkeypatch):
    """The argument beats the variable; the variable beats adapting; nonsense is refused."""
    monkeypatch.setenv(ENV_VARIABLE, "3")
    assert ThreadPolicy(1).choose() == 1
    assert ThreadPolicy().choose() == 3
    for bad in ("0", "-1", "two", "1.5"):
        monkeypatch.setenv(ENV_VARIABLE, bad)
        with pytest.raises(UserError, match=ENV_VARIABLE):
            ThreadPolicy()
    with pytest.raises(UserError):
        ThreadPolicy(0)


def test_a_busy_process_takes_a_core(monkeypatch):
    """With one CPU-bound process beside it, the policy sees about a core taken by others
    and runs on one core fewer (never fewer than one)."""
    monkeypatch.delenv(ENV_VARIABLE, raising=False)
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)  # let it start
        policy = ThreadPolicy()
        time.sleep(1.0)
        others = policy.others_busy()
        time.sleep(1.0)
        chosen = policy.choose()
    finally:
        busy.kill()
        busy.wait()
    assert others is not None and others >= 0.6
    assert 1 <= chosen <= max(1, cores_available() - 1)


def test_the_session_hands_the_count_to_local_models(tmp_path):
    """RunSettings.threads reaches a local model the session opens (no load needed)."""
    session = Session.start(RunSettings(threads=1, cache=tmp_path / "c.sqlite"))
    try:
        model = session.open_model("local/smollm2-135m")
        assert model.threads.fixed == 1
    finally:
        asyncio.run(session.close())


@pytest.mark.slow
def test_the_model_runs_on_the_chosen_count(tmp_path):
    """A generation and a likelihood run on the threads asked for."""
    session = Session.start(RunSettings(threads=1, cache=tmp_path / "c.sqlite"))

    async def main():
        model = session.open_model("local/smollm2-135m")
        await session.runner.generate(model, user("Hi"), GenerateParams(max_tokens=2))
        await session.runner.logprobs(model, "The sky is", [" blue"])
        return model

    try:
        model = asyncio.run(main())
        assert low.llama_n_threads(model._generator._ctx.ctx) == 1  # the batched replies
        assert low.llama_n_threads(model._scorer._ctx.ctx) == 1
    finally:
        asyncio.run(session.close())
