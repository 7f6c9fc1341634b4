"""Make the README's screenshots (docs/*.png) from a demo ledger, in headless Chromium.

    .venv/bin/python docs/screenshots.py              # plays `cardarena demo` into a temporary folder
    .venv/bin/python docs/screenshots.py --db cardarena-demo.db   # an existing demo ledger

It runs the real commands a user types: `cardarena bot add NAME --owner …` for the demo's bots
and `cardarena demo` twice, Sixth Card then Unsorted (unless --db is given), then
`cardarena web --db … --address 127.0.0.1:0`, and drives Debian's Chromium
(/usr/bin/chromium through /usr/bin/chromedriver; nothing downloads a browser) to the
leaderboard with its owners (docs/leaderboard.png), the best bot's page down to its rating chart
(docs/bot.png), an Unsorted match's page at its first drawn card (docs/match.png: each private
event once) and the replay viewer of the league's first match, midway, as seat 0 saw it
(docs/replay.png). Each is cut to what it shows. Re-run it when the pages change, and commit
the PNGs.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "cardarena.server.cli"]
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
#: the demo's bots and who runs them (free text, as `bot add --owner` takes it)
OWNERS = {"heuristic-1": "Ann (heuristic_bot.py)", "heuristic-2": "Ben's lab", "random-1": "examples team",
          "random-2": "examples team"}
#: scrolls the play-by-play to the first line holding arguments[0]
SCROLL_TO = """
const pre = document.querySelector('pre.play-by-play'), at = pre.textContent.indexOf(arguments[0]);
const line = parseFloat(getComputedStyle(pre).lineHeight);
if (at >= 0) pre.scrollTop = (pre.textContent.slice(0, at).split('\\n').length - 3) * line;
"""


def browser(width: int, height: int):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={width},{height}",
                "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    options.binary_location = CHROMIUM
    return webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", help="an existing demo ledger (default: play `cardarena demo` into a temporary one)")
    ap.add_argument("--out", default=str(ROOT / "docs"), help="folder of the PNGs (default: docs/)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db
        if db is None:
            db = str(Path(tmp) / "cardarena-demo.db")
            for name, owner in OWNERS.items():
                subprocess.run([*CLI, "bot", "add", name, "--owner", owner, "--db", db], cwd=tmp, check=True,
                               stdout=subprocess.DEVNULL)
            for game in ("sixth-card", "unsorted"):
                subprocess.run([*CLI, "demo", "--game", game, "--rounds", "2" if game == "sixth-card" else "1",
                                "--db", db], cwd=tmp, check=True, stdout=subprocess.DEVNULL)
        web = subprocess.Popen([*CLI, "web", "--db", db, "--address", "127.0.0.1:0"], cwd=tmp,
                               stdout=subprocess.PIPE, text=True)
        try:
            url = re.search(r"(http://\S+/)", web.stdout.readline()).group(1)
            import httpx
            game = min(httpx.get(url + "api/v1/leagues").json(), key=lambda lg: lg["id"])["game"]
            first = httpx.get(url + "api/v1/matches", params={"limit": 500}).json()[-1]["id"]
            steps = len(httpx.get(url + f"api/v1/matches/{first}").json()["steps"])
            best = httpx.get(url + f"api/v1/games/{game}/ratings", params={"limit": 1}).json()[0]["bot"]
            # (name, path, (width, most height) in pixels, the element it ends with, text to scroll to)
            shots = [("leaderboard", f"games/{game}", (1000, 640), "table.leaderboard", None),
                     ("bot", f"bots/{best}", (1000, 760), "svg.chart", None),
                     ("replay", f"matches/{first}/replay?step={steps // 2}&seat=0", (1100, 1000), None, None)]
            unsorted = httpx.get(url + "api/v1/matches", params={"game": "unsorted", "limit": 20}).json()
            drawn = [m for m in unsorted if any("puts drawn" in line for line in
                                                httpx.get(url + f"api/v1/matches/{m['id']}").json()["play_by_play"])]
            if drawn:
                shots.insert(2, ("match", f"matches/{drawn[-1]['id']}", (1000, 760), "pre.play-by-play", "puts drawn"))
            for name, path, (w, h), until, scroll in shots:
                driver = browser(w, h)
                try:
                    driver.get(url + path)
                    time.sleep(0.5)  # the replay script draws the step
                    if scroll:
                        driver.execute_script(SCROLL_TO, scroll)
                    tall = driver.execute_script("return document.documentElement.scrollHeight")
                    if until:  # down to the bottom of that element
                        tall = driver.execute_script(
                            "return Math.ceil(document.querySelector(arguments[0]).getBoundingClientRect().bottom)"
                            " + window.scrollY + 16", until)
                    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                        "width": w, "height": min(tall, h), "deviceScaleFactor": 1, "mobile": False})
                    driver.save_screenshot(str(out / f"{name}.png"))
                finally:
                    driver.quit()
                print(f"{out / (name + '.png')}: {url}{path}")
        finally:
            web.terminate()
            web.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
