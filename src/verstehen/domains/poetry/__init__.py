"""Poetic forms graded exactly: haiku, Shakespearean sonnet, rhymes, anapest, iambic pentameter.

`pronounce` (CMU Pronouncing Dictionary and marked estimates), `rhyme` and `meter` (the
definitions), `checks` (the checkers), `generate` (random instances), `tasks` (`POETRY_TASKS`).
"""
