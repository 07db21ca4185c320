"""The engine: every model call goes through the runner, which goes through the cache."""
