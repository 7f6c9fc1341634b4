"""The pages in headless Chromium (Debian's packages, driven by Selenium) against uvicorn, over a
league of example bots played over gRPC: the leaderboard shows its bots in rating order, every
main page renders (a screenshot of each is kept and is not blank), a user can follow the links
from the home page to a bot and a match and filter the leaderboard by name, and a bot's chart shows
its axes and the site its icon."""
from __future__ import annotations

import pytest

By = pytest.importorskip("selenium.webdriver.common.by", reason="pip install 'cardarena[test]'").By
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

GAME = "sixth-card"
PAGES = [("home", "/"), ("leaderboard", f"/games/{GAME}"), ("bot", "/bots/ada"), ("leagues", "/leagues"),
         ("league", "/leagues/1"), ("matches", "/matches"), ("match", "/matches/1")]


def test_the_leaderboard_shows_the_leagues_bots_in_rating_order(site, browser, ledger, league, screenshot):
    browser.get(f"{site}/games/{GAME}")
    lines = browser.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")
    bots = [tr.find_element(By.CSS_SELECTOR, "td.bot a").text for tr in lines]
    assert sorted(bots) == sorted(league.bots)
    assert bots == [r.bot for r in ledger.ratings(GAME)]
    shown = [float(tr.find_element(By.CSS_SELECTOR, "td.conservative").text) for tr in lines]
    assert shown == sorted(shown, reverse=True)
    assert all(tr.find_element(By.CSS_SELECTOR, "svg.sparkline polyline").is_displayed() for tr in lines)
    assert screenshot("leaderboard") > 8


@pytest.mark.parametrize("name, url", PAGES)
def test_each_page_renders_and_is_not_blank(site, browser, screenshot, name, url):
    browser.get(site + url)
    assert browser.find_element(By.TAG_NAME, "h1").is_displayed()
    assert "cardarena" in browser.title
    colours = screenshot(name)
    assert colours > 8, f"{name}: the screenshot has {colours} colours"


def test_cards_show_in_their_suits_colour(site, browser):
    browser.get(f"{site}/matches/1")
    red = browser.find_element(By.CSS_SELECTOR, "pre.play-by-play .card.red")
    black = browser.find_element(By.CSS_SELECTOR, "pre.play-by-play .card.black")
    assert red.text[-1] in "♥♦" and black.text[-1] in "♣♠"
    assert red.value_of_css_property("color") != black.value_of_css_property("color")


def test_a_user_follows_links_from_home_to_a_leaderboard_a_bot_and_a_match(site, browser):
    browser.get(site + "/")
    browser.find_element(By.CSS_SELECTOR, f'table.games a[href="/games/{GAME}"]').click()
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith("Sixth Card")
    browser.find_element(By.CSS_SELECTOR, "table.leaderboard td.bot a").click()
    assert browser.current_url.startswith(f"{site}/bots/")
    browser.find_element(By.CSS_SELECTOR, "table.matches tbody tr td a").click()
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith("Match ")
    assert browser.find_element(By.CSS_SELECTOR, "a.replay").get_attribute("href").endswith("/replay")


def test_a_user_filters_the_leaderboard_by_bot_name(site, browser, ledger):
    browser.get(f"{site}/games/{GAME}")
    every = [tr.find_element(By.CSS_SELECTOR, "td.bot a").text
             for tr in browser.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")]
    box = browser.find_element(By.CSS_SELECTOR, "form.filter input[name=q]")
    box.send_keys("A")
    box.submit()  # a plain GET form: the server filters
    # submit() does not wait for the page it asks for: wait for it (10× a loaded machine's time)
    WebDriverWait(browser, 30).until(lambda b: b.current_url.endswith(f"/games/{GAME}?q=A")
                                     and b.execute_script("return document.readyState") == "complete")
    lines = browser.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")
    assert [tr.find_element(By.CSS_SELECTOR, "td.bot a").text for tr in lines] == [b for b in every if "a" in b]
    ranks = [tr.find_element(By.CSS_SELECTOR, "td.rank").text for tr in lines]
    assert ranks == [str(every.index(b) + 1) for b in every if "a" in b]  # ranked as in the whole table
    assert browser.find_element(By.CSS_SELECTOR, "form.filter input[name=q]").get_attribute("value") == "A"
    assert [th.text for th in browser.find_elements(By.CSS_SELECTOR, "table.leaderboard thead th")][:3] == \
        ["rank", "bot", "owner"]


def test_a_bots_chart_shows_its_axes_and_the_site_its_icon(site, browser, screenshot):
    browser.get(f"{site}/bots/ada")
    chart = browser.find_element(By.CSS_SELECTOR, "svg.chart")
    labels = [t.text for t in chart.find_elements(By.CSS_SELECTOR, ".axis .label")]
    assert labels == ["rating", "rated matches, oldest first"]
    ticks = [t for t in chart.find_elements(By.CSS_SELECTOR, ".axis.matches .tick")]
    assert [t.text for t in ticks] == [str(k) for k in range(1, 10)] and all(t.is_displayed() for t in ticks)
    assert len(chart.find_elements(By.CSS_SELECTOR, ".axis.rating .tick")) >= 3
    icons = browser.execute_async_script("""
        const done = arguments[0];
        Promise.all([...document.querySelectorAll('link[rel=icon]')].map(l => fetch(l.href).then(r => r.status)))
          .then(done, e => done(String(e)));""")
    assert icons == [200, 200]
    assert screenshot("bot-chart") > 8
