"""`NAME@URL`: a model given with its own server (`openai/m@http://127.0.0.1:8000/v1`), as the
commands that take several models read it (`audit`, `imagine answer`); the rule that a
--base-url serves the served models given without one; and the names such models go by.

The name ends at the first `@` followed by `http://` or `https://`, so a model name may itself
hold an `@` (a dated model, `claude-x@20240620`); a URL holding credentials
(`http://user:pw@host/v1`) is refused (the key goes by --api-key-env). A local/ model runs
in-process: it takes no URL.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from verstehen.errors import UserError
from verstehen.models.base import Model, model_name
from verstehen.models.endpoints import one_or_several
from verstehen.models.remote import base_url_address, public_url

_AT_URL = re.compile(r"@(?=https?://)")
LOCAL = "local/"

BaseUrl = str | tuple[str, ...] | None


class ServedModel(NamedTuple):
    """A model (a name or a Model object) and the server it is called at (None: its provider's
    own, or in-process; several URLs: replicas of one openai/ model)."""

    model: str | Model
    base_url: BaseUrl


def split_at_url(text: str) -> tuple[str, str | None]:
    """`NAME@URL` as (NAME, URL), anything else as (text, None); UserError in one line for a
    URL that is not http(s) with a host and port, or for a local/ model given one."""
    found = _AT_URL.search(text)
    if found is None or found.start() == 0:
        return text, None
    name, url = text[:found.start()], text[found.end():]
    try:
        base_url_address(url)
    except ValueError as exc:
        raise UserError(f"the URL of {name}: {exc}") from None
    if name.startswith(LOCAL):
        raise UserError(f"{name} runs in-process on this machine: give it no @URL (NAME@URL "
                        "is for openai/ and anthropic/ models)")
    return name, url


def has_url(text: str) -> bool:
    """True for a model given as NAME@URL (well formed or not)."""
    found = _AT_URL.search(text)
    return found is not None and found.start() > 0


def served_models(models: Sequence[str | Model], base_url: str | Sequence[str] | None = None
                  ) -> list[ServedModel]:
    """Each model with its server: its own @URL; else `base_url` for a served model (openai/,
    anthropic/); else none (local/ models ignore `base_url`, and so do Model objects)."""
    shared = one_or_several(base_url)
    served: list[ServedModel] = []
    for model in models:
        if not isinstance(model, str):
            served.append(ServedModel(model, None))
            continue
        name, url = split_at_url(model)
        if url is not None:
            served.append(ServedModel(name, url))
        else:
            served.append(ServedModel(model, None if model.startswith(LOCAL) else shared))
    return served


def server_label(base_url: BaseUrl) -> str:
    """`host:port` of a base URL (of each, comma-separated, for replicas): what tells two
    servers of one model name apart in a table."""
    urls = () if base_url is None else (base_url,) if isinstance(base_url, str) else base_url
    labels = []
    for url in urls:
        host, port = base_url_address(url)
        labels.append(f"[{host}]:{port}" if ":" in host else f"{host}:{port}")
    return ",".join(labels)


def column_names(served: Sequence[ServedModel]) -> list[str]:
    """The name each model goes by beside the others: its name without the URL, unless
    another model has that name too; then its name@host:port (the whole URL, less any
    credentials, where host and port do not tell them apart either)."""
    names = [model_name(s.model) for s in served]
    shown = [f"{name}@{server_label(s.base_url)}" if s.base_url is not None
             and names.count(name) > 1 else name for name, s in zip(names, served, strict=True)]
    return [f"{name}@{_public(s.base_url)}" if s.base_url is not None
            and shown.count(label) > 1 else label
            for name, label, s in zip(names, shown, served, strict=True)]


def _public(base_url: str | tuple[str, ...]) -> str:
    urls = (base_url,) if isinstance(base_url, str) else base_url
    return ",".join(public_url(url) for url in urls)
