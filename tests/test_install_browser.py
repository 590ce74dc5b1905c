"""Installing the app through its pages in a real browser: Debian's Chromium, headless,
driven by Selenium with Debian's chromedriver (so Selenium never downloads one).

The install page's **Add to Slack** leads to the fake authorize page, whose **Allow** sends
the browser back with a code; the success page follows and the installation is stored. A
tampered, missing or expired state gets a page that says so, and stores nothing. Without
Chromium the tests skip with the reason, except under ``CI=true``, where they must run
(``.ci/run`` installs ``chromium`` and ``chromium-driver``).
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Iterator
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from fake_oauth import CLIENT_SECRET
from oauth_harness import ALPHA, DistributedBot
from sqlalchemy import create_engine, text

from bot.slack.oauth import INSTALL_PATH

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if shutil.which(path) is None:
            return f"{path} is missing (apt-get install {package})"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    reason = _missing()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set, so the browser tests must run, but {reason}")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture
def distributed(seed_corpus, tmp_path, browser) -> Iterator[DistributedBot]:
    browser.delete_all_cookies()
    live = DistributedBot(seed_corpus, tmp_path)
    live.recorder.authorize_page.team = ALPHA
    yield live
    live.close()


def _installations(bot: DistributedBot) -> list[str]:
    engine = create_engine(bot.settings.database_url)
    with engine.connect() as connection:
        teams = connection.execute(text("SELECT team_id FROM slack_installations")).scalars()
        found = sorted(teams)
    engine.dispose()
    return found


def _click(browser, element_id: str) -> None:
    from selenium.webdriver.common.by import By

    browser.find_element(By.ID, element_id).click()


def _heading(browser) -> str:
    from selenium.webdriver.common.by import By

    return browser.find_element(By.TAG_NAME, "h1").text


def test_add_to_slack_in_a_browser_installs_the_app(distributed, browser, caplog):
    with caplog.at_level(logging.DEBUG):
        browser.get(distributed.url + INSTALL_PATH)
        assert _heading(browser) == "Bring paperbot to your workspace"
        _click(browser, "add-to-slack")
        assert "requesting permission to access the Alpha Slack workspace" in _heading(browser)
        _click(browser, "allow")
        assert _heading(browser) == "paperbot is added to Alpha"
    assert _installations(distributed) == ["T0ALPHA"]
    token = distributed.recorder.token_of(ALPHA)
    assert "oauth.v2.access" in caplog.text and "(redacted)" in caplog.text  # DEBUG was on
    for secret in (token, CLIENT_SECRET, "xoxe-1-T0ALPHA", ".code.T0ALPHA"):
        assert secret not in caplog.text


def test_a_cancelled_install_says_so_and_stores_nothing(distributed, browser):
    browser.get(distributed.url + INSTALL_PATH)
    _click(browser, "add-to-slack")
    _click(browser, "cancel")
    assert _heading(browser) == "You cancelled the install"
    assert _installations(distributed) == []


def _back_with(distributed: DistributedBot, browser, change) -> None:
    """Start an install, then come back from the authorize page with the state changed."""
    browser.get(distributed.url + INSTALL_PATH)
    _click(browser, "add-to-slack")
    from selenium.webdriver.common.by import By

    allow = urlsplit(browser.find_element(By.ID, "allow").get_attribute("href"))
    query = change(dict(parse_qsl(allow.query)))
    browser.get(allow._replace(query=urlencode(query)).geturl())


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda query: {**query, "state": query["state"][:-4] + "0000"}, id="tampered"),
        pytest.param(lambda query: {"code": query["code"]}, id="missing"),
    ],
)
def test_a_tampered_or_missing_state_gets_a_clear_page_and_stores_nothing(
    distributed, browser, change
):
    _back_with(distributed, browser, change)
    assert _heading(browser) == "This install could not be verified"
    assert "Nothing was added to your workspace." in browser.page_source
    assert _installations(distributed) == []
    assert distributed.recorder.calls_to("oauth.v2.access") == []


def test_an_expired_state_gets_a_clear_page_and_stores_nothing(distributed, browser):
    def expire(query: dict[str, str]) -> dict[str, str]:
        engine = create_engine(distributed.settings.database_url)
        with engine.begin() as connection:
            connection.execute(text("UPDATE slack_oauth_states SET expire_at = '2000-01-01'"))
        engine.dispose()
        return query

    _back_with(distributed, browser, expire)
    assert _heading(browser) == "This install link has expired"
    assert _installations(distributed) == []
    _click(browser, "try-again")
    assert _heading(browser) == "Bring paperbot to your workspace"
