"""A server whose /v1/models does not list the model asked for (issue 30 item 10): one line on
stderr per (model, server), where the provider reads the list (the server kind's probe, and
`check_listed`); nothing when the model is listed, the list is empty or cannot be read; never
an error. Real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import asyncio

import pytest

from verstehen.errors import UnsupportedCapability
from verstehen.models.openai_api import OpenAIModel
from verstehen.models.servers import unlisted_warning
from verstehen.testing.stub_endpoints import StubEndpoints


def warnings(err: str) -> list[str]:
    """The unlisted-model lines of a stderr text."""
    return [line for line in err.splitlines() if "it may answer with another model" in line]


def test_check_listed_warns_once_for_a_model_the_server_does_not_list(capsys):
    with StubEndpoints(1, models=["m"]) as stub:
        other = OpenAIModel("other", base_url=stub.urls[0])
        other.check_listed()
        other.check_listed()  # the same (model, server): said once
        OpenAIModel("other", base_url=stub.urls[0]).check_listed()
        OpenAIModel("m", base_url=stub.urls[0]).check_listed()
        asked = stub.bodies[0]
    assert warnings(capsys.readouterr().err) == [
        f"verstehen: {stub.urls[0]} lists m but not other; it may answer with another model"]
    assert len(asked) == 4  # one GET /v1/models a check: nothing else was sent


@pytest.mark.parametrize("models", [[], None], ids=["empty list", "no /v1/models"])
def test_no_warning_when_the_list_is_empty_or_cannot_be_read(capsys, models):
    with StubEndpoints(1, models=models) as stub:
        OpenAIModel("other", base_url=stub.urls[0]).check_listed()
    assert warnings(capsys.readouterr().err) == []


def test_no_warning_when_the_server_is_gone(capsys):
    """A server that cannot be reached is said elsewhere (or its calls fail): not here."""
    with StubEndpoints(1, models=["m"]) as stub:
        url = stub.urls[0]
    OpenAIModel("other", base_url=url).check_listed(timeout=1.0)
    assert warnings(capsys.readouterr().err) == []


def test_the_server_kinds_probe_warns_from_the_list_it_reads(capsys):
    """A likelihood call asks /v1/models for the server kind: that reply is the list, so the
    line comes with no request of its own. (The stub has no /completions: the call is
    refused as before.)"""
    async def score(model: OpenAIModel) -> None:
        try:
            await model.logprobs("Hello", [" world"])
        finally:
            await model.aclose()

    with StubEndpoints(1, models=["m", "n"]) as stub:
        with pytest.raises(UnsupportedCapability):
            asyncio.run(score(OpenAIModel("other", base_url=stub.urls[0])))
        gets = [b for b in stub.bodies[0] if not b]
    assert warnings(capsys.readouterr().err) == [
        f"verstehen: {stub.urls[0]} lists m, n but not other; it may answer with another model"]
    assert len(gets) == 1


def test_the_line_is_one_line_whatever_the_server_lists():
    """Control characters and newlines escaped, long lists cut after five names; Ollama's
    "name:latest" counts as "name" (Ollama answers the bare name with it)."""
    many = [f"model-{i}" for i in range(8)]
    line = unlisted_warning("http://h/v1", "x", many)
    assert line == ("http://h/v1 lists model-0, model-1, model-2, model-3, model-4 and 3 more "
                    "but not x; it may answer with another model")
    evil = unlisted_warning("http://h/v1", "x", ["a\nb", "c\x1b[2Jd"])
    assert evil is not None and "\n" not in evil and "\x1b" not in evil
    assert "a\\nb" in evil and "c\\x1b[2Jd" in evil
    assert unlisted_warning("http://h/v1", "llama3", ["llama3:latest"]) is None
    assert unlisted_warning("http://h/v1", "x", [None, 3, ""]) is None  # no usable name
