"""How one `openai/` model is asked on /chat/completions, and what it learns from the 400s of
its servers.

A request starts as a chat model's: `max_tokens`, the temperature asked, the stop sequences and
the system messages. On api.openai.com a name of a known family (`models/families.py`) starts
with what the family takes. A 400 that names one of these parameters changes it for the rest of
the model's life, once: `max_tokens` becomes `max_completion_tokens` (which counts hidden
reasoning too), a temperature is no longer sent (the model samples at 1), stop sequences are
no longer sent (the reply is cut at them here, as the server would have cut it), and system
messages go first in the user's message. When the name is a known family's, the first such
400 shows the server speaks OpenAI's API, and the family's whole set is taken at once. Each
change is said once on stderr and kept for the run's usage notes; the refused call is sent
again at once.

The cache key is the request the procedure asked for, not the one sent: it is made before the
call, when nothing may be learnt yet, and the same request to the same model meets the same
refusal, so a later run asking it again gets the stored reply (a sample, where the temperature
was not sent: the note says so).
"""

from __future__ import annotations

from typing import TypedDict

from verstehen.models.base import Completion, GenerateParams, Message
from verstehen.models.families import Family, openai_family
from verstehen.models.refusals import (
    MAX_TOKENS,
    STOP,
    SYSTEM,
    TEMPERATURE,
    FirstCall,
    Learned,
    cut_at_stop,
    refused_parameter,
    refused_why,
    system_in_user_turn,
)

SAMPLES = "so its answers are samples, not greedy, and only the cache reproduces them"
FIXED = f"its temperature is fixed at 1, {SAMPLES}"


class ChatRequest(TypedDict, total=False):
    """The body of one chat completion: the cap as the model takes it, and the temperature
    and stop sequences where they are sent."""

    model: str
    messages: list[Message]
    seed: int
    max_tokens: int
    max_completion_tokens: int
    temperature: float
    stop: list[str]


class ChatAsking:
    """What one `openai/` model sends: which cap, and whether the temperature, the stop
    sequences and the system role go as asked; learnt from 400s, each change made once."""

    def __init__(self, name: str, model: str, budget: int | None, official: bool) -> None:
        self.name, self.budget = name, budget
        self.family = openai_family(model)
        self.completion_cap = False
        self.sends = {TEMPERATURE: True, STOP: True, SYSTEM: True}
        self.learned = Learned()
        self.first = FirstCall()
        if official and self.family is not None:
            self._take(self.family, "known by its name on api.openai.com")

    def request(self, model: str, messages: list[Message], params: GenerateParams
                ) -> ChatRequest:
        """The body to send now for this call."""
        body: ChatRequest = {"model": model, "seed": params.seed, "messages": (
            list(messages) if self.sends[SYSTEM] else system_in_user_turn(messages))}
        cap = params.max_tokens + (self.budget or 0)
        if self.completion_cap:
            body["max_completion_tokens"] = cap
        else:
            body["max_tokens"] = cap
        if self.sends[TEMPERATURE]:
            body["temperature"] = params.temperature
        if params.stop and self.sends[STOP]:
            body["stop"] = list(params.stop)
        return body

    def finish(self, completion: Completion, params: GenerateParams) -> Completion:
        """The reply as the asked request would have ended it (cut at a stop sequence where
        none was sent)."""
        return completion if self.sends[STOP] else cut_at_stop(completion, params.stop)

    def learn(self, exc: BaseException, body: ChatRequest, server: str) -> bool:
        """True when `exc` is a 400 refusing a parameter `body` carried as asked, now changed
        (send the call again); False for any other error."""
        system = self.sends[SYSTEM] and any(m["role"] == "system"
                                            for m in body.get("messages", []))
        sent = [name for name, present in ((MAX_TOKENS, "max_tokens" in body),
                                           (TEMPERATURE, "temperature" in body),
                                           (STOP, "stop" in body), (SYSTEM, system))
                if present]
        refused = refused_parameter(exc, sent)
        if refused is None:
            return False
        why = refused_why(server, refused)
        if self.family is not None and not self._takes(self.family, refused):
            self._take(self.family, why)
        else:
            self._change(refused, why)
        return True

    @staticmethod
    def _takes(family: Family, parameter: str) -> bool:
        return {MAX_TOKENS: not family.completion_cap, TEMPERATURE: family.temperature,
                STOP: family.stop, SYSTEM: family.system}[parameter]

    def _room(self) -> str:
        if self.budget:
            return (f"max_completion_tokens is the answer budget + {self.budget} tokens for "
                    "its reasoning")
        if self.family is not None and not self.family.reasons:
            return "max_completion_tokens is the answer budget (it does not reason unless asked)"
        return ("max_completion_tokens is the answer budget alone (give --reasoning-budget N "
                "to leave it room to reason before it answers)")

    def _take(self, family: Family, why: str) -> None:
        """Send what `family` takes from now on, and say so in one line."""
        parts = []
        if family.completion_cap and not self.completion_cap:
            self.completion_cap = True
            parts.append(self._room())
        for parameter, takes, said in (
                (TEMPERATURE, family.temperature, FIXED),
                (STOP, family.stop, "stop sequences are not sent (its replies are cut at them "
                                    "here)"),
                (SYSTEM, family.system, "system messages go first in the user's message")):
            if not takes and self.sends[parameter]:
                self.sends[parameter] = False
                parts.append(said)
        if family.temperature and self.sends[TEMPERATURE]:
            parts.append("its temperature is sent as asked")
        self.learned.record(family.label, f"{self.name} takes the parameters of OpenAI's "
                                          f"{family.label} models ({why}): " + "; ".join(parts))

    def _change(self, parameter: str, why: str) -> None:
        """Change one refused parameter from now on, and say so in one line."""
        if parameter == MAX_TOKENS:
            self.completion_cap = True
            said = f"max_completion_tokens is sent instead: {self._room()}"
        else:
            self.sends[parameter] = False
            said = {TEMPERATURE: f"no temperature is sent: {FIXED}",
                    STOP: "no stop sequences are sent: its replies are cut at them here",
                    SYSTEM: "its system messages go first in the user's message"}[parameter]
        self.learned.record(parameter, f"{self.name}: {why}, so {said}")
