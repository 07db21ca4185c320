"""The `echo/` provider: `echo/parity` answers the parity domain's questions right, by reading
the number off the prompt; any other `echo/NAME` replies with the prompt itself."""

from __future__ import annotations

import re

from verstehen.models import (
    Capabilities,
    Completion,
    GenerateParams,
    Message,
    ProviderInfo,
    ProviderPlugin,
    ProviderSettings,
    Usage,
)

_IS_EVEN = re.compile(r"(?:Is (\d+) an even number|Does 2 divide (\d+))")
_BETWEEN = re.compile(r"between (\d+) and (\d+)")
_LAST_DIGIT = re.compile(r"last digit of (\d+) so that (?:the number|it) becomes (even|odd)")


def solve_parity(prompt: str) -> str:
    """The right reply to a parity question (worked out by reading its number), else "I don't
    know"."""
    if match := _IS_EVEN.search(prompt):
        number = int(match.group(1) or match.group(2))
        return "ANSWER: " + ("Yes" if number % 2 == 0 else "No")
    if match := _BETWEEN.search(prompt):
        low = int(match.group(1))
        return f"ANSWER: {low + low % 2}"
    if match := _LAST_DIGIT.search(prompt):
        number = int(match.group(1))
        return f"ANSWER: {number - number % 10 + (0 if match.group(2) == 'even' else 1)}"
    return "I don't know."


class EchoModel:
    """A Model answering from the prompt alone (see the module doc)."""

    def __init__(self, model: str, settings: ProviderSettings) -> None:
        self.name = f"echo/{model}"
        self.capabilities = Capabilities(generate=True, logprobs=False, note="test provider")
        self.max_connections = 4
        self._model = model
        self._base_url = settings.base_url

    def identity(self) -> dict[str, str]:
        """Provider and model (and the base URL, when one was given)."""
        return {"provider": "echo", "model": self._model,
                **({"base_url": self._base_url} if self._base_url else {})}

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """The reply to the last message: solved (echo/parity) or echoed."""
        prompt = messages[-1]["content"]
        text = solve_parity(prompt) if self._model == "parity" else prompt
        return Completion(text, "stop", Usage(len(prompt.split()), len(text.split())))

    async def logprobs(self, context: str, continuations: list[str]) -> list[float]:
        """Not offered (capabilities say so)."""
        raise NotImplementedError("the echo provider does not score continuations")

    async def aclose(self) -> None:
        """Nothing to release."""


PROVIDER = ProviderPlugin(
    ProviderInfo("echo", "echo/parity (answers parity questions) or echo/NAME (repeats the "
                 "prompt)", None, "generate; answers from the prompt, no network"),
    EchoModel)
