#!/usr/bin/env python3
"""Real headless-browser test of the web app's page (issue 6).

Starts `webapp-launch serve` on a free loopback port, opens freshly minted launch URLs in
headless Chromium (Selenium + Debian's chromium-driver) and checks, in a real browser:

* the launch exchange: the 303 is followed, `launch=` leaves the address bar, the session
  cookie is HttpOnly (not visible to script), a reload keeps the page, and the same launch
  URL opened a second time is refused (single use);
* the page: first and last name with umlauts, the masked KVNR, nothing of the KVNR or the
  access token in the page or the URL;
* the bridge: with a recording `window.webkit.messageHandlers.AppInterface` stub, the three
  buttons post `{action, data}` messages and the page posts `{type: "height", value}` on
  load and on resize; every recorded message is decoded by the Swift decoder through
  `webapp-launch bridge` (displayText x2, deeplink -> routeInApp, height applied); the two
  deep-link `<a href="navidapro://…">` links are left to the app (not prevented) and the
  browser stays on the page; their hrefs route in app too;
* XSS: names made of script and markup payloads render as exact text, no script runs (an
  alert recorder installed before any page script via CDP, and no dialog is open), no
  element is injected, and the name sent over the bridge is the exact payload;
* no bridge (a plain browser): the buttons and links fall back visibly (#bridge-fallback,
  #bridge-log) and the deep link does not navigate;
* the launcher console (issue 9): both app cards with their titles and registered URLs
  (rebased to the port), the demo users with masked KVNRs, no access token in the source;
  "Open" as Jürgen Groß lands on the clean healthmagazin URL with his names, the recorded
  bridge messages decode with the Swift decoder, and without a bridge the fallback shows the
  messages and the "NavigationPolicy: routeInApp (…)" line; "Open" bonusprogramm as Zoë
  shows "NavigationPolicy: cancel (deep_link_refused)" for the healthmagazin article link
  (its allowlist host is `bonus`); a foreign plugin link is refused on the console
  (`not_registered`), the registered one opens the page for the chosen user (Änne);
* no Content-Security-Policy violation anywhere (securitypolicyviolation events recorded
  from document start, and the browser console).

With `--replay memory` the server keeps used launches in memory, whose claim never waits, so
its launches are answered on the connection's event loop instead of Hummingbird's request
path; the log must say which path answered (Hummingbird tags its request loggers with
`hb.request.id`). scripts/browser-test runs both.

Writes Docs/screenshots/console.png (Jürgen picked) and Docs/screenshots/page.png (his
console launch with the fallback shown), and artifacts/ (screenshots, console log, server
log, recorded messages). Prints `N passed, M failed` alone on the last line; exit 1 on failure.

    scripts/browser-test                     # installs what is missing, then runs this
    python3 Tests/Browser/page_test.py --bin .build/debug/webapp-launch --root .
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import secrets
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

APP = "healthmagazin"
APP_TITLE = "Gesundheitsmagazin"
ARTICLE_LINK = "navidapro://healthmagazin/details?article_id=606"
OVERVIEW_LINK = "navidapro://healthmagazin/details?article_id=1"
GREETING_TEXT = f"Hello from {APP_TITLE}"

STARTUP_TIMEOUT = 20.0
WAIT = 10.0

# Installed with CDP before any page script runs, on every document: records alert/confirm/
# prompt calls (then lets the real dialog open, so a dialog would show up too) and CSP
# violations.
MONITOR_SCRIPT = r"""
(function () {
  window.__alerts = [];
  window.__csp = [];
  ["alert", "confirm", "prompt"].forEach(function (name) {
    var original = window[name];
    window[name] = function () {
      window.__alerts.push(name + ":" + Array.prototype.join.call(arguments, ","));
      return original.apply(window, arguments);
    };
  });
  document.addEventListener("securitypolicyviolation", function (e) {
    window.__csp.push(e.violatedDirective + " blocked " + e.blockedURI + " at " + e.sourceFile + ":" + e.lineNumber);
  });
})();
"""

# The native bridge as WKWebView exposes it, recording what the page posts.
BRIDGE_STUB = r"""
window.__recorded = [];
window.webkit = { messageHandlers: { AppInterface: { postMessage: function (m) { window.__recorded.push(m); } } } };
"""

# Records, after the page's own listeners ran, whether a deep-link click was left to the
# app (not prevented) or handled by the page's fallback (prevented).
LINK_CLICK_RECORDER = r"""
window.__linkClicks = [];
document.addEventListener("click", function (e) {
  var a = e.target.closest && e.target.closest("a[data-deeplink]");
  if (a) { window.__linkClicks.push({ id: a.id, href: a.getAttribute("href"), prevented: e.defaultPrevented }); }
});
window.__pageMarker = "still-here";
"""


class Results:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0
        self.failures: list[str] = []

    def check(self, name: str, ok: bool, detail: object = "") -> bool:
        if ok:
            self.passed += 1
            print(f"  ok    {name}")
        else:
            self.failed += 1
            text = f"{name}: {detail}" if detail != "" else name
            self.failures.append(text)
            print(f"  FAIL  {text}")
        return ok

    def equal(self, name: str, actual: object, expected: object) -> bool:
        return self.check(name, actual == expected, f"expected {expected!r}, got {actual!r}")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`webapp-launch serve --port P` as a subprocess, stdout collected by a thread."""

    def __init__(self, binary: str, root: Path, port: int, log_path: Path, replay: str | None = None) -> None:
        self.port = port
        self.log_path = log_path
        self.lines: list[str] = []
        self._log = open(log_path, "w", encoding="utf-8")
        # The default SQLite replay store goes to a state directory of this run's own.
        self._state = tempfile.mkdtemp(prefix="webapp-launch-browser-state-")
        self.process = subprocess.Popen(
            [binary, "serve", "--port", str(port), "--metrics-address", "127.0.0.1:0"] + (["--replay", replay] if replay else []),
            cwd=root,
            env={**os.environ, "XDG_STATE_HOME": self._state},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))
            self._log.write("[stdout] " + line)
            self._log.flush()

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def wait_ready(self, timeout: float) -> tuple[bool, str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False, f"server exited with status {self.process.returncode}"
            printed = any(f"/apps/{APP}?launch=" in line for line in self.lines)
            if printed and self.healthy():
                return True, ""
            time.sleep(0.2)
        return False, f"not ready after {timeout:.0f} s (stdout so far: {self.lines!r})"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._reader.join(timeout=5)
        self._log.close()


class CLI:
    def __init__(self, binary: str, root: Path, registry: Path) -> None:
        self.binary = binary
        self.root = root
        self.registry = registry

    def mint(self, access_token: str, firstname: str, lastname: str, kvnumber: str) -> str:
        result = subprocess.run(
            [self.binary, "mint", "--app", APP, "--registry", str(self.registry),
             "--access-token", access_token, "--firstname", firstname, "--lastname", lastname,
             "--kvnumber", kvnumber],
            cwd=self.root, capture_output=True, text=True, encoding="utf-8", timeout=30,
        )
        if result.returncode != 0:
            raise RuntimeError(f"mint failed ({result.returncode}): {result.stderr.strip()}")
        return result.stdout.strip()

    def bridge(self, messages: list[str], app: str = APP) -> tuple[int, list[dict], str]:
        """Decodes JSON lines with the Swift decoder; returns (exit status, decisions, stderr)."""
        result = subprocess.run(
            [self.binary, "bridge", "--app", app, "--registry", str(self.registry), "-"],
            cwd=self.root, input="".join(m + "\n" for m in messages),
            capture_output=True, text=True, encoding="utf-8", timeout=30,
        )
        decisions = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
        return result.returncode, decisions, result.stderr.strip()


class ExternalOpener:
    """A stand-in `xdg-open` first on the browser's PATH, recording what Chromium hands to the OS.

    A link to a scheme the browser does not handle (navidapro://) is, in a desktop browser,
    given to the OS after a confirmation dialog. Headless Chromium has no one to answer that
    dialog and stops delivering input to the tab, so the test pre-approves the scheme for the
    page's origin (the preference "always allow" writes) and records the hand-off here: in the
    app, the web view's navigation policy takes that place and routes the link in app.
    """

    def __init__(self, directory: Path) -> None:
        self.bin_dir = directory / "bin"
        self.bin_dir.mkdir(parents=True, exist_ok=True)
        self.calls_file = directory / "external-opens.txt"
        self.calls_file.write_text("", encoding="utf-8")
        script = self.bin_dir / "xdg-open"
        script.write_text("#!/bin/sh\nprintf '%s\\n' \"$*\" >> " + shlex.quote(str(self.calls_file)) + "\n",
                          encoding="utf-8")
        script.chmod(0o755)

    def calls(self) -> list[str]:
        return [line for line in self.calls_file.read_text(encoding="utf-8").splitlines() if line]


def make_driver(artifacts: Path, origin: str, opener: ExternalOpener) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=420,900",
                "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
                "--lang=de-DE"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.add_experimental_option("prefs", {
        "protocol_handler": {"allowed_origin_protocol_pairs": {origin: {"navidapro": True}}},
    })
    service = Service(
        executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver",
        log_output=str(artifacts / "chromedriver.log"),
        env=dict(os.environ, PATH=f"{opener.bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"),
    )
    driver = webdriver.Chrome(service=service, options=options)
    # Headless Chromium starts with a viewport of at least 500 px whatever --window-size says;
    # an explicit resize gives the phone-sized 420 px viewport.
    driver.set_window_size(420, 900)
    driver.set_page_load_timeout(20)
    driver.set_script_timeout(10)
    return driver


class Page:
    """Helpers over one driver."""

    def __init__(self, driver: webdriver.Chrome, base: str, opener: ExternalOpener) -> None:
        self.driver = driver
        self.base = base
        self.opener = opener
        self.console: list[dict] = []

    def js(self, script: str, *args):
        return self.driver.execute_script(script, *args)

    def text(self, element_id: str) -> str:
        return self.js("var e = document.getElementById(arguments[0]); return e ? e.textContent : null;", element_id)

    def open_launch(self, url: str) -> None:
        self.driver.get(url)
        WebDriverWait(self.driver, WAIT).until(
            lambda d: d.execute_script("return document.readyState") == "complete")
        WebDriverWait(self.driver, WAIT).until(EC.presence_of_element_located((By.ID, "kvnr")))

    def collect_console(self) -> list[dict]:
        try:
            entries = self.driver.get_log("browser")
        except WebDriverException:
            entries = []
        self.console.extend(entries)
        return entries

    def wait_for(self, condition, timeout: float = WAIT):
        return WebDriverWait(self.driver, timeout).until(condition)

    def same_document(self) -> bool:
        return self.js("return window.__pageMarker === 'still-here';") is True

    def screenshot(self, paths: list[Path]) -> None:
        """Full-page PNG (the fallback box may sit below the fold)."""
        png: bytes
        try:
            metrics = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1},
            })
            png = base64.b64decode(shot["data"])
        except WebDriverException:
            png = self.driver.get_screenshot_as_png()
        for path in paths:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(png)


def navigation_console(port: int, url: str, app: str = APP) -> dict | None:
    """The development route that explains a navigation, if this server has it."""
    query = urllib.parse.urlencode({"app": app, "url": url})
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/console/navigation?{query}", timeout=5) as response:
            return json.loads(response.read().decode("utf-8")) if response.status == 200 else None
    except (urllib.error.URLError, OSError, ValueError):
        return None


def page_url(port: int) -> str:
    return f"http://127.0.0.1:{port}/apps/{APP}"


def scenario_bridge(r: Results, page: Page, cli: CLI, port: int, artifacts: Path) -> None:
    print("scenario: launch, names, recording bridge stub")
    first, last, kvnr = "Jürgen", "Groß", "T012345678"
    token = "browser-test-token-" + secrets.token_hex(8)
    url = cli.mint(token, first, last, kvnr)
    r.check("minted launch URL carries launch= and no readable claims",
            "launch=" in url and "J%C3%BCrgen" not in url and kvnr not in url and token not in url, url)

    page.open_launch(url)
    d = page.driver
    r.equal("redirected to the clean URL", d.current_url, page_url(port))
    r.check("address bar no longer contains launch=", "launch=" not in d.current_url, d.current_url)
    r.equal("title", d.title, APP_TITLE)
    r.equal("#first-name shows the first name", page.text("first-name"), first)
    r.equal("#last-name shows the last name", page.text("last-name"), last)
    r.equal("#greeting", page.text("greeting"), f"Hello, {first} {last}")
    r.equal("#first-name-value / #last-name-value",
            (page.text("first-name-value"), page.text("last-name-value")), (first, last))
    r.equal("#kvnr is masked (letter + check digit)", page.text("kvnr"), "T********8")
    source = d.page_source
    r.check("full KVNR and access token appear nowhere in the page",
            kvnr not in source and token not in source)
    r.equal("session cookie is HttpOnly (document.cookie empty)", page.js("return document.cookie;"), "")
    r.check("#bridge-fallback hidden at first", not d.find_element(By.ID, "bridge-fallback").is_displayed())

    page.js(BRIDGE_STUB + LINK_CLICK_RECORDER)
    for element_id in ("display-text", "display-name", "deeplink-button"):
        d.find_element(By.ID, element_id).click()
    page.wait_for(lambda _: page.js("return window.__recorded.filter(function (m) { return m.action; }).length;") >= 3)

    for element_id, href in (("deeplink-link", ARTICLE_LINK), ("deeplink-overview", OVERVIEW_LINK)):
        link = d.find_element(By.ID, element_id)
        r.equal(f"#{element_id} is a real deep-link href", link.get_attribute("href"), href)
        before = len(page.opener.calls())
        link.click()
        try:
            page.wait_for(lambda _: len(page.opener.calls()) > before, 5)
        except TimeoutException:
            pass
        r.equal(f"#{element_id} click: the browser hands the deep link out (not to the page)",
                page.opener.calls()[before:], [href])
        time.sleep(0.3)  # give a navigation, if any, the time to start
        r.equal(f"#{element_id} click: browser stays on the page (URL)", d.current_url, page_url(port))
        r.check(f"#{element_id} click: same document (no navigation)", page.same_document())
    clicks = page.js("return window.__linkClicks;")
    r.equal("with the bridge present the page leaves deep links to the app (not prevented)", clicks, [
        {"id": "deeplink-link", "href": ARTICLE_LINK, "prevented": False},
        {"id": "deeplink-overview", "href": OVERVIEW_LINK, "prevented": False},
    ])
    r.check("with the bridge present the fallback stays hidden",
            not d.find_element(By.ID, "bridge-fallback").is_displayed())

    # The load-time height report happened before the stub existed; a resize reports again.
    d.set_window_size(360, 700)
    try:
        page.wait_for(lambda _: page.js("return window.__recorded.some(function (m) { return m.type === 'height'; });"), 5)
    except TimeoutException:
        pass
    d.set_window_size(420, 900)
    recorded = page.js("return window.__recorded.map(function (m) { return JSON.stringify(m); });")
    (artifacts / "recorded-bridge.jsonl").write_text("".join(m + "\n" for m in recorded), encoding="utf-8")
    actions = [json.loads(m) for m in recorded if "action" in json.loads(m)]
    heights = [json.loads(m) for m in recorded if json.loads(m).get("type") == "height"]
    r.equal("recorded button messages", actions, [
        {"action": "displayText", "data": GREETING_TEXT},
        {"action": "displayText", "data": f"{first} {last}"},
        {"action": "deeplink", "data": ARTICLE_LINK},
    ])
    r.check("height message posted on resize", len(heights) >= 1, recorded)
    r.check("height values are positive integers",
            all(isinstance(h.get("value"), int) and h["value"] > 0 for h in heights), heights)
    r.check("nothing else was posted", len(actions) + len(heights) == len(recorded), recorded)

    status, decisions, err = cli.bridge(recorded)
    r.equal("Swift decoder accepts every recorded message (exit 0)", (status, err), (0, ""))
    decoded_actions = [x for x in decisions if x.get("action") != "height"]
    decoded_heights = [x for x in decisions if x.get("action") == "height"]
    r.equal("decoded: displayText (greeting)", decoded_actions[0:1],
            [{"action": "displayText", "data": GREETING_TEXT, "refused": False}])
    r.equal("decoded: displayText (name)", decoded_actions[1:2],
            [{"action": "displayText", "data": f"{first} {last}", "refused": False}])
    r.equal("decoded: deeplink -> routeInApp", decoded_actions[2:3],
            [{"action": "deeplink", "data": ARTICLE_LINK, "decision": "routeInApp", "refused": False}])
    r.check("decoded: height applied",
            len(decoded_heights) == len(heights) >= 1
            and all(x.get("applied") is True and x.get("refused") is False for x in decoded_heights)
            and [x.get("data") for x in decoded_heights] == [h["value"] for h in heights], decisions)

    # The links' hrefs, as the app's policy sees them when the web view asks about them.
    status, decisions, err = cli.bridge([json.dumps({"action": "deeplink", "data": h})
                                         for h in (ARTICLE_LINK, OVERVIEW_LINK)])
    r.check("both link hrefs route in app",
            status == 0 and [x.get("decision") for x in decisions] == ["routeInApp", "routeInApp"],
            (status, decisions, err))

    d.refresh()
    page.wait_for(EC.presence_of_element_located((By.ID, "kvnr")))
    r.check("reload keeps the session (names still shown, no launch=)",
            page.text("first-name") == first and page.text("last-name") == last
            and "launch=" not in d.current_url, (d.current_url, page.text("first-name")))

    # Single use: the same launch URL, opened again, is refused.
    d.get(url)
    page.wait_for(lambda _: page.js("return document.readyState") == "complete")
    reason = page.text("reason")
    r.check("the same launch URL opened again is refused (already_used)",
            reason == "already_used" and page.text("first-name") is None, (d.current_url, reason, d.title))
    r.equal("no alert/confirm/prompt called", page.js("return window.__alerts;"), [])
    r.equal("no CSP violation (securitypolicyviolation events)", page.js("return window.__csp;"), [])


def scenario_fallback(r: Results, page: Page, cli: CLI, port: int, artifacts: Path, root: Path) -> None:
    print("scenario: plain browser, no bridge: visible fallback")
    first, last = "Jürgen", "Groß"
    page.open_launch(cli.mint("browser-test-token-" + secrets.token_hex(8), first, last, "T012345678"))
    d = page.driver
    r.equal("fresh launch lands on the clean URL", d.current_url, page_url(port))
    r.check("no bridge in a plain browser", page.js("return typeof window.webkit;") == "undefined")
    page.js(LINK_CLICK_RECORDER)
    fallback = d.find_element(By.ID, "bridge-fallback")
    r.check("#bridge-fallback hidden before any click", not fallback.is_displayed())

    d.find_element(By.ID, "display-text").click()
    page.wait_for(EC.visibility_of_element_located((By.ID, "bridge-fallback")))
    r.check("#bridge-fallback visible after #display-text", fallback.is_displayed())

    # Development servers may also explain the link through /console/navigation (the page
    # then adds a "NavigationPolicy: …" line asynchronously); ask the server directly.
    explained = navigation_console(port, ARTICLE_LINK)
    opened_before = len(page.opener.calls())
    d.find_element(By.ID, "deeplink-link").click()
    page.wait_for(lambda _: len(d.find_elements(By.CSS_SELECTOR, "#bridge-log li")) >= (3 if explained else 2))
    time.sleep(0.5)
    r.equal("deep link without bridge: not handed out by the browser", page.opener.calls()[opened_before:], [])
    r.equal("deep link without bridge: URL unchanged", d.current_url, page_url(port))
    r.check("deep link without bridge: same document", page.same_document())
    r.equal("deep link without bridge: click prevented by the page",
            page.js("return window.__linkClicks;"),
            [{"id": "deeplink-link", "href": ARTICLE_LINK, "prevented": True}])

    items = page.js("return Array.prototype.map.call(document.querySelectorAll('#bridge-log li'), function (li) { return li.textContent; });")
    expected_message = {"action": "displayText", "data": GREETING_TEXT}
    prefix = "No app bridge here. The app would receive: "
    r.check("#bridge-log lists the displayText message",
            len(items) == (3 if explained else 2) and items[0].startswith(prefix) and json.loads(items[0][len(prefix):]) == expected_message,
            items)
    r.equal("#bridge-log lists the deep link", items[1:2], [f"Deep link for the app to route: {ARTICLE_LINK}"])
    if explained:
        r.equal("/console/navigation decides routeInApp for the deep link", explained.get("decision"), "routeInApp")
        r.equal("#bridge-log shows the NavigationPolicy decision", items[2:3],
                [f"NavigationPolicy: {explained.get('decision')} ({explained.get('detail')})"])
    if items and items[0].startswith(prefix):
        status, decisions, err = cli.bridge([items[0][len(prefix):]])
        r.equal("the message shown in the fallback decodes with the Swift decoder",
                (status, decisions), (0, [{"action": "displayText", "data": GREETING_TEXT, "refused": False}]))
    r.equal("no alert/confirm/prompt called", page.js("return window.__alerts;"), [])
    r.equal("no CSP violation (securitypolicyviolation events)", page.js("return window.__csp;"), [])

    # Docs/screenshots/page.png comes from the console scenario (a demo user's launch).
    page.screenshot([artifacts / "page-fallback.png"])
    r.check("screenshot written", (artifacts / "page-fallback.png").stat().st_size > 1000)


def scenario_xss(r: Results, page: Page, cli: CLI, port: int, artifacts: Path) -> None:
    print("scenario: XSS payloads in the names")
    first = "</script><script>alert(1)</script>"
    last = "\"><img src=x onerror=alert(1)>"
    d = page.driver
    # The bridge stub from document start, as in WKWebView: also records the on-load height.
    stub = d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": BRIDGE_STUB})
    try:
        page.open_launch(cli.mint("browser-test-token-" + secrets.token_hex(8), first, last, "A123456780"))
        time.sleep(0.5)  # give any injected handler (img onerror) the time to fire
        try:
            alert = d.switch_to.alert
            text = alert.text
            alert.dismiss()
            r.check("no alert dialog open", False, f"an alert is open: {text!r}")
        except NoAlertPresentException:
            r.check("no alert dialog open", True)
        r.equal("no alert/confirm/prompt called (recorder from document start)", page.js("return window.__alerts;"), [])
        r.equal("no CSP violation (securitypolicyviolation events)", page.js("return window.__csp;"), [])
        r.equal("#first-name text is the payload, exactly", page.text("first-name"), first)
        r.equal("#last-name text is the payload, exactly", page.text("last-name"), last)
        r.equal("#first-name-value / #last-name-value are the payloads, exactly",
                (page.text("first-name-value"), page.text("last-name-value")), (first, last))
        r.equal("#greeting text", page.text("greeting"), f"Hello, {first} {last}")
        r.equal("#kvnr masked", page.text("kvnr"), "A********0")
        r.equal("no element injected: one script, no img",
                page.js("return [document.scripts.length, document.images.length, "
                        "document.getElementById('first-name').children.length, "
                        "document.getElementById('last-name').children.length];"), [1, 0, 0, 0])
        r.equal("#display-name data attribute is the exact names",
                d.find_element(By.ID, "display-name").get_attribute("data-bridge-data"), f"{first} {last}")

        d.find_element(By.ID, "display-name").click()
        page.wait_for(lambda _: page.js("return window.__recorded.some(function (m) { return m.action; });"))
        recorded = page.js("return window.__recorded.map(function (m) { return JSON.stringify(m); });")
        (artifacts / "recorded-bridge-xss.jsonl").write_text("".join(m + "\n" for m in recorded), encoding="utf-8")
        messages = [json.loads(m) for m in recorded]
        r.check("height message posted on load (bridge present from document start)",
                len(messages) >= 1 and messages[0].get("type") == "height"
                and isinstance(messages[0].get("value"), int) and messages[0]["value"] > 0, messages)
        r.equal("the name posted over the bridge is the exact payload",
                [m for m in messages if "action" in m], [{"action": "displayText", "data": f"{first} {last}"}])
        status, decisions, err = cli.bridge(recorded)
        r.check("Swift decoder: payload name as displayText, height applied",
                status == 0
                and {"action": "displayText", "data": f"{first} {last}", "refused": False} in decisions
                and any(x.get("action") == "height" and x.get("applied") is True for x in decisions),
                (status, decisions, err))
        page.screenshot([artifacts / "page-xss.png"])
    finally:
        d.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": stub["identifier"]})


FALLBACK_PREFIX = "No app bridge here. The app would receive: "
LIST_LOG = "return Array.prototype.map.call(document.querySelectorAll('#bridge-log li'), function (li) { return li.textContent; });"


def masked(kvnr: str) -> str:
    """What KVNR.masked shows: the letter and the check digit, eight stars between."""
    return kvnr[0] + "*" * (len(kvnr) - 2) + kvnr[-1]


def plugin_link(registered_url: str) -> str:
    return "navidapro://plugin/webapp?registeredURL=" + urllib.parse.quote(registered_url, safe="")


def scenario_console(r: Results, page: Page, cli: CLI, port: int, artifacts: Path, root: Path) -> None:
    print("scenario: launcher console (demo users, app cards, plugin links)")
    d = page.driver
    base = f"http://127.0.0.1:{port}"
    console_url = base + "/"
    apps = json.loads(cli.registry.read_text(encoding="utf-8"))["apps"]
    users = {u["id"]: u for u in json.loads((root / "keys" / "demo-users.json").read_text(encoding="utf-8"))["users"]}
    healthmagazin = next(a for a in apps if a["id"] == "healthmagazin")
    bonusprogramm = next(a for a in apps if a["id"] == "bonusprogramm")

    def loaded(selector_id: str, url: str | None = None, url_prefix: str | None = None):
        """Waits (bounded) for a new document at url (or under url_prefix) with the element."""
        def ready(_):
            try:
                current = d.current_url
                if url is not None and current != url:
                    return False
                if url_prefix is not None and not current.startswith(url_prefix):
                    return False
                return (page.js("return document.readyState") == "complete"
                        and page.js("return !!document.getElementById(arguments[0]);", selector_id))
            except WebDriverException:  # the document went away mid-check: still navigating
                return False
        page.wait_for(ready)

    def open_console() -> None:
        d.get(console_url)
        loaded("launch-form", url=console_url)

    def no_csp(where: str) -> None:
        r.equal(f"{where}: no alert/confirm/prompt, no CSP violation",
                (page.js("return window.__alerts;"), page.js("return window.__csp;")), ([], []))

    def pick(user_id: str) -> None:
        d.find_element(By.ID, f"user-{user_id}").click()
        r.check(f"#user-{user_id} is selected", d.find_element(By.ID, f"user-{user_id}").is_selected())

    def check_page(where: str, user: dict, app: dict) -> None:
        r.equal(f"{where}: clean app URL (no launch=)", d.current_url, app["url"])
        r.equal(f"{where}: title", d.title, app["title"])
        r.equal(f"{where}: first and last name",
                (page.text("first-name"), page.text("last-name")), (user["firstName"], user["lastName"]))
        r.equal(f"{where}: #kvnr masked", page.text("kvnr"), masked(user["kvnumber"]))
        source = d.page_source
        r.check(f"{where}: full KVNR and access token nowhere in the page or URL",
                user["kvnumber"] not in source and user["accessToken"] not in source
                and "demo-token" not in source and "launch=" not in d.current_url)

    # 1. The console: cards, users with masked KVNRs, no tokens, no CSP violation.
    open_console()
    r.equal("console: title", d.title, "WebAppLaunch console")
    r.equal("console: one card per registered app",
            page.js("return Array.prototype.map.call(document.querySelectorAll('.app-card'), function (c) { return c.id; });"),
            [f"card-{a['id']}" for a in apps])
    for app in apps:
        card = f"#card-{app['id']}"
        r.equal(f"console: {card} title and registered URL (rebased to {port})",
                (page.js("return document.querySelector(arguments[0] + ' h3').textContent;", card),
                 page.js("return document.querySelector(arguments[0] + ' code').textContent;", card),
                 d.find_element(By.ID, f"open-{app['id']}").get_attribute("value")),
                (app["title"], app["url"], app["id"]))
    r.check("console: app URLs are on the served port",
            all(a["url"].startswith(base + "/apps/") for a in apps), [a["url"] for a in apps])
    labels = page.js("return Array.prototype.map.call(document.querySelectorAll('input[name=user]'), "
                     "function (i) { return [i.id, i.value, i.closest('label').textContent.trim()]; });")
    r.equal("console: every demo user listed with the masked KVNR", labels, [
        [f"user-{u['id']}", u["id"], f"{u['firstName']} {u['lastName']} ({masked(u['kvnumber'])})"]
        for u in users.values()])
    r.equal("console: Jürgen Groß is listed as M********8",
            page.js("return document.getElementById('user-juergen').closest('label').textContent.trim();"),
            "Jürgen Groß (M********8)")
    source = d.page_source
    r.check("console: no access token (demo-token) in the page source", "demo-token" not in source)
    r.check("console: no full KVNR in the page source",
            not any(u["kvnumber"] in source for u in users.values()))
    r.equal("console: the plugin-link example is the registered healthmagazin link",
            page.text("plugin-example"), plugin_link(healthmagazin["url"]))
    no_csp("console")

    # 2. Screenshot with the umlaut user picked.
    pick("juergen")
    page.screenshot([root / "Docs" / "screenshots" / "console.png", artifacts / "console.png"])
    r.check("console screenshot written", (root / "Docs" / "screenshots" / "console.png").stat().st_size > 1000)

    # 3. Open healthmagazin as Jürgen.
    juergen = users["juergen"]
    d.find_element(By.ID, "open-healthmagazin").click()
    loaded("kvnr", url=healthmagazin["url"])
    check_page("console launch (Jürgen, healthmagazin)", juergen, healthmagazin)
    r.equal("console launch: shows Jürgen / Groß / M********8",
            (page.text("first-name"), page.text("last-name"), page.text("kvnr")), ("Jürgen", "Groß", "M********8"))
    no_csp("console launch (healthmagazin)")

    # 4a. The bridge buttons with the recording stub, decoded by the Swift decoder.
    page.js(BRIDGE_STUB)
    for element_id in ("display-text", "display-name", "deeplink-button"):
        d.find_element(By.ID, element_id).click()
    page.wait_for(lambda _: page.js("return window.__recorded.filter(function (m) { return m.action; }).length;") >= 3)
    recorded = [m for m in page.js("return window.__recorded.map(function (m) { return JSON.stringify(m); });")
                if "action" in json.loads(m)]
    (artifacts / "recorded-bridge-console.jsonl").write_text("".join(m + "\n" for m in recorded), encoding="utf-8")
    name = f"{juergen['firstName']} {juergen['lastName']}"
    r.equal("console launch: recorded button messages", [json.loads(m) for m in recorded], [
        {"action": "displayText", "data": GREETING_TEXT},
        {"action": "displayText", "data": name},
        {"action": "deeplink", "data": ARTICLE_LINK},
    ])
    status, decisions, err = cli.bridge(recorded)
    r.equal("console launch: Swift decoder accepts them (displayText x2, deeplink -> routeInApp)",
            (status, decisions, err), (0, [
                {"action": "displayText", "data": GREETING_TEXT, "refused": False},
                {"action": "displayText", "data": name, "refused": False},
                {"action": "deeplink", "data": ARTICLE_LINK, "decision": "routeInApp", "refused": False},
            ], ""))

    # 4b. Same session, reloaded without the stub: the visible fallback with the policy line.
    d.refresh()
    loaded("kvnr", url=healthmagazin["url"])
    r.check("reloaded without stub: no bridge", page.js("return typeof window.webkit;") == "undefined")
    page.js(LINK_CLICK_RECORDER)
    d.find_element(By.ID, "display-text").click()
    d.find_element(By.ID, "display-name").click()
    d.find_element(By.ID, "deeplink-link").click()
    page.wait_for(lambda _: len(page.js(LIST_LOG)) >= 4)
    time.sleep(0.3)  # a navigation, if any, would have started
    explained = navigation_console(port, ARTICLE_LINK, "healthmagazin")
    r.equal("/console/navigation: healthmagazin routes its article link in app", explained,
            {"decision": "routeInApp", "detail": "the app opens healthmagazin/details itself"})
    items = page.js(LIST_LOG)
    r.equal("healthmagazin fallback: messages, deep link and NavigationPolicy line", items, [
        FALLBACK_PREFIX + json.dumps({"action": "displayText", "data": GREETING_TEXT}, separators=(",", ":"), ensure_ascii=False),
        FALLBACK_PREFIX + json.dumps({"action": "displayText", "data": name}, separators=(",", ":"), ensure_ascii=False),
        f"Deep link for the app to route: {ARTICLE_LINK}",
        "NavigationPolicy: routeInApp (the app opens healthmagazin/details itself)",
    ])
    r.check("healthmagazin fallback: visible, still on the page (same document)",
            d.find_element(By.ID, "bridge-fallback").is_displayed() and page.same_document()
            and d.current_url == healthmagazin["url"], d.current_url)
    no_csp("healthmagazin fallback")
    page.screenshot([root / "Docs" / "screenshots" / "page.png", artifacts / "page.png"])
    r.check("page screenshot written", (root / "Docs" / "screenshots" / "page.png").stat().st_size > 1000)

    # 4c. Bonusprogramm as Zoë: its allowlist host is `bonus`, so the article link is cancelled.
    zoe = users["zoe"]
    open_console()
    pick("zoe")
    d.find_element(By.ID, "open-bonusprogramm").click()
    loaded("kvnr", url=bonusprogramm["url"])
    r.equal("bonusprogramm: lands on /apps/bonusprogramm?tenant=demo", d.current_url, f"{base}/apps/bonusprogramm?tenant=demo")
    check_page("console launch (Zoë, bonusprogramm)", zoe, bonusprogramm)
    r.check("bonusprogramm: no bridge", page.js("return typeof window.webkit;") == "undefined")
    page.js(LINK_CLICK_RECORDER)
    d.find_element(By.ID, "display-text").click()
    d.find_element(By.ID, "deeplink-link").click()
    page.wait_for(lambda _: len(page.js(LIST_LOG)) >= 3)
    time.sleep(0.3)
    bonus_greeting = f"Hello from {bonusprogramm['title']}"
    explained = navigation_console(port, ARTICLE_LINK, "bonusprogramm")
    r.equal("/console/navigation: bonusprogramm cancels the healthmagazin article link", explained,
            {"decision": "cancel", "detail": "deep_link_refused"})
    items = page.js(LIST_LOG)
    r.equal("bonusprogramm fallback: message, deep link and NavigationPolicy cancel line", items, [
        FALLBACK_PREFIX + json.dumps({"action": "displayText", "data": bonus_greeting}, separators=(",", ":")),
        f"Deep link for the app to route: {ARTICLE_LINK}",
        "NavigationPolicy: cancel (deep_link_refused)",
    ])
    r.check("bonusprogramm fallback: visible, still on the page (same document)",
            d.find_element(By.ID, "bridge-fallback").is_displayed() and page.same_document()
            and d.current_url == bonusprogramm["url"], d.current_url)
    status, decisions, err = cli.bridge([json.dumps({"action": "displayText", "data": bonus_greeting}),
                                         json.dumps({"action": "deeplink", "data": ARTICLE_LINK})], "bonusprogramm")
    r.equal("Swift decoder for bonusprogramm: displayText accepted, article deep link cancel:deep_link_refused",
            (status, decisions), (1, [
                {"action": "displayText", "data": bonus_greeting, "refused": False},
                {"action": "deeplink", "data": ARTICLE_LINK, "decision": "cancel:deep_link_refused", "refused": True},
            ]))
    no_csp("bonusprogramm fallback")
    page.screenshot([artifacts / "page-bonusprogramm.png"])

    # 5. Plugin links: a foreign one is refused on the console, the registered one opens.
    aenne = users["aenne"]
    open_console()
    pick("aenne")
    foreign = "navidapro://plugin/webapp?registeredURL=https%3A%2F%2Fevil.example%2Fapps%2Fhealthmagazin"
    d.find_element(By.ID, "plugin-link").send_keys(foreign)
    d.find_element(By.ID, "plugin-open").click()
    loaded("refusal-code", url_prefix=base + "/console/")
    r.equal("foreign plugin link: #refusal-code", page.text("refusal-code"), "not_registered")
    r.check("foreign plugin link: still on the console (same origin, console form shown)",
            d.current_url == base + "/console/plugin" and d.title == "WebAppLaunch console"
            and d.find_element(By.ID, "refusal").is_displayed()
            and len(d.find_elements(By.ID, "launch-form")) == 1, (d.current_url, d.title))
    r.check("foreign plugin link: no navigation to evil.example", "evil.example" not in d.current_url, d.current_url)
    no_csp("plugin refusal")
    # The refusal page is a fresh render: it does not keep the chosen user or the pasted link.
    page.screenshot([artifacts / "console-refusal.png"])
    kept = page.js("var c = document.querySelector('input[name=user]:checked'); return c ? c.value : null;")
    if kept != "aenne":
        print(f"  note  the refusal page does not keep the chosen user (checked: {kept!r}); picking again")
    pick("aenne")
    field = d.find_element(By.ID, "plugin-link")
    field.clear()
    field.send_keys(plugin_link(healthmagazin["url"]))
    d.find_element(By.ID, "plugin-open").click()
    loaded("kvnr", url=healthmagazin["url"])
    check_page("registered plugin link (Änne, healthmagazin)", aenne, healthmagazin)
    r.equal("registered plugin link: shows Änne / d'Alembert / Q********2",
            (page.text("first-name"), page.text("last-name"), page.text("kvnr")), ("Änne", "d'Alembert", "Q********2"))
    no_csp("registered plugin link")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.environ.get("WEBAPP_LAUNCH_BIN", ".build/debug/webapp-launch"))
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[2]))
    parser.add_argument("--replay", default=None, help="the server's --replay (default: its own default store)")
    args = parser.parse_args()
    root = Path(args.root).resolve()
    binary = str((root / args.bin) if not os.path.isabs(args.bin) else Path(args.bin))
    artifacts = root / "artifacts" / (f"page-replay-{args.replay}" if args.replay else "")
    artifacts.mkdir(parents=True, exist_ok=True)

    started = time.monotonic()
    r = Results()
    port = free_port()
    print(f"browser test: {binary} on 127.0.0.1:{port}" + (f" (--replay {args.replay})" if args.replay else ""))

    with tempfile.TemporaryDirectory(prefix="webapp-launch-browser-") as tmp:
        registry = Path(tmp) / "registry.json"
        sample = (root / "keys" / "registry.sample.json").read_text(encoding="utf-8")
        registry.write_text(sample.replace("8080", str(port)), encoding="utf-8")
        cli = CLI(binary, root, registry)

        server = Server(binary, root, port, artifacts / "server.log", args.replay)
        driver = None
        page = None
        try:
            ready, why = server.wait_ready(STARTUP_TIMEOUT)
            r.check(f"server printed its launch URLs and answers /healthz within {STARTUP_TIMEOUT:.0f} s", ready, why)
            if ready:
                r.check("printed launch URL is rebased to the chosen port",
                        any(f"http://127.0.0.1:{port}/apps/{APP}?launch=" in line for line in server.lines),
                        server.lines)
                opener = ExternalOpener(Path(tmp))
                driver = make_driver(artifacts, f"http://127.0.0.1:{port}", opener)
                page = Page(driver, page_url(port), opener)
                driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": MONITOR_SCRIPT})
                for scenario in (
                    lambda: scenario_bridge(r, page, cli, port, artifacts),
                    lambda: scenario_fallback(r, page, cli, port, artifacts, root),
                    lambda: scenario_xss(r, page, cli, port, artifacts),
                    lambda: scenario_console(r, page, cli, port, artifacts, root),
                ):
                    try:
                        scenario()
                    except Exception as error:  # a crash in one scenario fails it, the others still run
                        r.check("scenario ran to the end", False, f"{type(error).__name__}: {error}")
                        traceback.print_exc()
                    finally:
                        page.collect_console()

                console = page.console
                (artifacts / "browser-console.json").write_text(
                    json.dumps(console, indent=2, ensure_ascii=False), encoding="utf-8")
                csp = [e for e in console if "Content Security Policy" in e.get("message", "")]
                r.check("no Content Security Policy errors in the browser console", not csp, csp)
                for entry in console:
                    print(f"  console [{entry.get('level')}] {entry.get('message')}")
        except Exception as error:
            r.check("test harness ran", False, f"{type(error).__name__}: {error}")
            traceback.print_exc()
        finally:
            if driver is not None:
                try:
                    driver.quit()
                except Exception:
                    pass
            server.stop()
        # Which path answered the launches: the event loop with the memory store, whose claim
        # never waits; Hummingbird's request path (tagged with hb.request.id) otherwise.
        accepted = [line for line in server.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
                    if "launch.accepted" in line]
        on_event_loop = args.replay == "memory"
        r.check("the server logged the accepted launches", len(accepted) >= 3, len(accepted))
        r.check("every launch was answered on the event loop (memory store)" if on_event_loop
                else "every launch was answered on Hummingbird's request path",
                all(("hb.request.id" in line) != on_event_loop for line in accepted), accepted[:3])

    print(f"took {time.monotonic() - started:.1f} s; artifacts in {artifacts}")
    if r.failures:
        print("failures:")
        for failure in r.failures:
            print(f"  - {failure}")
    print(f"{r.passed} passed, {r.failed} failed")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
