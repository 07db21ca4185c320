"""The method contract: a method declared in its own folder and registered in one line is a
command of `verstehen` that runs, resumes, lists in `verstehen runs` with its headline and
draws in `verstehen report`; unregistered, none of that is there. Every registered run kind
is a command, resumable as declared, and every method is listed at its place in `--help`;
plugins that do not load are left out in one line each."""

from __future__ import annotations

import argparse
import importlib.metadata
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from every_method import each_kind, each_method
from toy_method.method import METHOD as ECHO
from toy_method.run import echo

from verstehen import plugins
from verstehen.cli.resume import RESUMABLE
from verstehen.methods import registry
from verstehen.methods.contract import CommandLine, Method, OwnCommand, RunKind
from verstehen.testing.stub_endpoints import StubEndpoints, prompt_of
from verstehen.testing.stub_server import chat_answer

from conftest import Cli


async def number_varies(i: int, method: str, path: str, payload: dict[str, Any]
                        ) -> tuple[int, dict[str, Any]] | None:
    """Chat replies that depend on the prompt only, except that "Say a number" is answered
    with the call's seed (so its two samples, sent with two seeds, differ)."""
    if not path.endswith("/chat/completions") or "number" not in prompt_of(payload):
        return None
    answer = chat_answer(payload)
    answer["choices"][0]["message"]["content"] = f"seed {payload.get('seed')}"
    return 200, answer


# a plugin's method whose command a built-in method has
CLASHING = Method("certify-again", (RunKind(
    ("certify",), ECHO.kinds[0].result, ECHO.kinds[0].headline),))


def _no_flags(parser: argparse.ArgumentParser, cli: CommandLine) -> None:
    """A command with no flags of its own."""


def _raises(parser: argparse.ArgumentParser, cli: CommandLine) -> None:
    """A plugin's command whose flags cannot be added."""
    parser.add_argument("--x")
    parser.add_argument("--x")


# a plugin's commands: one of its own, then `ask`, which `verstehen` has already
TAKEN = Method("asker", own=(OwnCommand(("mine",), "a command of the plugin's own", _no_flags),
                             OwnCommand(("ask",), "a second `ask`", _no_flags)))
# a plugin whose command raises while its flags are added
FAILING = Method("failing", own=(OwnCommand(("fails",), "it fails", _raises),))


@pytest.fixture
def echo_registered() -> Iterator[None]:
    """Echo consistency known to `verstehen` for one test."""
    registry.register(ECHO)  # the one line that adds the method (a package: an entry point)
    yield
    registry.unregister(ECHO)


@pytest.fixture
def fresh_plugins() -> Iterator[None]:
    """The installed plugins read again (and their lines said again) at the start and at the
    end of a test."""
    plugins.reset()
    yield
    plugins.reset()


def commands(cli: Cli) -> list[str]:
    """The commands `verstehen --help` lists, in order."""
    done = cli(["--help"])
    assert done.returncode == 0, done.stderr
    listing = done.stdout.split("COMMAND\n", 1)[1].split("\noptions:", 1)[0]
    return [line.split()[0] for line in listing.splitlines()
            if line.startswith("    ") and not line.startswith("     ")]


@each_kind()
def test_each_run_kind_is_a_command_that_resumes_as_declared(kind: RunKind[Any],
                                                             cli: Cli) -> None:
    """Its first word is a command of `verstehen --help`, `<words> --help` works, its help
    (when it declares one) is listed, and it takes --resume RUN exactly when resumable."""
    assert kind.words[0] in commands(cli)
    done = cli([*kind.words, "--help"])
    assert done.returncode == 0 and done.stdout.startswith("usage: verstehen " +
                                                           " ".join(kind.words))
    assert (kind.words in RESUMABLE) == kind.resumable
    if kind.resumable:
        assert "--resume RUN" in done.stdout
    if kind.help:  # the help of its group, or of `verstehen`, lists it in its words
        listing = cli([*kind.words[:-1], "--help"]).stdout
        assert " ".join(kind.help.split()) in " ".join(listing.split())


@each_method
def test_each_method_is_listed_at_its_place(method: Method, cli: Cli) -> None:
    """A method's commands stand together in `verstehen --help`, in its declared order, after
    every method of a lower help_place and before every one of a higher."""
    listed = commands(cli)
    mine = list(dict.fromkeys(words[0] for words in method.command_words()))
    assert mine, f"method {method.name} adds no command"
    at = listed.index(mine[0])
    assert listed[at:at + len(mine)] == mine
    for other in registry.methods():
        if other.command_words() and other.help_place != method.help_place:
            there = listed.index(other.command_words()[0][0])
            assert (there < at) == (other.help_place < method.help_place), other.name


def test_a_method_registered_in_one_line_runs_resumes_lists_and_draws(
        echo_registered: None, cli: Cli, tmp_path: Path) -> None:
    assert commands(cli)[-1] == "echo"  # after the built-in ones, which name their places
    flags = cli(["echo", "--help"]).stdout
    # derived from EchoOptions: the run flags, --model, then its own parameters with defaults
    assert "--prompts PROMPTS" in flags and "short prompts (default 3)" in flags
    assert "--resume RUN" in flags and "--model MODEL" in flags
    out_of_range = cli(["echo", "--prompts", "6"])  # its declared range is 1 to 5
    assert out_of_range.returncode == 2 and "--prompts" in out_of_range.stderr
    assert ("echo",) in RESUMABLE
    with StubEndpoints(1, route=number_varies) as stub:
        url = stub.urls[0]
        done = cli(["echo", "--model", "openai/stub", "--base-url", url, "--prompts", "3",
                    "--no-progress", "--json"])
        assert done.returncode == 0, done.stderr
        first = json.loads(done.stdout)
        # 3 prompts asked twice at temperature 1: 6 calls; colour and animal get the same
        # reply both times, the number prompt two seeds: 2 of 3 the same
        assert stub.chats(0) == 6
        assert (first["prompts"], first["identical"], first["share"]) == (3, 2, 2 / 3)
        run = Path(first["run"])
        again = cli(["echo", "--resume", str(run), "--base-url", url, "--json"])
        assert again.returncode == 0, again.stderr
        assert stub.chats(0) == 6  # every call of the resumed run came from the cache
        resumed = json.loads(again.stdout)
        assert resumed["run"] == str(run) and resumed["identical"] == 2
        assert resumed["usage"]["openai/stub"]["cache_hits"] == 6
    listed = cli(["runs", "--json"])
    [line] = json.loads(listed.stdout)["runs"]
    assert (line["command"], line["status"], line["found"]) == (
        "echo", "done", "2 of 3 answered the same twice")
    report = tmp_path / "report.html"
    drawn = cli(["report", str(run), "-o", str(report)])
    assert drawn.returncode == 0, drawn.stderr
    page = report.read_text(encoding="utf-8")
    # no section declared: the result's values as a table, under its headline
    assert "echo: 2 of 3 answered the same twice" in page and "identical" in page


def test_without_the_line_the_method_is_nowhere(cli: Cli, cli_env: dict[str, str],
                                                tmp_path: Path) -> None:
    """An echo run folder made from Python (no registration needed to run the procedure) is
    unknown to every command when the method is not registered."""
    with StubEndpoints(1, route=number_varies) as stub:
        result = echo("openai/stub", prompts=2, base_url=stub.urls[0],
                      runs_dir=cli_env["VERSTEHEN_RUNS_DIR"], cache=cli_env["VERSTEHEN_CACHE"])
    assert result.identical == 1  # "Name a colour." the same twice, the number prompt not
    assert "echo" not in commands(cli) and ("echo",) not in RESUMABLE
    refused = cli(["echo", "--model", "openai/stub"])
    assert refused.returncode == 2 and "invalid choice: 'echo'" in refused.stderr
    resume = cli(["echo", "--resume", str(result.run_dir)])
    assert resume.returncode == 2 and "invalid choice: 'echo'" in resume.stderr
    [line] = json.loads(cli(["runs", "--json"]).stdout)["runs"]
    assert (line["command"], line["status"], line["found"]) == ("echo", "done", "")
    drawn = cli(["report", str(result.run_dir), "-o", str(tmp_path / "report.html")])
    assert drawn.returncode == 2 and "is a 'echo' run, which the report does not draw" in (
        drawn.stderr)


def test_an_installed_plugin_joins_and_a_broken_one_is_one_line(
        fresh_plugins: None, cli: Cli, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Entry points of group verstehen.methods: one naming a Method joins; one that does not
    import, one that names no Method, one whose command a built-in method has and one whose
    subcommand names one `verstehen` has are each left out, said in one line naming the
    plugin, once per process, and the rest of `verstehen` works."""
    points = [importlib.metadata.EntryPoint(name, value, registry.GROUP) for name, value in (
        ("echo", "toy_method.method:METHOD"), ("gone", "no_such_module_anywhere:METHOD"),
        ("text", "toy_method.run:COMMAND"), ("again", "test_method_contract:CLASHING"),
        ("asker", "test_method_contract:TAKEN"), ("failing", "test_method_contract:FAILING"))]
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group: [p for p in points if p.group == group])
    assert [m.name for m in registry.methods()][-3:] == ["echo", "asker", "failing"]
    problems = registry.plugin_problems()
    assert len(problems) == 3
    assert problems[0].startswith("plugin 'gone' (no_such_module_anywhere:METHOD) left out: "
                                  "ModuleNotFoundError")
    assert problems[1] == ("plugin 'text' (toy_method.run:COMMAND) left out: TypeError: "
                           "toy_method.run:COMMAND is a str, not a "
                           "verstehen.methods.contract.Method")
    assert problems[2].startswith("plugin 'again' (test_method_contract:CLASHING) left out: "
                                  "method 'certify-again' makes 'certify' run folders")
    # said when they were read
    assert capsys.readouterr().err.splitlines() == [f"verstehen: warning: {p}" for p in problems]
    done = cli(["--help"])
    assert done.returncode == 0 and "echo" in done.stdout
    # its commands are checked before they are added: `ask` is taken, so "mine" is not added
    # either, and the method is left out of the registry; one whose flags raise is tried on a
    # tree of its own first
    added = ["plugin method 'asker' left out: its commands could not be added (ValueError: "
             "it takes the command 'ask', which verstehen has)",
             "plugin method 'failing' left out: its commands could not be added "
             "(ArgumentError: argument --x: conflicting option string: --x)"]
    assert done.stderr.splitlines() == [f"verstehen: warning: {line}" for line in added]
    assert not {"asker", "failing"} & {m.name for m in registry.methods()}
    assert registry.plugin_problems() == (*problems, *added)
    assert "fails" not in commands(cli)
    assert "mine" not in commands(cli)
    ask = cli(["ask", "--help"])
    assert ask.returncode == 0 and "a second `ask`" not in ask.stdout
    again = cli(["--help"])
    assert again.returncode == 0 and again.stderr == ""  # each line said once per process


def test_a_declaration_is_checked_where_it_is_made() -> None:
    kind = ECHO.kinds[0]
    with pytest.raises(ValueError, match="command words"):
        RunKind(("potemkin-run",), kind.result, kind.headline)
    with pytest.raises(ValueError, match="share a command"):
        Method("twice", (kind, kind))
    with pytest.raises(ValueError, match="makes 'certify' run folders, as method "
                                         "'certification' does"):
        registry.register(Method("mine", (RunKind(("certify",), kind.result, kind.headline),)))
    with pytest.raises(ValueError, match="a method named 'potemkin' is known already"):
        registry.register(Method("potemkin"))
    assert "mine" not in [m.name for m in registry.methods()]
