"""The echo-consistency procedure, its parameters, its typed result, and the run folder."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from verstehen.engine.lifecycle import Context, Made, Started, run_method
from verstehen.engine.session import RunSettings, Session
from verstehen.engine.store import RunStore
from verstehen.methods.options import (
    SHARED,
    Options,
    Range,
    api_functions,
    config_values,
    option,
    options_class,
)
from verstehen.models import DEFAULT_MODEL, model_name
from verstehen.models.base import GenerateParams, Message, Model
from verstehen.results import RunOutcome

COMMAND = "echo"  # run.json's command: `verstehen echo`
PROMPTS = ("Name a colour.", "Say a number from 1 to 10.", "Name an animal.",
           "Name a fruit.", "Give a word that rhymes with cat.")
SAMPLES = 2  # each prompt is asked this many times


@options_class
class EchoOptions(Options):
    """The parameters of `verstehen echo` and `echo()`."""

    model: str | Model = option(default=DEFAULT_MODEL, help="provider/model", flag=SHARED,
                                kw_only=False)
    prompts: int = option(default=3, help=f"the first N of {len(PROMPTS)} short prompts",
                          range=Range(1, len(PROMPTS)))
    temperature: float = option(default=1.0, help="sampling temperature, above 0 (at 0 both asks "
                                "would be one cached call)", range=Range(0, 10, low_open=True))


@dataclass(frozen=True)
class EchoResult(RunOutcome):
    """An echo-consistency run: of `prompts` asked twice, `identical` got the same reply both
    times (`share` of them); `failed_calls` calls failed after every retry."""

    model: str
    prompts: int
    identical: int
    share: float
    failed_calls: int

    def text(self) -> str:
        """What `verstehen echo` prints."""
        return (f"{self.identical} of {self.prompts} prompts answered the same twice "
                f"(share {self.share:.2f}); run folder {self.run_dir}")


async def run_echo(options: EchoOptions, settings: RunSettings) -> EchoResult:
    """Ask the model each of the first `prompts` prompts twice into one run folder; the share
    answered the same both times."""
    params = GenerateParams(temperature=options.temperature, max_tokens=16)

    async def start(session: Session) -> Started[Model]:
        opened = session.open_model(options.model, base_url=settings.base_url)
        return Started({**config_values(options), "base_url": settings.base_url}, 0,
                       [opened], opened)

    async def ask(context: Context[Model]) -> None:
        async def one(index: int, sample: int) -> None:
            messages: list[Message] = [{"role": "user", "content": PROMPTS[index]}]
            got = await context.generate(context.state, messages, params, sample=sample)
            context.record({"prompt": index, "sample": sample, "error": got.error,
                            "text": got.value.text if got.ok else None})

        await asyncio.gather(*(one(i, s) for i in range(options.prompts)
                               for s in range(SAMPLES)))

    def finish(store: RunStore, model: Model, made: Made) -> EchoResult:
        records = list(store.records())
        replies: dict[int, list[str | None]] = {}
        for record in records:
            replies.setdefault(record["prompt"], []).append(record["text"])
        identical = sum(len(texts) == SAMPLES and None not in texts and len(set(texts)) == 1
                        for texts in replies.values())
        return EchoResult(model=model_name(options.model), prompts=options.prompts,
                          identical=identical, share=identical / options.prompts,
                          failed_calls=sum(r["error"] is not None for r in records),
                          run_dir=made.run_dir, seconds=made.seconds, usage=made.usage)

    return await run_method(settings, command=COMMAND, label=f"echo {model_name(options.model)}",
                            start=start, ask=ask, finish=finish)


echo_async, echo = api_functions(EchoOptions, run_echo, "echo")
