"""llama-cpp-python's OpenAI-compatible server with llama.cpp's extra buffer types off.

Same flags as `python -m llama_cpp.server`; `--model` may be `smollm2-135m` for the
embedded model. Needs the `server` extra of llama-cpp-python (installed by `.[test]`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import cast

from llama_cpp.server.__main__ import main as _untyped_server_main

from verstehen.models.embedded import EMBEDDED, embedded_path
from verstehen.models.local import without_extra_buffers

# llama-cpp-python leaves its server's entry point unannotated: it takes nothing, returns None
server_main = cast(Callable[[], None], _untyped_server_main)


def main() -> None:
    """Run the server in this process, loading the model safely on every CPU build."""
    argv = sys.argv[1:]
    for i, value in enumerate(argv[:-1]):
        if value == "--model" and argv[i + 1] in EMBEDDED:
            argv[i + 1] = str(embedded_path(argv[i + 1]))
    sys.argv = [sys.argv[0], *argv]
    with without_extra_buffers():
        server_main()


if __name__ == "__main__":
    main()
