"""A finished match's live page in headless Chromium, played at 0.2 s a step: the page advances in
place (every table put in is of the same step as the one before or a later one, the deal's and
the last among them and steps between; a marker set on ``window`` survives), takes at least the
pace a step, and ends with the result and the links to the match page and its replay."""
from __future__ import annotations

import time

import pytest

pytest.importorskip("selenium.webdriver", reason="pip install 'cardarena[test]'")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from livekit import LiveSite  # noqa: E402

# Every table the page shows, by its step, from the first one the parser puts in (run before the
# page's own scripts: Page.addScriptToEvaluateOnNewDocument).
WATCH_STEPS = """
window.seenSteps = [];
let shown = null;
new MutationObserver(() => {
  const step = document.getElementById('live-step');
  if (step && step !== shown) { shown = step; window.seenSteps.push(Number(step.dataset.step)); }
}).observe(document, {childList: true, subtree: true});
"""


def test_a_finished_match_is_played_step_by_step_at_the_pace(tmp_path, browser, screenshot):
    site = LiveSite(tmp_path).start()
    try:
        site.league("sixth-card", ["ann", "ben"], {"rounds": 1}, think=0).result(60)
        m = site.ledger.match(site.ledger.matches(limit=1)[0].id)
        pace, began = 0.2, time.monotonic()
        script = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH_STEPS})
        try:
            browser.get(f"{site.url}/matches/{m.id}/live?pace={pace}")
        finally:
            browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
        browser.execute_script("window.liveMarker = 'kept'")
        WebDriverWait(browser, 20).until(lambda b: b.execute_script("return document.documentElement.dataset.live"))
        assert browser.find_elements(By.CSS_SELECTOR, "#live-step .table .row"), "the rows are drawn"
        WebDriverWait(browser, 60).until(
            lambda b: b.execute_script("return document.getElementById('live-step').dataset.over") == "true")
        assert time.monotonic() - began >= len(m.steps) * pace, "a step a pace at least"
        seen = browser.execute_script("return window.seenSteps")
        assert seen == sorted(seen), f"the steps only go forward: {seen}"
        assert seen[0] == 0 and seen[-1] == len(m.steps), f"from the deal to the end: {seen}"
        assert [s for s in seen if 0 < s < len(m.steps)], f"steps between the deal and the end: {seen}"
        assert browser.execute_script("return window.liveMarker") == "kept", "the page was not reloaded"
        # read in one script: the last step may be drawn again meanwhile (an element found first is stale)
        links = browser.execute_script(
            "return [...document.querySelectorAll('#live-step .ended a')].map(a => a.href)")
        assert links == [f"{site.url}/matches/{m.id}", f"{site.url}/matches/{m.id}/replay"]
        WebDriverWait(browser, 20).until(lambda b: "ended" in b.find_element(By.ID, "live-status").text)
        assert screenshot("live-paced") > 50, "the live page is not blank"
    finally:
        site.stop()
