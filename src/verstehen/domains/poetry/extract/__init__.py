"""Reading a poem, a word, a word pair, or a blank's replacement out of a model's reply.

Where the answer stands follows the project's rule (`verstehen.reading`): a leading
`<think>...</think>` block is dropped (a reply that ends inside it reads as nothing), and when
the reply writes a flag that introduces its final answer ("Final answer:", "**Answer:**",
"Final poem:", "Output:", "<OUTPUT>", "Final answer (choose one):", and for a word, a pair or a
blank also "Word:", "Replacement:"; text after the flag on its line counts), the answer is read
in `reading.answer_regions`, the first that yields one: after the last flag (up to a
`</OUTPUT>`); then, when nothing follows the last flag, between the last two flags or right
before the last (there the answer must end where the flag begins: a poem with no commentary
after it, a word or blank alone on the last line); and when the last flag closes a pair and
only remarks follow it ("<OUTPUT> poem <OUTPUT> This meets every condition."), between the
two. Any other text after the last flag is the answer's region, and what stands before the flag
a draft. Inside a region, the last ``` code fence is read when there
is one. So a reply that reasons or drafts first is read at its final answer.

What a person reads, in every reader: markdown emphasis is not text (`**fa**ther` is "father",
`**M**oonlight's` is "Moonlight's", `*"press"*` is "press"), nor are blockquote ">" marks.
- `extract_poem`: lines are stripped of blockquote ">", list bullets, emphasis, wrapping quotes
  (on the whole text, on a line that has one at both ends, or around the whole poem inside its
  emphasis) and a trailing syllable annotation ("(5)", "(5 syllables)", "- 7 syllables").
  Leading lines are dropped while they look like a preamble: ending in ":" (emphasis aside),
  starting "here is"/"here's"/"sure"/"certainly", over 100 characters (a paragraph of
  reasoning: no line of verse is that long), a horizontal rule ("---"), or a title. A title
  is a markdown heading, a "Title: ..." line, a short line that names the form ("Haiku",
  "Autumn Haiku", "Sonnet of the Glade", "Sonnet 18", "Haiku: Rain"), or a short line set
  apart by its markup (wholly bold, or wholly quoted, with no verse punctuation , ; . ! ? at
  its end) that a blank line follows or whose next line is not marked the same way: so
  `**Haiku**` over the verse and `"A Thankful Heart"` are titles, while the first line of a
  poem whose every line is bold is verse, and so is a first line in italics. Inside the poem,
  headings and lines that name a part of it ("**Quatrain 1**", "(Couplet)") are dropped. The
  poem runs through blank-line-separated blocks and stops before the first later block that
  looks like commentary: one with a line over 100 characters, or starting "This ", "Note",
  "Explanation", "In this", "The poem", "The haiku", "The sonnet", "Syllable", "Rhyme scheme",
  "I hope", a label such as "Theme:", "Form:", "Meter:", "Syllables:", a horizontal rule, or a
  line wholly in parentheses or brackets ("(Theme: ...)").
- `extract_word`: the first non-empty line, after an optional "Answer:"/"Word:" label (leading
  lines dropped, while another follows, that are lead-ins as above); the first quoted or bold
  span in it when there is one (`**"glow"**`, `*"press"*`), else the line itself when it is one
  word. `extract_words`: two or three words standing there instead ("ice cream"): an answer,
  but not one word.
- `extract_pair`: among the distinct pairs written "a" and "b" (straight or curly quotes,
  emphasis aside), the one standing on a line of its own, else the only one; when no quoted pair
  is written, a line holding only two words joined by "and", "&", "/", "→" or a spaced dash,
  after an optional short label ("dump → jump", "Slant rhyme: press - dress"). Two words joined
  by a comma are not read as a pair (verse has such lines).
- `extract_fill`: the one line that remains after leading lead-ins (as for a word), when
  whatever follows it is commentary: a note wholly in parentheses or brackets on the next lines,
  or later blocks that start as commentary does after a poem. An optional "Answer:" label,
  emphasis, a blockquote mark, a syllable annotation and wrapping quotes are removed; a
  sentence about the blank that names one replacement in bold or quotes ("The blank could be
  filled with **world**.") gives that replacement. Two lines or more otherwise (alternatives
  joined by "or", a list) are not one replacement (None; `why_no_fill` says why).
"""

from verstehen.domains.poetry.extract.common import unemphasized
from verstehen.domains.poetry.extract.fill import extract_fill, why_no_fill
from verstehen.domains.poetry.extract.poem import extract_poem
from verstehen.domains.poetry.extract.words import extract_pair, extract_word, extract_words

__all__ = ["extract_fill", "extract_pair", "extract_poem", "extract_word", "extract_words",
           "unemphasized", "why_no_fill"]
