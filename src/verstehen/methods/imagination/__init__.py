"""Shared imagination (Zhou et al.): a question model invents questions about made-up concepts,
answer models answer them; correctness and answering rates per (QM, AM).

The command is `verstehen imagine`; from Python, `api.py` (`imagine_generate`, `imagine_answer`,
`imagine_matrix`, `imagine_analyze`)."""
