"""The API's encoder (api.encoded: pydantic-core's to_json): the standard
library's compact JSON, byte for byte, for what the API answers; an exponent without its leading
zero."""
from __future__ import annotations

import json

from cardarena.server.web import api


def stdlib(content) -> bytes:
    return json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


def test_an_answer_is_the_standard_librarys_compact_json(client, league):
    for url in ("/api/v1/games", "/api/v1/games/sixth-card/ratings", "/api/v1/bots/ada", "/api/v1/matches?limit=5",
                "/api/v1/leagues/1"):
        r = client.get(url)
        assert r.headers["content-type"] == "application/json"
        assert r.content == stdlib(r.json()), url


def test_encoded_writes_cards_unescaped_and_an_exponent_without_its_zero():
    content = {"hand": ["10♥", "Jo"], "seat": 0, 1: [0.1, 2.5, 1e16]}
    assert api.encoded(content) == stdlib(content)
    assert api.encoded([1e-7]) == b"[1e-7]" and json.loads(api.encoded([1e-7])) == [1e-7]
