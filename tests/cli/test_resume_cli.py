"""`--resume RUN` on every run-making command: Ctrl-C (a real SIGINT to a real process) marks
the run interrupted in run.json and prints the line to type; typing it finishes the run in
the same folder, paying only for what was missing. A killed run reads as interrupted. What
cannot be resumed is refused in one line."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

from verstehen.cli.main import build_parser
from verstehen.cli.resume import RESUMABLE
from verstehen.engine.store import RunStore

from conftest import PYTHON, cli_error, run_cli

QUESTIONS, REPHRASE, CONNECTIONS = 60, 6, 2
CERTIFY = ["certify", "--model", "openai/stub", "--scope", "arithmetic", "--questions",
           str(QUESTIONS), "--rephrase", str(REPHRASE), "--pg", "0.5", "--rid", "0.2",
           "--max-connections", str(CONNECTIONS), "--no-progress"]


def paid(server) -> int:
    """Chat calls the stub server has answered."""
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/stats") as reply:
        return json.load(reply)["chat"]


def lines_in(path: Path) -> int:
    """Newline-ended lines of a file (0 when absent)."""
    return path.read_bytes().count(b"\n") if path.exists() else 0


def start_and_stop(args: list[str], env: dict[str, str], runs: Path, *, after: int,
                   sig: int, sigint_ignored: bool = False) -> tuple[subprocess.Popen[str], Path]:
    """Start `verstehen ARGS`; once its records (any folder) hold `after` lines, send `sig`.
    `sigint_ignored`: start it as a shell starts a background job, SIGINT ignored."""
    def ignore_sigint() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # kept across exec, as `cmd &` does

    proc = subprocess.Popen([PYTHON, "-m", "verstehen", *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=ignore_sigint if sigint_ignored else None)
    deadline = time.monotonic() + 60
    while sum(lines_in(p) for p in runs.rglob("records.jsonl")) < after:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run wrote too few records"
        time.sleep(0.02)
    proc.send_signal(sig)
    proc.wait(30)
    [run] = runs.iterdir()
    return proc, run


def status(run: Path) -> str:
    """The status run.json records."""
    return json.loads((run / "run.json").read_text())["status"]


def test_kill_int_stops_a_run_started_in_the_background(stub_server, cli_env):
    """Started as `verstehen certify ... &` (SIGINT inherited ignored), `kill -INT` still
    stops the run as Ctrl-C does: exit 130, interrupted, the line to resume it (before, the
    signal was ignored and the run went on to its end)."""
    server = stub_server(delay=0.02)
    runs = Path(cli_env["VERSTEHEN_RUNS_DIR"])
    proc, run = start_and_stop([*CERTIFY, "--base-url", server.url], cli_env, runs,
                               after=QUESTIONS // 2, sig=signal.SIGINT, sigint_ignored=True)
    stderr = proc.stderr.read() if proc.stderr else ""
    assert proc.returncode == 130, stderr
    assert status(run) == "interrupted"
    assert f"to go on, type: verstehen certify --resume {run}" in stderr


def test_ctrl_c_prints_the_resume_line_and_typing_it_finishes(stub_server, cli_env,
                                                               tmp_path):
    """Ctrl-C half way: exit 130, run.json says interrupted, the last line says what to type;
    typing it finishes the same folder with every record, no call paid twice but those in
    flight at the interrupt."""
    server = stub_server(delay=0.02)
    runs = Path(cli_env["VERSTEHEN_RUNS_DIR"])
    proc, run = start_and_stop([*CERTIFY, "--base-url", server.url], cli_env, runs,
                               after=QUESTIONS // 2, sig=signal.SIGINT)
    stderr = proc.stderr.read() if proc.stderr else ""
    assert proc.returncode == 130, stderr
    assert status(run) == "interrupted"
    last = stderr.strip().splitlines()[-1]
    # the server is part of the line: a resume never takes it from the run folder
    assert last.endswith(f"to go on, type: verstehen certify --resume {run} --base-url "
                         f"{server.url}"), stderr
    before = paid(server)
    assert before < QUESTIONS + REPHRASE

    listed = run_cli(["runs"], cli_env)
    assert "interrupted" in listed.stdout and f"--resume {run}" in listed.stdout

    typed = shlex.split(last.split("type: ", 1)[1])
    assert typed[0] == "verstehen"
    done = run_cli([*typed[1:], "--no-progress"], cli_env)
    assert done.returncode == 0, done.stderr
    assert f"resuming run folder: {run}" in done.stderr
    assert status(run) == "done" and (run / "summary.json").is_file()
    assert lines_in(run / "records.jsonl") == QUESTIONS + REPHRASE
    assert QUESTIONS + REPHRASE <= paid(server) <= QUESTIONS + REPHRASE + CONNECTIONS
    assert list(runs.iterdir()) == [run]


def test_ctrl_c_in_an_audit_names_the_audit_and_resumes_each_step_in_place(
        stub_server, cli_env, tmp_path):
    """An audit stopped inside a step: the line names the audit folder (not the step's), and
    the resume goes on with the step's own folder rather than starting a second one."""
    server = stub_server(delay=0.02)
    runs = Path(cli_env["VERSTEHEN_RUNS_DIR"])
    args = ["audit", "--model", "openai/stub", "--base-url", server.url, "--subject",
            "game-theory", "--max-connections", str(CONNECTIONS), "--no-progress"]
    proc, run = start_and_stop(args, cli_env, runs, after=20, sig=signal.SIGINT)
    stderr = proc.stderr.read() if proc.stderr else ""
    assert proc.returncode == 130, stderr
    assert stderr.strip().endswith(f"type: verstehen audit --resume {run} --base-url "
                                   f"{server.url}"), stderr
    assert status(run) == "interrupted"
    steps_before = {p.parent.name for p in run.rglob("*/run.json")}

    done = run_cli(["audit", "--resume", str(run), "--base-url", server.url, "--no-progress"],
                   cli_env)
    assert done.returncode == 0, done.stderr
    steps = sorted(p.parent for p in run.rglob("*/run.json"))
    assert steps_before <= {p.name for p in steps}
    commands = [json.loads((p / "run.json").read_text())["command"] for p in steps]
    assert sorted(commands) == ["certify", "potemkin-incoherence", "potemkin-run"]
    assert {status(p) for p in [run, *steps]} == {"done"}


def test_a_killed_run_reads_as_interrupted_and_resumes(stub_server, cli_env):
    """SIGKILL leaves "running" in run.json but no process holding the folder: `runs` says
    interrupted, and --resume finishes it."""
    server = stub_server(delay=0.02)
    runs = Path(cli_env["VERSTEHEN_RUNS_DIR"])
    proc, run = start_and_stop([*CERTIFY, "--base-url", server.url], cli_env, runs,
                               after=QUESTIONS // 2, sig=signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    assert status(run) == "running"
    assert RunStore.existing(run).status() == "interrupted"
    assert "interrupted" in run_cli(["runs"], cli_env).stdout
    done = run_cli(["certify", "--resume", str(run), "--base-url", server.url, "--no-progress"],
                   cli_env)
    assert done.returncode == 0, done.stderr
    assert status(run) == "done"
    assert lines_in(run / "records.jsonl") == QUESTIONS + REPHRASE


def finished_certify(cli, stub_server, cli_env) -> tuple[Path, str]:
    """A finished certify run folder and the URL of the server it asked."""
    server = stub_server()
    at = CERTIFY.index("--questions") + 1  # a flag is given once: 20 in place of QUESTIONS
    done = cli([*CERTIFY[:at], "20", *CERTIFY[at + 1:], "--base-url", server.url])
    assert done.returncode == 0, done.stderr
    [run] = Path(cli_env["VERSTEHEN_RUNS_DIR"]).iterdir()
    return run, server.url


def test_resume_refuses_what_it_cannot_go_on_with(cli, stub_server, cli_env, tmp_path):
    """One line, exit 2: not a run folder, another command's run, a flag that would change
    the run, a run made from Python."""
    run, _ = finished_certify(cli, stub_server, cli_env)
    cli_error(cli, ["certify", "--resume", str(tmp_path)], "not a run folder")
    cli_error(cli, ["potemkin", "run", "--resume", str(run)],
              "is a run of `verstehen certify`", f"verstehen certify --resume {run}")
    cli_error(cli, ["certify", "--resume", str(run), "--questions", "5"],
              "--questions cannot be given with --resume")
    info = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**info, "argv": []}))
    cli_error(cli, ["certify", "--resume", str(run)], "made from Python", "resume=")


def test_a_resume_may_change_how_calls_are_made(cli, stub_server, cli_env):
    """--timeout and --max-connections may come with --resume; a finished run resumed asks
    nothing again."""
    run, url = finished_certify(cli, stub_server, cli_env)
    again = cli(["certify", "--resume", str(run), "--base-url", url, "--timeout", "5",
                 "--max-connections", "1", "--json"])
    assert again.returncode == 0, again.stderr
    usage = json.loads(again.stdout)["usage"]["openai/stub"]
    assert usage["calls"] == usage["cache_hits"] == 20 + REPHRASE


def test_every_command_that_makes_a_run_folder_takes_resume():
    """Each subcommand with --runs-dir and --cache (it calls a model into a run folder) has
    --resume, and each is in the table `--resume` reads (batch has its own)."""
    parser = build_parser()
    makers = set()
    for name, sub in parser._subparsers._group_actions[0].choices.items():
        inner = [a for a in sub._actions if a.__class__.__name__ == "_SubParsersAction"]
        pairs = ([((name, child), p) for child, p in inner[0].choices.items()] if inner
                 else [((name,), sub)])
        for words, command in pairs:
            options = {o for a in command._actions for o in a.option_strings}
            if {"--runs-dir", "--cache"} <= options:  # it calls a model into a run folder
                assert "--resume" in options, words
                makers.add(words)
    assert makers - {("batch",)} == RESUMABLE
