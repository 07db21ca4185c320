"""A tiny plugin package for the tests: a provider `echo/` that answers from the prompt alone,
with no network (`provider.py`), and a concept domain `parity` with one exactly-graded concept,
`parity/even` (`parity.py`). The tests install it by writing its dist-info beside it."""
