"""The `verstehen` command line: a thin face over the methods' entry points.

The entry point is `verstehen.cli.main:main`. This package imports nothing itself: a method's
`cli.py` imports `verstehen.cli.flags`, and a package that imported `main` would run every
command module from inside that import (an import cycle through this file).
"""
