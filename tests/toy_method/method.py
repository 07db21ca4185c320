"""Echo consistency as `verstehen` knows it: `verstehen echo` and the run folders it makes.

Its command, flags (with their ranges), handler and report section are derived from this
declaration; its folder holds no argparse code and no HTML."""

from __future__ import annotations

from toy_method.rows import ECHO_ROWS
from toy_method.run import EchoOptions, EchoResult, echo, run_echo
from verstehen.methods.contract import Method, RunKind

ECHO = RunKind(words=("echo",), result=EchoResult, options=EchoOptions, entry=run_echo,
               api=echo, rows=ECHO_ROWS, example="toy_method.example:example_run",
               help="echo consistency: is a prompt answered the same twice?",
               headline=lambda r: f"{r.identical} of {r.prompts} answered the same twice")
METHOD = Method("echo", (ECHO,))
