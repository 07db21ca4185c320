"""The engine settings: how a run's calls are made and where its folder goes, declared once for
both faces (the CLI's engine and run flags build one; every API function takes one as
`engine=`, or its fields as keywords, which its options class inherits from here)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verstehen.errors import UserError


@dataclass(frozen=True, kw_only=True)
class EngineSettings:
    """How calls are made and where run folders go, the same for the CLI and the API.

    `base_url` is the server (or a list of replicas of one openai/ model) of the models named
    without one; `api_key_env` names the variable holding its key (None: no key; a provider's
    own key goes to its official host only) and `server_kind` says how it gives prompt
    log-probabilities (`vllm`, `llamacpp`, `openai`; None: asked of the server).
    `runs_dir` is the parent of run folders (None: $VERSTEHEN_RUNS_DIR or ./runs), `cache`
    the calls' cache file (None: $VERSTEHEN_CACHE or ~/.cache/verstehen/calls.sqlite).
    `max_connections` is the concurrent calls per model, per endpoint, for a local model the
    replies decoded together (None: 8 remote, 16 local), `max_attempts` the attempts per call
    on 429, 5xx and timeouts. `progress` shows a progress display on stderr (None: only inside
    a notebook). `threads` fixes the threads of an in-process model (None: $VERSTEHEN_THREADS,
    else what the load leaves free).
    `timeout` is one remote attempt's time for its whole reply in seconds (None: 60).
    `reasoning_budget` is the tokens a remote model's reply may spend reasoning on top of the
    answer budget (None: the model's default, which is none but for OpenAI's reasoning
    models; 0: none); it changes answers, so it is part of the model's cache identity.
    """

    base_url: str | tuple[str, ...] | None = None
    runs_dir: Path | str | None = None
    cache: Path | str | None = None
    max_connections: int | None = None
    max_attempts: int = 6
    progress: bool | None = None
    threads: int | None = None
    timeout: float | None = None
    api_key_env: str | None = None
    server_kind: str | None = None
    reasoning_budget: int | None = None

    def __post_init__(self) -> None:
        for name in ("runs_dir", "cache"):  # paths may be given as text (from Python)
            if isinstance(value := getattr(self, name), str):
                object.__setattr__(self, name, Path(value))
        if self.base_url is not None and not isinstance(self.base_url, str):
            object.__setattr__(self, "base_url", tuple(self.base_url))  # replicas, hashable
        if self.max_connections is not None and self.max_connections < 1:
            raise UserError(f"max_connections must be at least 1, not {self.max_connections}")
        if self.max_attempts < 1:
            raise UserError(f"max_attempts must be at least 1, not {self.max_attempts}")
        if self.threads is not None and self.threads < 1:
            raise UserError(f"threads must be at least 1, not {self.threads}")
        if self.timeout is not None and not 0 < self.timeout < math.inf:
            raise UserError(f"timeout must be a positive number of seconds, not {self.timeout}")
        if self.reasoning_budget is not None and self.reasoning_budget < 0:
            raise UserError(f"reasoning_budget must be 0 or more tokens, not "
                            f"{self.reasoning_budget}")

    def engine_fields(self) -> dict[str, Any]:
        """The engine settings alone, by name (a RunSettings' own run fields left out)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(EngineSettings)}

    def with_keywords(self, keywords: Mapping[str, Any]) -> EngineSettings:
        """These settings with the fields given as keywords replaced (an API function's
        `timeout=...` beside its `engine=`); TypeError naming a keyword that is no field."""
        names = {f.name for f in dataclasses.fields(EngineSettings)}
        if unknown := sorted(set(keywords) - names):
            raise TypeError(f"unexpected keyword argument {unknown[0]!r}; the engine settings "
                            f"are {', '.join(sorted(names))}")
        return EngineSettings(**{**self.engine_fields(), **keywords})
