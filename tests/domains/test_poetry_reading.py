"""The poem readers read what a person reads: titles, emphasis, word pairs, fills followed by a
remark, and where the final answer stands (`verstehen.reading`). Each expected value is what a
person reading the reply takes, written out by hand."""

from __future__ import annotations

import pytest

from verstehen.domains.base import Item
from verstehen.domains.poetry.extract import (
    extract_fill,
    extract_pair,
    extract_poem,
    extract_word,
    extract_words,
    why_no_fill,
)
from verstehen.domains.poetry.tasks import POETRY_TASKS

VERSE = "An old silent pond\nA frog jumps into the pond—\nSplash! Silence again."
PROSE = ("Let me count the syllables of each candidate word before I settle on one, since the "
         "line needs exactly five of them and the word has to fit.")  # over 100 characters


# ---------------------------------------------------------------- titles


@pytest.mark.parametrize("title", [
    "**Haiku**  ",  # bold, and names the form
    '"A Thankful Heart"',  # quoted, over unquoted verse
    "## Autumn",  # a markdown heading
    "Haiku",  # names the form, unmarked
    "Autumn Haiku",
    "Sonnet of the Verdant Glade",
    '**"The Pond"**',
    "**The Pond**",  # bold over plain verse
])
def test_a_title_directly_above_the_verse_is_not_a_line(title: str) -> None:
    assert extract_poem(f"{title}\n{VERSE}") == VERSE


@pytest.mark.parametrize(("reply", "first"), [
    # every line bold: the first is verse (DeepSeek V3 writes poems so)
    ("**The winds of change will rise again,**\n**they dance and twist, they spin and bend.**",
     "The winds of change will rise again,"),
    ("**An old silent pond**\n**A frog jumps into the pond**", "An old silent pond"),
    # a first line of dialogue, wholly quoted, ends as verse does
    ('"Where have you gone, my love?"\nasked the wind of the pond',
     "Where have you gone, my love?"),
    # italics alone are emphasis, not a title
    ("*An old silent pond*\nA frog jumps into the pond", "An old silent pond"),
    # names the form, but reads as a line of verse
    ("A haiku, a frog, a pond,\nand nothing more to say", "A haiku, a frog, a pond,"),
])
def test_a_first_line_of_verse_is_kept(reply: str, first: str) -> None:
    poem = extract_poem(reply)
    assert poem is not None and poem.splitlines()[0] == first
    assert len(poem.splitlines()) == 2


def test_real_reply_shapes() -> None:
    """Shapes of real replies (Potemkin benchmark), rewritten: a bold title over the verse, then
    an italic remark; a lead-in, a quoted title and a blank line; rules around a bold poem."""
    haiku = (f"<think>5-7-5, and the word.</think>\n\n**Haiku**  \n{VERSE}\n\n*The haiku uses "
             "first-person intimacy to evoke love, and ties the word to quiet, organic growth "
             "in nature.*")
    assert extract_poem(haiku) == VERSE
    titled = f'Here\'s a haiku about a pond:\n\n"A Quiet Pond"\n\n{VERSE}'
    assert extract_poem(titled) == VERSE
    ruled = ('Certainly! Here is one:\n\n---\n\n**"The winds of change will rise again,**\n'
             '**oh, rise again, oh, rise again!"**\n\n---\n\nThe repeated phrase carries it.')
    assert extract_poem(ruled) == ("The winds of change will rise again,\n"
                                   "oh, rise again, oh, rise again!")
    remark = f"**Haiku:**\n\n{VERSE}\n\n*(Theme: a pond, with dialogue.)*"
    assert extract_poem(remark) == VERSE


def test_labels_of_the_poem_s_parts_and_its_remarks_are_not_verse() -> None:
    sonnet = ("Title: Autumn\n\n**Quatrain 1**\nline a\nline b\n\n**Quatrain 2:**\nline c\n\n"
              "(Couplet)\nline d\n\n**Form:** a Shakespearean sonnet in iambic pentameter")
    assert extract_poem(sonnet) == "line a\nline b\nline c\nline d"
    assert extract_poem(f"{VERSE}\n\nSyllables: 5-7-5") == VERSE
    assert extract_poem(f"{VERSE}\n\nTheme (nature): a pond in autumn") == VERSE


# ---------------------------------------------------------------- emphasis


def test_emphasis_inside_words_is_not_text() -> None:
    assert extract_poem("My **fa**ther be**came**, a **man** made of **glass**,\n"
                        "His **eyes** once so **firm**") == (
        "My father became, a man made of glass,\nHis eyes once so firm")
    assert extract_poem("**M**oonlight's gleam,\nAcross the dust") == (
        "Moonlight's gleam,\nAcross the dust")
    assert extract_poem("A mirror *just* to frame\nthe __quiet__ sky") == (
        "A mirror just to frame\nthe quiet sky")
    assert extract_fill("the **qu**iet river") == "the quiet river"


def test_emphasis_does_not_split_an_asked_word() -> None:
    haiku = POETRY_TASKS["poetry/haiku"]
    item = Item("generate", None, {"word": "father"})
    reply = "My **fa**ther's old coat\nhangs by the door in the cold\nwaiting for his hands"
    assert haiku.grade(item, reply).outcome == "correct"


# ---------------------------------------------------------------- word pairs and words


@pytest.mark.parametrize("reply", [
    '*"press"* and *"dress"*',
    '**"press"** and **"dress"**',
    '**"press" and "dress"**',
    '"*press*" and "*dress*"',
    'A slant rhyme:\n\n- *"press"* and *"dress"*',
    "press → dress",
    "press / dress",
    "Slant rhyme: press - dress",
])
def test_a_pair_written_with_emphasis_or_an_arrow_is_read(reply: str) -> None:
    assert extract_pair(reply) == ("press", "dress")


def test_words_that_are_not_a_pair_stay_unread() -> None:
    assert extract_pair("worm, swarm").startswith("no word pair")  # type: ignore[union-attr]
    assert extract_pair("well-being").startswith("no word pair")  # type: ignore[union-attr]
    assert extract_pair("<think>a pair: \"x\" and \"y\"").startswith(  # type: ignore[union-attr]
        "the reply ends inside its reasoning")


@pytest.mark.parametrize("reply", ['*"glow"*', '**"glow"**', '"**glow**"',
                                   'My word is **"glow"**.', "> **glow**"])
def test_a_word_with_emphasis_around_quotes_is_read(reply: str) -> None:
    assert extract_word(reply) == "glow"


def test_a_few_words_are_an_answer_but_not_one_word() -> None:
    assert extract_word("ice cream") is None
    assert extract_words("**ice cream**") == "ice cream"
    assert extract_words("keep or sleep") == "keep or sleep"
    assert extract_words("there are many options here") is None


# ---------------------------------------------------------------- a blank's replacement


@pytest.mark.parametrize(("reply", "fill"), [
    ("to the STORE\n\nThe word \"to\" is unstressed, followed by \"the\" which is unstressed, "
     "and finally \"STORE\" which is stressed, creating the anapestic pattern.", "to the STORE"),
    ("Here is a replacement that makes it no haiku:\n\nabsolutely despise this\n\n"
     "(This makes the second line too long.)", "absolutely despise this"),
    ('"curl"  \n[Perfect rhymes like "curl" avoid a slant rhyme.]', "curl"),
    ("Behold the night\n\nThis line would break the rhyme scheme.", "Behold the night"),
    (f"{PROSE} A fitting choice is:\n\n**Yet here I stand, and now at last I’m free,**  \n\n"
     "This line satisfies the rhyme.", "Yet here I stand, and now at last I’m free,"),
    ("> **\"The grief remains,\"**", "The grief remains,"),
    ("Final answer: river\n\nThis meets every condition.", "river"),
    # a sentence about the blank, naming one replacement
    ("The blank could be filled with **world**.", "world"),
    ('The word that fills the blank is "silent".\n\n(It keeps five syllables.)', "silent"),
])
def test_a_fill_followed_by_a_remark_is_read(reply: str, fill: str) -> None:
    assert extract_fill(reply) == fill


def test_a_fill_among_alternatives_or_in_a_list_is_not_read() -> None:
    offered = ('Here is one:\n\n> **"The grief remains,"**\n\nThis line breaks the rhyme.\n\n'
               '**Final answer (choose one):**\n> *"The grief remains,"*\nor\n> *"Dust."*')
    assert extract_fill(offered) is None
    assert "alternatives" in why_no_fill(offered)
    listed = 'Some words that slant-rhyme:\n\n- "crimson"\n- "hidden"\n- "linen"'
    assert extract_fill(listed) is None
    assert why_no_fill(listed) == "a list of 3 options, where one replacement was asked for"
    assert extract_fill("river\n\nAn old river pond") is None  # two answers, no remark
    assert "reasoning" in why_no_fill("<think>The blank needs")


# ---------------------------------------------------------------- where the answer stands


def test_the_answer_after_the_last_flag_ends_at_a_closing_tag() -> None:
    reply = "<OUTPUT>\nline one\nline two\n</OUTPUT>\nThat is my poem, and the form holds."
    assert extract_poem(reply) == "line one\nline two"
    assert extract_word("<OUTPUT>glow</OUTPUT>") == "glow"


def test_the_answer_between_two_flags_when_only_a_remark_follows() -> None:
    paired = "<OUTPUT>\nline one\nline two\n<OUTPUT>\n\nThis meets every condition."
    assert extract_poem(paired) == "line one\nline two"
    assert extract_fill("<OUTPUT>\nriver\n<OUTPUT>\n\nThis keeps five syllables.") == "river"


def test_the_answer_right_before_a_trailing_flag() -> None:
    assert extract_poem("line one\nline two\n<OUTPUT>") == "line one\nline two"
    assert extract_word('Thinking of "snow".\nglow\n<OUTPUT>') == "glow"
    assert extract_fill("river\nFinal answer:") == "river"
    assert extract_pair('"press" and "dress"\n<OUTPUT>') == ("press", "dress")


def test_an_answer_with_text_between_it_and_the_flag_is_a_draft() -> None:
    assert extract_poem("line one\nline two\n\nThis is only a draft.\n<OUTPUT>") is None
    assert extract_word("glow would do here\n<OUTPUT>") is None
    assert extract_fill("river\nThis keeps the count.\nFinal answer:") is None


def test_text_after_the_last_flag_makes_what_stands_before_it_a_draft() -> None:
    reply = 'Draft: river\nFinal answer (choose one):\n"stream"\nor\n"brook"'
    assert extract_fill(reply) is None


def test_a_reply_cut_inside_its_reasoning_reads_as_nothing() -> None:
    cut = f"<think>\nHere is a draft:\n{VERSE}\n"
    assert extract_poem(cut) is None
    assert extract_word("<think>glow") is None
    assert extract_fill("<think>river") is None
