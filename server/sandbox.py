"""The sandbox that runs a hosted bot's code (uploaded by its author: hostile until shown otherwise).

Each sandbox is a bubblewrap (``bwrap``) process tree with its own user, pid, mount, network,
IPC and UTS namespaces: the system's programs read-only, the bot's files at ``/bot``, a private
``/tmp``, no network but the referee's Unix socket, none of the server's environment; run as a
dedicated uid (when the server is root) under rlimits on address space, processes, CPU time,
open files and file size; its output read by the server through one pipe, only a tail kept.
:class:`Sandbox` runs a bot, :func:`build` runs its build once, :func:`unavailable` says why
sandboxes cannot run here. What each part is for, the limits and what is not covered:
docs/hosted.md.
"""
from __future__ import annotations

import asyncio
import fcntl
import hashlib
import functools
import importlib.util
import json
import os
import pwd
import shutil
import signal
import stat
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MiB = 1 << 20

#: Where things are inside a sandbox.
BOT_DIR = "/bot"
SOCKET_INSIDE = "/run/cardarena/referee.sock"
ADDRESS_INSIDE = "unix:" + SOCKET_INSIDE
PYTHON_DIR = "/opt/cardarena/python"   # PYTHONPATH: cardarena.client, cardarena.v1, grpc, protobuf
NODE_DIR = "/opt/cardarena/node"       # NODE_PATH: the Node helper as `cardarena-bot` and `cardarena`
PROTO_DIR = "/opt/cardarena/proto"     # proto/ for the Node helper (its default: ../../proto from itself)
PATH = "/usr/local/bin:/usr/bin:/bin"

#: The uids sandboxes run as when the server runs as root: one per live sandbox, taken under a
#: file lock (LOCK_DIR), so two server processes on one machine never share one either.
UID_FIRST = 61000
UID_COUNT = 1000
LOCK_DIR = Path("/run/cardarena/sandbox-uids")

#: /dev/shm: a small tmpfs of its own (POSIX semaphores of Python's multiprocessing live there).
SHM_BYTES = 1 * MiB

#: The parts of /etc a program may need, bound read-only when they exist (not passwd, shadow, …:
#: /etc/passwd and /etc/group inside are two lines written for the sandbox).
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "ssl/certs",
       "ssl/openssl.cnf", "ca-certificates.conf", "mime.types", "nsswitch.conf", "host.conf")
#: Folders under /etc whose name starts so (e.g. java-17-openjdk: the JVM's configuration).
ETC_PREFIXES = ("java-",)

#: The client's dependencies, bound from the server's own environment (grpc's compiled part
#: loads in the system's python3 when both are the same minor version: docs/hosted.md).
PYTHON_PACKAGES = ("grpc", "google.protobuf", "google._upb", "typing_extensions")

BWRAP = "bwrap"
PRLIMIT = "prlimit"
SETPRIV = "setpriv"   # util-linux, as prlimit: the sandbox's own uid, when the server is root


class SandboxError(RuntimeError):
    """A sandbox could not be made or did not end as it must (one line)."""


@dataclass(frozen=True)
class Limits:
    """What one sandbox may use.

    ``memory_mb`` is RLIMIT_AS, the address space of each process: the only rlimit on memory
    that Linux enforces (RLIMIT_RSS is ignored, RLIMIT_DATA misses mmap in older kernels); an
    allocation past it fails (Python: MemoryError; C: malloc returns NULL) instead of the
    machine swapping or the OOM killer choosing a victim. It counts reserved, not touched,
    memory, so runtimes that reserve much up front need a word: Java wants
    ``-Xmx… -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -XX:CompressedClassSpaceSize=64m``
    (via ``JAVA_TOOL_OPTIONS`` in ``env``), node and Go run as they are. It is per process: a
    sandbox of ``processes`` processes may hold up to ``processes × memory_mb`` (docs/hosted.md).
    ``processes`` (RLIMIT_NPROC) counts processes and threads of the sandbox's uid, bwrap's
    two included; ``cpu_seconds`` (RLIMIT_CPU) is per process; ``open_files`` is RLIMIT_NOFILE;
    ``tmp_mb`` is the size of /tmp and the largest file a process may write (RLIMIT_FSIZE).
    ``output_kb``: stdout+stderr of one run before the sandbox stops it; ``log_kb``: the tail
    of it that is kept. ``build_seconds``: a build's time; ``build_mb``: the size of a build's
    /bot (a tmpfs: the sources copied in, the results copied out), also its largest file."""
    memory_mb: int = 1024
    processes: int = 64
    cpu_seconds: int = 3600
    open_files: int = 256
    tmp_mb: int = 64
    output_kb: int = 10_240
    log_kb: int = 64
    build_seconds: float = 300.0
    build_mb: int = 512


# --- what is bound in -------------------------------------------------------------------------

def _package_dir(name: str) -> Path | None:
    """The folder of the package ``name``, or the file of the module ``name``; None if missing."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0])
    return Path(spec.origin) if spec.origin and os.path.isfile(spec.origin) else None


#: Files that must never sit in a folder bound into sandboxes (a ledger, its journal, keys, tokens).
_SECRET_SUFFIXES = (".db", ".sqlite", ".sqlite3", "-wal", "-shm", "-journal", ".pem", ".key", ".token")


def _check_no_secrets(folder: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in filenames:
            low = name.lower()
            if low.endswith(_SECRET_SUFFIXES) or "token" in low or low.startswith(".env"):
                raise SandboxError(f"{Path(dirpath) / name} looks like a ledger or secret file and sits in "
                                   f"{folder}, which is bound into every sandbox: move it away")


@functools.cache
def _library_binds() -> tuple[tuple[str, str], ...]:
    """(host folder, folder inside) for the SDKs: cardarena.client, cardarena.v1, grpc and
    protobuf for Python; the Node helper with its node_modules and proto/ for Node. Only these
    folders: not the server package, not the repository (a ledger may sit in it). Where the
    sandboxes' uids cannot reach them (a checkout in a home or temporary folder of mode 0700),
    copies of them that they can (:func:`_staged`)."""
    binds = _found_binds()
    if os.geteuid() == 0 and not all(_reachable(Path(host)) for host, _ in binds):
        binds = _staged(binds)
    return tuple(binds)


def _staged(binds: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Copies of the SDK's folders, readable by others, in a folder under the system's temporary
    folder named by what they hold (every file's path, size and time): made once (some 40 MB),
    then shared by every process of this user that binds the same files, and made again when
    they change. A folder of that name is taken only if this user owns it and no one else may
    write to it; else this process makes a copy of its own."""
    key = hashlib.sha256()
    for host, inside in binds:
        key.update(f"{host}\0{inside}\0".encode())
        for path in sorted(_walk_files(Path(host))):
            st = os.lstat(path)
            key.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    top = Path(tempfile.gettempdir(), f"cardarena-sdk-{os.geteuid()}-{key.hexdigest()[:20]}")
    if not _kept_by_me(top):
        made = Path(tempfile.mkdtemp(prefix="cardarena-sdk-"))  # nobody else's
        for k, (host, _) in enumerate(binds):
            if os.path.isdir(host):
                shutil.copytree(host, made / str(k), symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(host, made / str(k))
        _make_readable(made)
        for path in [str(made), *(os.path.join(d, n) for d, dirs, files in os.walk(made) for n in dirs + files)]:
            st = os.lstat(path)  # written by this user only
            if not stat.S_ISLNK(st.st_mode) and st.st_mode & 0o022:
                os.chmod(path, st.st_mode & 0o7755)
        try:
            os.rename(made, top)  # whole or not at all; another process's copy may be there first
        except OSError:
            if not _kept_by_me(top):
                top = made
            else:
                shutil.rmtree(made, ignore_errors=True)
    return [(str(top / str(k)), inside) for k, (_, inside) in enumerate(binds)]


def _walk_files(path: Path) -> Iterable[str]:
    if not path.is_dir():
        yield str(path)
        return
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in filenames:
            yield os.path.join(dirpath, name)


def _kept_by_me(folder: Path) -> bool:
    """Whether ``folder`` is a finished copy of this user's that no one else may write to."""
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o022


def _found_binds() -> list[tuple[str, str]]:
    binds: list[tuple[str, str]] = []
    client = _package_dir("cardarena.client")
    v1 = _package_dir("cardarena.v1")
    for folder, inside in ((client, "cardarena/client"), (v1, "cardarena/v1")):
        if folder is not None:
            _check_no_secrets(folder)
            binds.append((str(folder), f"{PYTHON_DIR}/{inside}"))
    for module in PYTHON_PACKAGES:
        found = _package_dir(module)
        if found is not None:
            inside = "/".join(module.split(".")[:-1] + [found.name])
            binds.append((str(found), f"{PYTHON_DIR}/{inside}"))
    if client is not None:  # a clone (an editable install): clients/node and proto/ beside clients/python
        root = client.parents[1]
        node, proto = root / "clients" / "node", root / "proto" / "cardarena"
        if (node / "index.js").is_file() and proto.is_dir():
            _check_no_secrets(proto)
            binds.append((str(node), f"{NODE_DIR}/cardarena-bot"))
            binds.append((str(proto), f"{PROTO_DIR}/cardarena"))
    return binds


def _etc_paths() -> list[str]:
    found = [f"/etc/{p}" for p in ETC if os.path.exists(f"/etc/{p}")]
    try:
        found += sorted(f"/etc/{n}" for n in os.listdir("/etc") if n.startswith(ETC_PREFIXES)
                        and os.path.isdir(f"/etc/{n}"))
    except OSError:
        pass
    return found


def _root_links() -> list[str]:
    """/bin, /sbin, /lib*: a symlink into /usr on a merged-/usr system, else a folder bound."""
    args: list[str] = []
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = f"/{name}"
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


def _make_readable(folder: Path) -> None:
    """Give others read access (and search on folders, run where the owner may) to everything
    in ``folder``, symlinks left alone: the sandbox's uid reads the files as "others"."""
    def fix(path: str, is_dir: bool) -> None:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            return
        mode = st.st_mode & 0o7777
        want = mode | 0o044 | (0o011 if is_dir or mode & 0o100 else 0)
        if want != mode:
            os.chmod(path, want)
    fix(str(folder), True)
    for dirpath, dirnames, filenames in os.walk(folder):
        for d in dirnames:
            fix(os.path.join(dirpath, d), True)
        for f in filenames:
            fix(os.path.join(dirpath, f), False)


def _reachable(path: Path) -> bool:
    """Whether every folder above ``path`` lets others pass (see :func:`_check_reachable`)."""
    try:
        return all(os.stat(folder).st_mode & 0o001 for folder in Path(os.path.abspath(path)).parents)
    except OSError:
        return False


def _check_reachable(path: Path, what: str) -> None:
    """bwrap, as the sandbox's uid, resolves every path it binds: each folder above ``path``
    must let others pass (o+x; 0711 is enough, nothing there need be listable)."""
    for folder in Path(os.path.abspath(path)).parents:
        try:
            mode = os.stat(folder).st_mode
        except OSError as e:
            raise SandboxError(f"{what} {path}: {e.strerror}") from None
        if not mode & 0o001:
            raise SandboxError(f"{what} {path} is out of the sandbox's reach: {folder} is "
                               f"{stat.filemode(mode)}; the folders above it must let others pass (o+x, e.g. 0711)")


# --- uids -------------------------------------------------------------------------------------

_held_uids: dict[int, int] = {}  # uid → the fd of its lock file, for the sandboxes of this process


def _process_uids() -> set[int]:
    uids = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                uids.add(entry.stat(follow_symlinks=False).st_uid)
            except OSError:
                pass
    return uids


def _take_uid() -> int:
    LOCK_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
    busy = _process_uids()
    for uid in range(UID_FIRST, UID_FIRST + UID_COUNT):
        if uid in _held_uids or uid in busy:
            continue
        try:
            pwd.getpwuid(uid)
            continue  # a real account: not ours to use
        except KeyError:
            pass
        fd = os.open(LOCK_DIR / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        _held_uids[uid] = fd
        return uid
    raise SandboxError(f"all {UID_COUNT} sandbox uids from {UID_FIRST} are in use")


def _release_uid(uid: int) -> None:
    fd = _held_uids.pop(uid, None)
    if fd is not None:
        os.close(fd)  # the lock goes with it


def _user_tasks(uid: int) -> int:
    """Processes and threads running under ``uid`` now (what RLIMIT_NPROC counts)."""
    n = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat(follow_symlinks=False).st_uid == uid:
                    n += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                pass
    return n


# --- the command line -------------------------------------------------------------------------

def _close_all(fds: Iterable[int]) -> None:
    """Close each descriptor; one already closed is skipped."""
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name, 0)  # not CLOEXEC: handed to bwrap (pass_fds), which closes it
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


@dataclass
class _Launch:
    """One bwrap start: its argv (bwrap's options in a memfd, ``--args``: the environment given
    to the bot, its token, never on a command line that ``ps`` shows), the fds it inherits."""
    argv: list[str]
    fds: list[int]
    uid: int | None       # None: the server's own
    info_read: int        # bwrap writes the child's pid and namespaces here

    def close_fds(self) -> None:
        _close_all(self.fds)
        self.fds = []


def _prepare(files: Path, command: str, *, uid: int | None, limits: Limits, socket: Path | None,
             env: Mapping[str, str], build: bool, extra_fds: Iterable[int] = ()) -> _Launch:
    bwrap, prlimit = shutil.which(BWRAP), shutil.which(PRLIMIT)
    if bwrap is None or prlimit is None:
        raise SandboxError(unavailable() or "bwrap or prlimit is missing")
    fds: list[int] = []
    try:
        def fd_of(path: Path | str) -> int:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            fds.append(fd)
            return fd
        run_uid = os.getuid() if uid is None else uid
        args = ["--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                "--unshare-cgroup-try", "--disable-userns", "--die-with-parent", "--new-session",
                "--hostname", "sandbox",
                "--ro-bind", "/usr", "/usr", *_root_links()]
        for path in _etc_paths():
            args += ["--ro-bind", path, path]
        account = (f"root:x:0:0::/:/bin/false\nbot:x:{run_uid}:{run_uid}::/tmp:/bin/sh\n"
                   f"nobody:x:65534:65534::/:/bin/false\n").encode()
        groups = f"root:x:0:\nbot:x:{run_uid}:\nnogroup:x:65534:\n".encode()
        for where, data in (("/etc/passwd", account), ("/etc/group", groups)):
            fd = _memfd("etc", data)
            fds.append(fd)
            args += ["--ro-bind-data", str(fd), where]
        args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev",
                 "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm",
                 "--size", str(limits.tmp_mb * MiB), "--tmpfs", "/tmp"]
        if build:  # /bot a tmpfs of build_mb: the files copied in from /src, the result copied out
            args += ["--ro-bind-fd", str(fd_of(files)), "/src", "--size", str(limits.build_mb * MiB),
                     "--tmpfs", BOT_DIR]
        else:
            args += ["--ro-bind-fd", str(fd_of(files)), BOT_DIR]
        args += ["--dir", f"{PYTHON_DIR}/cardarena"]
        for host, inside in _library_binds():
            args += ["--ro-bind-fd", str(fd_of(host)), inside]
        if any(inside.startswith(NODE_DIR) for _, inside in _library_binds()):
            args += ["--symlink", "cardarena-bot", f"{NODE_DIR}/cardarena"]
        variables = {"PATH": PATH, "HOME": "/tmp", "LANG": "C.UTF-8", "PYTHONPATH": PYTHON_DIR,
                     "NODE_PATH": NODE_DIR}
        if socket is not None:
            args += ["--ro-bind-fd", str(fd_of(socket)), SOCKET_INSIDE]
            variables["CARDARENA_ADDRESS"] = ADDRESS_INSIDE
        variables.update(env)
        args += ["--remount-ro", "/", "--chdir", BOT_DIR, "--clearenv"]
        for key, value in variables.items():
            if not key or "=" in key or "\0" in key or "\0" in str(value):
                raise SandboxError(f"not an environment variable: {key!r}")
            args += ["--setenv", key, str(value)]
        info_read, info_write = os.pipe()
        os.set_inheritable(info_read, False)
        fds.append(info_write)
        args += ["--info-fd", str(info_write)]
        if build:
            script = ('cp -R --preserve=mode,timestamps /src/. /bot/ || '
                      '{ echo "cardarena: the files do not fit in the build\'s /bot"; exit 90; }; '
                      '/bin/sh -c "$1" || exit $?; '
                      'exec tar --hard-dereference --format=gnu -cf "/proc/self/fd/$2" .')
            inside = ["/bin/sh", "-c", script, "build", command, *[str(fd) for fd in extra_fds]]
        else:
            inside = ["/bin/sh", "-c", command]
        argfd = _memfd("bwrap-args", b"".join(a.encode() + b"\0" for a in args))
        fds.append(argfd)
        fds.extend(extra_fds)
        nproc = limits.processes if uid is not None else _user_tasks(run_uid) + limits.processes
        fsize = max(limits.tmp_mb, limits.build_mb if build else 0) * MiB
        argv = [prlimit, f"--as={limits.memory_mb * MiB}", f"--nproc={nproc}",
                f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 2}", f"--nofile={limits.open_files}",
                "--core=0", f"--fsize={fsize}", "--", bwrap, "--args", str(argfd), "--", *inside]
        if uid is not None:
            setpriv = shutil.which(SETPRIV)
            if setpriv is None:
                raise SandboxError("setpriv (util-linux) is missing")
            # the uid is changed by setpriv, not by subprocess's user=/group=: with those, Python
            # forks instead of vforking, and the fork runs gRPC's fork handlers in a server's
            # child (which abort it)
            argv = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--", *argv]
        return _Launch(argv, fds, uid, info_read)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


# --- processes of a sandbox -------------------------------------------------------------------

def _ns_of(pid: int | str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _members(ns: str | None, uid: int | None, outer: int | None = None) -> set[int]:
    """Host pids in the pid namespace ``ns`` (a ``pid:[inode]`` link text) or, with ``uid``,
    running under that uid; not zombies (dead, waiting for their parent to reap them). A zombie
    whose parent is this process (the server as a container's pid 1 adopts orphans) is reaped
    here, unless it is ``outer``, bwrap itself, which asyncio reaps."""
    found = set()
    if ns is None and uid is None:
        return found
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if not ((uid is not None and entry.stat(follow_symlinks=False).st_uid == uid)
                    or (ns is not None and _ns_of(entry.name) == ns)):
                continue
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                state, ppid = f.read().rsplit(b")", 1)[1].split()[:2]
        except (OSError, ValueError):
            continue
        if state in (b"Z", b"X"):
            if int(ppid) == os.getpid() and int(entry.name) != outer:
                try:
                    os.waitpid(int(entry.name), os.WNOHANG)
                except ChildProcessError:
                    pass
            continue
        found.add(int(entry.name))
    return found


def _signal(pids: Iterable[int], sig: int, ns: str | None, uid: int | None) -> None:
    """Send ``sig`` to each pid that still belongs to the sandbox, through a pidfd (a pid
    reused between the scan and the signal is not hit)."""
    for pid in pids:
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            continue
        try:
            ours = (uid is not None and os.stat(f"/proc/{pid}").st_uid == uid) or (ns is not None and _ns_of(pid) == ns)
            if ours:
                signal.pidfd_send_signal(pidfd, sig)
        except OSError:
            pass
        finally:
            os.close(pidfd)


def leftovers() -> set[int]:
    """Host pids of live processes under any sandbox uid (``UID_FIRST`` …, the server as root):
    of sandboxes still running, in this process or another on the machine, or left behind,
    which must not happen. Empty when the server is not root (sandboxes have no uids of their own)."""
    if os.geteuid() != 0:
        return set()
    found = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status") as f:
                fields = dict(line.split(":", 1) for line in f if line.startswith(("State:", "Uid:")))
        except (OSError, ValueError):
            continue
        if UID_FIRST <= int(fields["Uid"].split()[0]) < UID_FIRST + UID_COUNT and not fields["State"].strip().startswith(("Z", "X")):
            found.add(int(entry.name))
    return found


# --- output ---------------------------------------------------------------------------------

class _Output(asyncio.Protocol):
    """stdout+stderr of a sandbox: counted, only the last ``keep`` bytes kept."""

    def __init__(self, keep: int, limit: int, over) -> None:
        self.keep, self.limit, self.over = keep, limit, over
        self.tail = bytearray()
        self.total = 0
        self.taken = 0
        self.closed = asyncio.get_running_loop().create_future()
        self.transport: asyncio.ReadTransport | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self.total > self.limit:
            return
        self.total += len(data)
        self.tail += data[-self.keep:]
        if len(self.tail) > self.keep:
            del self.tail[:len(self.tail) - self.keep]
        if self.total > self.limit:
            self.transport.pause_reading()
            self.over()

    def connection_lost(self, exc) -> None:
        if not self.closed.done():
            self.closed.set_result(None)

    def text(self, since: int = 0) -> str:
        new = min(self.total - since, len(self.tail))
        return bytes(self.tail[len(self.tail) - new:] if new > 0 else b"").decode(errors="replace")


class _Collect(asyncio.Protocol):
    """A pipe read to its end into a file, at most ``limit`` bytes (the rest: ``over``)."""

    def __init__(self, sink, limit: int) -> None:
        self.sink, self.limit, self.total, self.over = sink, limit, 0, False
        self.closed = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        self.total += len(data)
        if self.total > self.limit:
            self.over = True
        elif not self.over:
            self.sink.write(data)

    def connection_lost(self, exc) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


def _exit_code(code: int) -> int:
    """bwrap reports a command killed by signal N as 128+N: give it as -N, as asyncio does."""
    return -(code - 128) if 128 < code <= 128 + 64 else code


# --- the sandbox ------------------------------------------------------------------------------

class Sandbox:
    """One run of a bot's code (module docstring; docs/hosted.md).

    ``files`` is the version's folder, bound read-only at /bot; :meth:`start` makes what is in
    it readable by others (the sandbox's uid reads as "others"), and the folders above it must
    let others pass (o+x: 0711 keeps them unlistable; bwrap resolves the path as that uid).
    ``socket``, the referee's Unix socket, is bound at /run/cardarena/referee.sock and given as
    CARDARENA_ADDRESS; others get write permission on it (connecting needs it), its folders
    must let others pass too. ``env`` adds variables (CARDARENA_TOKEN, …).

    When the server runs as root each sandbox runs as its own uid (:attr:`uid`, from
    ``UID_FIRST``), so RLIMIT_NPROC counts its processes alone and even an escape is not root.
    Not root: it runs as the server's uid and the process limit is set to the server user's
    processes at start plus ``limits.processes``, so it bounds the sandbox only roughly.
    """

    def __init__(self, files: Path, *, name: str, socket: Path | None = None, env: Mapping[str, str] = {},
                 limits: Limits = Limits(), _build: bool = False):
        self.files = Path(files)
        self.name = name
        self.socket = Path(socket) if socket is not None else None
        self.env = dict(env)
        self.limits = limits
        self.stopped_for: str | None = None
        self.uid: int | None = None          # the host uid it runs as
        self.pid_namespace: str | None = None  # "pid:[inode]", as /proc/PID/ns/pid says
        self._build = _build
        self._proc: asyncio.subprocess.Process | None = None
        self._init_pid: int | None = None
        self._own_uid = False
        self._output: _Output | None = None
        self._ended: asyncio.Task | None = None
        self._returncode: int | None = None
        self._stopping: asyncio.Task | None = None
        self._collect: _Collect | None = None
        self._extra_fds: list[int] = []

    def __repr__(self) -> str:
        return f"Sandbox({self.name!r}, uid={self.uid}, {'running' if self.running else 'not running'})"

    async def start(self, command: str) -> None:
        """Run ``/bin/sh -c command`` inside, in /bot; returns once the sandbox is made."""
        if self._proc is not None:
            raise SandboxError(f"the sandbox {self.name} was started already")
        if not self.files.is_dir():
            raise SandboxError(f"{self.files} is not a folder")
        if os.geteuid() == 0:
            _check_reachable(self.files, "the bot's folder")
            for host, _ in _library_binds():
                _check_reachable(Path(host), "the SDK's folder")
        _make_readable(self.files)
        if self.socket is not None:
            if os.geteuid() == 0:
                _check_reachable(self.socket, "the referee's socket")
            st = os.stat(self.socket)
            if not stat.S_ISSOCK(st.st_mode):
                raise SandboxError(f"{self.socket} is not a socket")
            if os.geteuid() == 0 and not st.st_mode & 0o002:
                os.chmod(self.socket, (st.st_mode & 0o7777) | 0o002)
        loop = asyncio.get_running_loop()
        if os.geteuid() == 0:
            self.uid, self._own_uid = _take_uid(), True
            for fd in self._extra_fds:  # reopened inside as /proc/self/fd/N: the sandbox's uid must own it
                os.fchown(fd, self.uid, self.uid)
        else:
            self.uid = os.getuid()
        out_read, out_write = os.pipe()
        launch = None
        try:
            launch = _prepare(self.files, command, uid=self.uid if self._own_uid else None, limits=self.limits,
                              socket=self.socket, env=self.env, build=self._build, extra_fds=self._extra_fds)
            self._extra_fds = []
            self._proc = await asyncio.create_subprocess_exec(
                *launch.argv, stdin=subprocess.DEVNULL, stdout=out_write, stderr=out_write,
                pass_fds=launch.fds, env={"PATH": PATH}, start_new_session=True)
        except BaseException:
            os.close(out_read)
            if launch is not None:
                os.close(launch.info_read)
            self._release()
            raise
        finally:
            os.close(out_write)
            if launch is not None:
                launch.close_fds()
            _close_all(self._extra_fds)
            self._extra_fds = []
        self._ended = asyncio.create_task(self._end())
        try:
            limit = self.limits.output_kb * 1024
            _, self._output = await loop.connect_read_pipe(
                lambda: _Output(self.limits.log_kb * 1024, limit, self._over_output), os.fdopen(out_read, "rb", 0))
            info = await self._read_info(launch.info_read)
        except BaseException:  # cancelled while it starts: it must not run on
            self._kill()
            raise
        if info is None:
            self._kill()
            code = await self.wait()
            raise SandboxError(f"the sandbox {self.name} did not start (exit {code}): "
                               + (self.log_tail().strip().splitlines() or ["no output"])[-1])
        self._init_pid = info["child-pid"]
        self.pid_namespace = f"pid:[{info['pid-namespace']}]"
        if self.stopped_for is not None and self._stopping is None:  # over its output while starting
            self._stopping = loop.create_task(self.stop())

    async def _read_info(self, fd: int) -> dict | None:
        reader = asyncio.StreamReader()
        loop = asyncio.get_running_loop()
        transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                                    os.fdopen(fd, "rb", 0))
        data = b""
        try:
            async with asyncio.timeout(60):
                while True:
                    chunk = await reader.read(4096)
                    data += chunk
                    try:
                        info = json.loads(data)
                        return info if "child-pid" in info and "pid-namespace" in info else None
                    except ValueError:
                        if not chunk:
                            return None
        except TimeoutError:
            return None
        finally:
            transport.close()

    def _over_output(self) -> None:
        if self.stopped_for is None:
            self.stopped_for = f"output over {self.limits.output_kb} KB"
        if self._stopping is None and self.pid_namespace is not None:  # else start() does it
            self._stopping = asyncio.get_running_loop().create_task(self.stop())

    @property
    def running(self) -> bool:
        return self._proc is not None and self._returncode is None and self._proc.returncode is None

    def pids(self) -> set[int]:
        """Host pids of its processes (bwrap's outer process included)."""
        if self._proc is None:
            return set()
        found = _members(self.pid_namespace, self.uid if self._own_uid else None, self._proc.pid)
        if self._proc.returncode is None:
            found.add(self._proc.pid)
        return found

    def rss_bytes(self) -> int:
        """Resident memory of its processes now."""
        page = os.sysconf("SC_PAGE_SIZE")
        total = 0
        for pid in self.pids():
            try:
                with open(f"/proc/{pid}/statm") as f:
                    total += int(f.read().split()[1]) * page
            except (OSError, IndexError, ValueError):
                pass
        return total

    def log_tail(self) -> str:
        """The last ``log_kb`` of its stdout+stderr."""
        return self._output.text() if self._output is not None else ""

    def take_log(self) -> str:
        """The tail of what it wrote since the last call."""
        if self._output is None:
            return ""
        text = self._output.text(self._output.taken)
        self._output.taken = self._output.total
        return text

    async def wait(self) -> int:
        """Its exit code (negative: the signal that ended it) once no process of it remains."""
        if self._ended is None:
            raise SandboxError(f"the sandbox {self.name} was not started")
        return await asyncio.shield(self._ended)

    async def stop(self, grace: float = 2.0) -> None:
        """SIGTERM to each of its processes, SIGKILL to what is left after ``grace`` seconds;
        returns when none remains (checked: raises SandboxError if one would)."""
        if self._ended is None:
            return
        if not self._ended.done():
            ns, uid = self.pid_namespace, self.uid if self._own_uid else None
            termed: set[int] = set()
            deadline, pause = time.monotonic() + grace, 0.01
            while not self._ended.done() and time.monotonic() < deadline:
                # again and again: a process forked since (or the command, just after start) has it too
                new = self.pids() - {self._proc.pid, self._init_pid} - termed
                _signal(new, signal.SIGTERM, ns, uid)
                termed |= new
                try:
                    await asyncio.wait_for(asyncio.shield(self._ended), min(pause, max(0.0, deadline - time.monotonic())))
                except TimeoutError:
                    pause = min(pause * 2, 0.2)
            if not self._ended.done():
                self._kill()
        await asyncio.shield(self._ended)

    def _kill(self) -> None:
        """SIGKILL to the pid namespace's init (its death kills all the rest), then to bwrap
        (which reaps the init first: no zombie left for the machine's init to reap)."""
        if self._init_pid is not None:
            _signal([self._init_pid], signal.SIGKILL, self.pid_namespace, self.uid if self._own_uid else None)
        elif self._proc is not None and self._proc.returncode is None:  # not made yet: bwrap's children
            try:
                with open(f"/proc/{self._proc.pid}/task/{self._proc.pid}/children") as f:
                    children = [int(p) for p in f.read().split()]
            except OSError:
                children = []
            for pid in children:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        if self._proc is not None and self._proc.returncode is None:
            try:
                self._proc.kill()
            except ProcessLookupError:
                pass

    async def _end(self) -> int:
        """bwrap has exited (its command ended: the namespace goes with it): make sure nothing
        of the sandbox is left, then free its uid."""
        try:
            code = await self._proc.wait()
        except asyncio.CancelledError:
            self._kill()
            raise
        ns, uid = self.pid_namespace, self.uid if self._own_uid else None
        deadline = time.monotonic() + 10
        left = _members(ns, uid, self._proc.pid)
        while left:
            _signal(left, signal.SIGKILL, ns, uid)
            if time.monotonic() > deadline:
                raise SandboxError(f"processes of the sandbox {self.name} remain after SIGKILL: {sorted(left)}")
            await asyncio.sleep(0.02)
            left = _members(ns, uid, self._proc.pid)
        self._release()
        if self._output is not None and self._output.total <= self._output.limit:
            try:
                await asyncio.wait_for(asyncio.shield(self._output.closed), 2)  # the last of its output
            except TimeoutError:
                pass
        if self._output is not None and self._output.transport is not None:
            self._output.transport.close()
        self._returncode = _exit_code(code)
        if self._returncode == -signal.SIGXCPU and self.stopped_for is None:
            self.stopped_for = f"CPU time over {self.limits.cpu_seconds} s"
        return self._returncode

    def _release(self) -> None:
        if self._own_uid and self.uid is not None:
            _release_uid(self.uid)
            self._own_uid = False


# --- builds ---------------------------------------------------------------------------------

async def build(files: Path, command: str, *, name: str, limits: Limits = Limits()) -> tuple[bool, str]:
    """Run the build command once in a sandbox: /bot writable, no network, no socket, stopped
    after ``limits.build_seconds``. Returns (ok, the log's tail); a timeout is (False, the log
    and a line saying it ran out of time).

    /bot is a tmpfs of ``limits.build_mb`` holding a copy of ``files``, so a build cannot fill
    the server's disk; when the command succeeds its /bot is copied back (a tar stream read by
    the server, nothing but files, folders and symlinks that stay inside) and replaces the
    contents of ``files``, the folder the caller owns. A failed build leaves ``files`` as it was."""
    files = Path(files)
    tar_read, tar_write = os.pipe()
    os.set_inheritable(tar_read, False)
    box = Sandbox(files, name=name, limits=limits, _build=True)
    box._extra_fds = [tar_write]
    spool = tempfile.TemporaryFile()
    transport = None
    try:
        try:
            await box.start(command)
        except BaseException:
            os.close(tar_read)
            raise
        loop = asyncio.get_running_loop()
        transport, collect = await loop.connect_read_pipe(lambda: _Collect(spool, limits.build_mb * MiB + 16 * MiB),
                                                  os.fdopen(tar_read, "rb", 0))
        try:
            code = await asyncio.wait_for(box.wait(), limits.build_seconds)
        except TimeoutError:
            await box.stop(grace=1.0)
            return False, _joined(box.log_tail(), f"the build ran out of time ({limits.build_seconds:g} s) and was stopped")
        if code != 0:
            why = box.stopped_for or f"the build failed (exit {code})"
            return False, _joined(box.log_tail(), why)
        try:
            await asyncio.wait_for(asyncio.shield(collect.closed), 10)
        except TimeoutError:
            return False, _joined(box.log_tail(), "the build's files did not come out")
        if collect.over:
            return False, _joined(box.log_tail(), f"the build's files are over {limits.build_mb} MB")
        spool.seek(0)
        try:
            notes = await asyncio.to_thread(_replace_with_tar, files, spool)  # not in the event loop
        except (tarfile.TarError, OSError, ValueError) as e:
            return False, _joined(box.log_tail(), f"the build's files could not be kept: {e}")
        return True, _joined(box.log_tail(), *notes)
    finally:
        await box.stop(grace=1.0)
        if transport is not None:
            transport.close()
        spool.close()


def _joined(log: str, *lines: str) -> str:
    if not lines:
        return log
    return (log if not log or log.endswith("\n") else log + "\n") + "\n".join(lines) + "\n"


def _replace_with_tar(dest: Path, stream) -> list[str]:
    """Empty ``dest``, then write into it the files, folders and symlinks of the tar ``stream``
    (made inside a sandbox: untrusted). No path leaves ``dest``: names are relative and without
    "..", every folder on the way is opened without following symlinks, and a symlink is kept
    only if its target is relative and without ".." (so no chain of them leads out). Modes keep
    the owner's run bit; no setuid, no write for others."""
    notes: list[str] = []
    for entry in os.scandir(dest):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
    root = os.open(dest, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        with tarfile.open(fileobj=stream, mode="r|") as tar:
            for m in tar:
                parts = [p for p in PurePosixPath(m.name).parts if p != "."]
                if not parts:
                    continue
                if m.name.startswith("/") or ".." in parts or any("\0" in p for p in parts):
                    raise ValueError(f"a path out of /bot: {m.name!r}")
                parent = _open_dirs(root, parts[:-1])
                try:
                    last = parts[-1]
                    if m.isdir():
                        try:
                            os.mkdir(last, 0o755, dir_fd=parent)
                        except FileExistsError:
                            pass
                    elif m.isreg():
                        _remove(parent, last)
                        fd = os.open(last, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                                     0o755 if m.mode & 0o100 else 0o644, dir_fd=parent)
                        with os.fdopen(fd, "wb") as out, tar.extractfile(m) as src:
                            shutil.copyfileobj(src, out)
                    elif m.issym():
                        target = m.linkname
                        if target.startswith("/") or ".." in PurePosixPath(target).parts:
                            notes.append(f"left out the symlink {'/'.join(parts)} -> {target} (it leads out)")
                            continue
                        _remove(parent, last)
                        os.symlink(target, last, dir_fd=parent)
                    else:
                        notes.append(f"left out {'/'.join(parts)} (not a file, folder or symlink)")
                finally:
                    if parent != root:
                        os.close(parent)
    finally:
        os.close(root)
    return notes


def _open_dirs(root: int, parts: list[str]) -> int:
    fd = root
    for part in parts:
        nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
        if fd != root:
            os.close(fd)
        fd = nxt
    return fd


def _remove(dir_fd: int, name: str) -> None:
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        raise ValueError(f"{name!r} is both a folder and a file")
    os.unlink(name, dir_fd=dir_fd)


# --- can sandboxes run here? ------------------------------------------------------------------

@functools.cache
def unavailable() -> str | None:
    """One line saying why sandboxes cannot run here (no bwrap, user namespaces off, ...), or
    None. Cached; tries a real trivial sandbox once."""
    if not os.path.exists("/proc/self/ns/pid"):
        return "no Linux namespaces here (sandboxes need Linux)"
    if shutil.which(BWRAP) is None:
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    if shutil.which(PRLIMIT) is None:
        return "prlimit is not installed (util-linux)"
    try:
        for host, _ in _library_binds():
            if os.geteuid() == 0:
                _check_reachable(Path(host), "the SDK's folder")
    except SandboxError as e:
        return str(e)
    folder = Path(tempfile.mkdtemp(prefix="cardarena-sandbox-check-"))
    uid = None
    try:
        _make_readable(folder)
        uid = _take_uid() if os.geteuid() == 0 else None
        launch = _prepare(folder, "echo sandbox-ok", uid=uid, limits=Limits(), socket=None, env={}, build=False)
        try:  # the info pipe stays open until bwrap ends (bwrap writes to it)
            r = subprocess.run(launch.argv, stdin=subprocess.DEVNULL, capture_output=True, pass_fds=launch.fds,
                               env={"PATH": PATH}, timeout=60, start_new_session=True)
        finally:
            launch.close_fds()
            os.close(launch.info_read)
    except (OSError, SandboxError, subprocess.SubprocessError) as e:
        return f"cannot make a sandbox here: {e}"
    finally:
        if uid is not None:
            _release_uid(uid)
        shutil.rmtree(folder, ignore_errors=True)
    if r.returncode == 0 and r.stdout.strip() == b"sandbox-ok":
        return None
    said = (r.stderr or r.stdout).decode(errors="replace").strip().splitlines()
    return f"bubblewrap cannot make a sandbox here: {said[-1] if said else f'exit {r.returncode}'}"
