"""Text from run folders, models and servers is shown with its control and format characters
escaped (`text/terminal.py`): on the terminal (`terminal_line`, `terminal_text`) and in the
report (`report/markup.py`'s elements and the records' panels)."""

from __future__ import annotations

import re
import sys
import unicodedata

import pytest

from verstehen.report.html import Book, RecordView
from verstehen.report.markup import el
from verstehen.text.terminal import UNSAFE, cut, shown, terminal_line, terminal_text

from pages import decode

BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
        "\u2069", "\u200e", "\u200f", "\u061c"]
INVISIBLE = ["\u200b", "\u2060", "\ufeff", "\u00ad", "\u180e", "\U000e0041", "\u2028",
             "\u2029"]
JOINERS = ["\u200c", "\u200d"]


def escaped(char: str) -> str:
    code = ord(char)
    return (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000
            else f"\\U{code:08x}")


def test_the_escaped_characters_are_every_cc_cf_cs_zl_zp_there_is() -> None:
    """UNSAFE lists the categories' characters by hand (a regular expression cannot name a
    category); it holds every one Python's Unicode database has, and no other (but a few this
    database does not assign yet, format characters of a later Unicode)."""
    unsafe = re.compile(f"[{UNSAFE}]")
    wanted = {"Cc", "Cf", "Cs", "Zl", "Zp"}
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        category = unicodedata.category(char)
        assert bool(unsafe.match(char)) == (category in wanted) or (
            category == "Cn" and unsafe.match(char)), (hex(code), category)


@pytest.mark.parametrize("char", BIDI + INVISIBLE + JOINERS)
def test_a_line_escapes_every_format_character(char: str) -> None:
    assert terminal_line(f"gpt{char}4") == f"gpt{escaped(char)}4"


@pytest.mark.parametrize("char", BIDI + INVISIBLE)
def test_a_reply_escapes_bidi_and_invisible_characters(char: str) -> None:
    assert terminal_text(f"a{char}b\nc") == f"a{escaped(char)}b\nc"


def test_a_reply_keeps_its_joiners_newlines_and_tabs() -> None:
    family = "\U0001f469\u200d\U0001f469\u200d\U0001f467"  # one emoji, joined
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # a non-joiner between words
    assert terminal_text(f"{family}\t{persian}\n") == f"{family}\t{persian}\n"
    assert terminal_line(family) == "\U0001f469\\u200d\U0001f469\\u200d\U0001f467"


def test_controls_are_escaped_as_before() -> None:
    assert terminal_text("a\x00b\x7fc\x85d\ttab\nline") == "a\\x00b\\x7fc\\x85d\ttab\nline"
    assert terminal_line("é 漢字\ttab\nline\ud800") == "é 漢字\\ttab\\nline\\ud800"
    assert shown("a\rb\u202e", keep="\r") == "a\rb\\u202e"


def test_a_label_in_the_page_escapes_format_characters_but_not_white_space() -> None:
    made = str(el("td", f"name{''.join(BIDI + INVISIBLE + JOINERS)}\n\tend",
                  title="x\u202ey"))
    assert made.startswith('<td title="x\\u202ey">name\\u202a\\u202b')
    assert made.endswith("\\u200c\\u200d\n\tend</td>")
    assert not any(char in made for char in BIDI + INVISIBLE + JOINERS)


def test_a_records_panel_keeps_a_replys_joiners_only() -> None:
    book = Book()
    book.record("r:0", RecordView("title\u202e", "asked\u2066", "a \U0001f469\u200d\U0001f52c"
                                  " b\u200b\x1b[2J", "right\u200d", "why\u202a"))
    book.group("group\u202e", [0])
    data = decode(book.payload())
    assert data["records"] == [{
        "title": "title\\u202e", "question": "asked\\u2066",
        "answer": "a \U0001f469\u200d\U0001f52c b\\u200b\\x1b[2J", "grade": "right\u200d",
        "why": "why\\u202a"}]
    assert data["groups"][0]["title"] == "group\\u202e"


def test_cut_says_how_much_was_cut() -> None:
    assert cut("short") == "short"
    assert cut("m" * 1_000_000, 10) == "mmmmmmmmmm… (999,990 more characters)"
