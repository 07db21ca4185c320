"""Plugins that try to break the rest of `verstehen` (issue 43), each named by an entry point in
tests/plugins/test_hostile_plugins.py: `exits` ends the process at import, `interrupts` is
interrupted as by Ctrl-C, `clashing` declares commands `verstehen` has, `unprintable` raises
what cannot be printed, `escapes` holds terminal escape sequences, and `boom` is a concept
domain whose tasks raise."""
