"""The echo-consistency procedure, its typed result, and the run folder it writes."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from verstehen.engine.session import RunSettings, Session, in_session
from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.models import model_name
from verstehen.models.base import GenerateParams, Message
from verstehen.results import RunOutcome

COMMAND = "echo"  # run.json's command: `verstehen echo`
PROMPTS = ("Name a colour.", "Say a number from 1 to 10.", "Name an animal.",
           "Name a fruit.", "Give a word that rhymes with cat.")
SAMPLES = 2  # each prompt is asked this many times


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


async def run_echo(model: str, prompts: int, *, temperature: float = 1.0,
                   base_url: str | None = None,
                   settings: RunSettings | None = None) -> EchoResult:
    """Ask the model each of the first `prompts` prompts twice into one run folder; the share
    answered the same both times."""
    settings = settings or RunSettings()
    if not 1 <= prompts <= len(PROMPTS):
        raise UserError(f"prompts must be from 1 to {len(PROMPTS)}, not {prompts}")
    if temperature <= 0:
        raise UserError("temperature must be above 0: at 0 both asks are one cached call")
    params = GenerateParams(temperature=temperature, max_tokens=16)

    async def body(session: Session) -> RunStore:
        opened = session.open_model(model, base_url=base_url)
        store = settings.create_run(COMMAND, {"model": model, "prompts": prompts,
                                              "temperature": temperature,
                                              "base_url": base_url}, 0, [opened.identity()])

        async def ask(index: int, sample: int) -> None:
            messages: list[Message] = [{"role": "user", "content": PROMPTS[index]}]
            got = await session.runner.generate(opened, messages, params, sample_index=sample)
            store.append({"prompt": index, "sample": sample, "error": got.error,
                          "text": got.value.text if got.ok else None})

        await asyncio.gather(*(ask(i, s) for i in range(prompts) for s in range(SAMPLES)))
        return store

    timed = await in_session(settings, f"echo {model_name(model)}", body)
    store = timed.value
    records = list(store.records())
    replies: dict[int, list[str | None]] = {}
    for record in records:
        replies.setdefault(record["prompt"], []).append(record["text"])
    identical = sum(len(texts) == SAMPLES and None not in texts and len(set(texts)) == 1
                    for texts in replies.values())
    result = EchoResult(model=model, prompts=prompts, identical=identical,
                        share=identical / prompts,
                        failed_calls=sum(r["error"] is not None for r in records),
                        run_dir=store.path, seconds=timed.seconds, usage=timed.usage)
    store.write_summary(result.to_dict())
    return result
