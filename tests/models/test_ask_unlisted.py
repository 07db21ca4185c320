"""`verstehen ask openai/other --base-url URL` on a server that lists only m (issue 30 item 10)."""

from __future__ import annotations

from verstehen.testing.stub_endpoints import StubEndpoints

from conftest import Cli

WARNED = "it may answer with another model"


def test_ask_warns_once_when_the_server_does_not_list_the_model(cli: Cli) -> None:
    """The answer comes (never an error), with one line on stderr naming what the server
    lists; none for the model it lists."""
    with StubEndpoints(1, models=["m"]) as stub:
        other = cli(["ask", "openai/other", "Hi", "--base-url", stub.urls[0]])
        listed = cli(["ask", "openai/m", "Hi", "--base-url", stub.urls[0]])
    assert other.returncode == 0 and "echo: Hi" in other.stdout
    assert [line for line in other.stderr.splitlines() if WARNED in line] == [
        f"verstehen: {stub.urls[0]} lists m but not other; {WARNED}"]
    assert listed.returncode == 0 and WARNED not in listed.stderr
