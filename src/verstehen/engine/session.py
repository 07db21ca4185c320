"""A session: the cache, the runner, progress and the models one run uses; and the settings
every run-making entry point takes (where runs are written, which cache, how calls are made)."""

from __future__ import annotations

import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Generic, NotRequired, TypedDict, TypeVar

from verstehen.engine.cache import Cache, cache_file
from verstehen.engine.progress import make_progress
from verstehen.engine.runner import RetryPolicy, Runner
from verstehen.engine.settings import EngineSettings
from verstehen.engine.store import RunStore, default_runs_dir, marked_on_error
from verstehen.engine.store.inputs import InputFile, input_hashes, unrecorded
from verstehen.engine.usage import ModelUsage, counted, counting
from verstehen.errors import UserError
from verstehen.models import Model, get_model, split_name
from verstehen.models.embedded import DEFAULT_SEQUENCES
from verstehen.models.endpoints import check_endpoints, endpoint_list, one_or_several
from verstehen.models.remote import KEY_OF, api_key, without_credentials

T = TypeVar("T")


class RemoteSettings(TypedDict):
    """What a session gives a served model's provider (`get_model`'s keywords); `server_kind`
    and `endpoint_limit` for openai/ models only."""

    timeout: float | None
    api_key_env: str | None
    reasoning_budget: int | None
    server_kind: NotRequired[str | None]
    endpoint_limit: NotRequired[int | None]


@dataclass(frozen=True)
class RunSettings(EngineSettings):
    """The engine settings of one run, and what the entry point that makes it adds: the same
    for the CLI and the API (`RunSettings.of(engine, ...)`).

    `announce` prints the new run folder's path on stderr (the CLI does, and shows progress).
    `argv` is the command line recorded in run.json (empty for a run made from Python; URL
    credentials are left out); `inputs`, the input files it names, whose content hashes
    run.json records. `resume` is a run folder to go on with instead of making a new
    one (made by the same command with the same settings; its finished calls come from the
    cache it used). `reuse_runs` makes each step of a resumed job go on with its own folder
    from before. `progress` is off unless asked for here (an API function passes on its
    engine's, whose default shows it inside a notebook only).
    """

    progress: bool | None = False
    announce: bool = False
    argv: tuple[str, ...] = ()
    inputs: tuple[InputFile, ...] = ()
    resume: Path | str | None = None
    reuse_runs: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.resume, str):
            object.__setattr__(self, "resume", Path(self.resume))

    @classmethod
    def of(cls, engine: EngineSettings | None = None, keywords: Mapping[str, Any] | None = None,
           *, resume: Path | str | None = None, announce: bool = False,
           argv: Sequence[str] = (), inputs: Sequence[InputFile] = ()) -> RunSettings:
        """The settings of a run under `engine` (default: the defaults), each field given in
        `keywords` replacing its own (an API function's `timeout=` beside its `engine=`)."""
        chosen = (engine or EngineSettings()).with_keywords(keywords or {})
        return cls(**chosen.engine_fields(), resume=resume, announce=announce, argv=tuple(argv),
                   inputs=tuple(inputs))

    def create_run(self, command: str, config: Mapping[str, object], seed: int,
                   models: list[dict[str, str]]) -> RunStore:
        """A new run folder under runs_dir, or the one to resume (announced on stderr when
        asked)."""
        runs_dir = Path(self.runs_dir or default_runs_dir())
        config = without_credentials(dict(config))
        earlier = self.resume if self.resume is not None else (
            RunStore.matching(runs_dir, command=command, config=config)
            if self.reuse_runs else None)
        if earlier is not None:
            store = RunStore.resume(Path(earlier), command=command, config=config)
            if missing := unrecorded(store.info(), self.inputs):  # an older run's, typed again
                store.record_inputs(input_hashes(missing))
            if self.announce:
                print(f"resuming run folder: {store.path}", file=sys.stderr)
            return store
        store = RunStore.create(runs_dir, command=command,
                                argv=without_credentials(list(self.argv)), config=config,
                                seed=seed, models=without_credentials(models),
                                cache=str(self.cache_path().absolute()),
                                inputs=input_hashes(self.inputs))
        if self.announce:
            print(f"run folder: {store.path}", file=sys.stderr)
        return store

    def cache_path(self) -> Path:
        """The cache file calls go through: the one given, else the one the resumed run used
        (when it recorded one), else the default."""
        if self.cache is None and self.resume is not None:
            return cache_file(RunStore.existing(Path(self.resume)).info().get("cache"))
        return cache_file(self.cache)

    def nested(self, runs_dir: Path) -> RunSettings:
        """The settings of one step of a job, whose run folder goes under `runs_dir`: not
        announced, and resumed from its folder of before when the job is resumed."""
        return replace(self, runs_dir=runs_dir, announce=False, resume=None,
                       reuse_runs=self.reuse_runs or self.resume is not None,
                       cache=self.cache_path())


@dataclass(frozen=True)
class Timed(Generic[T]):
    """A run's value with its wall seconds and the calls and tokens of each model."""

    value: T
    seconds: float
    usage: dict[str, ModelUsage]


@dataclass
class Session:
    """Everything a procedure needs to call models; close it when done."""

    runner: Runner
    models: list[Model] = field(default_factory=list)
    threads: int | None = None
    timeout: float | None = None
    api_key_env: str | None = None
    server_kind: str | None = None
    reasoning_budget: int | None = None
    batched: bool = True  # local models decode concurrent replies together
    _opened: dict[tuple[str, str | tuple[str, ...] | None], Model] = field(
        default_factory=dict, repr=False)

    @classmethod
    def start(cls, settings: RunSettings | None = None, progress_label: str = "", *,
              batched: bool = True) -> Session:
        """Open the cache and make a runner; progress shows when the settings ask for it.
        `batched=False` makes local models reply one at a time (`verstehen ask`)."""
        settings = settings or RunSettings()
        runner = Runner(
            Cache(settings.cache_path()),
            max_connections=settings.max_connections,
            retry=RetryPolicy(max_attempts=settings.max_attempts),
            progress=make_progress(progress_label, enabled=settings.progress),
        )
        return cls(runner, threads=settings.threads, timeout=settings.timeout,
                   api_key_env=settings.api_key_env, server_kind=settings.server_kind,
                   reasoning_budget=settings.reasoning_budget, batched=batched)

    def open_model(self, model: str | Model, *,
                   base_url: str | Sequence[str] | None = None) -> Model:
        """The model named `provider/name` (checking first that an explicit base URL answers),
        or a Model object as given (the caller keeps it: the session will not close it).

        Several base URLs are replicas of one openai/ model: each gets `max_connections`
        calls at once, and one that cannot be reached now is said in a line on stderr (its
        calls go to the others). Asking again for the same name and base URL returns the model
        already open (a model judging itself is one instance, not two copies of its weights).
        """
        if not isinstance(model, str):
            return model
        urls = one_or_several(base_url)
        if (model, urls) in self._opened:
            return self._opened[(model, urls)]
        provider, _ = split_name(model)
        remote: RemoteSettings = {"timeout": self.timeout, "api_key_env": self.api_key_env,
                                  "reasoning_budget": self.reasoning_budget}
        if provider == "openai":
            remote["server_kind"] = self.server_kind
            remote["endpoint_limit"] = self.runner.connection_limit()
        if urls is not None:
            if provider == "local":
                raise UserError("--base-url is for openai/ and anthropic/ models, not local/")
            if isinstance(urls, tuple) and provider != "openai":
                raise UserError(f"several --base-url are replicas of one openai/ model, not "
                                f"of {model}: give one")
            if unreachable := check_endpoints(urls):
                print(f"verstehen: {unreachable}", file=sys.stderr)
            opened = get_model(model, base_url=urls, **remote)
            if (check_listed := getattr(opened, "check_listed", None)) is not None:
                check_listed()  # one stderr line where the server lists other models only
        elif provider == "local":
            # --max-connections is the replies decoded together
            opened = get_model(model, threads=self.threads, batched=self.batched,
                               sequences=self.runner.connection_limit() or DEFAULT_SEQUENCES)
        else:
            opened = get_model(model, **remote)
        self.models.append(opened)
        self._opened[(model, urls)] = opened
        return opened

    async def close(self) -> None:
        """Close the models it opened, progress and the cache."""
        for model in self.models:
            await model.aclose()
        self.runner.progress.close()
        await self.runner.cache.aclose()


def check_openable(model: str, *, base_url: str | Sequence[str] | None = None,
                   api_key_env: str | None = None) -> None:
    """Refuse in one line, before any run folder is made, a served model that could not be
    opened: its key is not set, or none of its base URLs can be reached."""
    provider, _ = split_name(model)
    if provider == "litellm":
        from verstehen.models.litellm_api import check_key  # LiteLLM is an extra

        check_key(model, base_url if isinstance(base_url, str) else None, api_key_env)
        return
    if provider not in KEY_OF:
        return
    urls = endpoint_list(base_url)
    for url in urls or (None,):
        api_key(*KEY_OF[provider], url, api_key_env, provider)
    if urls:
        check_endpoints(urls if len(urls) > 1 else urls[0])


async def in_session(settings: RunSettings, label: str,
                     body: Callable[[Session], Awaitable[T]],
                     session: Session | None = None) -> Timed[T]:
    """Open a session, run `body(session)`, close it; the value with seconds and usage.

    Given an open `session` (one job asking several steps with one model load and one progress
    line), run in it and leave it open; the usage counts this body's calls only.
    """
    own = session is None
    session = session or Session.start(settings, label)
    session.runner.count_endpoints()
    before = {name: replace(counts) for name, counts in session.runner.usage.items()}
    started = time.monotonic()
    # counted apart: the steps of a job may run at once in one session (the audit's lenses)
    with counting() as tally:
        try:
            with marked_on_error():
                value = await body(session)
        finally:
            if own:
                await session.close()
    session.runner.count_endpoints()
    usage = {name: counted(counts.since(before.get(name)), tally[name])
             for name, counts in session.runner.usage.items() if name in tally}
    return Timed(value, round(time.monotonic() - started, 1),
                 {name: counts for name, counts in sorted(usage.items()) if counts.calls})
