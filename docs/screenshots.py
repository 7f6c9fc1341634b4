"""Make the README's screenshots (docs/*.png) from a demo ledger, in headless Chromium.

    .venv/bin/python docs/screenshots.py              # plays `cardarena demo` into a temporary folder
    .venv/bin/python docs/screenshots.py --db cardarena-demo.db   # an existing demo ledger

It runs the real commands a user types: `cardarena demo` (unless --db is given), then
`cardarena web --db … --address 127.0.0.1:0`, and drives Debian's Chromium
(/usr/bin/chromium through /usr/bin/chromedriver; nothing downloads a browser) to the
leaderboard (docs/leaderboard.png) and to the replay viewer of the league's first match, midway,
as seat 0 saw it (docs/replay.png). Re-run it when the pages change, and commit the PNGs.
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
            subprocess.run([*CLI, "demo", "--db", db], cwd=tmp, check=True, stdout=subprocess.DEVNULL)
        web = subprocess.Popen([*CLI, "web", "--db", db, "--address", "127.0.0.1:0"], cwd=tmp,
                               stdout=subprocess.PIPE, text=True)
        try:
            url = re.search(r"(http://\S+/)", web.stdout.readline()).group(1)
            import httpx
            game = httpx.get(url + "api/v1/leagues").json()[0]["game"]
            first = httpx.get(url + "api/v1/matches", params={"limit": 500}).json()[-1]["id"]
            steps = len(httpx.get(url + f"api/v1/matches/{first}").json()["steps"])
            shots = [("leaderboard", f"games/{game}", (1000, 640)),  # (width, most height) in pixels
                     ("replay", f"matches/{first}/replay?step={steps // 2}&seat=0", (1100, 1000))]
            for name, path, (w, h) in shots:
                driver = browser(w, h)
                try:
                    driver.get(url + path)
                    time.sleep(0.5)  # the replay script draws the step
                    tall = driver.execute_script("return document.documentElement.scrollHeight")
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
