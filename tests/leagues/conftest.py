"""Fixtures of the league tests."""
from __future__ import annotations

import pytest

from cardarena.ratings import Ledger


@pytest.fixture
def led(ledger_url):
    """The test's ledger (SQLite, or PostgreSQL under the switch) with the bots a, b and c."""
    ledger = Ledger(ledger_url())
    for b in ("a", "b", "c"):
        ledger.add_bot(b)
    yield ledger
    ledger.close()
