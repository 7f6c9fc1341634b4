"""Fixtures of the web tests: a ledger filled by a real league over gRPC, the app served by uvicorn,
and headless Chromium from Debian's packages driven by Selenium.

``league`` (once per run): `cardarena league run` hosts a referee and starts four example bot
programs (two heuristic, two random) that play a duplicate round-robin Sixth Card league over
real gRPC into a new ledger (tests/conftest.py ``new_ledger``: a SQLite file, or a PostgreSQL
database under CARDARENA_TEST_LEDGER=postgresql; livekit.py's LiveSite makes its ledgers with it
too, for every test here); a fifth bot is registered with `cardarena bot add` and its token
kept, so tests can look for it where it must never be.
``app`` is :func:`cardarena.server.web.app.create_app` over that ledger; ``site`` serves it with
uvicorn on a free 127.0.0.1 port in a thread and gives its base URL (the ``serve`` fixture does
the same for any app: ``with serve(app) as url``), and ``client`` is an httpx client of that URL.
``browser`` is Chromium (``/usr/bin/chromium`` through ``/usr/bin/chromedriver``: Selenium Manager
never runs, nothing downloads a browser); without those the browser tests skip, except under CI
(``CI`` set), where they fail. ``screenshot(name)`` saves the page under ``$CARDARENA_SCREENSHOTS``
(else the pytest temporary folder) and returns the number of distinct colours in it, counted by
the browser itself from the PNG.
"""
from __future__ import annotations

import base64
import contextlib
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest
from webkit import cardarena

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python"
GAME = "sixth-card"
STRONG, WEAK = ("ada", "cy"), ("bo", "di")  # heuristic bots, random bots
REGISTERED = "eve"  # registered with a token, plays nothing
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


@dataclass(frozen=True)
class League:
    db: str  # the ledger's path or URL
    league_id: int
    game: str
    bots: tuple[str, ...]  # the heuristic bots first, then the random ones
    registered: str  # a bot that played nothing
    token: str  # its token, which no page or answer may show


@pytest.fixture(scope="session", autouse=True)
def live_ledgers(new_ledger):
    """LiveSite (livekit.py) makes its ledgers as every test ledger is made (:func:`new_ledger`)."""
    import livekit
    livekit.new_ledger = new_ledger


@pytest.fixture(scope="session")
def league(tmp_path_factory, new_ledger) -> League:
    """A finished duplicate round-robin league of example bots played over gRPC into a new ledger."""
    where = tmp_path_factory.mktemp("league")
    db = new_ledger(where, "web")
    bots = [a for b in STRONG for a in ("--bot", f"{b}=python {EXAMPLES / 'heuristic_bot.py'}")]
    bots += [a for b in WEAK for a in ("--bot", f"{b}=python {EXAMPLES / 'random_bot.py'}")]
    cardarena("league", "run", "--game", GAME, *bots, "--seats", "3", "--rounds", "1", "--duplicate",
              "--seed", "4", "--db", db, "--log-dir", str(where / "logs"), cwd=where)
    token = cardarena("bot", "add", REGISTERED, "--db", db, cwd=where).stdout.strip().splitlines()[-1]
    return League(db, 1, GAME, STRONG + WEAK, REGISTERED, token)


@pytest.fixture(scope="session")
def ledger(league):
    from cardarena.ratings import Ledger
    led = Ledger(league.db)
    yield led
    led.close()


@pytest.fixture(scope="session")
def app(ledger):
    pytest.importorskip("fastapi", reason="pip install 'cardarena[web]'")
    from cardarena.server.web.app import create_app
    return create_app(ledger)


@contextlib.contextmanager
def serving(app) -> Iterator[str]:
    """``app`` served by uvicorn on a free 127.0.0.1 port in a thread, for the block; its base URL."""
    import uvicorn
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, name="uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="session")
def serve():
    """``with serve(app) as url``: any app served by uvicorn for the block (:func:`serving`)."""
    return serving


@pytest.fixture(scope="session")
def site(app) -> Iterator[str]:
    """The app over the league's ledger, served by uvicorn; its base URL."""
    with serving(app) as url:
        yield url


@pytest.fixture(scope="session")
def client(site):
    """An httpx client of :func:`site` (relative URLs: ``client.get("/api/v1/games")``)."""
    import httpx
    with httpx.Client(base_url=site, timeout=30) as c:
        yield c


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium from Debian's packages (never a downloaded browser)."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must have Chromium and its driver (missing: {', '.join(missing)})")
        pytest.skip("no Chromium here: apt-get install chromium chromium-driver")
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(arg)
    options.binary_location = str(CHROMIUM)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


# Counts the distinct colours of a PNG (base64) in the browser: a canvas decodes it.
_COLOURS = """
const [png, done] = arguments;
const img = new Image();
img.onload = () => {
  const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
  const ctx = c.getContext('2d'); ctx.drawImage(img, 0, 0);
  const d = ctx.getImageData(0, 0, c.width, c.height).data; const seen = new Set();
  for (let i = 0; i < d.length; i += 4) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
  done(seen.size);
};
img.onerror = () => done(-1);
img.src = 'data:image/png;base64,' + png;
"""


@pytest.fixture
def screenshot(browser, tmp_path_factory):
    """``screenshot(name) -> distinct colours``: saves ``name.png`` of the page the browser shows."""
    folder = Path(os.environ.get("CARDARENA_SCREENSHOTS") or tmp_path_factory.getbasetemp() / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)

    def take(name: str) -> int:
        png = browser.get_screenshot_as_base64()
        (folder / f"{name}.png").write_bytes(base64.b64decode(png))
        return browser.execute_async_script(_COLOURS, png)
    return take
