"""Fixtures of the end-to-end tests; their helpers are in e2ekit.py."""
from pathlib import Path

import pytest


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    return tmp_path
