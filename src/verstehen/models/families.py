"""OpenAI's model families as its documentation describes what they take on /chat/completions
(the README's table under **Reasoning models** gives each row's source).

A family is known by its name only where the name is OpenAI's own (on api.openai.com, and once
a server's 400 shows that it speaks OpenAI's reasoning API); anywhere else each parameter is
learnt from the 400 that refuses it (`models/chat_request.py`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    """What a family takes: `max_completion_tokens` instead of `max_tokens`, a temperature
    other than 1, stop sequences, the system role; and whether it reasons unless asked not to
    (then it gets a reasoning budget by default)."""

    label: str
    completion_cap: bool = True
    temperature: bool = False
    stop: bool = True
    system: bool = True
    reasons: bool = True


# o1-mini and o1-preview: no system messages either (400 on messages[0].role)
O1_MINI = Family("o1-mini and o1-preview", system=False)
O1 = Family("o1")
# "stop: Not supported with latest reasoning models o3 and o4-mini" (the API reference); gpt-5
# refuses it too ("Unsupported parameter: 'stop' is not supported with this model.")
O3 = Family("o3, o4-mini and gpt-5", stop=False)
# gpt-5.1 and later reason only when asked (reasoning_effort defaults to "none"), and then take
# a temperature; their codex and pro models reason by default, as gpt-5 does
GPT_5_1 = Family("gpt-5.1 and later", temperature=True, reasons=False)
_GPT_5 = re.compile(r"gpt-5(?:\.(\d+))?(?![\d.])")


def openai_family(model: str) -> Family | None:
    """The family of one of OpenAI's model names; None for a chat model (gpt-4o, gpt-4.1,
    gpt-5-chat-latest) or a name OpenAI does not use."""
    name = model.lower()
    if "-chat" in name:
        return None
    if name.startswith(("o1-mini", "o1-preview")):
        return O1_MINI
    if name.startswith("o1"):
        return O1
    if name.startswith(("o3", "o4")):
        return O3
    found = _GPT_5.match(name)
    if found is None:
        return None
    later = found.group(1) is not None and int(found.group(1)) >= 1
    return GPT_5_1 if later and not re.search(r"-(codex|pro)\b", name) else O3
