"""Child side of `sandbox.py`: a trusted supervisor and the runner it forks for the program.

Run as ``python -I -S -B sandbox_child/`` (this folder: its modules import each other by
plain name); standard library only, never imported by the
parent. The supervisor reads the job (a length line, then JSON) from stdin, forks the runner,
and only then reads the run's nonce from stdin. It never runs the program's code: it reads the
runner's messages from a pipe, checks them (untrusted), and writes one frame
``<nonce> <length>\n<JSON>`` to its stdout. The runner closes everything it inherited, confines
itself with the layers the job names, sends the list of layers in force, and only then compiles
the program and calls it on each input, one message per output. The layers are described in
`sandbox.py`."""

import sys

from supervisor import main  # loads every module of this folder

del sys.path[0]  # the folder itself: a program's imports search the standard library only

if __name__ == "__main__":
    main()
