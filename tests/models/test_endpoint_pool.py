"""One model, several endpoints: routing, limits, down-marking, identity, usage, flags."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from verstehen.engine.cache import Cache
from verstehen.engine.runner import RetryPolicy, Runner
from verstehen.engine.usage import ModelUsage
from verstehen.errors import CallFailed, TransientError, UserError
from verstehen.models import get_model, user
from verstehen.models.base import EndpointUsage
from verstehen.models.endpoints import EndpointPool, read_url_list
from verstehen.models.openai_api import OpenAIModel
from verstehen.results import from_jsonable, to_jsonable
from verstehen.testing.stub_endpoints import StubEndpoints

from conftest import Cli, cli_error


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def pool_of(n: int, limit: int = 2, clock: Clock | None = None) -> EndpointPool[str]:
    """A pool of endpoints whose clients are their names."""
    return EndpointPool([(f"http://e{i}/v1", f"e{i}") for i in range(n)], limit,
                        clock=clock or Clock())


def hold_calls(pool: EndpointPool[str], n: int) -> tuple[list[str], int]:
    """Start n calls that hold their endpoint; where they went, and how many got one."""
    async def main() -> tuple[list[str], int]:
        release, where = asyncio.Event(), []

        async def hold(endpoint) -> str:
            where.append(endpoint.client)
            await release.wait()
            return endpoint.client

        held = [asyncio.create_task(pool.call(hold)) for _ in range(n)]
        await asyncio.sleep(0.01)
        seen = list(where)
        release.set()
        await asyncio.gather(*held)
        return seen, len(seen)

    return asyncio.run(main())


def test_calls_go_to_the_least_outstanding_endpoint_under_its_limit() -> None:
    """Held calls fill every endpoint to its limit, evenly, and the next one waits; far below
    the limit they still spread (the fewest outstanding wins, not the first free)."""
    pool = pool_of(3, limit=2)
    seen, started = hold_calls(pool, 7)
    assert sorted(seen) == ["e0", "e0", "e1", "e1", "e2", "e2"] and started == 6
    assert [u.peak_outstanding for u in pool.usage()] == [2, 2, 2]
    assert sum(u.calls for u in pool.usage()) == 7  # the seventh ran once a slot was free
    pool = pool_of(3, limit=10)
    hold_calls(pool, 7)
    assert sorted(u.peak_outstanding for u in pool.usage()) == [2, 2, 3]


def test_a_failing_endpoint_goes_down_and_its_calls_move() -> None:
    """Three transient failures in a row send an endpoint down for the cool-down, which doubles
    when it fails again on its return; meanwhile every call lands elsewhere at once."""
    clock = Clock()
    pool = pool_of(2, limit=4, clock=clock)
    broken = {"e0"}

    async def answer(endpoint) -> str:
        if endpoint.client in broken:
            raise TransientError("connection refused")
        return endpoint.client

    async def calls(n: int) -> list[str]:
        return [await pool.call(answer) for _ in range(n)]

    assert asyncio.run(calls(10)) == ["e1"] * 10
    e0 = pool.usage()[0]
    assert (e0.errors, e0.downs) == (3, 1)  # down after the third; no call went there since
    clock.now += 31  # back after 30 s, fails at once: down again, now for 60 s
    assert asyncio.run(calls(3)) == ["e1"] * 3
    assert (pool.usage()[0].errors, pool.usage()[0].downs) == (4, 2)
    clock.now += 31
    assert asyncio.run(calls(2)) == ["e1"] * 2 and pool.usage()[0].errors == 4
    broken.clear()
    clock.now += 30
    assert set(asyncio.run(calls(4))) == {"e0", "e1"}  # healed: it takes calls again


def test_every_endpoint_down_is_a_transient_error_with_a_wait() -> None:
    """With no endpoint left the call raises TransientError saying when one comes back."""
    clock = Clock()
    pool = pool_of(2, clock=clock)

    async def refuse(endpoint) -> str:
        raise TransientError("HTTP 503")

    async def attempt() -> None:
        await pool.call(refuse)

    for _ in range(3):  # each call tries both, so both go down on the third
        with pytest.raises(TransientError, match="503"):
            asyncio.run(attempt())
    clock.now += 10
    with pytest.raises(TransientError, match="every endpoint is down") as caught:
        asyncio.run(attempt())
    assert caught.value.retry_after == pytest.approx(20.0)


def test_other_errors_pass_through_without_moving() -> None:
    """A CallFailed is the call's, not the endpoint's: raised at once, the endpoint stays up."""
    pool = pool_of(2)

    async def reject(endpoint) -> str:
        raise CallFailed("HTTP 400: bad request")

    for _ in range(5):
        with pytest.raises(CallFailed):
            asyncio.run(pool.call(reject))
    assert sum(u.calls for u in pool.usage()) == 5 and all(u.downs == 0 for u in pool.usage())


def spread(urls: list[str], calls: int, path: Path) -> ModelUsage:
    """The runner's usage of one model on `urls` (4 calls at most on each) after `calls`."""
    async def main() -> ModelUsage:
        model = get_model("openai/stub", base_url=urls, endpoint_limit=4)
        runner = Runner(Cache(path), max_connections=4)
        results = await asyncio.gather(*(runner.generate(model, user(f"q {i}"))
                                         for i in range(calls)))
        await model.aclose()
        assert all(r.ok for r in results)
        runner.count_endpoints()  # as a session does when it reads the usage
        return runner.usage[model.name]

    return asyncio.run(main())


@pytest.mark.parametrize("delay", [0.0, 0.02])
def test_runner_keeps_every_endpoint_full(tmp_path: Path, delay: float) -> None:
    """Through the runner, 4 endpoints with a limit of 4 each hold 4 calls at once each, never
    more, and share the calls about evenly; instant stubs too (the runner's side), slower ones
    seen by the servers themselves."""
    with StubEndpoints(4, delay=delay) as stubs:
        usage = spread(stubs.urls, 240, tmp_path / "c.sqlite")
        served = [stubs.chats(i) for i in range(4)]
        peaks = list(stubs.peak)
    assert sum(served) == 240 and min(served) >= 50
    assert [e.calls for e in usage.endpoints] == served
    assert [e.peak_outstanding for e in usage.endpoints] == [4, 4, 4, 4]
    assert max(peaks) <= 4 and (delay == 0 or peaks == [4, 4, 4, 4])


def test_identity_is_the_sorted_set_and_one_url_is_unchanged() -> None:
    """The key names every replica, in sorted order; a single URL keeps today's identity."""
    a, b = "http://10.0.0.2:8000/v1", "http://10.0.0.1:8000/v1"
    one = OpenAIModel("m", base_url=[b, a]).identity()
    other = OpenAIModel("m", base_url=(a, b)).identity()
    assert one == other == {"provider": "openai", "model": "m",
                            "base_url": "http://10.0.0.1:8000/v1 http://10.0.0.2:8000/v1"}
    single = OpenAIModel("m", base_url=a)
    assert single.identity() == {"provider": "openai", "model": "m", "base_url": a}
    assert single.endpoint_usage() == () and single.max_connections == 8
    pooled = OpenAIModel("m", base_url=[a, b], endpoint_limit=3)
    assert pooled.max_connections == 6 and pooled.endpoint_count == 2
    with pytest.raises(UserError, match="listed twice"):
        OpenAIModel("m", base_url=[a, a])


def test_usage_since_and_absorb_count_per_endpoint() -> None:
    """A run's endpoint counts are those added in it; a job adds its runs' counts; the JSON form
    reads back typed."""
    before = ModelUsage(calls=2, endpoints=(EndpointUsage("http://a", 2, 1, 2, 0),))
    after = ModelUsage(calls=7, endpoints=(EndpointUsage("http://a", 5, 1, 3, 1),
                                           EndpointUsage("http://b", 4, 0, 2, 0)))
    run = after.since(before)
    assert run.calls == 5
    assert run.endpoints == (EndpointUsage("http://a", 3, 0, 3, 1),
                             EndpointUsage("http://b", 4, 0, 2, 0))
    job = ModelUsage()
    job.absorb(run)
    job.absorb(run)
    assert job.endpoints[0] == EndpointUsage("http://a", 6, 0, 3, 2) and job.calls == 10
    data = json.loads(json.dumps(to_jsonable({"m": job})))
    assert from_jsonable(dict[str, ModelUsage], data) == {"m": job}
    assert ModelUsage(**data["m"]) == job  # how older readers rebuild it


def test_url_file_and_repeated_flag(cli: Cli, tmp_path: Path) -> None:
    """--base-url repeats or reads @FILE; a URL twice or a bad line is one line naming it."""
    listed = tmp_path / "urls.txt"
    listed.write_text("# replicas\nhttp://127.0.0.1:1/v1\n\nhttp://127.0.0.1:2/v1  # second\n")
    assert read_url_list(listed) == ("http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1")
    (tmp_path / "bad.txt").write_text("http://127.0.0.1:1/v1\nnot a url\n")
    prompts = tmp_path / "p.txt"
    prompts.write_text("hi\n")
    cli_error(cli, ["batch", "openai/m", str(prompts), "--base-url", f"@{tmp_path}/bad.txt"],
              "bad.txt:2")
    cli_error(cli, ["batch", "openai/m", str(prompts), "--base-url", f"@{listed}",
                    "--base-url", "http://127.0.0.1:2/v1"], "listed twice")
    line = cli_error(cli, ["batch", "openai/m", str(prompts), "--base-url", f"@{listed}",
                           "--no-progress"], "none of the 2 base URLs can be reached")
    assert "127.0.0.1:1" in line
    cli_error(cli, ["ask", "anthropic/m", "hi", "--base-url", f"@{listed}"], "openai/")


def test_models_shows_each_endpoint(cli: Cli) -> None:
    """`verstehen models --base-url ...` lists what each replica serves, the identity, and
    warns when they serve different models."""
    async def route(i: int, method: str, path: str, payload: dict):
        if path.endswith("/models"):
            return 200, {"object": "list", "data": [
                {"id": "Qwen/Qwen2.5-7B" if i < 2 else "other", "owned_by": "vllm"}]}
        return None

    with StubEndpoints(4, route=route) as stubs:
        stubs.kill(3)
        args = ["models"] + [a for url in stubs.urls for a in ("--base-url", url)]
        done = cli(args)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any("4 replicas" in line and " ".join(sorted(stubs.urls)) in line for line in lines)
    assert sum("vllm" in line and "Qwen/Qwen2.5-7B" in line for line in lines) == 2
    assert any(stubs.urls[3] in line and "not answering" in line for line in lines)
    assert any("serve different models" in line for line in lines)


def test_down_endpoints_feed_the_runner_retry(tmp_path: Path) -> None:
    """Every replica down: the runner backs off and retries; a replica that comes back (a
    new one on the same port is not needed: the failure was transient) answers."""
    with StubEndpoints(2) as stubs:
        failing = {"count": 0}

        async def flaky(i: int, method: str, path: str, payload: dict):
            failing["count"] += 1
            return (503, {"error": {"message": "busy"}}) if failing["count"] <= 2 else None

        stubs.route = flaky

        async def main():
            model = OpenAIModel("stub", base_url=stubs.urls, timeout=2)
            runner = Runner(Cache(tmp_path / "c.sqlite"),
                            retry=RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.02))
            try:
                return await runner.generate(model, user("hello")), model.endpoint_usage()
            finally:
                await model.aclose()

        result, usage = asyncio.run(main())
    assert result.ok and result.attempts == 2 and result.value.text == "echo: hello"
    assert sum(u.calls for u in usage) == 3 and sum(u.errors for u in usage) == 2
