"""The API's routes take the ledger on the event loop (``api.served_ledger``): no
thread of the pool is taken to solve a dependency, only a plain route's own call runs in one."""
from __future__ import annotations

import fastapi.dependencies.utils as solving
import fastapi.routing as routing
from fastapi.testclient import TestClient

from cardarena.ratings import Ledger
from cardarena.server.web.app import create_app


def test_an_api_request_takes_one_thread_hop_for_its_route_none_for_the_ledger(ledger_url, monkeypatch):
    hops = []

    def counted(where, run):
        async def hop(func, *args, **kwargs):
            hops.append(where)
            return await run(func, *args, **kwargs)
        return hop
    monkeypatch.setattr(solving, "run_in_threadpool", counted("dependency", solving.run_in_threadpool))
    monkeypatch.setattr(routing, "run_in_threadpool", counted("route", routing.run_in_threadpool))
    ledger = Ledger(ledger_url())
    ledger.add_bot("ann")
    with TestClient(create_app(ledger)) as client:
        for url in ("/api/v1/games", "/api/v1/matches?bot=ann", "/api/v1/bots/ann"):
            hops.clear()
            assert client.get(url).status_code == 200, url
            assert "dependency" not in hops, url
        assert client.get("/api/v1/matches?bot=ann").json() == []
    assert hops == ["route"]
