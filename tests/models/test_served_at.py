"""`NAME@URL` read in one place (audit and imagine answer): where the name ends, which server
each model of a list is called at, and the name each goes by in a table."""

from __future__ import annotations

import pytest

from verstehen.errors import UserError
from verstehen.methods.imagination.run import model_specs
from verstehen.models.served_at import (
    ServedModel,
    column_names,
    has_url,
    served_models,
    split_at_url,
)
from verstehen.testing.scripted import ScriptedModel

URL, OTHER = "http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1"


@pytest.mark.parametrize(("text", "want"), [
    (f"openai/m@{URL}", ("openai/m", URL)),
    ("openai/m@https://example.org/v1", ("openai/m", "https://example.org/v1")),
    # a dated model name keeps its own @: the name ends at the @ that starts a URL
    (f"anthropic/claude-x@20240620@{URL}", ("anthropic/claude-x@20240620", URL)),
    ("anthropic/claude-x@20240620", ("anthropic/claude-x@20240620", None)),
    ("openai/m@ftp://10.0.0.1/v1", ("openai/m@ftp://10.0.0.1/v1", None)),
    ("local/smollm2-135m", ("local/smollm2-135m", None)),
])
def test_the_name_ends_at_the_at_that_starts_a_url(text: str, want: tuple) -> None:
    assert split_at_url(text) == want
    assert has_url(text) is (want[1] is not None)


@pytest.mark.parametrize(("text", "needle"), [
    ("openai/m@http://", r"the URL of openai/m: .http://. is not an http\(s\) URL"),
    ("openai/m@http://127.0.0.1:99999/v1", "no port"),
    (f"local/smollm2-135m@{URL}", "runs in-process"),
])
def test_a_bad_url_or_a_local_model_with_one_is_one_line(text: str, needle: str) -> None:
    with pytest.raises(UserError, match=needle) as caught:
        split_at_url(text)
    assert "\n" not in str(caught.value)


def test_a_refusal_hides_the_urls_password() -> None:
    with pytest.raises(UserError) as caught:
        split_at_url("openai/m@http://user:hunter2@127.0.0.1:0/v1")
    assert "hunter2" not in str(caught.value)


def test_a_url_with_credentials_is_refused() -> None:
    """Credentials in a URL would go as a Basic login in place of the key (issue 43)."""
    with pytest.raises(UserError, match=r"the URL of openai/m: http://10\.0\.0\.1:8000/v1 is "
                                        r"given with a user name or password.*--api-key-env"):
        split_at_url("openai/m@http://user:pw@10.0.0.1:8000/v1")


def test_base_url_serves_the_served_models_without_their_own() -> None:
    scripted = ScriptedModel("scripted/s")
    served = served_models(["local/a", "openai/b", f"openai/c@{OTHER}", "anthropic/d",
                            scripted], URL)
    assert served == [ServedModel("local/a", None), ServedModel("openai/b", URL),
                      ServedModel("openai/c", OTHER), ServedModel("anthropic/d", URL),
                      ServedModel(scripted, None)]
    # replicas given as a list are one tuple of URLs
    assert served_models(["openai/b"], [URL, OTHER]) == [ServedModel("openai/b", (URL, OTHER))]
    assert served_models(["openai/b"]) == [ServedModel("openai/b", None)]


def test_imagine_answer_reads_models_with_the_same_parser() -> None:
    assert model_specs([f"openai/m@{URL}", "local/a", "openai/n"], OTHER) == [
        ("openai/m", URL), ("local/a", None), ("openai/n", OTHER)]
    assert model_specs(None, None) == [("local/smollm2-135m", None)]


def test_columns_are_names_unless_two_share_one() -> None:
    assert column_names(served_models(["local/a", f"openai/a@{URL}", "openai/b"], OTHER)) == [
        "local/a", "openai/a", "openai/b"]
    # one name at two servers: host:port tells them apart
    assert column_names(served_models([f"openai/m@{URL}", f"openai/m@{OTHER}"])) == [
        "openai/m@127.0.0.1:8000", "openai/m@127.0.0.1:8001"]
    # ... where host:port does not, the whole URL does
    same = ["openai/m@http://10.0.0.1:80/a", "openai/m@http://10.0.0.1/b"]
    assert column_names(served_models(same)) == [
        "openai/m@http://10.0.0.1:80/a", "openai/m@http://10.0.0.1/b"]
    assert column_names(served_models(["openai/m@http://[::1]:8000/v1", f"openai/m@{URL}"])) \
        == ["openai/m@[::1]:8000", "openai/m@127.0.0.1:8000"]
    # a served model without a URL of its own beside one with it keeps the bare name
    assert column_names(served_models(["openai/m", f"openai/m@{URL}"])) == [
        "openai/m", "openai/m@127.0.0.1:8000"]
