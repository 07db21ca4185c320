"""install.py, the Quick start's set-up: what it asks the llama.cpp build for, what it prints
of pip's verbose output, and how it tells that no compile is needed."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def load_install() -> ModuleType:
    """install.py as a module (it is a script at the root, not part of the package)."""
    spec = importlib.util.spec_from_file_location("install_script", ROOT / "install.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


install = load_install()


@pytest.mark.parametrize(("given", "expected"), [
    ("", "-DLLAVA_BUILD=OFF"),
    ("-DGGML_NATIVE=OFF", "-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF"),
    ("-DLLAVA_BUILD=ON", "-DLLAVA_BUILD=ON"),
])
def test_the_users_cmake_args_come_first_and_win(given: str, expected: str) -> None:
    environ = {"CMAKE_ARGS": given} if given else {}
    assert install.cmake_args(environ) == expected


def test_the_lean_include_is_added_unless_the_user_has_one(tmp_path: Path) -> None:
    lean = tmp_path / "a dir" / "lean.cmake"
    assert install.cmake_args({}, lean) == f"-DLLAVA_BUILD=OFF '-DCMAKE_PROJECT_INCLUDE={lean}'"
    own = "-DCMAKE_PROJECT_INCLUDE=/mine.cmake"
    assert install.cmake_args({"CMAKE_ARGS": own}, lean) == f"{own} -DLLAVA_BUILD=OFF"


PARENT = """cmake_minimum_required(VERSION 3.21)
project(llama_cpp NONE)
set(LLAMA_BUILD_COMMON ON CACHE BOOL "forced on, as llama-cpp-python does" FORCE)
add_subdirectory(vendor)
message(STATUS "parent sees common ${LLAMA_BUILD_COMMON}")
"""
CHILD = """project("llama.cpp" NONE)
option(LLAMA_BUILD_COMMON "common" ON)
message(STATUS "llama.cpp builds common ${LLAMA_BUILD_COMMON}")
"""


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake to configure a project")
def test_the_lean_include_turns_common_off_where_llama_cpp_reads_it(tmp_path: Path) -> None:
    # llama-cpp-python's layout in small: the parent forces the option on, llama.cpp reads it
    (tmp_path / "vendor").mkdir()
    (tmp_path / "CMakeLists.txt").write_text(PARENT)
    (tmp_path / "vendor" / "CMakeLists.txt").write_text(CHILD)
    lean = tmp_path / "lean.cmake"
    lean.write_text(install.LEAN_CMAKE)
    configured = {}
    for name, args in (("plain", []), ("lean", [f"-DCMAKE_PROJECT_INCLUDE={lean}"])):
        done = subprocess.run(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / name), *args],
                              capture_output=True, text=True, check=True)
        configured[name] = re.findall(r"llama.cpp builds common (\w+)", done.stdout)
    assert configured == {"plain": ["ON"], "lean": ["OFF"]}


def pip_output(total: int) -> list[str]:
    """pip -v's output for an install that compiles: its own lines around the build's."""
    return ["Obtaining file:///work/main", "  Running command pip subprocess to install",
            "Collecting llama-cpp-python>=0.3.16", "  Downloading llama_cpp_python-0.3.36.tar"
            ".gz (76.6 MB)", "  -- The C compiler identification is GNU 12.2.0",
            *(f"  [{k}/{total}] /usr/bin/g++ -O3 -c unit_{k}.cpp" for k in range(1, total + 1)),
            "Successfully installed llama-cpp-python-0.3.36 verstehen-0.1.0"]


def test_the_compile_is_shown_a_tenth_at_a_time_with_the_time_left() -> None:
    ticks = iter(range(10_000))
    show = install.CompileProgress(clock=lambda: next(ticks) / 2)  # half a second a step
    printed = [out for line in pip_output(193) for out in show.lines(line)]
    progress = [line for line in printed if line.startswith("compiling llama.cpp")]
    assert len(progress) == 11  # 0%, 10%, ..., 100%
    assert progress[0].startswith("compiling llama.cpp: 1/193 steps (0%)")
    assert "left" not in progress[0]  # no rate yet
    assert progress[-1].startswith("compiling llama.cpp: 193/193 steps (100%)")
    # at 97 of 193: 48 s spent since the first, 96 steps left at 48/97 s each
    half = next(line for line in progress if "(50%)" in line)
    assert half == "compiling llama.cpp: 97/193 steps (50%), 48 s so far, about 48 s left"
    others = [line for line in printed if line not in progress]
    assert others == ["Obtaining file:///work/main", "Collecting llama-cpp-python>=0.3.16",
                      "  Downloading llama_cpp_python-0.3.36.tar.gz (76.6 MB)",
                      "Successfully installed llama-cpp-python-0.3.36 verstehen-0.1.0"]


def test_the_estimate_is_the_measured_cpu_time_over_the_cores() -> None:
    seconds = install.COMPILE_CPU_SECONDS
    assert install.compile_estimate(1).startswith(f"about {seconds / 60:.0f} min on 1 idle core,")
    assert install.compile_estimate(2).startswith(f"about {seconds / 120:.0f} min on 2 idle cores")


def test_an_environment_with_llama_cpp_needs_no_compile() -> None:
    assert install.compiled_before(Path(sys.executable))


def test_an_environment_without_it_or_a_cached_build_needs_one(tmp_path: Path) -> None:
    venv.create(tmp_path / "bare", with_pip=False)  # no pip: no cache to list either
    assert not install.compiled_before(tmp_path / "bare" / "bin" / "python")
