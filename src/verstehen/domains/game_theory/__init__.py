"""Game theory, graded exactly: games with Fraction payoffs, checkers, generators, parsers and
the use-task items of its concepts."""
