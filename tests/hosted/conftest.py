"""Fixtures of the hosted-bot tests: real bubblewrap sandboxes (cardarena.server.sandbox) running
small hostile programs; their helpers are in sandboxkit.py."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from cardarena.server import sandbox


@pytest.fixture(scope="session")
def sandboxes() -> None:
    """Skip where sandboxes cannot run (one line: why), except under CI, which must run them."""
    why = sandbox.unavailable()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the sandbox tests: {why}")
        pytest.skip(f"no sandboxes here: {why}")


@pytest.fixture
def open_tmp():
    """A temporary folder that others may pass (0711), as the folders above a bot's files must
    be for the sandbox's uid (pytest's own tmp_path sits in a 0700 folder)."""
    folder = Path(tempfile.mkdtemp(prefix="cardarena-hosted-"))
    folder.chmod(0o711)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def bot_dir(open_tmp: Path):
    """``bot_dir(**programs) -> Path``: a bot's folder holding the given files (name=text; a
    double underscore is a dot: ``main__cpp``)."""
    def make(**programs: str) -> Path:
        folder = open_tmp / "bot"
        folder.mkdir(exist_ok=True)
        for name, text in programs.items():
            (folder / name.replace("__", ".")).write_text(text)
        return folder
    return make
