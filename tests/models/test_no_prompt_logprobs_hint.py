"""What a refusal for want of prompt log-probabilities tells the user to do (issue 30 item 4):
each command's error names its own flag for answering by generation, on a real HTTP server
without /completions; the provider's text no longer names a flag that does not exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verstehen.errors import UnsupportedCapability
from verstehen.methods.imagination.api import imagine_answer, imagine_generate
from verstehen.models.openai_api import NO_LOGPROBS
from verstehen.testing.scripted import ScriptedModel
from verstehen.testing.stub_endpoints import StubEndpoints


def invented(prompt: str, n: int) -> str:
    """A well-formed question in the paper's template, number n."""
    topic = re.search(r"On the topic of (.+?),", prompt)
    return (f"Question: In {topic[1] if topic else 'science'}, what does Zorvian flux {n} "
            "obey?\nA. Dusk\nB. Mirrors\nC. The quiet law of rooms\nD. Salt\nAnswer: C")


@pytest.mark.parametrize("method", ["letter", "perplexity"])
def test_imagine_answers_likelihood_modes_name_the_generate_method(tmp_path: Path, method):
    """`imagine answer --method letter|perplexity` on such a server still fails (the
    behaviour is unchanged), and its one line names the way out, as a Python caller writes
    it (`method='generate'`; the command line says `--method generate`)."""
    folders = {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}
    counter = iter(range(10**6))
    generated = imagine_generate(ScriptedModel("scripted/qm",
                                               reply=lambda p: invented(p, next(counter))),
                                 topics="physics", per_topic=1, kinds="direct", **folders)
    with StubEndpoints(1) as stub, pytest.raises(UnsupportedCapability) as refused:
        imagine_answer(generated, models="openai/m", base_url=stub.urls[0], method=method,
                       shuffle=False, **folders)
    message = str(refused.value)
    assert message.startswith(f"{stub.urls[0]} gave no prompt log-probabilities for openai/m")
    assert message.endswith("method='generate'") and "\n" not in message


def test_the_providers_text_names_no_flag_of_its_own():
    """The old text ended "or pick answers by generation instead", a flag nowhere to be
    found; the commands add theirs (above, and tests/consistency)."""
    assert "pick answers" not in NO_LOGPROBS and "{server}" in NO_LOGPROBS
