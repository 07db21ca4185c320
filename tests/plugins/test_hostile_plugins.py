"""Plugins cannot break the rest of `verstehen` (issue 43): a plugin that ends the process at
import, declares a command `verstehen` has, raises what cannot be printed, holds terminal
escapes, or whose concept tasks raise is left out or stopped in one line, never a traceback,
and every command that does not read it works as if it were not there.

Each test installs `verstehen_hostile_plugin` (and the echo plugin it builds on) into its own
site folder with the entry points it names, as `test_plugins_cli.py` does, and runs the real
CLI in subprocesses."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_plugins_cli import ECHO_POINTS, install
from toy_method.method import METHOD as ECHO

from verstehen import plugins
from verstehen.methods import registry

from conftest import run_cli

HOSTILE = "verstehen_hostile_plugin"
BOUNDS = ["bounds", "--mean", "0.9", "--n", "20"]


def site_with(tmp_path: Path, cli_env: dict[str, str], points: str) -> dict[str, str]:
    """A CLI environment whose site folder holds the echo plugin (its provider and domain)
    and the hostile one with these entry points."""
    site = tmp_path / "site"
    site.mkdir()
    install(site, "verstehen_echo_plugin", ECHO_POINTS)
    install(site, HOSTILE, points)
    # the site first; then what this process was given (a checkout of another revision)
    return {**cli_env, "PYTHONPATH": os.pathsep.join(
        p for p in (str(site), os.environ.get("PYTHONPATH")) if p)}


def calm(args: list[str], env: dict[str, str], code: int = 0) -> subprocess.CompletedProcess[str]:
    """`verstehen ARGS`: exit `code`, no traceback, no escape character on either stream."""
    done = run_cli(args, env)
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert "\x1b" not in done.stdout + done.stderr
    return done


def said(done: subprocess.CompletedProcess[str], *needles: str) -> str:
    """The one stderr line of `done`, which holds every needle."""
    (line,) = done.stderr.splitlines()
    for needle in needles:
        assert needle in line, line
    return line


# ----------------------------------------------------------------- sys.exit(3) at import

@pytest.mark.parametrize(("group", "reads"), [
    # the method plugins are read for a command no built-in method has (and for `--help`);
    # the domain plugins by commands that read concepts
    ("verstehen.methods", ["--help"]),
    ("verstehen.domains", ["concepts", "--json"]),
])
def test_a_plugin_that_exits_at_import_is_one_line_where_read_and_nothing_elsewhere(
        tmp_path: Path, cli_env: dict[str, str], group: str, reads: list[str]) -> None:
    env = site_with(tmp_path, cli_env, f"[{group}]\nexits = {HOSTILE}.exits:OBJECT\n")
    line = said(calm(reads, env), "verstehen: warning: ", f"'exits' ({HOSTILE}.exits:OBJECT) "
                                  "left out: SystemExit: 3")
    assert line.startswith("verstehen: warning: ")
    for args in (BOUNDS, ["plan", "--expected-score", "0.9", "--expected-rid", "0.05"],
                 ["schema", "certify"], ["models"], ["--version"],
                 ["concepts", "--json"] if reads[0] == "--help" else ["--help"]):
        assert calm(args, env).stderr == "", args  # these commands read no such plugin
    assert json.loads(calm([*BOUNDS, "--json"], env).stdout)["n"] == 20


def test_ctrl_c_while_a_plugin_is_imported_stops_the_program(
        tmp_path: Path, cli_env: dict[str, str]) -> None:
    env = site_with(tmp_path, cli_env, f"[verstehen.methods]\nstop = {HOSTILE}.interrupts:X\n")
    done = calm(["--help"], env, code=130)
    assert done.stderr == ("verstehen: interrupted before the command started; nothing was "
                           "run\n") and done.stdout == ""
    assert calm(BOUNDS, env).stderr == ""


# ------------------------------------------------------- a command verstehen has already

@pytest.mark.parametrize(("name", "command"), [("CERTIFY", "certify"), ("REPORT", "report")])
def test_a_method_plugin_cannot_take_a_command_of_verstehen(
        tmp_path: Path, cli_env: dict[str, str], name: str, command: str) -> None:
    env = site_with(tmp_path, cli_env, f"[verstehen.methods]\nmine = {HOSTILE}.clashing:{name}\n")
    assert calm(BOUNDS, env).stderr == ""
    listing = calm(["--help"], env)
    said(listing, f"plugin method 'my-{command}' left out: its commands could not be added",
         command)
    assert f"a {command} of the plugin's own" not in listing.stdout
    own = calm([command, "--help"], env)  # the built-in command, which reads no plugin
    assert own.stderr == "" and f"usage: verstehen {command}" in own.stdout
    assert "--scope" in own.stdout if command == "certify" else "RUN" in own.stdout


# --------------------------------------------------------- a message that cannot print

@pytest.mark.parametrize(("which", "why"), [
    ("STR_RAISES", "StrRaises: (its message could not be read: ValueError)"),
    ("STR_NOT_STR", "StrNotStr: (its message could not be read: TypeError)"),
    ("SURROGATES", "RuntimeError: lone \\ud800 surrogate"),
])
def test_an_exception_that_cannot_be_printed_is_a_safe_line(
        tmp_path: Path, cli_env: dict[str, str], which: str, why: str) -> None:
    where = f"{HOSTILE}.unprintable:{which}"
    env = site_with(tmp_path, cli_env, f"[verstehen.methods]\nm = {where}\n"
                                       f"[verstehen.providers]\np = {where}\n"
                                       f"[verstehen.domains]\nd = {where}\n")
    for args, kind in ((["--help"], "plugin 'm'"), (["models"], "provider plugin 'p'"),
                       (["concepts"], "domain plugin 'd'")):
        said(calm(args, env), f"verstehen: warning: {kind} ({where}) left out: {why}")


def test_exception_line_reads_any_exception() -> None:
    class Long(Exception):
        pass

    assert plugins.exception_line(Long("x" * 1000)) == f"Long: {'x' * 300}..."
    assert plugins.exception_line(ValueError("first\nsecond")) == "ValueError: first"
    assert plugins.exception_line(SystemExit(3)) == "SystemExit: 3"
    assert plugins.exception_line(KeyError()) == "KeyError"


# ------------------------------------------------------------- concept tasks that raise

@pytest.mark.parametrize(("scope", "why"), [
    ("boom/grade", "plugin concept 'boom/grade' failed in its grade: Unprintable: (its "
                   "message could not be read: ValueError)"),
    ("boom/draw", "plugin concept 'boom/draw' failed in its classify_item: RuntimeError: no "
                  "classify item today"),
    ("boom/render", "plugin concept 'boom/render': its render gave a int, not a str"),
])
def test_a_domain_whose_tasks_raise_stops_a_run_in_one_line(
        tmp_path: Path, cli_env: dict[str, str], scope: str, why: str) -> None:
    env = site_with(tmp_path, cli_env, f"[verstehen.domains]\nboom = {HOSTILE}.boom:DOMAIN\n")
    listed = json.loads(calm(["concepts", "--domain", "boom", "--json"], env).stdout)
    assert [c["key"] for c in listed] == ["boom/draw", "boom/grade", "boom/render"]
    for args in (["certify", "--model", "echo/parity", "--scope", scope, "--questions", "4",
                  "--no-progress"],
                 ["audit", "--model", "echo/parity", "--subject", scope, "--no-progress"]):
        done = calm(args, env, code=2)
        assert done.stderr.splitlines()[-1] == f"verstehen: error: {why}", done.stderr
        assert done.stderr.count("verstehen: error: ") == 1
    made = list((tmp_path / "runs").glob("*/run.json"))  # the commands' own, not a lens's
    assert len(made) == 2 or scope != "boom/grade"  # grading fails once the folders are made
    for path in made:  # a run folder made says it failed, and why
        run = json.loads(path.read_text(encoding="utf-8"))
        assert (run["status"], run["status_reason"]) == ("failed", why)


# ------------------------------------------------------------------- terminal escapes

def test_plugin_text_with_terminal_escapes_is_escaped(
        tmp_path: Path, cli_env: dict[str, str]) -> None:
    where = f"{HOSTILE}.escapes"
    env = site_with(tmp_path, cli_env, f"[verstehen.methods]\nshout = {where}:METHOD\n"
                                       f"\x1b[31mred = {where}:NAMED\n"
                                       f"[verstehen.providers]\nshout = {where}:PROVIDER\n"
                                       f"[verstehen.domains]\nshout = {where}:DOMAIN\n")
    listing = calm(["--help"], env)  # no "\x1b" on stdout or stderr: checked by calm
    assert "shout" not in listing.stdout
    lines = listing.stderr.splitlines()
    assert len(lines) == 2, listing.stderr
    assert ("plugin '\\x1b[31mred' (verstehen_hostile_plugin.escapes:NAMED) left out: "
            "ValueError: method name '\\x1b[31mred' is not printable text") in lines[0]
    assert ("plugin method 'shout' left out: its commands could not be added (ValueError: the "
            "help of its command 'shout' is not printable text)") in lines[1]
    said(calm(["models"], env), "provider plugin 'shout'", "not printable text")
    concepts = calm(["concepts"], env)
    said(concepts, "domain plugin 'shout'", "has no title of printable text")
    assert "shout" not in concepts.stdout


# ------------------------------------------------------------------------ reading again

@pytest.fixture
def fresh_plugins() -> Iterator[None]:
    plugins.reset()
    yield
    plugins.reset()


def test_plugins_are_read_once_and_again_after_reset(
        fresh_plugins: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    points = [importlib.metadata.EntryPoint("gone", "no_such_module_anywhere:METHOD",
                                            registry.GROUP)]
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group: [p for p in points if p.group == group])
    assert registry.run_kind("certify") is not None  # a built-in kind: no plugin read
    assert capsys.readouterr().err == ""
    assert "echo" not in [m.name for m in registry.methods()]
    assert capsys.readouterr().err.count("left out") == 1
    points.append(importlib.metadata.EntryPoint("echo", "toy_method.method:METHOD",
                                                registry.GROUP))
    assert "echo" not in [m.name for m in registry.methods()]  # read once per process
    assert capsys.readouterr().err == ""  # and said once
    plugins.reset()
    assert registry.run_kind("echo") is ECHO.kinds[0]  # no built-in kind: the plugins read
    assert capsys.readouterr().err.count("left out") == 1
