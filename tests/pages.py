"""Reading a report page in tests: its embedded records decoded as the page's script decodes
them, the links in its cells, and whether it is one self-contained document."""

from __future__ import annotations

import base64
import gzip
import html
import json
import re

from verstehen.report.html import Page

LINK = re.compile(r'<a href="#records" class="rec" data-g="(\d+)" title="(\d+) records?">'
                  r"(.*?)</a>")
BOOK = re.compile(r'<script type="application/octet-stream" id="book">(.*?)</script>')


def decode(payload: str) -> dict:
    """Base64 of gzipped JSON -> {"records": [...], "groups": [{"title", "records"}]}."""
    return json.loads(gzip.decompress(base64.b64decode(payload)))


def book(page: Page) -> dict:
    """A page's records and groups."""
    return decode(page.book.payload())


def book_in(text: str) -> dict:
    """The records and groups embedded in a written page."""
    found = BOOK.search(text)
    assert found, "no records in the page"
    return decode(found[1])


def linked(cell: str) -> tuple[str, int]:
    """A cell that is one link: its text and the group it opens."""
    found = LINK.fullmatch(cell)
    assert found, cell
    assert int(found[2]) > 0
    return html.unescape(found[3]), int(found[1])


def opened(data: dict, group: int) -> list[dict]:
    """The records a group opens, in order."""
    return [data["records"][i] for i in data["groups"][group]["records"]]


def self_contained(text: str) -> None:
    """One document with no address to fetch."""
    assert text.startswith("<!DOCTYPE html>") and text.count("<html") == 1
    assert not re.search(r'(?:src|href)\s*=\s*["\']?\s*(?:https?:)?//', text)
