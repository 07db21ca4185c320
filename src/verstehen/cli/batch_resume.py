"""What `verstehen batch --resume RUN` takes from a batch run's run.json, and what it checks
first: the run's config (`resumed_config`), where its calls went (typed again), and its prompts
file (`resumed_prompts`).

A run folder is data: the prompts path in its run.json is read only when the file holds what
the run was made from (the SHA-256 run.json keeps) or when it is typed again (`batch --resume
RUN PROMPTS`); a run.json without the SHA-256 (an older run, or an edited one) is refused
unless it is typed, in one line giving the command; a path through a symbolic link inside the
run folder is never followed. A prompts file typed again whose content changed is refused
(`check_unchanged`): a changed prompts file starts a new run.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
from functools import partial
from pathlib import Path
from typing import TypedDict

from verstehen.cli.inputs import UNNAMED, Withheld, printable, require_unchanged
from verstehen.cli.prompts_file import prompts_sha256
from verstehen.engine.store import RunStore
from verstehen.engine.store.inputs import file_sha256, link_inside
from verstehen.errors import UserError
from verstehen.models.remote import without_credentials
from verstehen.models.served_at import has_url
from verstehen.text.terminal import terminal_line

NONE = type(None)
# the config keys a resume takes from run.json (`ResumedConfig`), and the types `batch` writes
# them with
RESUMED: dict[str, type | tuple[type, ...]] = {
    "model": str, "prompts": str, "samples": int, "temperature": (int, float, NONE),
    "max_tokens": (int, NONE), "seed": (int, NONE), "base_url": (str, list, NONE)}


class ResumedConfig(TypedDict):
    """The settings a resume takes from a batch run's run.json (`RESUMED` checks them)."""

    model: str
    prompts: str
    samples: int
    temperature: float | None
    max_tokens: int | None
    seed: int | None
    base_url: str | list[str] | None


def check_unchanged(store: RunStore, prompts: Path) -> None:
    """UserError when the prompts file is not the one `store`'s run was made from (a run made
    before run.json kept the SHA-256 cannot be checked)."""
    made_from = store.info().get("config", {}).get("prompts_sha256")
    try:
        now = prompts_sha256(prompts)
    except OSError:
        return  # reading it again says what is wrong with it
    if isinstance(made_from, str) and now != made_from:
        raise UserError(f"prompts file {prompts} changed since run {store.run_id} was made "
                        f"(sha256 {made_from[:12]}... then, {now[:12]}... now): resume with "
                        "the original file, or start a new run")


def resumed_config(store: RunStore) -> ResumedConfig:
    """The settings a batch run was made with, from its run.json (UserError naming the file
    when it is not a batch run's)."""
    info = store.info()
    where = store.path / "run.json"
    for key in ("command", "config"):
        if key not in info:
            raise UserError(f"{where}: no {key!r}: it was edited or is not verstehen's; start a "
                            "new run")
    if info["command"] != "batch":
        raise UserError(f"{store.path} is a {info['command']!r} run, not a batch run: only "
                        "batch runs resume; rerun its command instead")
    config = info["config"]
    for name, kind in RESUMED.items():
        if name not in config:
            raise UserError(f"{where}: config has no {name!r}: it was edited; start a new run")
        value = config[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise UserError(f"{where}: config {name!r} is {json.dumps(value)[:40]}, which batch "
                            "never writes: it was edited; start a new run")
    if config["samples"] < 1:
        raise UserError(f"{where}: config 'samples' is {config['samples']}, not at least 1: it "
                        "was edited; start a new run")
    return ResumedConfig(model=config["model"], prompts=config["prompts"],
                         samples=config["samples"], temperature=config["temperature"],
                         max_tokens=config["max_tokens"], seed=config["seed"],
                         base_url=config["base_url"])


def check_destinations(store: RunStore, config: ResumedConfig, args: argparse.Namespace
                       ) -> None:
    """Refuse, in one line, a resume whose typed command does not repeat where the run's calls
    went (its --base-url, a model given NAME@URL): a run folder is data and never chooses them.
    The key (--api-key-env) and the cache are the typed command's alone."""
    checks = [("--base-url", _urls(config["base_url"]), _urls(args.base_url))]
    if has_url(config["model"]):
        checks.append(("", [config["model"]], [args.model] if args.model else []))
    for flag, made, typed in checks:
        if [without_credentials(v) for v in made] == [without_credentials(v) for v in typed]:
            continue
        if made:
            shown = " ".join(f"{flag} {_shown(v)}".strip() for v in made)
            raise UserError(f"{store.path} was made with {shown}; a run folder cannot choose "
                            f"where calls go: add {shown} to resume against it")
        given = " ".join(f"{flag} {_shown(v)}".strip() for v in typed)
        raise UserError(f"{store.path} was made without {flag or 'a model at a URL'}; a resume "
                        f"cannot add {given}: start a new run to use it")


def _urls(value: str | list[str] | tuple[str, ...] | None) -> list[str]:
    return [] if value is None else [value] if isinstance(value, str) else list(value)


def _shown(value: str) -> str:
    """A value as one would type it: credentials left out, quoted, controls escaped."""
    return shlex.quote(terminal_line(str(without_credentials(value))))


def typed_prompts(args: argparse.Namespace, config: ResumedConfig) -> Path | None:
    """The prompts file typed with --resume (`batch --resume RUN PROMPTS`, or `batch MODEL
    PROMPTS --resume RUN`): one word alone is the prompts file unless it is a NAME@URL model.
    A model typed must be the run's (UserError otherwise); `args.model` keeps the one typed."""
    if args.prompts is None and args.model is not None and not has_url(args.model):
        args.model, args.prompts = None, Path(args.model)
    if args.model is not None and not has_url(config["model"]) and args.model != config["model"]:
        raise UserError(f"{args.resume} is a run of the model {_shown(config['model'])}, not "
                        f"{_shown(args.model)}: a resume asks the run's own model; start a new "
                        "run for another")
    prompts: Path | None = args.prompts
    return prompts


def resumed_prompts(store: RunStore, config: ResumedConfig, typed: Path | None,
                    argv: list[str]) -> Path:
    """The prompts file a resume reads: the one typed (when the run kept no SHA-256, only its
    own file), else run.json's when it still holds what the run was made from (UserError in
    one line otherwise, naming what to type). `argv`: the command typed, for that line."""
    made = Path(config["prompts"])
    kept = store.info()["config"].get("prompts_sha256")
    sha = kept if isinstance(kept, str) else None
    again = " ".join(["verstehen", *(printable(without_credentials(t)) for t in argv)])
    if typed is not None:
        if sha is None and Path(os.path.abspath(typed)).resolve() != made.resolve():
            raise UserError(f"{store.path} was made from the prompts file {printable(str(made))}"
                            ", and its run.json keeps no SHA-256 to check another against: type "
                            "that file, or start a new run")
        return typed  # check_unchanged compares it with the SHA-256 the run kept
    if (link := link_inside(store.path, made)) is not None:
        raise UserError(f"{store.path}/run.json names the prompts file {printable(str(made))} "
                        f"through {printable(str(link))}, a symbolic link in the run folder: a "
                        "resume never follows one there; to read it anyway, type "
                        f"{again} {printable(str(made))}, or start a new run")
    if sha is None:
        raise UserError(f"{store.path}/run.json keeps no SHA-256 of its prompts file "
                        f"{printable(str(made))} (a run made before batch kept it, or an edited "
                        "one), and a resume reads a prompts file only when it holds what the run "
                        "was made from or is typed again: to read it, type "
                        f"{again} {printable(str(made))}")
    require_unchanged(f"the prompts file {printable(str(made))}", str(store.path), store, made,
                      sha, partial(file_sha256, made))
    UNNAMED.set((Withheld((str(made),), f"{again} {printable(str(made))}"),))
    return made
