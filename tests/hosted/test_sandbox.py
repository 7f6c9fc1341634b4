"""The sandbox of hosted bots, attacked: each test runs a real bubblewrap sandbox with a small
hostile program and asserts that the attack fails and that nothing of the sandbox is left
running afterwards; then the positive controls (Python with the SDK, a C++ build, Node, the
referee's socket). Durations are asserted at 10x what they take here, at least."""
from __future__ import annotations

import asyncio
import errno
import json
import os
import shutil
import signal
import socket
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import grpc
import pytest
from sandboxkit import left_of, live_processes, run

from cardarena.server import sandbox
from cardarena.server.sandbox import Limits, Sandbox, build

pytestmark = pytest.mark.usefixtures("sandboxes")

ROOT = Path(__file__).resolve().parents[2]


async def finished(box: Sandbox, command: str, timeout: float = 120) -> tuple[int, str]:
    """Start ``command`` in ``box``, wait for its end; (exit code, its output)."""
    await box.start(command)
    try:
        code = await asyncio.wait_for(box.wait(), timeout)
    finally:
        await box.stop()
    return code, box.log_tail()


def report(log: str) -> dict:
    """The JSON object a program printed as its last line."""
    return json.loads(log.strip().splitlines()[-1])


# --- network -------------------------------------------------------------------------------

NETWORK = r'''
import json, socket, sys
port = int(sys.argv[1])
out = {}
def attempt(name, fn):
    try:
        fn()
        out[name] = "reached"
    except OSError as e:
        out[name] = e.errno or str(e)
def tcp(host):
    s = socket.create_connection((host, port), timeout=3); s.sendall(b"from the sandbox")
def udp(host):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"from the sandbox", (host, port))
def unix_abstract():
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[2].replace("@", "\0")); s.sendall(b"from the sandbox")
attempt("tcp 127.0.0.1", lambda: tcp("127.0.0.1"))
attempt("udp 127.0.0.1", lambda: udp("127.0.0.1"))
attempt("tcp 1.1.1.1", lambda: tcp("1.1.1.1"))
attempt("udp 8.8.8.8", lambda: udp("8.8.8.8"))
attempt("tcp 10.0.2.2", lambda: tcp("10.0.2.2"))
attempt("dns", lambda: socket.getaddrinfo("example.com", 80))
attempt("abstract unix", unix_abstract)
out["interfaces"] = sorted(l.split(":")[0].strip() for l in open("/proc/net/dev").read().splitlines()[2:])
print(json.dumps(out))
'''


def test_no_network_not_even_to_a_listener_on_the_machine(bot_dir):
    got: list[bytes] = []
    tcp = socket.create_server(("127.0.0.1", 0))
    port = tcp.getsockname()[1]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", port))
    abstract = socket.socket(socket.AF_UNIX)
    name = f"\0cardarena-test-{os.getpid()}-{port}"
    abstract.bind(name)
    abstract.listen()
    for s in (tcp, udp, abstract):
        s.settimeout(0.2)
    done = threading.Event()

    def listen() -> None:
        while not done.is_set():
            for s in (tcp, abstract):
                try:
                    conn, _ = s.accept()
                    got.append(conn.recv(100) or b"(a connection)")
                    conn.close()
                except OSError:
                    pass
            try:
                got.append(udp.recv(100))
            except OSError:
                pass
    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    try:
        # the listeners answer from here (a positive control of the listeners themselves)
        with socket.create_connection(("127.0.0.1", port)) as c:
            c.sendall(b"control")
        deadline = time.monotonic() + 10
        while b"control" not in got and time.monotonic() < deadline:
            time.sleep(0.05)
        assert got == [b"control"]
        box = Sandbox(bot_dir(net__py=NETWORK), name="net")
        code, log = run(finished(box, f"python3 net.py {port} {name.replace(chr(0), '@')}"))
        assert code == 0, log
        out = report(log)
        unreachable = {errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ECONNREFUSED, errno.EADDRNOTAVAIL}
        for attempt in ("tcp 127.0.0.1", "tcp 1.1.1.1", "udp 8.8.8.8", "tcp 10.0.2.2"):
            assert out[attempt] in unreachable, (attempt, out)
        # its 127.0.0.1 is its own loopback: a datagram goes out there and reaches no one (below)
        assert out["udp 127.0.0.1"] in unreachable | {"reached"}
        assert out["dns"] != "reached" and out["abstract unix"] != "reached", out
        assert out["interfaces"] == ["lo"], out
        time.sleep(0.5)
        assert got == [b"control"], "a listener on the machine heard from the sandbox"
        assert left_of(box) == []
    finally:
        done.set()
        listener.join(5)
        for s in (tcp, udp, abstract):
            s.close()


# --- files, environment, processes -----------------------------------------------------------

LOOK = r'''
import json, os, sys
out = {"exists": {p: os.path.exists(p) for p in sys.argv[1:]}}
out["root"] = sorted(os.listdir("/"))
out["env"] = dict(os.environ)
out["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
out["fds"] = sorted(int(f) for f in os.listdir("/proc/self/fd"))
out["uid"] = os.getuid()
out["init"] = [open(f"/proc/1/{f}", "rb").read().decode(errors="replace") for f in ("cmdline", "environ")]
try:
    open("/etc/shadow").read(); out["shadow"] = "read"
except OSError as e:
    out["shadow"] = e.errno
print(json.dumps(out))
'''


def test_the_host_files_environment_and_processes_are_out_of_sight(bot_dir, open_tmp, tmp_path, monkeypatch):
    monkeypatch.setenv("CARDARENA_ADMIN_TOKEN", "fake-admin-secret-for-the-test")
    # beside the bot's folder and readable by anyone: only the mounts keep them out of sight
    ledger = open_tmp / "ledger" / "cardarena.db"
    ledger.parent.mkdir(mode=0o755)
    ledger.write_text("the ledger")
    other = open_tmp / "other-bot" / "bot.py"
    other.parent.mkdir(mode=0o755)
    other.write_text("print('the other bot')")
    files = bot_dir(look__py=LOOK)
    secret_paths = [str(ledger), str(ledger.parent), str(other), str(open_tmp), str(tmp_path), "/root", "/home", "/work",
                    str(ROOT), str(ROOT / "server"), os.getcwd(), sys.prefix, str(files), "/var", "/srv", "/mnt"]
    box = Sandbox(files, name="look", env={"CARDARENA_TOKEN": "the-bot-token"})
    code, log = run(finished(box, "python3 look.py " + " ".join(secret_paths)))
    assert code == 0, log
    out = report(log)
    assert {p for p, there in out["exists"].items() if there} == set(), out["exists"]
    assert set(out["root"]) <= {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "bot", "tmp",
                                "proc", "dev", "opt", "run"}, out["root"]
    assert set(out["env"]) == {"PATH", "HOME", "LANG", "PYTHONPATH", "NODE_PATH", "CARDARENA_TOKEN", "PWD"}, out["env"]
    assert out["env"]["CARDARENA_TOKEN"] == "the-bot-token" and out["env"]["HOME"] == "/tmp"
    assert "fake-admin-secret" not in log  # neither in its environment nor in its pid 1's
    assert out["shadow"] == errno.ENOENT
    assert out["fds"] == [0, 1, 2, 3], "only stdin, stdout, stderr (3: the listing itself)"
    assert os.getpid() not in out["pids"] and max(out["pids"]) < 20, out["pids"]
    assert out["uid"] != 0
    if os.geteuid() == 0:
        assert sandbox.UID_FIRST <= box.uid < sandbox.UID_FIRST + sandbox.UID_COUNT
        assert out["uid"] == box.uid
    assert left_of(box) == []


WRITE = r'''
import json, os
out = {}
for path in ("/bot/x", "/usr/x", "/x", "/etc/x", "/opt/cardarena/python/x", "/dev/x", "/proc/x", "/run/x",
             "/bot/look.py", "/tmp/x", "/dev/shm/x"):
    try:
        with open(path, "w") as f:
            f.write("x")
        out[path] = "written"
    except OSError as e:
        out[path] = e.errno
try:
    with open("/dev/shm/big", "wb") as f:
        f.write(b"x" * (2 << 20))
    out["shm 2 MiB"] = "written"
except OSError as e:
    out["shm 2 MiB"] = e.errno
print(json.dumps(out))
'''


def test_nothing_but_tmp_is_writable(bot_dir):
    files = bot_dir(write__py=WRITE, look__py="kept")
    box = Sandbox(files, name="write")
    code, log = run(finished(box, "python3 write.py"))
    assert code == 0, log
    out = report(log)
    assert out.pop("/tmp/x") == "written" and out.pop("/dev/shm/x") == "written"
    assert out.pop("shm 2 MiB") == errno.ENOSPC
    assert all(v in (errno.EROFS, errno.EACCES, errno.ENOENT, errno.EPERM) for v in out.values()), out
    assert sorted(p.name for p in files.iterdir()) == ["look.py", "write.py"]
    assert (files / "look.py").read_text() == "kept"


# --- limits ----------------------------------------------------------------------------------

FORK_BOMB = r'''
import os, sys, time
failed = 0
start = time.monotonic()
while time.monotonic() - start < 60:
    try:
        os.fork()
    except OSError:
        failed += 1
        if failed == 1:
            print("fork failed", flush=True)
        time.sleep(0.01)
'''


def test_a_fork_bomb_is_bounded_and_leaves_nothing(bot_dir):
    limits = Limits(processes=16)

    async def go() -> tuple[list[int], Sandbox]:
        box = Sandbox(bot_dir(bomb__py=FORK_BOMB), name="bomb", limits=limits)
        await box.start("python3 bomb.py")
        counts = []
        try:
            deadline = time.monotonic() + 60
            while "fork failed" not in box.log_tail() and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            for _ in range(5):
                counts.append(len(left_of(box)))
                await asyncio.sleep(0.2)
        finally:
            await box.stop(grace=0.5)
        return counts, box
    counts, box = run(go())
    assert "fork failed" in box.log_tail()
    # the processes of its uid: at most the limit (bwrap's two included)
    assert max(counts) <= limits.processes, counts
    assert left_of(box) == []


MEMORY_HOG = r'''
import json
out = {}
try:
    block = bytearray(512 << 20)
    out["512 MiB at once"] = "allocated"
except MemoryError:
    out["512 MiB at once"] = "MemoryError"
held, total = [], 0
try:
    while total < (4 << 30):
        held.append(bytearray(16 << 20)); total += 16 << 20
except MemoryError:
    pass
out["held MiB"] = total >> 20
print(json.dumps(out))
'''


def test_memory_past_the_limit_is_refused(bot_dir):
    box = Sandbox(bot_dir(hog__py=MEMORY_HOG), name="hog", limits=Limits(memory_mb=256))
    code, log = run(finished(box, "python3 hog.py"))
    assert code == 0, log
    out = report(log)
    assert out["512 MiB at once"] == "MemoryError"
    assert 0 < out["held MiB"] < 256, out
    assert left_of(box) == []


DISK_FILL = r'''
import json, os
total, err = 0, None
try:
    for i in range(1000):
        with open(f"/tmp/fill-{i}", "wb") as f:
            for _ in range(16):
                f.write(b"x" * (64 << 10)); f.flush(); total += 64 << 10
except OSError as e:
    err = e.errno
print(json.dumps({"written MiB": total / (1 << 20), "errno": err}))
'''


def test_filling_tmp_ends_in_enospc(bot_dir):
    box = Sandbox(bot_dir(fill__py=DISK_FILL), name="fill", limits=Limits(tmp_mb=8))
    code, log = run(finished(box, "python3 fill.py"))
    assert code == 0, log
    out = report(log)
    assert out["errno"] == errno.ENOSPC and 4 <= out["written MiB"] <= 8, out


BURST = r'''
import sys
chunk = b"y" * (1 << 20)
for _ in range(100):
    sys.stdout.buffer.write(chunk)
sys.stdout.buffer.flush()
print("all of it written")
'''


def test_a_100_mb_burst_is_stopped_and_costs_the_server_little(bot_dir):
    limits = Limits()  # output_kb 10240, log_kb 64

    async def go() -> tuple[int, Sandbox, int]:
        box = Sandbox(bot_dir(burst__py=BURST), name="burst", limits=limits)
        tracemalloc.start()
        try:
            await box.start("python3 burst.py")
            code = await asyncio.wait_for(box.wait(), 60)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            await box.stop()
        return code, box, peak
    code, box, peak = run(go())
    assert box.stopped_for == "output over 10240 KB"
    assert code != 0
    tail = box.log_tail()
    assert 0 < len(tail.encode()) <= limits.log_kb * 1024 and "all of it written" not in tail
    assert peak < 8 << 20, f"the server held {peak >> 20} MiB for the burst"
    assert left_of(box) == []


def test_cpu_time_past_the_limit_ends_the_process(bot_dir):
    box = Sandbox(bot_dir(spin__sh="while :; do :; done\n"), name="spin", limits=Limits(cpu_seconds=1))
    code, log = run(finished(box, "exec sh spin.sh"))
    assert code in (-signal.SIGXCPU, -signal.SIGKILL), (code, log)
    assert box.stopped_for in ("CPU time over 1 s", None)
    if code == -signal.SIGXCPU:
        assert box.stopped_for == "CPU time over 1 s"


# --- stopping --------------------------------------------------------------------------------

def test_stop_ends_a_program_that_ignores_sigterm_within_its_grace(bot_dir):
    program = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('up', flush=True)\ntime.sleep(1e6)\n"

    async def go() -> tuple[float, Sandbox, int]:
        box = Sandbox(bot_dir(stubborn__py=program), name="stubborn")
        await box.start("exec python3 stubborn.py")
        while "up" not in box.log_tail():
            await asyncio.sleep(0.05)
        assert box.running
        t = time.monotonic()
        await box.stop(grace=1.0)
        return time.monotonic() - t, box, await box.wait()
    took, box, code = run(go())
    assert took < 1.0 + 10, took
    assert not box.running and code == -signal.SIGKILL
    assert left_of(box) == []


def test_stop_right_after_start_still_sends_sigterm(bot_dir):
    async def go() -> tuple[float, int, Sandbox]:
        box = Sandbox(bot_dir(), name="early")
        await box.start("exec sleep 100000")
        t = time.monotonic()
        await box.stop(grace=30)
        return time.monotonic() - t, await box.wait(), box
    took, code, box = run(go())
    assert code == -signal.SIGTERM and took < 10, (code, took)
    assert left_of(box) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="as root only: the sandbox runs as its own uid")
def test_a_folder_out_of_the_sandboxs_reach_is_named(tmp_path):
    files = tmp_path / "bot"  # pytest's tmp_path sits in a 0700 folder
    files.mkdir()

    async def go() -> None:
        await Sandbox(files, name="unreachable").start("true")
    with pytest.raises(sandbox.SandboxError, match=r"folders above it must let others pass \(o\+x"):
        run(go())


def test_stop_sends_sigterm_first(bot_dir):
    # os.write, not print: the signal may come while print('up') still holds stdout's lock
    program = ("import os, signal, sys, time\n"
               "signal.signal(signal.SIGTERM, lambda *a: (os.write(1, b'got SIGTERM\\n'), sys.exit(7)))\n"
               "print('up', flush=True)\ntime.sleep(1e6)\n")

    async def go() -> tuple[float, Sandbox, int]:
        box = Sandbox(bot_dir(polite__py=program), name="polite")
        await box.start("exec python3 polite.py")
        while "up" not in box.log_tail():
            await asyncio.sleep(0.05)
        t = time.monotonic()
        await box.stop(grace=30)
        return time.monotonic() - t, box, await box.wait()
    took, box, code = run(go())
    assert code == 7 and "got SIGTERM" in box.log_tail()
    assert took < 10, took
    assert left_of(box) == []


DAEMON = r'''
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.chdir("/")
        print("daemon", os.getpid(), flush=True)
        while True:
            time.sleep(0.1)
    os._exit(0)
time.sleep(0.5)
print("parent leaves", flush=True)
if sys.argv[1] == "stay":
    time.sleep(1e6)
'''


@pytest.mark.parametrize("parent", ["leaves", "stay"])
def test_a_double_forked_daemon_does_not_outlive_its_sandbox(bot_dir, parent):
    async def go() -> Sandbox:
        box = Sandbox(bot_dir(daemon__py=DAEMON), name="daemon")
        await box.start(f"python3 daemon.py {parent}")
        while "parent leaves" not in box.log_tail():
            await asyncio.sleep(0.05)
        if parent == "stay":
            assert len(left_of(box)) >= 3  # bwrap's, the parent, the daemon
            await box.stop(grace=0.5)
        else:
            await asyncio.wait_for(box.wait(), 60)
        return box
    box = run(go())
    assert "daemon" in box.log_tail()
    assert left_of(box) == []
    assert box.pids() == set()


def test_a_build_that_never_ends_is_stopped(bot_dir):
    files = bot_dir(main__c="int main(void) { return 0; }\n")
    command = "readlink /proc/self/ns/pid; id -u; (setsid sleep 100000 &); sleep 100000"
    t = time.monotonic()
    ok, log = run(build(files, command, name="endless", limits=Limits(build_seconds=2)))
    took = time.monotonic() - t
    assert not ok and "the build ran out of time (2 s)" in log, log
    assert took < 2 + 20, took
    ns, uid = log.splitlines()[0], int(log.splitlines()[1])
    assert ns.startswith("pid:[")
    assert live_processes(uid if os.geteuid() == 0 else None, ns) == []
    assert sorted(p.name for p in files.iterdir()) == ["main.c"], "a failed build leaves the files as they were"


# --- the log -------------------------------------------------------------------------------

def test_take_log_gives_what_came_since_the_last_take(bot_dir):
    program = "import sys, time\nprint('first', flush=True)\nsys.stdin.read() if False else time.sleep(1)\nprint('second')\n"

    async def go() -> tuple[str, str, str, int]:
        box = Sandbox(bot_dir(talk__py=program), name="talk")
        await box.start("python3 talk.py; exit 3")
        while "first" not in box.log_tail():
            await asyncio.sleep(0.02)
        one = box.take_log()
        code = await box.wait()
        return one, box.take_log(), box.take_log(), code
    one, two, three, code = run(go())
    assert one == "first\n" and two == "second\n" and three == ""
    assert code == 3


def test_exit_codes_and_signals(bot_dir):
    files = bot_dir()
    code, _ = run(finished(Sandbox(files, name="x"), "exit 5"))
    assert code == 5
    code, _ = run(finished(Sandbox(files, name="k"), "kill -KILL $$"))
    assert code == -signal.SIGKILL


def test_two_live_sandboxes_have_two_uids(bot_dir):
    async def go() -> tuple[int, int, set[int], set[int]]:
        a, b = Sandbox(bot_dir(), name="a"), Sandbox(bot_dir(), name="b")
        await a.start("exec sleep 100")
        await b.start("exec sleep 100")
        try:
            while len(a.pids()) < 3 or len(b.pids()) < 3:  # bwrap, its init, sleep
                await asyncio.sleep(0.02)
            return a.uid, b.uid, a.pids() | b.pids(), sandbox.leftovers()
        finally:
            await asyncio.gather(a.stop(0.5), b.stop(0.5))
    a, b, theirs, seen = run(go())
    if os.geteuid() == 0:
        assert a != b
        assert theirs <= seen, "leftovers() sees every process of the live sandboxes"


# --- positive controls ---------------------------------------------------------------------

def test_python_with_the_sdk_runs(bot_dir):
    program = ("import cardarena.client, grpc, google.protobuf\nfrom cardarena.v1 import referee_pb2\n"
               "from cardarena.client import run, Decision\nprint('OK', grpc.__version__)\n")
    box = Sandbox(bot_dir(sdk__py=program), name="sdk")
    code, log = run(finished(box, "python3 sdk.py"))
    assert code == 0 and log.startswith("OK "), log


@pytest.mark.skipif(os.geteuid() != 0, reason="as root only: the sandbox runs as its own uid")
def test_an_sdk_out_of_the_sandboxs_reach_is_copied_where_it_is(bot_dir, tmp_path, monkeypatch, request):
    """A checkout in a folder of mode 0700 (a home, ``mktemp -d``): the SDK's folders are copied
    where the sandbox's uid reaches them, readable, not writable, once for every process that binds
    the same files, and Python imports them there."""
    hidden = tmp_path / "home"  # the SDK as a checkout in a 0700 folder would have it
    hidden.mkdir(mode=0o700)
    found = []
    for k, (host, inside) in enumerate(sandbox._found_binds()):
        if inside.startswith(sandbox.PYTHON_DIR):
            copy = hidden / str(k)
            (shutil.copytree(host, copy) if os.path.isdir(host) else shutil.copy2(host, copy))
            found.append((str(copy), inside))
    assert not any(sandbox._reachable(Path(host)) for host, _ in found)
    staged = sandbox._staged(found)
    top = Path(staged[0][0]).parent
    request.addfinalizer(lambda: shutil.rmtree(top, ignore_errors=True))
    assert sandbox._staged(found) == staged, "made once, then shared"
    os.chmod(top, 0o777)  # a folder of that name others may write to is never taken
    own = Path(sandbox._staged(found)[0][0]).parent
    shutil.rmtree(own)
    assert own != top
    os.chmod(top, 0o755)
    for (host, _), (copy, _) in zip(found, staged):
        assert sandbox._reachable(Path(copy)) and os.listdir(Path(copy).parent)
        mode = os.stat(copy).st_mode
        assert mode & 0o004 and not mode & 0o022, oct(mode)
        if os.path.isdir(host):
            assert sorted(p.name for p in Path(copy).iterdir()) == \
                sorted(p.name for p in Path(host).iterdir() if p.name != "__pycache__")
    monkeypatch.setattr(sandbox, "_library_binds", lambda: tuple(staged))
    program = "import cardarena.client, grpc, google.protobuf\nprint('OK', cardarena.client.__file__)\n"
    code, log = run(finished(Sandbox(bot_dir(sdk__py=program), name="staged"), "python3 sdk.py"))
    assert code == 0 and log.startswith("OK /opt/cardarena/python/cardarena/client/"), log


CPP = r'''
#include <iostream>
#include <string>
#include <vector>
int main() {
    std::vector<std::string> words{"built", "and", "run"};
    for (const auto& w : words) std::cout << w << ' ';
    std::cout << "in C++" << std::endl;
}
'''


def test_a_cpp_bot_built_then_run(bot_dir):
    files = bot_dir(main__cpp=CPP)
    ok, log = run(build(files, "g++ -O1 -o bot main.cpp && mkdir -p out && echo made > out/note",
                        name="cpp", limits=Limits(build_seconds=240)))
    assert ok, log
    assert (files / "bot").is_file() and os.access(files / "bot", os.X_OK)
    assert (files / "out" / "note").read_text() == "made\n" and (files / "main.cpp").is_file()
    box = Sandbox(files, name="cpp")
    code, log = run(finished(box, "./bot"))
    assert code == 0 and log == "built and run in C++\n", log


def test_a_failing_build_says_so(bot_dir):
    files = bot_dir(main__cpp="this is not C++\n")
    ok, log = run(build(files, "g++ -o bot main.cpp", name="bad"))
    assert not ok and "error" in log and "the build failed (exit 1)" in log, log
    assert not (files / "bot").exists()


def test_a_build_cannot_fill_the_disk(bot_dir):
    files = bot_dir()
    ok, log = run(build(files, "i=0; while [ $i -lt 100 ]; do head -c 1048576 /dev/zero > f$i || exit 1; i=$((i+1)); done",
                        name="fill", limits=Limits(build_mb=8)))
    assert not ok and "No space left on device" in log, log
    assert list(files.iterdir()) == []


def test_a_build_result_cannot_point_out_of_its_folder(bot_dir):
    files = bot_dir()
    ok, log = run(build(files, "ln -s /etc/passwd passwd && ln -s ../x up && ln -s sub/x down && mkdir sub && echo x > sub/x",
                        name="links"))
    assert ok, log
    assert "left out the symlink passwd -> /etc/passwd" in log and "left out the symlink up -> ../x" in log
    assert sorted(p.name for p in files.iterdir()) == ["down", "sub"]
    assert (files / "down").read_text() == "x\n"


def test_node_with_the_helper_runs(bot_dir):
    if not (ROOT / "clients" / "node" / "node_modules" / "@grpc" / "grpc-js").is_dir():
        if os.environ.get("CI"):
            pytest.fail("CI must install the Node helper's packages (make examples)")
        pytest.skip("the Node helper's packages are not installed (make examples)")
    program = ("const a = require('cardarena'); const b = require('cardarena-bot');\n"
               "console.log('node', typeof a.run, a === b);\n")
    box = Sandbox(bot_dir(bot__js=program), name="node")
    code, log = run(finished(box, "node bot.js"))
    assert code == 0 and log == "node function true\n", log


GRPC_CLIENT = r'''
import os, grpc
with grpc.insecure_channel(os.environ["CARDARENA_ADDRESS"]) as channel:
    echo = channel.unary_unary("/test.Echo/Say")
    print(echo(b"hello from the sandbox", timeout=20).decode())
'''


def test_a_grpc_client_inside_reaches_a_server_through_the_socket(bot_dir, open_tmp):
    private = open_tmp / "run"
    private.mkdir(mode=0o711)  # others may pass, not list
    path = private / "referee.sock"

    async def go() -> tuple[int, str, Sandbox]:
        server = grpc.aio.server()

        async def say(request: bytes, context) -> bytes:
            return b"the server heard: " + request
        handler = grpc.method_handlers_generic_handler("test.Echo", {"Say": grpc.unary_unary_rpc_method_handler(say)})
        server.add_generic_rpc_handlers((handler,))
        assert server.add_insecure_port(f"unix:{path}")
        await server.start()
        try:
            box = Sandbox(bot_dir(client__py=GRPC_CLIENT), name="client", socket=path)
            code, log = await finished(box, "python3 client.py")
            return code, log, box
        finally:
            await server.stop(0)
    code, log, box = run(go())
    assert code == 0 and log == "the server heard: hello from the sandbox\n", log
    assert left_of(box) == []
