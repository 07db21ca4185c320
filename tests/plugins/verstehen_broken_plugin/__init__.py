"""Plugin declarations that must be left out, one warning line each: a provider whose name is
taken (`TAKEN_PROVIDER`), a domain whose name is taken (`TAKEN_DOMAIN`), an object that is not
a declaration (`NOT_A_DOMAIN`); `explodes` raises when imported."""

from __future__ import annotations

from verstehen_echo_plugin.parity import EvenNumber
from verstehen_echo_plugin.provider import EchoModel

from verstehen.domains.plugins import ConceptDomain, PluginConcept
from verstehen.models import ProviderInfo, ProviderPlugin


class PoeticEvenNumber(EvenNumber):
    """The parity concept under a key of the built-in domain `poetry`."""

    key = "poetry/even-number"


TAKEN_PROVIDER = ProviderPlugin(ProviderInfo("openai", "openai/x", None, "nothing"), EchoModel)
TAKEN_DOMAIN = ConceptDomain("poetry", "Poems again", (
    PluginConcept("Even Poem", "A poem of an even number of lines.", PoeticEvenNumber()),))
NOT_A_DOMAIN = "a string"
