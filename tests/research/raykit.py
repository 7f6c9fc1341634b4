"""Helpers of the Ray tests: a real two-node Ray cluster on loopback, alone in its own namespaces,
and the in-process bots its leagues play.

Ray takes the machine's outward address for its GCS even when told ``--node-ip-address
127.0.0.1``, so the cluster and every client of it run inside namespaces of their own
(``unshare --net --pid --mount-proc``, as root): a network namespace where only ``lo`` is up
(no other address exists there, so nothing else can be reached), and a PID namespace, so that
``ray stop --force`` there, which stops Ray processes by name, sees only this cluster's, and so
that the kernel ends every process of it when the namespace's first process (``sh``, which also
reaps what Ray leaves behind) ends: unshare ``--kill-child`` ends it if unshare is killed.

Inside runs this module as a script (``python raykit.py agent FOLDER``): the *agent* brings
``lo`` up, makes sure the namespace holds nothing else (no other link or address, no route: a
connection to 192.0.2.1 is unreachable; else it starts nothing and says why), starts the head
(``ray start --head``, one CPU) and a second node (``ray start --address``, one CPU, its own
raylet port) and then carries out the test's requests, one JSON line each on its stdin,
answered on its stdout: run a command there (the CLI as a client of the cluster), start one in
the background and wait for it, kill -9 a Ray worker playing a match or the second node's
raylet, start the second node again. On ``stop``, or when its stdin closes (the test process
ended, however), it runs ``ray stop --force`` and exits, and the namespace with it.
:class:`Cluster` is the test's side. Nothing here imports more than the standard library, so
the CLI can load the bots below from this file (``--bot NAME=py:…/raykit.py:SlowRandom(…)``).
"""
from __future__ import annotations

import errno
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
BIN = Path(sys.executable).parent
HEAD_PORT = 6379
NODE2_PORT = 23456  # the second node's raylet (--node-manager-port): how the agent finds it
#: the namespaces' cluster needs no token: nothing outside them can reach it
ENV = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}


# ----------------------------------------------------------------------------- bots of the leagues


class SlowRandom:
    """A random bot from its own seeded generator that takes ``delay`` seconds over each
    decision (asleep: no CPU), so a league lasts long enough to kill a worker in it. With
    ``log``, each copy appends the Ray node and process it played on to that file at its first
    decision."""

    words = False  # reads only the number of actions

    def __init__(self, seed: int = 0, delay: float = 0.0, log: str | None = None):
        self.rng = random.Random(seed)
        self.delay = delay
        self.log = log
        self.logged = False

    def __call__(self, decision) -> int:
        if self.log and not self.logged:
            self.logged = True
            node = "no-ray"
            try:
                import ray
                if ray.is_initialized():
                    node = ray.get_runtime_context().get_node_id()
            except ImportError:
                pass
            with open(self.log, "a") as f:
                f.write(f"{node} {os.getpid()}\n")
        if self.delay:
            time.sleep(self.delay)
        return self.rng.randrange(len(decision.actions))


# ----------------------------------------------------------------------------- the agent (inside the namespaces)


def _ray(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "ray"), *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **ENV})


def _pids(marker) -> list[int]:
    """The processes of this namespace whose command line ``marker(cmdline)`` accepts."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cmd and marker(cmd):
            pids.append(int(entry.name))
    return pids


def _alone(links: str, addrs: str) -> str:
    """What is wrong with the namespace for a cluster that must reach nothing outside it: a
    link besides ``lo``, an address besides loopback's, a route out; "" when there is none."""
    names = [line.split(":")[1].strip() for line in links.splitlines() if line.strip()]
    if names != ["lo"]:
        return f"links {names}"
    held = sorted(line.split()[3] for line in addrs.splitlines() if line.strip())
    if held != ["127.0.0.1/8", "::1/128"]:
        return f"addresses {held}"
    try:  # TEST-NET-1 (RFC 5737): must be unreachable, there being no route at all
        socket.create_connection(("192.0.2.1", 80), timeout=5).close()
    except OSError as e:
        if e.errno == errno.ENETUNREACH:
            return ""
        return f"192.0.2.1 is not unreachable: {e}"
    return "192.0.2.1 answered"


def _start_node2() -> subprocess.CompletedProcess:
    """The second node: one CPU, its raylet on NODE2_PORT."""
    return _ray("start", f"--address=127.0.0.1:{HEAD_PORT}", "--node-ip-address=127.0.0.1", "--num-cpus=1",
                f"--node-manager-port={NODE2_PORT}", "--object-store-memory=80000000", "--disable-usage-stats")


def _agent(folder: Path) -> None:
    out = sys.stdout

    def answer(**reply) -> None:
        out.write(json.dumps(reply) + "\n")
        out.flush()

    spawned: dict[int, tuple[subprocess.Popen, Path, Path]] = {}
    temp = None
    try:
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
        links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
        addrs = subprocess.run(["ip", "-o", "addr"], capture_output=True, text=True).stdout
        alone = _alone(links, addrs)
        if alone:
            return answer(error=f"the namespace is not loopback only: {alone}")
        temp = Path(tempfile.mkdtemp(prefix="rk", dir="/tmp"))  # short: Ray's socket paths must be
        head = _ray("start", "--head", "--node-ip-address=127.0.0.1", f"--port={HEAD_PORT}", "--num-cpus=1",
                    "--include-dashboard=false", f"--temp-dir={temp}", "--disable-usage-stats",
                    "--object-store-memory=80000000")
        if head.returncode:
            return answer(error=f"ray start --head: {head.stdout[-2000:]}{head.stderr[-2000:]}")
        node2 = _start_node2()
        if node2.returncode:
            return answer(error=f"ray start --address: {node2.stdout[-2000:]}{node2.stderr[-2000:]}")
        answer(ready=f"127.0.0.1:{HEAD_PORT}", links=links, addrs=addrs)
        for line in sys.stdin:
            req = json.loads(line)
            op = req["op"]
            env = {**os.environ, **ENV, **req.get("env", {})}
            if op == "run":
                try:
                    r = subprocess.run(req["argv"], cwd=req.get("cwd"), env=env, capture_output=True, text=True,
                                       timeout=req.get("timeout", 600))
                    answer(rc=r.returncode, out=r.stdout, err=r.stderr)
                except subprocess.TimeoutExpired as e:
                    answer(rc=None, out=str(e.stdout or ""), err=f"timed out after {e.timeout} s")
            elif op == "spawn":
                n = len(spawned) + 1
                so, se = folder / f"spawn{n}.out", folder / f"spawn{n}.err"
                with open(so, "w") as fo, open(se, "w") as fe:
                    p = subprocess.Popen(req["argv"], cwd=req.get("cwd"), env=env, stdout=fo, stderr=fe)
                spawned[n] = (p, so, se)
                answer(id=n)
            elif op == "wait":
                p, so, se = spawned[req["id"]]
                try:
                    rc = p.wait(req.get("timeout", 600))
                except subprocess.TimeoutExpired:
                    p.kill()
                    rc = None
                answer(rc=rc, out=so.read_text(), err=se.read_text())
            elif op == "kill":
                if req["what"] == "task":  # a worker while it plays a match (its title names the task)
                    pids = _pids(lambda c: c.startswith("ray::play_recorded"))[:1]
                else:  # the second node's raylet: the node is lost with its workers
                    pids = _pids(lambda c: "/raylet " in f"/{c}" and f"--node_manager_port={NODE2_PORT}" in c)
                for pid in pids:
                    os.kill(pid, signal.SIGKILL)
                answer(pids=pids)
            elif op == "node2":  # the second node again, after it was lost
                r = _start_node2()
                answer(rc=r.returncode, out=r.stdout, err=r.stderr)
            elif op == "stop":
                break
            else:
                answer(error=f"no such request {op!r}")
    finally:
        for p, _, _ in spawned.values():
            if p.poll() is None:
                p.kill()
        t0 = time.monotonic()
        _ray("stop", "--force", timeout=120)
        print(f"ray stop --force: {time.monotonic() - t0:.1f} s", file=sys.stderr)
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)
        answer(stopped=True)


# ----------------------------------------------------------------------------- the test's side


def require_ray() -> None:
    """Skip the calling test module with one line where Ray is not installed (under CI, fail:
    the research extra brings it)."""
    import importlib.util

    import pytest
    if importlib.util.find_spec("ray") is None:
        why = "needs ray: pip install 'ray>=2.40'"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the Ray tests: {why}", pytrace=False)
        pytest.skip(why, allow_module_level=True)


def cluster_fixture(folder: Path):
    """For a module's fixture: a :class:`Cluster` made in ``folder``, stopped after the module;
    where no namespace can be made, the module skips with one line (fails under CI)."""
    import pytest
    try:
        cluster = Cluster(folder)
    except NoNamespace as e:
        if os.environ.get("CI"):
            raise
        pytest.skip(str(e))
    try:
        yield cluster
    finally:
        cluster.close()


class ClusterError(RuntimeError):
    """The cluster could not be made, or its agent stopped answering."""


class NoNamespace(ClusterError):
    """This machine cannot make the namespaces (no unshare or ip, not root)."""


class Cluster:
    """A two-node Ray cluster on loopback in namespaces of its own (module docstring)."""

    def __init__(self, folder: Path, timeout: float = 300):
        if shutil.which("unshare") is None or shutil.which("ip") is None:
            raise NoNamespace("the Ray cluster needs unshare and ip (util-linux, iproute2)")
        if os.geteuid() != 0:
            raise NoNamespace("the Ray cluster needs root, to make its own network namespace (unshare --net)")
        self.folder = Path(folder)
        self.proc = subprocess.Popen(
            # sh is the namespace's first process: it reaps the processes Ray leaves to it (killed
            # ones stay zombies otherwise, and `ray stop` waits for them its whole grace period)
            ["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount-proc", "--",
             "sh", "-c", '"$0" "$@"; exit $?', sys.executable, str(HERE), "agent", str(self.folder)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(self.folder / "agent.err", "w"), text=True)
        try:
            hello = self._read(timeout)
        except Exception:
            self.close()
            raise
        if "ready" not in hello:
            self.close()
            raise ClusterError(hello.get("error") or f"the agent said {hello}")
        self.address: str = hello["ready"]
        self.links: str = hello["links"]
        self.addrs: str = hello["addrs"]

    def _read(self, timeout: float) -> dict:
        import selectors
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout):
            raise ClusterError(f"the cluster's agent did not answer in {timeout:g} s; "
                               f"its errors: {(self.folder / 'agent.err').read_text()[-2000:]}")
        line = self.proc.stdout.readline()
        if not line:
            raise ClusterError(f"the cluster's agent ended: {(self.folder / 'agent.err').read_text()[-2000:]}")
        return json.loads(line)

    def ask(self, answer_within: float = 300, **request) -> dict:
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return self._read(answer_within)

    def run(self, argv: list[str], cwd: Path | None = None, timeout: float = 600) -> dict:
        """A command run inside the namespaces: {"rc", "out", "err"}."""
        return self.ask(timeout + 60, op="run", argv=[str(a) for a in argv], cwd=str(cwd) if cwd else None,
                        timeout=timeout)

    def spawn(self, argv: list[str], cwd: Path | None = None) -> int:
        return self.ask(op="spawn", argv=[str(a) for a in argv], cwd=str(cwd) if cwd else None)["id"]

    def wait(self, handle: int, timeout: float = 600) -> dict:
        return self.ask(timeout + 60, op="wait", id=handle, timeout=timeout)

    def kill(self, what: str) -> list[int]:
        """kill -9 ``"task"`` (a Ray worker playing a match) or ``"node2"`` (its raylet); the pids."""
        return self.ask(op="kill", what=what)["pids"]

    def restart_node2(self) -> dict:
        """Start the second node again (after ``kill("node2")``): {"rc", "out", "err"}."""
        return self.ask(op="node2")

    def close(self) -> None:
        """Stop the cluster (``ray stop --force`` inside); if the agent does not, end its namespace."""
        try:
            if self.proc.poll() is None:
                self.proc.stdin.write(json.dumps({"op": "stop"}) + "\n")
                self.proc.stdin.close()
                self.proc.wait(180)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        finally:
            if self.proc.poll() is None:
                self.proc.kill()  # unshare --kill-child: every process of the namespace goes with it
                self.proc.wait(30)


if __name__ == "__main__" and sys.argv[1:2] == ["agent"]:
    _agent(Path(sys.argv[2]))
