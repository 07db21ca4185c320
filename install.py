#!/usr/bin/env python3
"""Set verstehen up in a virtual environment (./.venv): `python3 install.py [--extras LIST]`.

The one slow step of a first install is compiling llama.cpp, since llama-cpp-python ships no
wheel on PyPI. This script says before it starts how long that takes, builds only the part of
it verstehen uses (the library and its CPU backend: no multimodal or common library, a third of
the full compile), and shows the compile's progress where pip shows only "still running...".
pip caches the build, so a later install on the machine takes seconds. Standard library only:
it runs before anything is installed.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import time
import venv
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
# no multimodal library (mtmd): verstehen reads no images
CMAKE_DEFAULTS = ("-DLLAVA_BUILD=OFF",)
# llama-cpp-python forces llama.cpp's common library on (argument parsing, chat templates, an
# HTTP client: 62% of the compile), which its Python package never loads; this include, run
# after llama.cpp's project(), turns it off again before llama.cpp reads the option
LEAN_CMAKE = """if(PROJECT_NAME STREQUAL "llama.cpp")
  set(LLAMA_BUILD_COMMON OFF CACHE BOOL "verstehen's install.py: not loaded" FORCE)
endif()
"""
# CPU-seconds of the lean compile (user + system, configure included), measured on the
# project's 2-core machine: 195 s (README, "Installing"); the wall time is about this over
# the cores that are free
COMPILE_CPU_SECONDS = 200
STEP = re.compile(r"^\s*\[(\d+)/(\d+)\]\s")
# pip's own lines worth showing a person (the rest of pip -v is the build's detail)
SHOWN = re.compile(r"^(Collecting |Successfully |Installing collected|ERROR|error:|"
                   r"Obtaining |Building wheels? |  Downloading llama)")


def cmake_args(environ: dict[str, str], lean: Path | None = None) -> str:
    """CMAKE_ARGS for the build: the user's own, then each default the user did not set (the
    lean include `lean` among them, unless the user names a project include of their own)."""
    given = environ.get("CMAKE_ARGS", "")
    named = {arg.split("=", 1)[0] for arg in shlex.split(given)}
    defaults = [*CMAKE_DEFAULTS, *([f"-DCMAKE_PROJECT_INCLUDE={lean}"] if lean else [])]
    extra = [shlex.quote(arg) for arg in defaults if arg.split("=", 1)[0] not in named]
    return " ".join(part for part in (given, *extra) if part)


def minutes(seconds: float) -> str:
    """Seconds in words a person reads at a glance ("40 s", "6 min")."""
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def compile_estimate(cores: int) -> str:
    """How long the compile takes here, before it starts."""
    return (f"about {minutes(COMPILE_CPU_SECONDS / max(cores, 1))} on {cores} idle "
            f"core{'s' * (cores != 1)}, longer while other work runs")


class CompileProgress:
    """Turns pip's verbose output into the lines a person reads: pip's own steps, and the
    compile's progress at every tenth of its steps, with the time left at its rate so far."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.started: float | None = None
        self.shown_tenth = -1

    def lines(self, line: str) -> Iterator[str]:
        """What to print for one line of pip's output (often nothing)."""
        step = STEP.match(line)
        if step is None:
            if SHOWN.match(line):
                yield line.rstrip()
            return
        done, total = int(step[1]), int(step[2])
        now = self.clock()
        if self.started is None:
            self.started = now
        tenth = done * 10 // max(total, 1)
        if tenth <= self.shown_tenth:
            return
        self.shown_tenth = tenth
        spent = now - self.started
        left = f", about {minutes(spent / done * (total - done))} left" if tenth >= 1 else ""
        yield (f"compiling llama.cpp: {done}/{total} steps ({done * 100 // total}%), "
               f"{minutes(spent)} so far{left}")


def in_venv(python: Path, code: str) -> subprocess.CompletedProcess[str]:
    """Run a line of Python in the environment, quietly."""
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True)


def compiled_before(python: Path) -> bool:
    """True when llama.cpp needs no compile: installed already, or a build pip cached."""
    if in_venv(python, "import llama_cpp").returncode == 0:
        return True
    cached = subprocess.run([str(python), "-m", "pip", "cache", "list", "llama_cpp_python*",
                             "--format=abspath"], capture_output=True, text=True)
    return cached.returncode == 0 and ".whl" in cached.stdout


def run_pip(python: Path, arguments: list[str], log: Path, show: CompileProgress) -> int:
    """pip, its verbose output kept in `log`, what a person needs printed; its exit code."""
    lean = log.with_name("llama-lean.cmake")
    lean.write_text(LEAN_CMAKE, encoding="utf-8")
    environ = {**os.environ, "CMAKE_ARGS": cmake_args(dict(os.environ), lean),
               "CMAKE_BUILD_PARALLEL_LEVEL": os.environ.get(
                   "CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))}
    tail: deque[str] = deque(maxlen=40)
    with log.open("w", encoding="utf-8") as kept, subprocess.Popen(
            [str(python), "-m", "pip", "install", "-v", *arguments], env=environ,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            errors="replace") as pip:
        assert pip.stdout is not None
        for line in pip.stdout:
            kept.write(line)
            tail.append(line.rstrip())
            for shown in show.lines(line):
                print(shown, flush=True)
    if pip.returncode:
        print("\n".join(["", *tail, "", f"pip failed (exit {pip.returncode}); its whole output "
                         f"is in {log}"]), file=sys.stderr)
    return pip.returncode


def requirement(extras: str) -> str:
    """The editable install of this folder, with the extras asked for."""
    names = [name.strip() for name in extras.split(",") if name.strip()]
    return f"{HERE}[{','.join(names)}]" if names else str(HERE)


def main(argv: Iterable[str] | None = None) -> int:
    """Make or reuse the environment, say what the install will take, install."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extras", default="",
                        help="comma list of extras, e.g. test,inspect,frames,hf,litellm")
    parser.add_argument("--venv", type=Path, default=HERE / ".venv",
                        help="the environment to make or reuse (default: ./.venv)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    python = args.venv / "bin" / "python"
    if not python.exists():
        print(f"making the virtual environment {args.venv}", flush=True)
        try:
            venv.create(args.venv, with_pip=True)
        except (OSError, subprocess.CalledProcessError) as error:
            print(f"install.py: cannot make {args.venv} ({error}): on Debian or Ubuntu, "
                  "apt-get install python3-venv, then run this again", file=sys.stderr)
            return 2
    if compiled_before(python):
        print("llama.cpp: compiled before (installed, or in pip's cache); no compile needed",
              flush=True)
    else:
        print(f"llama.cpp is compiled for this CPU once (pip caches it): "
              f"{compile_estimate(os.cpu_count() or 1)}", flush=True)
    started = time.monotonic()
    code = run_pip(python, ["-e", requirement(args.extras)], args.venv / "install.log",
                   CompileProgress())
    if code == 0:
        print(f"installed in {minutes(time.monotonic() - started)}: {args.venv}/bin/verstehen",
              flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
