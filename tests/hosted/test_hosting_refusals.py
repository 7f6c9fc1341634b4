"""Where sandboxes cannot run, `serve` hosts no bot and says so in one line; a server that hosts
none refuses submissions with the reason; a submission is refused past the server's size limit.
Nothing here needs a sandbox: the refusals are the subject."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "arena"))
from arenakit import Served  # noqa: E402
from e2ekit import CLI, cardarena  # noqa: E402
from sandboxkit import link_chain  # noqa: E402

from cardarena.ratings import Ledger  # noqa: E402
from cardarena.server import hosting_service  # noqa: E402

pytestmark = pytest.mark.any_ledger


def _bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("print('hi')\n")
    return folder


def _submit(served: Served, path: Path, token: str):
    """`bot submit ada PATH` to the server, with ``token``."""
    return cardarena("bot", "submit", "ada", str(path), "--run", "python3 bot.py", "--server", served.address,
                     cwd=served.workdir, env={"CARDARENA_TOKEN": token})


@pytest.fixture
def no_bwrap(tmp_path, monkeypatch):
    """A PATH without bubblewrap (nor anything else: the CLI runs as `python -m`)."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def test_serve_host_bots_insists_and_exits_1_where_bubblewrap_is_missing(tmp_path, ledger_url, no_bwrap):
    r = subprocess.run([*CLI, "serve", "--db", ledger_url(), "--address", "127.0.0.1:0", "--no-web", "--host-bots"],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path,
                       env={**os.environ, "CARDARENA_ADMIN_TOKEN": "t"})
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot host bots: bubblewrap is not installed" in lines[0], r.stderr
    assert "Traceback" not in r.stderr


def test_a_server_that_hosts_no_bots_refuses_submissions_with_the_reason(tmp_path, ledger_url, no_bwrap):
    served = Served(tmp_path, ledger_url(), [])
    led = Ledger(served.db)
    token = led.add_bot("ada")[1]
    led.add_version("ada", b"x", sha256="0" * 64, size=1, run="python3 bot.py")
    led.close()
    try:
        served.start()
        assert "the hosted bots do not run here: bubblewrap is not installed" in served.log()
        folder = _bot_folder(tmp_path)
        r = _submit(served, folder, token)
        assert r.returncode == 1 and "this server hosts no bots: bubblewrap is not installed" in r.stderr, r.stderr
        assert [v.name for v in Ledger(served.db).versions("ada")] == ["ada@1"]  # nothing new kept
    finally:
        served.close()


def test_a_submission_past_the_size_limit_or_with_a_wrong_token_is_refused(tmp_path, ledger_url, sandboxes):
    served = Served(tmp_path, ledger_url(), ["--max-submission-mb", "1"])
    led = Ledger(served.db)
    ada, bo = led.add_bot("ada")[1], led.add_bot("bo")[1]
    led.close()
    folder = _bot_folder(tmp_path)
    try:
        served.start()
        r = _submit(served, folder, bo)
        assert r.returncode == 1 and "this token is bot bo's, not ada's" in r.stderr, r.stderr
        r = cardarena("bot", "versions", "ada", "--server", served.address, cwd=tmp_path,
                      env={"CARDARENA_TOKEN": "not-a-token"})
        assert r.returncode == 1 and "unknown bot token" in r.stderr, r.stderr
        big = tmp_path / "big.tar.gz"
        big.write_bytes(os.urandom(2 * 1024 * 1024))
        r = _submit(served, big, ada)
        assert r.returncode == 1 and "more than 1 MB" in r.stderr, r.stderr
        assert Ledger(served.db).versions("ada") == []
    finally:
        served.close()


def test_a_submission_whose_links_would_write_outside_is_refused_and_counted(tmp_path, ledger_url, sandboxes):
    """The archive of CVE-2025-4517 (a link chain Python's own tar filter let through before
    3.11.13), sized for the server's unpacking folder and aimed at a file beside this test: one
    line, exit 1, nothing written, nothing kept; and refused submissions count towards the hour's
    limit, so they cannot be tried without end."""
    served = Served(tmp_path, ledger_url(), [])
    led = Ledger(served.db)
    ada = led.add_bot("ada")[1]
    led.close()
    aim = tmp_path / "owned.txt"
    # where hosting_service._store unpacks: mkdtemp's folder (its prefix and 8 characters), then files
    unpacked_in = Path(tempfile.gettempdir(), "cardarena-submit-" + "d" * 8, "files")
    evil = tmp_path / "evil.tar.gz"
    evil.write_bytes(link_chain(len(str(unpacked_in)), 2, str(aim.relative_to(tempfile.gettempdir()))))
    try:
        served.start()
        for attempt in range(hosting_service.SUBMISSIONS_PER_HOUR):
            r = _submit(served, evil, ada)
            assert r.returncode == 1 and ("inside the link" in r.stderr or "at most 1,024" in r.stderr), r.stderr
            assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
            assert not aim.exists()
        folder = _bot_folder(tmp_path)
        r = _submit(served, folder, ada)
        assert r.returncode == 1 and "10 submissions in the last hour (refused ones included)" in r.stderr, r.stderr
        assert Ledger(served.db).versions("ada") == []
    finally:
        served.close()
