"""Echo consistency as `verstehen` knows it: `verstehen echo` and the run folders it makes."""

from __future__ import annotations

from toy_method import html
from toy_method.cli import add_parsers
from toy_method.run import EchoOptions, EchoResult, echo
from verstehen.methods.contract import Method, RunKind

ECHO = RunKind(words=("echo",), result=EchoResult, section=html.section,
               headline=lambda r: f"{r.identical} of {r.prompts} answered the same twice",
               options=EchoOptions, api=echo)
METHOD = Method("echo", add_parsers, (ECHO,))
