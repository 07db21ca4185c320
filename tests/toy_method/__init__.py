"""Echo consistency: a fifth method, in the tests, as proof of the method contract.

It asks a model each of N short prompts twice (two samples at a temperature above 0) and
reports the share of prompts answered the same both times. Everything it is lives in this
folder: its procedure, parameters and result (`run.py`), how its folders are exported
(`rows.py`), a small example run for the tests (`example.py`) and its declaration
(`method.py`), from which its command, flags, handler and report section are derived; one line
registers it (`verstehen.methods.registry.register(METHOD)`; a package would name METHOD in an
entry point of group `verstehen.methods` instead; built in, a line of `BUILT_IN`).
"""
