"""What the parent and the child send each other, as JSON: the job (parent to supervisor, on
stdin), one output per input (runner to supervisor) and the verdict (supervisor to parent).

Types only. The parent imports this module; the child's modules name it only for the type
checker (under TYPE_CHECKING, by its package path), so no child process ever loads it."""

from __future__ import annotations

from typing import Any, TypedDict


class Job(TypedDict):
    """One run: the program, its inputs, the layers to apply and the limits (`sandbox.Limits`,
    field for field); `uid` is the run's own uid when the parent is root, else None."""

    source: str
    entry: str
    inputs: list[list[Any]]  # each input's arguments: JSON values of any kind
    tmpdir: str
    uid: int | None
    layers: list[str]
    per_call_seconds: float
    load_seconds: float
    cpu_seconds: int
    wall_seconds: float
    memory_bytes: int
    output_bytes: int
    disk_bytes: int
    disk_files: int
    answer_bytes: int


class Output(TypedDict, total=False):
    """What the program gave for one input: its return value (JSON of any kind) or, when it
    raised, the error's text; exactly one of the two."""

    value: Any
    error: str


class Verdict(TypedDict):
    """The run's result: `ok` with one output per input and `error` None, or not `ok` with no
    outputs and the error; `layers` are those in force."""

    ok: bool
    outputs: list[Output]
    error: str | None
    layers: list[str]
