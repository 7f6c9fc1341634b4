"""The replay viewer in headless Chromium, over a match of the league
the shared fixtures play over gRPC: the buttons and the arrow keys step forward and back, the
slider and the URL follow (and a URL opens its step), switching seats shows that seat's hand
face up, the others face down, and its actions with its choice highlighted; a screenshot is kept
and is not blank."""
from __future__ import annotations

import pytest

webdriver = pytest.importorskip("selenium.webdriver", reason="pip install 'cardarena[test]'")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture
def viewer(site, browser, ledger, league):
    """The viewer of the league's first match, open at step 0; ``(match id, its step count)``."""
    mid = ledger.match_ids(status="finished", league_id=league.league_id)[0]
    browser.get(f"{site}/matches/{mid}/replay")
    WebDriverWait(browser, 10).until(lambda b: b.execute_script("return document.documentElement.dataset.replay"))
    return mid, len(ledger.match(mid).steps)


def shown(browser) -> tuple[int, str]:
    """The step and seat the page shows ("" for omniscient)."""
    step, seat = browser.execute_script(  # in one go: the fragment may be replaced meanwhile
        "const el = document.getElementById('replay-step'); return [el.dataset.step, el.dataset.seat];")
    return int(step), seat


def wait_for(browser, step: int, seat: str = "") -> None:
    WebDriverWait(browser, 10).until(lambda b: shown(b) == (step, seat))
    assert f"step={step}" in browser.current_url and (f"seat={seat}" in browser.current_url) == (seat != "")
    assert browser.find_element(By.ID, "slider").get_attribute("value") == str(step)
    assert browser.find_element(By.CSS_SELECTOR, "#replay-step .step-number").text == str(step)


def test_buttons_keys_and_the_slider_step_and_the_url_follows(browser, viewer, screenshot):
    mid, total = viewer
    assert shown(browser) == (0, "")
    browser.find_element(By.ID, "forward").click()
    wait_for(browser, 1)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    wait_for(browser, 2)
    body.send_keys(Keys.ARROW_RIGHT)
    wait_for(browser, 3)
    body.send_keys(Keys.ARROW_LEFT)
    wait_for(browser, 2)
    browser.find_element(By.ID, "back").click()
    wait_for(browser, 1)
    browser.find_element(By.ID, "last").click()
    wait_for(browser, total)
    assert "the end" in browser.find_element(By.CSS_SELECTOR, "#replay-step .where").text
    browser.find_element(By.ID, "forward").click()  # nothing after the end
    browser.find_element(By.ID, "first").click()
    wait_for(browser, 0)
    browser.execute_script("const s = document.getElementById('slider'); s.value = arguments[0];"
                           "s.dispatchEvent(new Event('input'));", total // 2)
    wait_for(browser, total // 2)
    assert screenshot("replay") > 20


def test_switching_seats_shows_the_seats_view_and_its_choice(browser, viewer, client, site, screenshot):
    mid, total = viewer
    # a step where seats 1 and 2 both act (Sixth Card: every seat chooses its card at once)
    k = next(k for k in range(1, total) if {1, 2} <= set(client.get(f"/api/v1/matches/{mid}/steps/{k}").json()["to_act"]))
    browser.execute_script("const s = document.getElementById('slider'); s.value = arguments[0];"
                           "s.dispatchEvent(new Event('input'));", k)
    wait_for(browser, k)
    every = browser.find_elements(By.CSS_SELECTOR, "#replay-step .seat .hand .card")
    assert every and not [c for c in every if "back" in c.get_attribute("class")]  # omniscient
    hands = {}
    for seat in ("1", "2"):
        browser.find_element(By.CSS_SELECTOR, f'#seat-switch a[data-seat="{seat}"]').click()
        wait_for(browser, k, seat)
        assert browser.find_element(By.CSS_SELECTOR, "#seat-switch a.current").get_attribute("data-seat") == seat
        for box in browser.find_elements(By.CSS_SELECTOR, "#replay-step .seat"):
            faces = [c.get_attribute("class") for c in box.find_elements(By.CSS_SELECTOR, ".hand .card")]
            if box.get_attribute("data-seat") == seat:
                assert faces and not [f for f in faces if "back" in f]
                hands[seat] = [c.text for c in box.find_elements(By.CSS_SELECTOR, ".hand .card")]
            else:
                assert faces and all("back" in f for f in faces)
        api = client.get(f"/api/v1/matches/{mid}/steps/{k}", params={"seat": seat}).json()
        (mine,) = api["decisions"]
        assert hands[seat] == api["view"]["hand"]
        actions = browser.find_elements(By.CSS_SELECTOR, f'#replay-step .decision[data-seat="{seat}"] .actions li')
        assert [a.text for a in actions] == mine["actions"]
        (chosen,) = browser.find_elements(By.CSS_SELECTOR, "#replay-step .actions li.choice")
        assert chosen.text == mine["actions"][mine["choice"]]
        other = actions[1 if mine["choice"] == 0 else 0]
        assert chosen.value_of_css_property("background-color") != other.value_of_css_property("background-color")
    assert hands["1"] != hands["2"]
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    wait_for(browser, k + 1, "2")  # the seat is kept while stepping
    assert screenshot("replay-seat") > 20
    # the URL opens that step and seat, drawn by the server
    browser.get(f"{site}/matches/{mid}/replay?step={k}&seat=1")
    assert shown(browser) == (k, "1")
