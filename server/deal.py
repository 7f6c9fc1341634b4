"""Deals: secret seeds, and the commitment that proves a deal was fixed before play.

A match seed deals every hand, so nothing public may derive one before its deal is spent.
Seeds come from the operating system's CSPRNG (:func:`new_seed`: the arena, ``play``), or for a
league from its secret (:func:`new_secret`, kept in the ledger) and the match's place in the
schedule, by HMAC-SHA-256 (:func:`cardarena.server.schedule.derive_seed`).

Before the first decision every bot of a match gets :func:`commitment`: the lowercase hex
SHA-256 of ``cardarena-deal:v1:{game}:{match_id}:{seed}:{salt}`` (the seed in decimal, the salt
32 lowercase hex digits from the CSPRNG). Once the deal is spent the seed and salt are revealed,
and anyone can check them against it (:func:`verify`); the salt keeps a commitment from being
searched seed by seed.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets

#: The commitment's format, its first field; a new format gets a new version.
PREFIX = "cardarena-deal:v1"


def new_seed() -> int:
    """A 63-bit match seed from the CSPRNG (it fits the ledger's signed 64-bit column)."""
    return secrets.randbits(63)


def new_salt() -> str:
    """The salt of a commitment: 32 lowercase hex digits from the CSPRNG."""
    return secrets.token_hex(16)


def new_secret() -> str:
    """A league secret: 256 bits from the CSPRNG, as 64 lowercase hex digits."""
    return secrets.token_hex(32)


def commitment(game: str, match_id: str | int, seed: int | str, salt: str) -> str:
    """The deal's commitment (module docstring)."""
    text = f"{PREFIX}:{game}:{match_id}:{int(seed)}:{salt}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def verify(game: str, match_id: str | int, seed: int | str, salt: str, committed: str) -> bool:
    """Whether ``seed`` and ``salt`` are the deal the commitment was made for."""
    try:
        made = commitment(game, match_id, seed, salt)
    except (TypeError, ValueError):
        return False
    return hmac.compare_digest(made, committed or "")


def keyed(secret: str, *parts: int | str) -> int:
    """A 63-bit seed from a league secret (hex) and a place in its schedule: HMAC-SHA-256."""
    mac = hmac.new(bytes.fromhex(secret), ":".join(map(str, parts)).encode(), hashlib.sha256).digest()
    return int.from_bytes(mac[:8], "big") >> 1
