"""Echo consistency: a fifth method, in the tests, as proof of the method contract.

It asks a model each of N short prompts twice (two samples at a temperature above 0) and
reports the share of prompts answered the same both times. Everything it is lives in this
folder: its procedure and result (`run.py`), its command (`cli.py`), its report section
(`html.py`) and its declaration (`method.py`); one line registers it
(`verstehen.methods.registry.register(METHOD)`; a package would name METHOD in an entry point
of group `verstehen.methods` instead).
"""
