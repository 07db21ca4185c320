"""A plugin module whose import fails."""

raise RuntimeError("this plugin fails on import")
