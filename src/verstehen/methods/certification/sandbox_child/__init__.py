"""The sandbox's child process, run as a folder (``python -I -S -B sandbox_child/``), never
imported by the parent: `supervisor`, `runner`, `protocol`, `layers`, `hook`; but for
`messages`, the types of what the two send each other, which only the parent loads."""
