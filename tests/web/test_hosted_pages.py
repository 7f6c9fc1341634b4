"""Hosted bots on the web, over a real ledger served by uvicorn: a bot's versions on its page, in
its API answer and on the leaderboard (tagged with their state); and its logs, which only its
owner reads, signed in with the bot's token: looked for as an attacker would, everywhere else
and with every wrong key, then read as the owner, in plain HTTP and in headless Chromium."""
from __future__ import annotations

import html
import re
import secrets
import time
from dataclasses import dataclass

import pytest

from webkit import record_played

httpx = pytest.importorskip("httpx", reason="pip install 'cardarena[test]'")

GAME = "sixth-card"
#: every log's text and build log, each unique: none may show where its owner is not signed in
LOG = {"hal@1": "LOGMARK-hal1-b1e7 <script>alert('owned')</script> & done",
       "hal@2": "LOGMARK-hal2-5c0d", "zed@1": "LOGMARK-zed1-93aa", "rot@1": "LOGMARK-rot1-0f42"}
IDLE = "LOGMARK-hal2-idle-77c1"  # hal@2's output outside a match
BUILD = {"hal@2": "BUILDMARK-hal2-ok-4d2e", "hal@3": "BUILDMARK-hal3-error-e8b9"}
RUN = "run_cmd_5a1f"  # in each version's command (python3 BOT_run_cmd_5a1f.py): its owner's business
SECRETS = [*LOG.values(), IDLE, "LOGMARK", *BUILD.values(), "BUILDMARK", RUN]


@dataclass
class Hosted:
    url: str
    ledger: object
    app: object
    tokens: dict[str, str]  # bot → its token
    matches: dict[str, int]  # "m1", "m2" → match id


@pytest.fixture(scope="module")
def hosted(tmp_path_factory, new_ledger, serve):
    """hal: hal@1 (retired), hal@2 (active, built), hal@3 (failed build), hal@4 (building);
    zed@1 and rot@1 active; ann a bot of its own. Two matches of sixth-card between them, and
    the versions' logs."""
    pytest.importorskip("fastapi", reason="pip install 'cardarena[web]'")
    from cardarena.ratings import Ledger
    from cardarena.server.web.app import create_app
    led = Ledger(new_ledger(tmp_path_factory.mktemp("hosted"), "hosted"))
    tokens = {b: led.add_bot(b, owner=f"{b}'s author")[1] for b in ("hal", "zed", "rot", "ann")}

    def submit(bot: str, build: str | None = None):
        files = f"files of {bot}".encode()
        return led.add_version(bot, files=files, sha256="ab" * 32, size=len(files),
                               run=f"python3 {bot}_{RUN}.py", build=build)
    submit("hal")
    submit("hal", build="make")
    led.finish_build("hal@2", True, BUILD["hal@2"])  # hal@1 retired
    submit("hal", build="make")
    led.finish_build("hal@3", False, BUILD["hal@3"])
    submit("hal", build="make")  # still building
    submit("zed")
    submit("rot")
    m1, _ = record_played(led, GAME, ["hal@1", "ann", "zed@1"], seed=11)
    m2, _ = record_played(led, GAME, ["hal@2", "zed@1", "rot@1"], seed=12)
    led.add_bot_log("hal@1", m1, LOG["hal@1"])
    led.add_bot_log("zed@1", m1, LOG["zed@1"])
    led.add_bot_log("hal@2", m2, LOG["hal@2"])
    led.add_bot_log("rot@1", m2, LOG["rot@1"])
    led.add_bot_log("hal@2", None, IDLE)
    app = create_app(led)
    with serve(app) as url:
        yield Hosted(url, led, app, tokens, {"m1": m1, "m2": m2})
    led.close()


def get(h: Hosted, path: str, cookie: str | None = None, status: int | None = 200) -> httpx.Response:
    """A GET without a cookie jar: ``cookie``, the owner's session id, sent only when given."""
    r = httpx.get(h.url + path, headers={"cookie": f"cardarena_owner={cookie}"} if cookie else {},
                  follow_redirects=False, timeout=30)
    if status is not None:
        assert r.status_code == status, (path, r.status_code, r.text[:300])
    return r


def post(h: Hosted, path: str, token: str, **headers) -> httpx.Response:
    return httpx.post(h.url + path, data={"token": token}, headers=headers, follow_redirects=False, timeout=30)


def session_of(r: httpx.Response) -> str:
    """The owner's session id a sign-in's answer sets."""
    (cookie,) = [c for c in r.headers.get_list("set-cookie") if c.startswith("cardarena_owner=")]
    return cookie.split(";")[0].split("=", 1)[1]


def sign_in(h: Hosted, bot: str, page: str | None = None) -> str:
    r = post(h, f"/bots/{page or bot}/logs", h.tokens[bot])
    assert r.status_code == 303, r.text[:300]
    return session_of(r)


def rows(text: str, table: str) -> list[str]:
    body = re.search(rf'<table class="{table}">.*?<tbody>(.*?)</tbody>', text, re.S).group(1)
    return re.findall(r"<tr[^>]*>.*?</tr>", body, re.S)


def no_secret(text: str, where: str) -> None:
    for s in SECRETS:
        assert s not in text, f"{s!r} shows on {where}"


# ----------------------------------------------------------------------------- public: versions

def test_a_bots_page_lists_its_versions_with_states_links_and_ratings(hosted):
    text = get(hosted, "/bots/hal").text
    assert "<h2>Versions</h2>" in text
    lines = rows(text, "versions")
    assert len(lines) == 4
    for k, (line, state) in enumerate(zip(lines, ("retired", "active", "failed", "building")), 1):
        assert f'<a href="/bots/hal@{k}">hal@{k}</a>' in line and f'class="version {state}"' in line, line
    assert [line.startswith('<tr class="active">') for line in lines] == [False, True, False, False]
    (v1, v2, v3, _) = hosted.ledger.versions("hal")
    (game, mu, sigma), = v1.ratings
    assert f"μ {mu:.2f}, σ {sigma:.2f}, μ − 3σ" in lines[0] and f'href="/games/{game}"' in lines[0]
    assert f'<td class="num">{v1.matches}</td>' in lines[0] and v1.matches == 1
    assert "not rated yet" in lines[2] and f"μ {v2.ratings[0][1]:.2f}" in lines[1]
    assert 'href="/bots/hal/logs"' in text
    assert "<h2>Versions</h2>" not in get(hosted, "/bots/ann").text


@pytest.mark.parametrize("k, state", [(1, "retired"), (2, "active"), (3, "failed"), (4, "building")])
def test_a_versions_page_says_whose_version_it_is_and_its_state(hosted, k, state):
    text = get(hosted, f"/bots/hal@{k}").text
    assert (f'Version {k} of the hosted bot <a href="/bots/hal">hal</a>: '
            f'<span class="version {state}">{state}</span>') in text
    assert "<h2>Versions</h2>" not in text and f'href="/bots/hal@{k}/logs"' in text


def test_the_api_gives_a_bots_versions_and_a_versions_bot_and_nothing_private(hosted):
    hal = get(hosted, "/api/v1/bots/hal").json()
    assert hal["version_of"] is None
    assert [(v["name"], v["version"], v["state"]) for v in hal["versions"]] == [
        ("hal@1", 1, "retired"), ("hal@2", 2, "active"), ("hal@3", 3, "failed"), ("hal@4", 4, "building")]
    assert {k for v in hal["versions"] for k in v} == {"name", "version", "state", "created_at", "built_at",
                                                       "matches", "ratings"}
    v1 = hosted.ledger.versions("hal")[0]
    assert hal["versions"][0]["matches"] == v1.matches == 1
    assert [(r["game"], r["mu"], r["sigma"]) for r in hal["versions"][0]["ratings"]] == list(v1.ratings)
    assert hal["versions"][2]["ratings"] == [] and hal["versions"][0]["built_at"] is not None
    assert get(hosted, "/api/v1/bots/hal@3").json()["version_of"] == {"bot": "hal", "version": 3, "state": "failed"}
    one = get(hosted, "/api/v1/bots/hal@1").json()
    assert one["versions"] == [] and one["version_of"]["state"] == "retired" and one["ratings"][0]["matches"] == 1
    ann = get(hosted, "/api/v1/bots/ann").json()
    assert ann["versions"] == [] and ann["version_of"] is None


def board_tags(h: Hosted) -> dict[str, str | None]:
    """Each leaderboard line's bot and the state its tag says (None: no tag)."""
    found = {}
    for line in rows(get(h, f"/games/{GAME}").text, "leaderboard"):
        bot = re.search(r'href="/bots/([^"]+)"', line).group(1)
        tag = re.search(r'<span class="version (\w+)" title="version (\d+) of ([^:]+): \1">\1</span>', line)
        found[bot] = tag and tag.group(1)
        assert tag is None or f"{tag.group(3)}@{tag.group(2)}" == bot
    return found


def test_the_leaderboard_tags_each_versions_line_with_its_state_as_it_changes(hosted):
    led = hosted.ledger
    assert board_tags(hosted) == {"hal@1": "retired", "hal@2": "active", "zed@1": "active", "rot@1": "active",
                                  "ann": None}
    try:  # activating a version records no match: the leaderboard must not show the page kept before
        led.set_version_state("hal@1", "active")
        tags = board_tags(hosted)
        assert (tags["hal@1"], tags["hal@2"]) == ("active", "retired")
    finally:
        led.set_version_state("hal@2", "active")
    assert board_tags(hosted)["hal@2"] == "active"
    fragment = get(hosted, f"/games/{GAME}/board").text
    assert '<span class="version retired" title="version 1 of hal: retired">retired</span>' in fragment


# ----------------------------------------------------------------------------- logs: the attacker

PUBLIC = ["/", f"/games/{GAME}", f"/games/{GAME}/board", "/matches", "/matches?bot=hal@1", "/leagues",
          "/bots/hal", "/bots/hal@1", "/bots/hal@2", "/bots/hal@3", "/bots/hal@4", "/bots/zed", "/bots/zed@1",
          "/bots/rot@1", "/bots/ann", "/api/v1/games", f"/api/v1/games/{GAME}/ratings", "/api/v1/bots/hal",
          "/api/v1/bots/hal@1", "/api/v1/bots/hal@2", "/api/v1/bots/hal@3", "/api/v1/bots/zed@1",
          "/api/v1/matches", "/api/v1/matches?bot=hal@2", "/api/v1/openapi.json"]


def public_urls(h: Hosted) -> list[str]:
    return PUBLIC + [u for m in h.matches.values() for u in (
        f"/matches/{m}", f"/api/v1/matches/{m}", f"/matches/{m}/replay", f"/matches/{m}/replay?step=1&seat=0",
        f"/api/v1/matches/{m}/steps/1", f"/api/v1/matches/{m}/steps/1?seat=0")]


def test_no_log_command_or_token_shows_on_any_public_page_or_answer(hosted):
    for url in public_urls(hosted):
        text = get(hosted, url).text
        no_secret(text, url)
        for bot, token in hosted.tokens.items():
            assert token not in text, f"{bot}'s token shows on {url}"


def test_the_owners_cookie_opens_no_log_on_the_public_pages_either(hosted):
    session = sign_in(hosted, "hal")
    for url in public_urls(hosted):
        no_secret(get(hosted, url, cookie=session).text, f"{url} (signed in)")


@pytest.mark.parametrize("page", ["hal", "hal@1", "hal@2", "hal@3"])
def test_without_a_session_the_logs_page_is_a_401_sign_in_form(hosted, page):
    r = get(hosted, f"/bots/{page}/logs", status=401)
    no_secret(r.text, r.url)
    assert re.search(rf'<form class="owner" method="post" action="/bots/{re.escape(page)}/logs">', r.text)
    assert 'type="password"' in r.text and 'name="token"' in r.text and "hal's token" in r.text
    assert r.headers["cache-control"] == "no-store"


@pytest.mark.parametrize("cookie", ["forged", "token", "empty"])
def test_a_made_up_cookie_opens_nothing(hosted, cookie):
    value = {"forged": secrets.token_urlsafe(32), "token": hosted.tokens["hal"], "empty": '""'}[cookie]
    for page in ("hal", "hal@1"):
        no_secret(get(hosted, f"/bots/{page}/logs", cookie=value, status=401).text, page)


@pytest.mark.parametrize("given", ["wrong", "another bots", "a versions page with another bots", "empty"])
def test_a_wrong_token_signs_nobody_in(hosted, given):
    token, page = {"wrong": (secrets.token_urlsafe(32), "hal"), "another bots": (hosted.tokens["zed"], "hal"),
                   "a versions page with another bots": (hosted.tokens["ann"], "hal@2"),
                   "empty": ("", "hal")}[given]
    r = post(hosted, f"/bots/{page}/logs", token)
    assert r.status_code == 401 and "That is not hal's token." in html.unescape(r.text)
    assert "set-cookie" not in r.headers
    no_secret(r.text, given)
    assert token == "" or token not in r.text


def test_another_bots_session_does_not_open_these_logs(hosted):
    zed = sign_in(hosted, "zed")
    for page in ("hal", "hal@1", "hal@2"):
        r = get(hosted, f"/bots/{page}/logs", cookie=zed, status=403)
        assert "You are signed in for zed, not hal" in r.text and '<form class="owner"' in r.text
        no_secret(r.text, f"{page} with zed's session")
    own = get(hosted, "/bots/zed/logs", cookie=zed).text  # zed@1 played match m1 with hal@1: its own log only
    assert LOG["zed@1"] in own
    no_secret(own.replace(LOG["zed@1"], "").replace(f"zed_{RUN}", ""), "zed's own logs")


def test_a_sign_in_from_another_site_is_refused(hosted):
    r = post(hosted, "/bots/hal/logs", hosted.tokens["hal"], origin="http://evil.example")
    assert r.status_code == 403 and "set-cookie" not in r.headers
    no_secret(r.text, "a cross-site sign-in")
    assert post(hosted, "/bots/hal/logs", hosted.tokens["hal"], origin=hosted.url).status_code == 303


# ----------------------------------------------------------------------------- logs: the owner

def test_the_sign_in_sets_an_httponly_strict_session_cookie_never_the_token(hosted):
    r = post(hosted, "/bots/hal/logs", hosted.tokens["hal"])
    assert r.status_code == 303 and r.headers["location"] == "/bots/hal/logs"
    (cookie,) = r.headers.get_list("set-cookie")
    attributes = {a.strip().split("=")[0].lower(): a.strip() for a in cookie.split(";")[1:]}
    assert {"httponly", "samesite", "path", "max-age"} <= set(attributes)
    assert attributes["samesite"].lower() == "samesite=strict" and attributes["path"] == "Path=/bots/"
    assert attributes["max-age"] == "Max-Age=14400"  # four hours
    assert hosted.tokens["hal"] not in cookie and len(session_of(r)) >= 40


def test_the_owner_reads_every_versions_logs_newest_first_escaped(hosted):
    session = sign_in(hosted, "hal")
    r = get(hosted, "/bots/hal/logs", cookie=session)
    text = r.text
    assert r.headers["cache-control"] == "no-store" and r.headers["x-frame-options"] == "DENY"
    logs = re.findall(r'<section class="match-log">(.*?)</section>', text, re.S)
    assert [re.search(r"LOGMARK-[\w-]+", s).group(0) for s in logs] == [
        "LOGMARK-hal2-idle-77c1", "LOGMARK-hal2-5c0d", "LOGMARK-hal1-b1e7"]
    m1, m2 = hosted.matches["m1"], hosted.matches["m2"]
    assert f'match <a href="/matches/{m2}">{m2}</a>' in logs[1] and f'match <a href="/matches/{m1}">{m1}</a>' in logs[2]
    assert "outside a match" in logs[0] and '<a href="/bots/hal@1">hal@1</a>' in logs[2]
    escaped = "LOGMARK-hal1-b1e7 &lt;script&gt;alert(&#39;owned&#39;)&lt;/script&gt; &amp; done"
    assert f'<pre class="log">{escaped}</pre>' in logs[2]
    assert "<script>alert" not in text
    builds = re.findall(r'<section class="build-log">(.*?)</section>', text, re.S)
    assert len(builds) == 2 and BUILD["hal@3"] in builds[0] and 'class="version failed"' in builds[0]
    assert BUILD["hal@2"] in builds[1] and 'class="version active"' in builds[1]
    assert f"python3 hal_{RUN}.py" in text and LOG["zed@1"] not in text and LOG["rot@1"] not in text
    assert [re.search(r'href="/bots/([^"]+)"', line).group(1) for line in rows(text, "versions")] == [
        "hal@4", "hal@3", "hal@2", "hal@1"]


def test_the_owner_reads_one_versions_or_one_matchs_logs(hosted):
    session = sign_in(hosted, "hal", page="hal@1")  # signed in on a version's page: a session for hal
    one = get(hosted, "/bots/hal@1/logs", cookie=session).text
    assert LOG["hal@1"].split()[0] in one and LOG["hal@2"] not in one and IDLE not in one
    assert BUILD["hal@2"] not in one and BUILD["hal@3"] not in one and len(rows(one, "versions")) == 1
    m2 = get(hosted, f"/bots/hal/logs?match={hosted.matches['m2']}", cookie=session).text
    assert LOG["hal@2"] in m2 and "LOGMARK-hal1" not in m2 and IDLE not in m2
    assert get(hosted, "/bots/hal/logs?limit=1", cookie=session).text.count('<section class="match-log">') == 1
    get(hosted, "/bots/hal/logs?limit=1000", cookie=session, status=422)
    get(hosted, "/bots/nobody/logs", cookie=session, status=404)


def test_signing_out_ends_the_session_on_the_server(hosted):
    session = sign_in(hosted, "hal")
    assert LOG["hal@2"] in get(hosted, "/bots/hal/logs", cookie=session).text
    r = httpx.post(f"{hosted.url}/bots/hal/logs/sign-out", headers={"cookie": f"cardarena_owner={session}"},
                   follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/bots/hal"
    assert re.search(r'cardarena_owner="?"?;.*Max-Age=0', r.headers["set-cookie"])
    no_secret(get(hosted, "/bots/hal/logs", cookie=session, status=401).text, "after signing out")


def test_a_session_ends_when_it_expires(hosted):
    from cardarena.server.web.owner import SESSION_SECONDS
    session = sign_in(hosted, "hal")
    owners = hosted.app.state.owners
    try:
        owners.clock = lambda: time.time() + SESSION_SECONDS - 60
        assert LOG["hal@2"] in get(hosted, "/bots/hal/logs", cookie=session).text
        owners.clock = lambda: time.time() + SESSION_SECONDS + 1
        no_secret(get(hosted, "/bots/hal/logs", cookie=session, status=401).text, "an expired session")
    finally:
        owners.clock = time.time
    no_secret(get(hosted, "/bots/hal/logs", cookie=session, status=401).text, "an expired session, later")


def test_a_new_token_ends_the_bots_sessions(hosted):
    session = sign_in(hosted, "rot")
    assert LOG["rot@1"] in get(hosted, "/bots/rot/logs", cookie=session).text
    old, hosted.tokens["rot"] = hosted.tokens["rot"], hosted.ledger.rotate_token("rot")
    r = get(hosted, "/bots/rot/logs", cookie=session, status=401)
    assert "new token" in r.text
    no_secret(r.text, "a session of an old token")
    assert post(hosted, "/bots/rot/logs", old).status_code == 401
    assert LOG["rot@1"] in get(hosted, "/bots/rot/logs", cookie=sign_in(hosted, "rot")).text


def test_wrong_tokens_are_answered_429_for_a_while(hosted, serve):
    from cardarena.server.web.app import create_app
    from cardarena.server.web.owner import FAILURE_WINDOW, FAILURES
    app = create_app(hosted.ledger)  # its own count of wrong tokens
    with serve(app) as url:
        h = Hosted(url, hosted.ledger, app, hosted.tokens, hosted.matches)
        for _ in range(FAILURES):
            assert post(h, "/bots/hal/logs", secrets.token_urlsafe(32)).status_code == 401
        r = post(h, "/bots/hal/logs", h.tokens["hal"])  # even the right one, until the window has passed
        assert r.status_code == 429 and "set-cookie" not in r.headers
        assert 0 < int(r.headers["retry-after"]) <= FAILURE_WINDOW + 1
        app.state.owners.clock = lambda: time.time() + FAILURE_WINDOW + 1
        assert post(h, "/bots/hal/logs", h.tokens["hal"]).status_code == 303


# ----------------------------------------------------------------------------- in a browser

def test_an_owner_signs_in_and_out_in_a_browser(hosted, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    browser.get(f"{hosted.url}/bots/hal")
    browser.find_element(By.CSS_SELECTOR, 'a[href="/bots/hal/logs"]').click()
    no_secret(browser.page_source, "the sign-in form")
    box = browser.find_element(By.CSS_SELECTOR, 'form.owner input[name="token"]')
    assert box.get_attribute("type") == "password"
    box.send_keys(hosted.tokens["hal"])
    box.submit()  # which does not wait for the page it asks for: wait for it
    WebDriverWait(browser, 30).until(lambda b: b.current_url == f"{hosted.url}/bots/hal/logs"
                                     and b.execute_script("return document.readyState") == "complete")
    shown = [pre.text for pre in browser.find_elements(By.CSS_SELECTOR, "section.match-log pre.log")]
    assert shown[-1] == LOG["hal@1"] and LOG["hal@2"] in shown  # the text as written, not as markup
    (cookie,) = [c for c in browser.get_cookies() if c["name"] == "cardarena_owner"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["value"] != hosted.tokens["hal"]
    assert "cardarena_owner" not in browser.execute_script("return document.cookie")
    browser.get(f"{hosted.url}/bots/zed/logs")  # hal's session: not zed's
    assert "signed in for hal, not zed" in browser.find_element(By.CSS_SELECTOR, "p.error").text
    no_secret(browser.page_source, "zed's logs with hal's session")
    browser.get(f"{hosted.url}/bots/hal/logs")
    browser.find_element(By.CSS_SELECTOR, "form.sign-out button").click()  # nor does this: wait
    WebDriverWait(browser, 30).until(lambda b: b.current_url == f"{hosted.url}/bots/hal"
                                     and b.execute_script("return document.readyState") == "complete")
    browser.get(f"{hosted.url}/bots/hal/logs")
    assert browser.find_element(By.CSS_SELECTOR, 'form.owner input[name="token"]').is_displayed()
    no_secret(browser.page_source, "the logs page after signing out")
