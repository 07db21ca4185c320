"""A session: the cache, the runner, progress and the models one command uses."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from verstehen.engine.cache import Cache
from verstehen.engine.progress import make_progress
from verstehen.engine.runner import RetryPolicy, Runner
from verstehen.errors import UserError
from verstehen.models import Model, get_model, split_name
from verstehen.models.remote import check_reachable


@dataclass
class Session:
    """Everything a procedure needs to call models; close it when done."""

    runner: Runner
    models: list[Model] = field(default_factory=list)
    _opened: dict[tuple[str, str | None], Model] = field(default_factory=dict, repr=False)

    @classmethod
    def start(
        cls,
        *,
        cache_path: Path | None = None,
        max_connections: int | None = None,
        max_attempts: int = 6,
        progress_label: str | None = None,
    ) -> Session:
        """Open the cache and make a runner; progress is shown when a label is given."""
        if max_connections is not None and max_connections < 1:
            raise UserError(f"--max-connections must be at least 1, not {max_connections}")
        if max_attempts < 1:
            raise UserError(f"--max-attempts must be at least 1, not {max_attempts}")
        runner = Runner(
            Cache(cache_path),
            max_connections=max_connections,
            retry=RetryPolicy(max_attempts=max_attempts),
            progress=make_progress(progress_label or "", enabled=progress_label is not None),
        )
        return cls(runner)

    def open_model(self, name: str, *, base_url: str | None = None) -> Model:
        """Build a model, checking first that an explicit base URL answers.

        Asking again for the same name and base URL returns the model already open (a model
        judging itself is one instance, not two copies of its weights).
        """
        if (name, base_url) in self._opened:
            return self._opened[(name, base_url)]
        provider, _ = split_name(name)
        if base_url is not None:
            if provider == "local":
                raise UserError("--base-url is for openai/ and anthropic/ models, not local/")
            check_reachable(base_url)
            model = get_model(name, base_url=base_url)
        else:
            model = get_model(name)
        self.models.append(model)
        self._opened[(name, base_url)] = model
        return model

    async def close(self) -> None:
        """Close models, progress and the cache."""
        for model in self.models:
            await model.aclose()
        self.runner.progress.close()
        self.runner.cache.close()
