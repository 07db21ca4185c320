"""A scripted model for unit tests of engine logic (never the only test of a path)."""

from __future__ import annotations

from collections.abc import Callable

from verstehen.models.base import Capabilities, Completion, GenerateParams, Message, Usage


class ScriptedModel:
    """Answers from a function; raises whatever the script says, counting every call."""

    max_connections = 4
    capabilities = Capabilities(generate=True, logprobs=True)

    def __init__(self, name: str = "scripted/m",
                 script: Callable[[str, int], Exception | None] | None = None,
                 reply: Callable[[str], str] | None = None) -> None:
        self.name = name
        self._reply = reply or (lambda prompt: f"answer to {prompt}")
        self.calls: list[str] = []
        self.seeds: list[int] = []
        self._script = script or (lambda prompt, attempt: None)

    def identity(self) -> dict[str, str]:
        """Provider and name."""
        return {"provider": "scripted", "model": self.name}

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """Reply to the last message, unless the script raises for this attempt."""
        prompt = messages[-1]["content"]
        self.calls.append(prompt)
        self.seeds.append(params.seed)
        if (fault := self._script(prompt, self.calls.count(prompt))) is not None:
            raise fault
        return Completion(self._reply(prompt), "stop", Usage(len(prompt.split()), 3))

    async def logprobs(self, context: str, continuations: list[str]) -> list[float]:
        """Minus the length of each continuation."""
        self.calls.append(context)
        return [-float(len(c)) for c in continuations]

    async def aclose(self) -> None:
        """Nothing to close."""
