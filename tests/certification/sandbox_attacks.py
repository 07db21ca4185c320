"""Attack programs against the sandbox, and the harness that runs them (test_sandbox_attacks.py).

``python sandbox_attacks.py SECRET CONFIG...`` runs every attack under each configuration (a
comma-separated set of layers, "none" for no layer) and prints one JSON document:
{"layers": {config: layers in force}, "results": {config: {attack: outcome}}}. An outcome says
whether the attack was contained (its outside effect did not happen) and whether the caller
crashed (run_program or the explanation grader raised, or the run outlived its wall clock).
The harness is its own process so that its initial environment (OPENAI_API_KEY) and command
line (SECRET) are what /proc shows a program that goes looking for its caller's secrets.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from verstehen.grading import Graded
from verstehen.methods.certification.explain import grade_outputs
from verstehen.methods.certification.sandbox import LAYERS, Limits, SandboxResult, run_program

# Tight limits for the attacks that are about time; roomy ones for the rest, so that on a busy
# machine an attack's effect never depends on whether it finished before a timer.
TIGHT = Limits(cpu_seconds=1, wall_seconds=1.0, memory_bytes=96 * 2**20, per_call_seconds=0.2,
               output_bytes=2**20, load_seconds=0.2, disk_bytes=4 * 2**20, disk_files=64)
LIMITS = replace(TIGHT, cpu_seconds=3, wall_seconds=5.0, per_call_seconds=2.0, load_seconds=2.0)
QUESTIONS: list[Any] = [None]  # the grader here ignores its question
SLACK = 2.5  # seconds past the wall clock within which run_program must have returned
BOMB = 160 * 2**20  # more than the memory limit, small enough to touch in 0.3 s


@dataclass(frozen=True)
class Attack:
    """A program (formatted with a Scene's fields) and the effects that show it got through."""

    name: str
    source: str
    effects: tuple[str, ...]
    exclusive: bool = False  # run alone: its effect (a signal to the harness) is not per scene
    limits: Limits = LIMITS


def _attack(name: str, body: str, *effects: str, exclusive: bool = False,
            limits: Limits = LIMITS) -> Attack:
    """An attack whose entry `f(x)` has this body (top-level code if it starts with '!')."""
    if body.startswith("!"):
        source = body[1:] + "\ndef f(x):\n    return RESULT\n"
    else:
        lines = "\n".join("    " + line for line in body.strip("\n").splitlines())
        source = "import os, sys\ndef f(x):\n" + lines + "\n"
    return Attack(name, source, effects, exclusive, limits)


SPAWN = "echo ran > {open_dir}/marker; sleep 5"
SLEEPER = "os.mkdir({token}); os.chdir({token}); time.sleep(5); os._exit(0)"
FORGED_DOC = '{{"ok": true, "outputs": [{{"value": "FORGED"}}], "error": null, "layers": []}}'
SECRET_PARTS = "[part for part in %s.read().split(chr(0)) if 'secret' in part]"
NO_TIMER = "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
WAIT = ("import time\nfor _ in range(100):\n    if os.path.exists('{open_dir}/marker'):\n"
        "        break\n    time.sleep(0.01)")  # until the spawned shell has written, or 1 s

ATTACKS: list[Attack] = [
    # --- writes outside the temp dir, by every API
    _attack("write_open_w", "open({victim}, 'w').write('x')", "files"),
    _attack("write_open_a", "open({victim}, 'a').write('x')", "files"),
    _attack("write_open_x", "open({vdir} + '/new.txt', 'x').write('x')", "files"),
    _attack("write_open_rplus", "open({victim}, 'r+').write('x')", "files"),
    _attack("write_os_open", "os.write(os.open({victim}, os.O_WRONLY | os.O_TRUNC), b'x')",
            "files"),
    _attack("write_os_open_creat",
            "os.write(os.open({vdir} + '/new.txt', os.O_WRONLY | os.O_CREAT), b'x')", "files"),
    _attack("write_dir_fd", """
d = os.open({vdir}, os.O_RDONLY)
os.write(os.open('victim.txt', os.O_WRONLY | os.O_TRUNC, dir_fd=d), b'x')
""", "files"),
    _attack("write_dir_fd_climb", """
d, root = os.open('.', os.O_RDONLY), os.getcwd()
os.makedirs('a/b/c/d/e/f/g/h')
os.chdir('a/b/c/d/e/f/g/h')
rel = os.path.relpath({victim}, root)
os.write(os.open(rel, os.O_WRONLY | os.O_TRUNC, dir_fd=d), b'x')
""", "files"),
    _attack("write_opener", """
d = os.open({vdir}, os.O_RDONLY)
open('here.txt', 'w', opener=lambda p, fl: os.open('victim.txt', fl, dir_fd=d)).write('x')
""", "files"),
    _attack("write_opener_path",
            "open('here.txt', 'w', opener=lambda p, fl: os.open({victim}, fl)).write('x')",
            "files"),
    _attack("write_pathlib", "import pathlib\npathlib.Path({victim}).write_text('x')", "files"),
    _attack("write_shutil_copy", """
import shutil
open('a', 'w').write('x')
shutil.copy('a', {victim})
""", "files"),
    _attack("write_rename", "open('a', 'w').write('x')\nos.rename('a', {victim})", "files"),
    _attack("write_replace", "open('a', 'w').write('x')\nos.replace('a', {victim})", "files"),
    _attack("write_remove", "os.remove({victim})", "files"),
    _attack("write_unlink", "os.unlink({secret_file})", "files"),
    _attack("write_rmdir", "os.rmdir({vdir} + '/empty')", "files"),
    _attack("write_mkdir", "os.mkdir({vdir} + '/made')", "files"),
    _attack("write_makedirs", "os.makedirs({vdir} + '/made/deeper')", "files"),
    _attack("write_symlink", "os.symlink('/etc/passwd', {vdir} + '/link')", "files"),
    _attack("write_through_symlink", "os.symlink({victim}, 'l')\nopen('l', 'w').write('x')",
            "files"),
    _attack("write_hardlink", "os.link({victim}, 'h')\nopen('h', 'w').write('x')", "files"),
    _attack("write_chmod", "os.chmod({victim}, 0o777)", "files"),
    _attack("write_fchmod", "os.fchmod(os.open({victim}, os.O_RDONLY), 0o777)", "files"),
    _attack("write_chown", "os.chown({victim}, 12345, 12345)", "files"),
    _attack("write_utime", "os.utime({victim}, (0, 0))", "files"),
    _attack("write_truncate", "os.truncate({victim}, 0)", "files"),
    _attack("write_sqlite", """
import sqlite3
db = sqlite3.connect({db})
db.execute("update t set v = 'pwned'")
db.commit()
""", "files"),
    _attack("write_mkfifo", "os.mkfifo({vdir} + '/fifo')", "files"),
    _attack("write_mknod", "import stat\nos.mknod({vdir} + '/node', 0o600 | stat.S_IFREG)",
            "files"),
    _attack("write_tempfile_outside", "import tempfile\ntempfile.mkstemp(dir={vdir})", "files"),
    _attack("write_world_writable_dir", "open({vdir} + '/open/dropped.txt', 'w').write('x')",
            "files"),
    _attack("write_proc_fd_reopen", """
fd = os.open({victim}, os.O_RDONLY)
open('/proc/self/fd/%d' % fd, 'w').write('x')
""", "files"),
    _attack("write_ctypes", """
import ctypes
libc = ctypes.CDLL(None)
fd = libc.open({victim}.encode(), os.O_WRONLY | os.O_TRUNC)
libc.write(fd, b'x', 1)
""", "files"),
    _attack("write_at_import", "!open({victim}, 'w').write('x')\nRESULT = 1", "files"),
    _attack("write_reloaded_posix", """
import _imp, importlib.util
fresh = _imp.create_builtin(importlib.util.find_spec('posix'))
fresh.mkfifo({vdir} + '/fifo')
""", "files"),
    # --- secrets: files, the environment, other processes' /proc entries
    _attack("read_secret_file", "return open({secret_file}).read()", "leak"),
    _attack("read_secret_dir_fd", """
d = os.open({vdir}, os.O_RDONLY)
return os.read(os.open('secret.txt', os.O_RDONLY, dir_fd=d), 100).decode()
""", "leak"),
    _attack("read_secret_linecache", "import linecache\nreturn linecache.getlines({secret_file})",
            "leak"),
    _attack("read_env_key", "return os.environ.get('OPENAI_API_KEY')", "leak"),
    # (an answer over 512 bytes comes back as an error: each returns only what bears a secret)
    _attack("read_own_environ", "return " + SECRET_PARTS % "open('/proc/self/environ')",
            "leak"),
    _attack("read_ppid_environ",
            "return " + SECRET_PARTS % "open('/proc/%d/environ' % os.getppid())", "leak"),
    _attack("read_caller_environ", "return " + SECRET_PARTS % "open('/proc/{caller}/environ')",
            "leak"),
    _attack("read_caller_cmdline", "return " + SECRET_PARTS % "open('/proc/{caller}/cmdline')",
            "leak"),
    _attack("read_ancestors", """
found, pid = [], os.getpid()
for _ in range(6):
    try:
        pid = int(open('/proc/%d/stat' % pid).read().rpartition(')')[2].split()[1])
        found.append(open('/proc/%d/environ' % pid).read())
        found.append(open('/proc/%d/cmdline' % pid).read())
    except (OSError, ValueError, IndexError):
        pass
return [part for text in found for part in text.split(chr(0)) if 'secret' in part]
""", "leak"),
    _attack("read_ctypes", """
import ctypes
libc = ctypes.CDLL(None)
buf = ctypes.create_string_buffer(200)
libc.read(libc.open({secret_file}.encode(), 0), buf, 200)
return buf.value.decode()
""", "leak"),
    # --- network
    _attack("net_tcp", "import socket\nsocket.create_connection(('127.0.0.1', {port}), 1)",
            "net"),
    _attack("net_udp", """
import socket
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', {udp_port}))
""", "net"),
    _attack("net_unix", """
import socket
socket.socket(socket.AF_UNIX).connect({unix_path})
""", "net"),
    _attack("net_abstract", """
import socket
socket.socket(socket.AF_UNIX).connect({abstract})
""", "net"),
    _attack("net_import_module", """
import importlib
importlib.import_module('socket').create_connection(('127.0.0.1', {port}), 1)
""", "net"),
    _attack("net_dunder_import",
            "__import__('socket').create_connection(('127.0.0.1', {port}), 1)", "net"),
    _attack("net_builtins_import", """
import builtins
s = builtins.__import__('_socket').socket()
s.connect(('127.0.0.1', {port}))
""", "net"),
    _attack("net_urllib", """
import urllib.request
urllib.request.urlopen('http://127.0.0.1:{port}/', timeout=0.1)
""", "net"),
    _attack("net_ctypes", """
import ctypes, struct
libc = ctypes.CDLL(None)
s = libc.socket(2, 1, 0)
addr = struct.pack('<HH4s8x', 2, {port} >> 8 | ({port} & 255) << 8, bytes([127, 0, 0, 1]))
libc.connect(s, addr, 16)
""", "net"),
    # --- processes: every way to start one, and surviving the run
    _attack("proc_fork", f"""
import time
if os.fork() == 0:
    {SLEEPER}
return 1
""", "procs", "forked"),
    _attack("proc_fork_30", """
import time
os.mkdir({token})
started = 0
for _ in range(30):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        os.chdir({token}); time.sleep(5); os._exit(0)
    started += 1
return started
""", "procs", "forked"),
    _attack("proc_setsid_grandchild", f"""
import time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        {SLEEPER}
    os._exit(0)
time.sleep(0.1)
return 1
""", "procs"),
    _attack("proc_posix_spawn", f"""{NO_TIMER}
os.mkdir({{token}}); os.chdir({{token}})
os.posix_spawn('/bin/sh', ['sh', '-c', '{SPAWN}'], {{{{}}}})
{WAIT}
""", "procs", "files"),
    _attack("proc_subprocess", f"""{NO_TIMER}
import subprocess
os.mkdir({{token}})
subprocess.Popen(['/bin/sh', '-c', '{SPAWN}'], cwd={{token}})
{WAIT}
""", "procs", "files"),
    _attack("proc_os_system", """
os.mkdir({token}); os.chdir({token})
os.system('echo ran > {open_dir}/marker; sleep 5 &')
""", "procs", "files"),
    _attack("proc_execv", """
os.mkdir({token}); os.chdir({token})
os.execv('/bin/sh', ['sh', '-c', 'echo ran > {open_dir}/marker'])
""", "files"),
    _attack("proc_spawnv", f"""{NO_TIMER}
os.mkdir({{token}}); os.chdir({{token}})
os.spawnv(os.P_NOWAIT, '/bin/sh', ['sh', '-c', '{SPAWN}'])
{WAIT}
""", "procs", "files"),
    _attack("proc_pty_spawn", """
import pty
pty.spawn(['/bin/sh', '-c', 'echo ran > {open_dir}/marker'])
""", "files"),
    _attack("proc_multiprocessing", """
import multiprocessing, time
os.mkdir({token}); os.chdir({token})
multiprocessing.get_context('fork').Process(target=time.sleep, args=(5,)).start()
return 1
""", "procs", "forked"),
    _attack("proc_ctypes_fork", f"""
import ctypes, time
pid = ctypes.CDLL(None).fork()
if pid == 0:
    {SLEEPER}
return int(pid > 0)
""", "procs", "forked"),
    # --- signals to the caller (the harness counts SIGUSR1)
    _attack("signal_kill_caller", "import signal\nos.kill({caller}, signal.SIGUSR1)", "signal",
            exclusive=True),
    _attack("signal_killpg_caller", "import signal\nos.killpg({caller}, signal.SIGUSR1)",
            "signal", exclusive=True),
    _attack("signal_pidfd", """
import signal
signal.pidfd_send_signal(os.pidfd_open({caller}), signal.SIGUSR1)
""", "signal", exclusive=True),
    _attack("signal_ctypes", "import ctypes\nctypes.CDLL(None).kill({caller}, 10)", "signal",
            exclusive=True),
    _attack("signal_kill_ppid", "import signal\nos.kill(os.getppid(), signal.SIGKILL)",
            "signal", exclusive=True),
    # --- resources
    _attack("memory_bytearray", f"{NO_TIMER}return len(bytearray({BOMB}))", "memory"),
    _attack("memory_list", f"""{NO_TIMER}
keep = []
while len(keep) * 2**20 < {BOMB}:
    keep.append(' ' * 2**20)
return len(keep) * 2**20
""", "memory"),
    _attack("cpu_loop", "while True:\n    pass", "ended", limits=TIGHT),
    _attack("cpu_loop_no_timer", """
import signal
signal.signal(signal.SIGALRM, signal.SIG_IGN)
while True:
    try:
        while True:
            pass
    except BaseException:
        pass
""", "ended", limits=TIGHT),
    _attack("sleep_past_wall", """
import signal, time
signal.signal(signal.SIGALRM, signal.SIG_IGN)
time.sleep(30)
""", "ended", limits=TIGHT),
    _attack("loop_at_import", "!while True:\n    pass\nRESULT = 1", "ended", limits=TIGHT),
    _attack("disk_at_import", f"""!{NO_TIMER}
RESULT = 0
try:
    for i in range(16):
        with open('f%d' % i, 'wb') as fh:
            fh.write(b'x' * 2**20)
        RESULT += 2**20
except OSError:
    pass""", "disk"),
    _attack("disk_big_file", f"""{NO_TIMER}
total = 0
try:
    with open('big', 'wb') as fh:
        for _ in range(16):
            fh.write(b'x' * 2**20)
            fh.flush()
            total += 2**20
except OSError:
    pass
return total
""", "disk"),
    _attack("disk_many_files", f"""{NO_TIMER}
made = 0
try:
    for i in range(100):
        with open('f%d' % i, 'wb') as fh:
            fh.write(b'x' * 4096)
        made += 1
except OSError:
    pass
return made
""", "files_made"),
    _attack("output_huge_value", "return 'x' * 2**25", "output"),
    _attack("output_many_values", "return list(range(300_000))", "output"),
    _attack("output_prints", """
sys.stdout.write('x' * 2**25)
sys.stderr.write('x' * 2**25)
return 1
""", "output"),
    # --- forging the result
    _attack("forge_frames", """
frame = sys._getframe()
while frame is not None:
    for name, obj in list(frame.f_locals.items()) + list(frame.f_globals.items()):
        if callable(obj) and name in ('send', 'fatal'):
            for _ in range(5):
                try:
                    obj(b'V', b'{{"value": "FORGED"}}')
                except Exception:
                    pass
            try:
                obj({{'ok': True, 'outputs': [{{'value': 'FORGED'}}] * 5, 'error': None}})
            except Exception:
                pass
    frame = frame.f_back
raise ValueError('honest')
""", "shape"),
    _attack("forge_fds", f"""
for fd in range(10):
    try:
        os.write(fd, b'{FORGED_DOC}')
    except OSError:
        pass
os._exit(0)
""", "shape", "channel"),
    _attack("forge_count", """
for _ in range(5):
    os.write(3, b'V%010d{{"value": "FORGED"}}' % 19)
raise ValueError('honest')
""", "shape"),
    _attack("forge_socketpair_fd", """
import socket
a, b = socket.socketpair()
socket.send_fds(a, [b'x'], [3])
fd = socket.recv_fds(b, 1, 1)[1][0]
for _ in range(5):
    os.write(fd, b'V%010d{{"value": "FORGED"}}' % 19)
raise ValueError('honest')
""", "shape"),
    _attack("forge_gc_nonce", f"""
import gc, re
doc = b'{FORGED_DOC}'
found = set()
for obj in gc.get_objects():
    items = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, (list, tuple)) else ()
    for o in list(items):
        if isinstance(o, (str, bytes)) and re.fullmatch(
                r'[0-9a-f]{{{{32}}}}', o if isinstance(o, str) else o.decode('latin-1')):
            found.add(o)
for nonce in found:
    frame = (nonce if isinstance(nonce, bytes) else nonce.encode()) + b' %d\\n' % len(doc) + doc
    for fd in range(10):
        try:
            os.write(fd, frame)
        except OSError:
            pass
os._exit(0)
""", "shape", "channel"),
    _attack("forge_supervisor_memory", f"""{NO_TIMER}
import collections, re
doc = b'{FORGED_DOC}'
sup = os.getppid()
seen = collections.Counter()
try:
    with open('/proc/%d/mem' % sup, 'rb') as mem:
        for line in open('/proc/%d/maps' % sup):
            fields = line.split()
            if fields[1] != 'rw-p' or (len(fields) > 5 and fields[5] != '[heap]'):
                continue
            lo, hi = (int(x, 16) for x in fields[0].split('-'))
            try:
                mem.seek(lo)
                seen.update(re.findall(rb'(?<![0-9a-f])[0-9a-f]{{{{32}}}}(?![0-9a-f])',
                                       mem.read(hi - lo)))
            except (OSError, OverflowError, ValueError):
                pass
except OSError:
    pass
with open('/proc/%d/fd/1' % sup, 'wb', buffering=0) as out:
    for nonce, _ in seen.most_common(1):
        out.write(nonce + b' %d\\n' % len(doc) + doc)
    os.kill(sup, signal.SIGKILL)
os._exit(0)
""", "shape", "channel"),
    # --- tampering with the sandbox itself
    _attack("tamper_addaudithook",
            "sys.addaudithook(lambda *a: None)\nopen({victim}, 'w').write('x')", "files"),
    _attack("tamper_settrace", """
def tracer(frame, event, arg):
    if 'root' in frame.f_locals:
        frame.f_locals['root'] = '/'
    return tracer
sys.settrace(tracer)
open({victim}, 'w').write('x')
""", "files"),
    _attack("tamper_gc_closure", """
import gc
for obj in gc.get_objects():
    for cell in getattr(obj, '__closure__', None) or ():
        try:
            if cell.cell_contents == os.getcwd():
                cell.cell_contents = '/'
        except ValueError:
            pass
open({victim}, 'w').write('x')
""", "files"),
    _attack("tamper_gc_referrers", """
import gc
for ref in gc.get_referrers(os.getcwd()):
    if isinstance(ref, dict):
        ref.clear()
open({victim}, 'w').write('x')
""", "files"),
    _attack("tamper_patch_builtins", """
import builtins, posixpath
builtins.isinstance = lambda *a: False
builtins.issubclass = lambda *a: True
posixpath.realpath = lambda p, **k: os.getcwd() + '/x'
os.path.realpath = posixpath.realpath
open({victim}, 'w').write('x')
""", "files"),
    _attack("tamper_main_module", """
for module in list(sys.modules.values()):  # the hook's tables, wherever they are
    for name in ('_BLOCKED_IMPORTS', '_EVENT_KINDS', '_PATH_EVENTS'):
        table = getattr(module, name, None)
        if isinstance(table, dict):
            table.clear()
    if hasattr(module, '_EVENT_PREFIXES'):
        module._EVENT_PREFIXES = ()
import socket
socket.create_connection(('127.0.0.1', {port}), 1)
""", "net"),
    _attack("tamper_rlimit_raise", """
import resource
resource.setrlimit(resource.RLIMIT_CPU, (50, 50))
resource.setrlimit(resource.RLIMIT_CPU, (100, 100))
return 'raised'
""", "raised"),
    # --- metadata of host paths: stat needs no read right and raises no audit event
    _attack("stat_secret_file", """
try:
    os.stat({secret_file})
except OSError:
    return 'hidden'
return 'seen'
""", "seen"),
    _attack("stat_exists_lstat", """
try:
    os.lstat('/etc/passwd')
except OSError:
    pass
else:
    return 'seen'
found = os.path.exists({secret_file}) or os.path.lexists({victim}) or os.path.isdir({vdir})
return 'seen' if found else 'hidden'
""", "seen"),
    _attack("stat_proc_root", """
try:
    os.stat('/proc/%d/root' % os.getppid() + {secret_file})
except OSError:
    return 'hidden'
return 'seen'
""", "seen"),
    # --- the timer's exception swallowed: the call is a timeout, not a result or a misleading
    # error (the default unraisable hook printed a traceback, reading the runner's source)
    _attack("timer_in_del", """
class Slow:
    def __del__(self):
        while True:
            pass
Slow()
return 'past the time limit'
""", "timer", limits=TIGHT),
    _attack("timer_caught_in_del", """
class Slow:
    def __del__(self):
        try:
            while True:
                pass
        except BaseException:
            pass
Slow()
return 'past the time limit'
""", "timer", limits=TIGHT),
]


class Scene:
    """The outside world of one attack: files, a secret, listening sockets, a process token."""

    def __init__(self, base: Path, secret: str) -> None:
        self.dir = base
        base.mkdir(parents=True)
        base.chmod(0o755)  # the program's uid may look in, as it could in a real home
        (base / "victim.txt").write_text("original")
        (base / "secret.txt").write_text(secret)
        (base / "secret.txt").chmod(0o600)
        (base / "empty").mkdir()
        (base / "open").mkdir()
        (base / "open").chmod(0o777)
        with sqlite3.connect(base / "db.sqlite") as db:
            db.execute("create table t (v text)")
            db.execute("insert into t values ('original')")
        db.close()
        self.token = "token-" + secrets.token_hex(8)
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(str(base / "sock"))
        (base / "sock").chmod(0o777)
        self.unix.listen()
        self.abstract_name = "\0verstehen-attack-" + self.token
        self.abstract = socket.socket(socket.AF_UNIX)
        self.abstract.bind(self.abstract_name)
        self.abstract.listen()
        for sock in (self.tcp, self.udp, self.unix, self.abstract):
            sock.setblocking(False)

    def fields(self) -> dict[str, str]:
        """Values to format an attack's source with (as Python literals)."""
        return {"victim": repr(str(self.dir / "victim.txt")), "vdir": repr(str(self.dir)),
                "secret_file": repr(str(self.dir / "secret.txt")),
                "open_dir": str(self.dir / "open"), "db": repr(str(self.dir / "db.sqlite")),
                "port": str(self.tcp.getsockname()[1]),
                "udp_port": str(self.udp.getsockname()[1]),
                "unix_path": repr(str(self.dir / "sock")), "abstract": repr(self.abstract_name),
                "token": repr(self.token), "caller": str(os.getpid())}

    def snapshot(self) -> dict[str, tuple[Any, ...]]:
        """Every entry below the scene's dir: type, mode, owner, size, mtime and content."""
        found = {}
        for path in sorted(self.dir.rglob("*")):
            info = path.lstat()
            content = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
            found[str(path.relative_to(self.dir))] = (
                info.st_mode, info.st_uid, info.st_gid, info.st_size, info.st_mtime_ns, content)
        return found

    def connected(self) -> str | None:
        """Which listener saw a connection or a datagram, if any."""
        for name, sock in (("tcp", self.tcp), ("unix", self.unix), ("abstract", self.abstract)):
            try:
                sock.accept()[0].close()
                return name
            except BlockingIOError:
                pass
        try:
            self.udp.recvfrom(16)
            return "udp"
        except BlockingIOError:
            return None

    def live_token_processes(self) -> list[int]:
        """Processes still alive whose working directory is the attack's token dir."""
        alive = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                if self.token not in os.readlink(f"/proc/{name}/cwd"):
                    continue
                with open(f"/proc/{name}/stat", "rb") as fh:
                    if fh.read().rpartition(b")")[2].split()[0] not in (b"Z", b"X"):
                        alive.append(int(name))
            except (OSError, IndexError):
                continue
        return alive

    def close(self) -> None:
        """Close the listeners, kill what the attack left running and remove the files."""
        for sock in (self.tcp, self.udp, self.unix, self.abstract):
            sock.close()
        for pid in self.live_token_processes():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.dir, ignore_errors=True)


SIGNALS = [0]


def _count_signal(signum: int, frame: Any) -> None:
    SIGNALS[0] += 1


def _timed_out(result: SandboxResult) -> bool:
    """Whether the run reports the time limit: the call as a timeout, or the run as ended by
    a time or CPU limit (never a value, nor another reason such as a blocked read)."""
    if result.ok:
        return result.outputs == [{"error": "timeout"}]
    return result.error is not None and ("time limit" in result.error
                                         or "cpu limit" in result.error)


def _escaped(attack: Attack, scene: Scene, result: SandboxResult, before: dict[str, Any],
             signals_before: int, secrets_: list[str]) -> list[str]:
    """The effects of the attack that got out (empty when it was contained)."""
    out = []
    value = result.outputs[0].get("value") if result.ok and result.outputs else None
    shown = json.dumps({"outputs": result.outputs, "error": result.error})
    for effect in attack.effects:
        if effect == "files" and scene.snapshot() != before:
            out.append("files changed outside the temp dir")
        elif effect == "leak" and any(s in shown for s in secrets_):
            out.append("a secret reached the output")
        elif effect == "net" and (seen := scene.connected()):
            out.append(f"a {seen} listener was reached")
        elif effect == "procs":
            deadline = time.monotonic() + 0.5
            while scene.live_token_processes() and time.monotonic() < deadline:
                time.sleep(0.05)
            if scene.live_token_processes():
                out.append("a process outlived the run")
        elif effect == "signal" and SIGNALS[0] != signals_before:
            out.append("the caller got a signal")
        elif effect == "memory" and isinstance(value, int) and value >= LIMITS.memory_bytes:
            out.append(f"allocated {value} bytes")
        elif effect == "disk" and isinstance(value, int) and value > LIMITS.disk_bytes:
            out.append(f"wrote {value} bytes")
        elif effect == "files_made" and isinstance(value, int) and value > LIMITS.disk_files:
            out.append(f"made {value} files")
        elif effect == "output" and len(shown) > LIMITS.output_bytes + 4096:
            out.append(f"{len(shown)} bytes of output reached the caller")
        elif effect == "ended" and result.ok and not all("error" in o for o in result.outputs):
            out.append("the run was not stopped")
        elif effect == "forked" and isinstance(value, int) and value > 0:
            out.append(f"{value} processes started")
        elif effect == "raised" and value == "raised":
            out.append("a hard rlimit was raised")
        elif effect == "shape" and result.ok and len(result.outputs) != 1:
            out.append(f"{len(result.outputs)} outputs for 1 input")
        elif effect == "channel" and "FORGED" in shown:
            out.append("a forged report reached the caller")
        elif effect == "seen" and value == "seen":
            out.append("a host path outside the sandbox was seen by stat")
        elif effect == "timer" and not _timed_out(result):
            out.append(f"a call past its time limit ended as {shown[:200]}")
    return out


def run_attack(attack: Attack, layers: frozenset[str], base: Path, secrets_: list[str]
               ) -> dict[str, Any]:
    """Run one attack under one configuration; its outcome as JSON-able data."""
    scene = Scene(base / attack.name, secrets_[-1] + "-" + attack.name)
    crashed = None
    try:
        before, signals_before = scene.snapshot(), SIGNALS[0]
        source = attack.source.format(**scene.fields())
        started = time.monotonic()
        try:
            result = run_program(source, "f", [[0]], attack.limits, layers=layers)
        except Exception as exc:  # the caller crashing is what the suite looks for
            return {"contained": False, "escaped": [], "crashed": f"run_program: {exc!r}"}
        took = time.monotonic() - started
        if took > attack.limits.wall_seconds + SLACK:
            crashed = f"run_program took {took:.1f} s"
        try:
            grade_outputs(QUESTIONS, result, lambda q, v: Graded(1.0, "correct"))
        except Exception as exc:
            crashed = f"grade_outputs: {exc!r}"
        escaped = _escaped(attack, scene, result, before, signals_before,
                           [*secrets_[:-1], secrets_[-1] + "-" + attack.name])
        return {"contained": not escaped, "escaped": escaped, "crashed": crashed,
                "ok": result.ok, "error": (result.error or "")[:300], "seconds": round(took, 2)}
    finally:
        scene.close()


def run_configs(configs: dict[str, frozenset[str]], base: Path, secrets_: list[str]
                ) -> dict[str, dict[str, Any]]:
    """Every attack under every configuration: the others in parallel, then the exclusive ones
    one at a time (a signal to the harness could not be told apart otherwise)."""
    with ThreadPoolExecutor(8) as pool:
        futures = {(text, attack.name): pool.submit(run_attack, attack, cfg,
                                                    base / text.replace(",", "+"), secrets_)
                   for text, cfg in configs.items() for attack in ATTACKS
                   if not attack.exclusive}
        outcomes: dict[str, dict[str, Any]] = {text: {} for text in configs}
        for (text, name), future in futures.items():
            outcomes[text][name] = future.result()
    for text, cfg in configs.items():
        for attack in ATTACKS:
            if attack.exclusive:
                outcomes[text][attack.name] = run_attack(attack, cfg,
                                                         base / text.replace(",", "+"), secrets_)
                time.sleep(0.05)  # a signal in flight lands before the next attack starts
    return outcomes


def parse_config(text: str) -> frozenset[str]:
    """'none', 'all' or a comma-separated list of layers."""
    if text == "all":
        return LAYERS
    return frozenset() if text == "none" else frozenset(text.split(","))


def main(argv: list[str]) -> None:
    """Run every configuration named on the command line; print the JSON outcome."""
    signal.signal(signal.SIGUSR1, _count_signal)
    secrets_ = [argv[0], os.environ.get("OPENAI_API_KEY", "unset"), "file-secret-" + argv[0]]
    base = Path(tempfile.mkdtemp(prefix="verstehen-attacks-"))
    base.chmod(0o755)
    configs = {text: parse_config(text) for text in argv[1:]}
    try:
        probe = "def f(x):\n    return x\n"
        layers = {text: sorted(run_program(probe, "f", [[0]], LIMITS, layers=cfg).layers)
                  for text, cfg in configs.items()}
        results = run_configs(configs, base, secrets_)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    json.dump({"layers": layers, "results": results}, sys.stdout)


def run_harness(configs: list[str], timeout: float = 300) -> dict[str, Any]:
    """Start the harness in a process of its own (its own session, so a signal to its group
    reaches nobody else) with a secret in its environment and command line."""
    secret = "cmdline-secret-" + secrets.token_hex(8)
    env = {**os.environ, "OPENAI_API_KEY": "sk-env-secret-" + secrets.token_hex(8)}
    done = subprocess.run([sys.executable, __file__, secret, *configs], env=env,
                          capture_output=True, text=True, timeout=timeout,
                          start_new_session=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"harness failed ({done.returncode}): {done.stderr[-3000:]}")
    return json.loads(done.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
