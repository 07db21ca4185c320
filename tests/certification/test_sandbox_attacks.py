"""The sandbox against the attack programs of sandbox_attacks.py, one layer at a time.

The full sandbox contains every attack; with no layer, only those that what is always on stops
("core": the report checks, the wall clock and process-group kill, the load and per-call
timers, the output caps); each layer alone contains exactly the attacks STOPPED_BY gives it,
the table docs/architecture.md shows; and no attack, under any configuration, crashes the
caller (run_program or the explanation grader raising, or a run outliving its wall clock).
The harness runs every configuration once, in one process of its own (about 35 s on 2 cores).
"""

from __future__ import annotations

import ctypes
import os
import re
from pathlib import Path
from typing import Any

import pytest
from sandbox_attacks import ATTACKS, run_harness

LAYER_NAMES = ("process", "netns", "rootfs", "landlock", "rlimits", "audit", "parent")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
TABLE_MARK = "<!-- sandbox attack table -->"

# attack -> the layers that contain it alone; "core" if it is contained with no layer at all
STOPPED_BY = {
    **dict.fromkeys(
        ["write_open_w", "write_open_a", "write_open_x", "write_open_rplus", "write_os_open",
         "write_os_open_creat", "write_dir_fd", "write_dir_fd_climb", "write_opener",
         "write_opener_path", "write_pathlib", "write_shutil_copy", "write_remove", "write_unlink",
         "write_rmdir", "write_mkdir", "write_makedirs", "write_symlink", "write_through_symlink",
         "write_fchmod", "write_truncate", "write_sqlite", "write_mkfifo", "write_mknod",
         "write_tempfile_outside", "write_proc_fd_reopen", "write_ctypes", "write_at_import",
         "read_secret_file", "read_secret_dir_fd", "read_secret_linecache", "read_ctypes",
         "proc_posix_spawn", "proc_subprocess", "proc_os_system", "proc_spawnv", "proc_pty_spawn",
         "tamper_addaudithook", "tamper_settrace", "tamper_gc_closure", "tamper_gc_referrers",
         "tamper_patch_builtins"],
        "process rootfs landlock audit"),
    **dict.fromkeys(
        ["read_ppid_environ", "read_caller_environ", "read_ancestors", "signal_kill_caller",
         "signal_killpg_caller", "signal_pidfd", "signal_ctypes", "forge_supervisor_memory"],
        "process landlock audit"),
    **dict.fromkeys(
        ["net_tcp", "net_abstract", "net_import_module", "net_dunder_import",
         "net_builtins_import", "net_urllib", "net_ctypes", "tamper_main_module"],
        "netns landlock audit"),
    **dict.fromkeys(
        ["proc_fork", "proc_fork_30", "proc_multiprocessing", "proc_ctypes_fork"],
        "process audit"),
    **dict.fromkeys(
        ["write_rename", "write_replace", "write_hardlink"],
        "process rootfs landlock rlimits audit"),  # rlimits: the tmpfs is another device
    **dict.fromkeys(
        ["write_chmod", "write_chown", "write_utime"],
        "process rootfs audit"),
    **dict.fromkeys(
        ["disk_at_import", "disk_big_file", "disk_many_files"],
        "rlimits parent"),
    **dict.fromkeys(
        ["write_world_writable_dir", "proc_execv"],
        "rootfs landlock audit"),
    **dict.fromkeys(
        ["read_own_environ", "stat_proc_root"],
        "process landlock"),
    **dict.fromkeys(
        ["memory_bytearray", "memory_list"],
        "rlimits"),
    **dict.fromkeys(
        ["stat_secret_file", "stat_exists_lstat"],
        "rootfs"),
    "write_reloaded_posix": "process rootfs landlock",
    "read_env_key": "process",
    "read_caller_cmdline": "landlock audit",
    "net_udp": "netns audit",
    "net_unix": "rootfs audit",
    "proc_setsid_grandchild": "process audit parent",
    **dict.fromkeys(
        ["signal_kill_ppid", "cpu_loop", "cpu_loop_no_timer", "sleep_past_wall", "loop_at_import",
         "output_huge_value", "output_many_values", "output_prints", "forge_frames", "forge_fds",
         "forge_count", "forge_socketpair_fd", "forge_gc_nonce", "tamper_rlimit_raise",
         "timer_in_del", "timer_caught_in_del"],
        "core"),
}


def _capable(bit: int) -> bool:
    """Whether this process holds the capability with this number."""
    status = Path("/proc/self/status").read_text()
    found = re.search(r"^CapEff:\s*([0-9a-f]+)", status, re.M)
    return bool(found and int(found[1], 16) >> bit & 1)


def _expected() -> dict[str, str]:
    """STOPPED_BY on this machine: a root holding CAP_SYS_RESOURCE can raise a hard rlimit, so
    there only the process layer (another uid) and the audit hook stop that attack."""
    table = dict(STOPPED_BY)
    if os.geteuid() == 0 and _capable(24):
        table["tamper_rlimit_raise"] = "process audit"
    return table


def _landlock_abi() -> int:
    """The kernel's Landlock ABI version (0 without Landlock)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return max(0, libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1)))


@pytest.fixture(scope="module")
def outcome() -> dict[str, Any]:
    """Every attack under the full sandbox, no layer, and each layer alone."""
    return run_harness(["all", "none", *LAYER_NAMES])


def _contained(outcome: dict[str, Any], config: str) -> set[str]:
    return {name for name, o in outcome["results"][config].items() if o["contained"]}


def test_the_table_covers_every_attack_once() -> None:
    names = [a.name for a in ATTACKS]
    assert len(names) == len(set(names)) >= 66
    assert set(STOPPED_BY) == set(names)
    assert all(set(v.split()) <= {*LAYER_NAMES, "core"} for v in STOPPED_BY.values())


def test_full_sandbox_contains_every_attack(outcome: dict[str, Any]) -> None:
    escaped = {name: o["escaped"] for name, o in outcome["results"]["all"].items()
               if not o["contained"]}
    assert escaped == {}


def test_without_layers_only_core_contains(outcome: dict[str, Any]) -> None:
    """The attacks are real: with no layer, each gets through unless the core stops it."""
    expected = {name for name, by in _expected().items() if by == "core"}
    assert _contained(outcome, "none") == expected


@pytest.mark.parametrize("layer", LAYER_NAMES)
def test_each_layer_alone_contains_exactly_its_attacks(outcome: dict[str, Any],
                                                       layer: str) -> None:
    in_force = set(outcome["layers"][layer])
    if layer not in in_force:
        pytest.skip(f"the {layer} layer cannot be applied on this machine")
    if layer == "process" and os.geteuid() != 0:
        pytest.skip("the process layer switches to a uid of its own only when run as root")
    if layer == "rlimits" and "tmpfs" not in in_force:
        pytest.skip("no tmpfs disk quota here (needs root or user namespaces)")
    if layer == "landlock" and (abi := _landlock_abi()) < 6:
        pytest.skip(f"Landlock ABI {abi} < 6: no scoping of signals and abstract sockets")
    expected = {name for name, by in _expected().items() if by == "core" or layer in by.split()}
    got = _contained(outcome, layer)
    assert got == expected, {"contained but not in the table": sorted(got - expected),
                             "in the table but not contained": sorted(expected - got)}


def test_no_attack_crashes_the_caller(outcome: dict[str, Any]) -> None:
    crashes = [(config, name, o["crashed"]) for config, results in outcome["results"].items()
               for name, o in results.items() if o["crashed"]]
    assert crashes == []


def test_documented_table_matches() -> None:
    """docs/architecture.md shows STOPPED_BY grouped by layers: every attack, same layers."""
    text = DOCS.read_text(encoding="utf-8")
    assert TABLE_MARK in text
    documented: dict[str, frozenset[str]] = {}
    for line in text.split(TABLE_MARK, 1)[1].strip().splitlines()[2:]:
        if not line.startswith("|"):
            break
        layers, attacks = (cell.strip() for cell in line.strip("|").split("|"))
        key = frozenset(["core"] if layers.startswith("none") else
                        [name.strip() for name in layers.split(",")])
        for name in re.findall(r"`(\w+)`", attacks):
            assert name not in documented, f"{name} is in the table twice"
            documented[name] = key
    assert documented == {name: frozenset(by.split()) for name, by in STOPPED_BY.items()}
