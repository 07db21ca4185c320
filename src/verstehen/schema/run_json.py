"""The one declaration of run.json's keys, which its published schema is made from: what
`RunStore.create` writes (a reader needs only `command`, a resume `config` too)."""

# no `from __future__ import annotations`: the TypedDict's annotations are evaluated, so that
# NotRequired is seen at run time
from typing import Any, Literal, NotRequired, TypedDict

from verstehen.engine.store.inputs import InputHash


class RunJson(TypedDict):
    """A run folder's run.json: what was run, with what settings, on which models and package
    versions, and how it ended."""

    schema_version: NotRequired[Literal[1]]  # absent in folders written before it
    run_id: NotRequired[str]  # the folder's name
    command: str  # the run kind: the command words joined by "-" ("potemkin-run")
    argv: NotRequired[list[str]]  # as typed (empty for a run made from Python)
    config: dict[str, Any]  # the command's settings, each method's own (free-form)
    seed: NotRequired[int | None]
    created: NotRequired[str]  # local time, as 2026-01-31T12:00:00+0100
    versions: NotRequired[dict[str, str]]  # of Python and the packages that shape results
    models: NotRequired[list[dict[str, str]]]  # each model's identity (provider, model, ...)
    cache: NotRequired[str | None]  # the call cache the run used, which a resume reuses
    status: NotRequired[Literal["running", "interrupted", "done", "failed"]]
    status_reason: NotRequired[str | None]  # why it stopped, when it did not finish
    # the input files its command line named, with their content hashes when it started (a
    # resume reads one again only when it still holds that, or when it is typed again); absent
    # in folders written before
    inputs: NotRequired[list[InputHash]]
    # what each model's provider changed in what it sends, and other notes of the model (a
    # parameter its API refused, dropped or replaced), by model name; absent when none
    model_notes: NotRequired[dict[str, list[str]]]
