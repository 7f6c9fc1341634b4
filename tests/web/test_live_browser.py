"""The live page in headless Chromium: a Sixth Card match played over
gRPC by real bot processes, watched as it plays. The page follows the stream without reloading
(a marker set on ``window`` survives while the step advances), ends with the links to the match
page and its replay, and its screenshot is kept and is not blank."""
from __future__ import annotations

import pytest

pytest.importorskip("selenium.webdriver", reason="pip install 'cardarena[test]'")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from livekit import LiveSite  # noqa: E402


def shown_step(browser) -> int:
    return int(browser.execute_script("return document.getElementById('live-step').dataset.step"))


def test_the_live_page_follows_the_match_without_a_reload(tmp_path, browser, screenshot):
    site = LiveSite(tmp_path).start()
    try:
        played = site.league("sixth-card", ["ann", "ben"], {"rounds": 1}, think=0.15)
        entry = site.wait_listed()
        browser.get(f"{site.url}/matches/{entry['id']}/live?pace=0")
        WebDriverWait(browser, 10).until(lambda b: b.execute_script("return document.documentElement.dataset.live"))
        browser.execute_script("window.liveMarker = 'kept'")
        first = shown_step(browser)
        WebDriverWait(browser, 20).until(lambda b: shown_step(b) > first)
        assert browser.execute_script("return window.liveMarker") == "kept", "the page was not reloaded"
        assert browser.find_elements(By.CSS_SELECTOR, "#live-step .table .row"), "the rows are drawn"
        assert screenshot("live") > 50, "the live page is not blank"
        played.result(60)
        WebDriverWait(browser, 20).until(
            lambda b: b.execute_script("return document.getElementById('live-step').dataset.over") == "true")
        links = [a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "#live-step .ended a")]
        assert links == [f"{site.url}/matches/{entry['id']}", f"{site.url}/matches/{entry['id']}/replay"]
        assert browser.execute_script("return window.liveMarker") == "kept"
        assert "ended" in browser.find_element(By.ID, "live-status").text
    finally:
        site.stop()
