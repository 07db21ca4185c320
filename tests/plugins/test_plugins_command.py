"""`verstehen plugins`: every method, provider and concept domain verstehen knows, built in or
from an installed package (with the entry point it came from), and each plugin left out with
why, from the real CLI with real packages installed in a site folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

from test_plugins_cli import BROKEN_POINTS, ECHO_POINTS, install

from verstehen.domains.catalog import BUILT_IN_DOMAINS
from verstehen.methods import registry
from verstehen.methods.registry import BUILT_IN
from verstehen.models.providers import PROVIDERS

from conftest import run_cli


def test_plugins_lists_built_in_installed_and_left_out(tmp_path: Path,
                                                       cli_env: dict[str, str]) -> None:
    site = tmp_path / "site"
    site.mkdir()
    install(site, "verstehen_echo_plugin", ECHO_POINTS + "\n[verstehen.methods]\n"
            "echo = toy_method.method:METHOD\n")
    install(site, "verstehen_broken_plugin", BROKEN_POINTS)
    tests = Path(__file__).resolve().parents[1]  # where toy_method lies
    env = {**cli_env, "PYTHONPATH": os.pathsep.join(
        p for p in (str(site), str(tests), os.environ.get("PYTHONPATH")) if p)}
    done = run_cli(["plugins", "--json"], env)
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    sources = {(e["kind"], e["name"]): e["source"] for e in listed["entries"]}
    # every built-in entry, said to be built in
    built_in = {("method", method.name) for method in registry.methods(installed=False)
                if registry.is_built_in(method)}
    assert len(built_in) == len(BUILT_IN)
    built_in |= {("provider", name) for name in PROVIDERS}
    built_in |= {("domain", name) for name in BUILT_IN_DOMAINS}
    assert {key for key, source in sources.items() if source == "built in"} == built_in
    # the installed ones, each with its entry point
    assert sources.get(("method", "echo")) == "echo = toy_method.method:METHOD", listed
    assert sources[("provider", "echo")] == "echo = verstehen_echo_plugin.provider:PROVIDER"
    assert sources[("domain", "parity")] == "parity = verstehen_echo_plugin.parity:DOMAIN"
    # the broken package's entries are left out, each in one line saying why
    left_out = listed["left_out"]
    assert any(line.startswith("provider plugin 'openai' (verstehen_broken_plugin:"
                               "TAKEN_PROVIDER) left out: a provider named 'openai' is known")
               for line in left_out), left_out
    assert any(line.startswith("provider plugin 'exploding'") and "RuntimeError" in line
               for line in left_out), left_out
    assert not any(name in {"openai", "exploding"} and source != "built in"
                   for (_, name), source in sources.items())
    words = run_cli(["plugins"], env)
    assert words.returncode == 0
    assert "echo = toy_method.method:METHOD" in words.stdout
    assert f"{len(left_out)} left out:" in words.stdout
