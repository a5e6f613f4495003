#!/usr/bin/env python3
"""Real headless-browser walk through the gate (issue 15): console -> launch -> nginx ->
gate -> the page of a web app that is not Swift.

Starts, all on 127.0.0.1 with free ports and temporary directories:

* the Python standard-library upstream of the gate's tests
  (Tests/WebAppLaunchGateTests/Fixtures/echo_upstream.py), whose /page greets the user and
  lists the X-WebApp-Launch-* headers it received;
* `webapp-launch gate --auth-request` for healthmagazin, with the app keyring exported from
  the development keyring (`keygen --export-app`), in-memory replay store;
* real nginx with the configuration `webapp-launch gate --print-nginx-config` prints for
  these ports (Docs/nginx-auth-request.conf is the same output for the example ports);
* `webapp-launch serve`, the development console, with a registry in which healthmagazin is
  registered at the nginx origin (http://127.0.0.1:NGINX/page) and bonusprogramm at the
  console's own server (served there with --app/--public-url, so nothing is rebased).

Then in headless Chromium: the console lists healthmagazin at the nginx URL; Zoë-Chloé
O'Brien-Müller is picked and "Open" pressed; the console's 303 (allowed by its form-action,
which names the registered origins) goes to nginx, whose auth_request sends the launch to
the gate, which answers 303 to the clean URL with its session cookie; the page then comes
from the Python upstream through nginx, with the names (umlauts, accent, apostrophe) intact,
the KVNR received (shown masked), no session cookie passed to the app, none readable by script, and a
reload still served. The page without a session is refused (401). No CSP violation. Then,
with that session (user A) still live, a launch of user B through nginx is exchanged and the
page greets B; and the same "A, then B" walk through a second gate in reverse-proxy shape.

Writes Docs/screenshots/gate-walk.png and artifacts/gate-walk-*. Prints `N passed, M failed`
alone on the last line; exit 1 on failure. Every process it starts is stopped at exit.

    python3 Tests/Browser/gate_walk_test.py --bin .build/debug/webapp-launch --root .
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from page_test import MONITOR_SCRIPT, ExternalOpener, Page, Results, free_port, make_driver  # noqa: E402

from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

APP = "healthmagazin"
USER = "zoe"
STARTUP_TIMEOUT = 20.0
WAIT = 15.0


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    """GET without following redirects: (status, headers, body)."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with OPENER.open(request, timeout=5) as response:
            return response.status, dict(response.headers.items()), response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers.items()), error.read().decode("utf-8", "replace")


def accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


class Process:
    """A subprocess with stdout and stderr in one log file, stopped (TERM, then KILL) at exit."""

    def __init__(self, name: str, argv: list[str], log: Path, cwd: Path, env: dict[str, str] | None = None) -> None:
        self.name = name
        self.log_path = log
        self._log = open(log, "w", encoding="utf-8")
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            argv, cwd=cwd, env=env or os.environ.copy(), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8", errors="replace",
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))
            self._log.write(line)
            self._log.flush()

    def wait_until(self, ready, timeout: float = STARTUP_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with status {self.process.returncode}: {self.lines[-10:]!r}")
            if ready():
                return
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} not ready after {timeout:.0f} s: {self.lines[-10:]!r}")

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


def nginx_executable() -> str | None:
    for candidate in (shutil.which("nginx"), "/usr/sbin/nginx", "/usr/bin/nginx"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def nginx_configuration(binary: str, root: Path, directory: Path, port: int, gate_port: int, upstream_port: int, app_url: str) -> str:
    """The configuration `webapp-launch gate --print-nginx-config` prints for this gate, app and port."""
    printed = subprocess.run(
        [binary, "gate", "--auth-request", "--app", APP, "--public-url", app_url, "--host", "127.0.0.1", "--port", str(gate_port),
         "--print-nginx-config", "--nginx-app", f"127.0.0.1:{upstream_port}", "--nginx-listen", f"127.0.0.1:{port}",
         "--nginx-log-directory", f"{directory}/"],
        cwd=root, capture_output=True, text=True, timeout=30)
    if printed.returncode != 0:
        raise RuntimeError(f"gate --print-nginx-config failed: {printed.stderr.strip()}")
    return printed.stdout.replace("worker_processes auto;", "worker_processes 1;")


def mint(binary: str, root: Path, registry: Path, user: dict) -> str:
    """A launch URL for healthmagazin and `user`, minted with the development keyring."""
    minted = subprocess.run(
        [binary, "mint", "--app", APP, "--registry", str(registry), "--keyring", str(root / "keys" / "dev.keyring.json"),
         "--access-token", "env:WEBAPP_LAUNCH_WALK_TOKEN", "--firstname", user["firstName"], "--lastname", user["lastName"],
         "--kvnumber", user["kvnumber"]],
        cwd=root, capture_output=True, text=True, timeout=30, env={**os.environ, "WEBAPP_LAUNCH_WALK_TOKEN": user["accessToken"]})
    if minted.returncode != 0:
        raise RuntimeError(f"mint failed: {minted.stderr.strip()}")
    return minted.stdout.strip().splitlines()[-1]


def walk(r: Results, root: Path, binary: str, tmp: Path, artifacts: Path) -> None:
    users = {u["id"]: u for u in json.loads((root / "keys" / "demo-users.json").read_text(encoding="utf-8"))["users"]}
    user = users[USER]
    processes: list[Process] = []
    driver = None
    try:
        # 1. The app keyring of healthmagazin, exported from the development launcher keyring.
        keyring = tmp / f"{APP}.app-keyring.json"
        exported = subprocess.run(
            [binary, "keygen", "--export-app", APP, "--keyring", str(root / "keys" / "dev.keyring.json"), "--out", str(keyring)],
            cwd=root, capture_output=True, text=True, timeout=30)
        if not r.check("keygen --export-app wrote the app keyring", exported.returncode == 0 and keyring.exists(),
                       exported.stderr.strip()):
            return

        # 2. The Python upstream (it prints "listening PORT").
        upstream = Process("python upstream", [sys.executable, str(root / "Tests" / "WebAppLaunchGateTests" / "Fixtures" / "echo_upstream.py"), "0"],
                           artifacts / "gate-walk-upstream.log", root)
        processes.append(upstream)
        upstream.wait_until(lambda: any(line.startswith("listening ") for line in upstream.lines))
        upstream_port = int(next(line for line in upstream.lines if line.startswith("listening ")).split()[1])

        # 3. The gate in auth_request mode; its public URL is the nginx address of the app.
        nginx_port, gate_port, console_port = free_port(), free_port(), free_port()
        app_url = f"http://127.0.0.1:{nginx_port}/page"
        gate = Process("gate", [binary, "gate", "--auth-request", "--host", "127.0.0.1", "--port", str(gate_port),
                                "--app", APP, "--public-url", app_url, "--keyring", str(keyring), "--replay", "memory"],
                       artifacts / "gate-walk-gate.log", root)
        processes.append(gate)
        gate.wait_until(lambda: accepts(gate_port))

        # 4. nginx from the documented configuration.
        nginx = nginx_executable()
        if not r.check("nginx is installed", nginx is not None, "apt-get install nginx (scripts/browser-test does this)"):
            return
        nginx_dir = tmp / "nginx"
        nginx_dir.mkdir()
        conf = nginx_dir / "nginx.conf"
        conf.write_text(nginx_configuration(binary, root, nginx_dir, nginx_port, gate_port, upstream_port, app_url), encoding="utf-8")
        globals_ = f"daemon off; master_process on; pid {nginx_dir}/nginx.pid; error_log {nginx_dir}/error.log notice;"
        checked = subprocess.run([nginx, "-t", "-p", f"{nginx_dir}/", "-c", str(conf), "-g", globals_],
                                 capture_output=True, text=True, timeout=10)
        if not r.check("nginx -t accepts the configuration `gate --print-nginx-config` printed", checked.returncode == 0, checked.stderr.strip()):
            return
        proxy = Process("nginx", [nginx, "-p", f"{nginx_dir}/", "-c", str(conf), "-g", globals_],
                        artifacts / "gate-walk-nginx.log", root)
        processes.append(proxy)
        proxy.wait_until(lambda: accepts(nginx_port))

        # 5. The development console, with healthmagazin registered at the nginx origin.
        registry = tmp / "registry.json"
        sample = json.loads((root / "keys" / "registry.sample.json").read_text(encoding="utf-8"))
        for entry in sample["apps"]:
            if entry["id"] == APP:
                entry["url"] = app_url
            else:
                entry["url"] = entry["url"].replace("127.0.0.1:8080", f"127.0.0.1:{console_port}")
        other = next(entry for entry in sample["apps"] if entry["id"] != APP)
        registry.write_text(json.dumps(sample, ensure_ascii=False, indent=2), encoding="utf-8")
        state = tmp / "state"
        state.mkdir()
        console = Process("serve", [binary, "serve", "--port", str(console_port), "--registry", str(registry),
                                    "--app", other["id"], "--public-url", other["url"],
                                    "--replay", "memory", "--metrics-address", "none"],
                          artifacts / "gate-walk-serve.log", root, env={**os.environ, "XDG_STATE_HOME": str(state)})
        processes.append(console)
        console_url = f"http://127.0.0.1:{console_port}/"
        console.wait_until(lambda: fetch(console_url + "healthz")[0] == 200 if accepts(console_port) else False)
        r.check(f"upstream, gate, nginx and console listen on 127.0.0.1 (ports {upstream_port}, {gate_port}, {nginx_port}, {console_port})", True)

        # 6. Over plain HTTP first: nginx refuses the page without a session; the console's CSP.
        status, _, body = fetch(app_url)
        r.equal("nginx: the page without a session is refused by the gate (401)", status, 401)
        r.check("nginx: the refusal is the gate's, not the app's", "Hallo" not in body, body[:200])
        status, headers, _ = fetch(console_url)
        policy = headers.get("Content-Security-Policy", "")
        form_action = next((d for d in policy.split("; ") if d.startswith("form-action ")), "")
        r.equal("console: form-action is 'self' plus the two registered origins, nothing else",
                form_action, f"form-action 'self' http://127.0.0.1:{nginx_port} http://127.0.0.1:{console_port}")

        # 7. The browser walk.
        opener = ExternalOpener(tmp)
        driver = make_driver(artifacts, console_url.rstrip("/"), opener)
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": MONITOR_SCRIPT})
        page = Page(driver, app_url, opener)
        driver.get(console_url)
        page.wait_for(lambda d: d.execute_script("return document.readyState") == "complete"
                      and d.execute_script("return !!document.getElementById('launch-form');"))
        r.equal("console: the healthmagazin card shows the nginx URL",
                page.js("return document.querySelector('#card-healthmagazin code').textContent;"), app_url)
        r.equal("console: no CSP violation", page.js("return window.__csp;"), [])
        driver.find_element(By.ID, f"user-{USER}").click()
        r.check(f"console: {user['firstName']} {user['lastName']} picked",
                driver.find_element(By.ID, f"user-{USER}").is_selected())
        driver.find_element(By.ID, f"open-{APP}").click()

        def arrived(d) -> bool:
            try:
                return (d.current_url == app_url and d.execute_script("return document.readyState") == "complete"
                        and d.execute_script("return !!document.getElementById('greeting');"))
            except WebDriverException:
                return False

        try:
            page.wait_for(arrived, timeout=WAIT)
        except Exception:
            page.screenshot([artifacts / "gate-walk-failed.png"])
            r.check("Open lands on the app through nginx", False,
                    f"at {driver.current_url!r}: {driver.page_source[:300]!r}")
            return
        r.equal("Open -> console 303 -> nginx -> gate 303: the clean app URL (no launch=)", driver.current_url, app_url)
        r.equal("page: served by the Python upstream", driver.title, "Python upstream")
        r.equal("page: greeting with umlauts, accent and apostrophe intact",
                page.text("greeting"), f"Hallo {user['firstName']} {user['lastName']}")
        r.equal("page: X-WebApp-Launch-First-Name / -Last-Name as received by the app",
                (page.text("header-first-name"), page.text("header-last-name")), (user["firstName"], user["lastName"]))
        kvnr = user["kvnumber"]
        r.equal("page: X-WebApp-Launch-KVNR received (shown masked)", page.text("header-kvnr"),
                kvnr[0] + "*" * (len(kvnr) - 2) + kvnr[-1])
        r.equal("page: X-WebApp-Launch-App", page.text("header-app"), APP)
        r.equal("page: X-WebApp-Launch-Subject received (the KVNR, shown masked)", page.text("header-subject"),
                kvnr[0] + "*" * (len(kvnr) - 2) + kvnr[-1])
        r.check("page: the full KVNR appears nowhere on the page", kvnr not in driver.page_source)
        r.equal("page: no access token passed (no --pass-access-token)", page.text("header-access-token"), None)
        r.equal("page: the app never receives the gate's session cookie", page.text("cookies"), "(none)")
        cookies = {c["name"]: c for c in driver.get_cookies()}
        session = cookies.get("webapp_launch_session")
        r.check("browser: the gate's session cookie is set, HttpOnly, SameSite=Lax",
                session is not None and session.get("httpOnly") is True and session.get("sameSite") == "Lax", session)
        r.check("browser: the session cookie is not readable by script",
                "webapp_launch_session" not in (page.js("return document.cookie;") or ""))
        r.check("page: the access token appears nowhere", user["accessToken"] not in driver.page_source)
        r.equal("page: no CSP violation", page.js("return window.__csp;"), [])
        page.screenshot([root / "Docs" / "screenshots" / "gate-walk.png", artifacts / "gate-walk.png"])
        r.check("screenshot written to Docs/screenshots/gate-walk.png",
                (root / "Docs" / "screenshots" / "gate-walk.png").stat().st_size > 1000)

        driver.refresh()
        page.wait_for(arrived, timeout=WAIT)
        r.equal("reload: still served through nginx with the session", page.text("greeting"),
                f"Hallo {user['firstName']} {user['lastName']}")

        access_log = (nginx_dir / "webapp-launch.access.log").read_text(encoding="utf-8")
        (artifacts / "gate-walk-nginx-access.log").write_text(access_log, encoding="utf-8")
        r.check("nginx access log: the walk passed through nginx, and no launch token was logged",
                "GET /page " in access_log and "launch=" not in access_log, access_log[-500:])

        # 8. Session of user A (above), then a launch of user B, through nginx: B's launch goes
        # to the gate before auth_request, so B is served, never A.
        # 8a. Started from the console, B's launch arrives from another origin of the same site
        # (Sec-Fetch-Site: same-site): login CSRF (issue 29) refuses it over A's live session,
        # does not use it up, and A stays signed in.
        other_user = users["erika"]
        driver.get(console_url)
        page.wait_for(lambda d: d.execute_script("return document.readyState") == "complete"
                      and d.execute_script("return !!document.getElementById('launch-form');"))
        driver.find_element(By.ID, "user-erika").click()
        driver.find_element(By.ID, f"open-{APP}").click()
        page.wait_for(lambda d: d.execute_script("return document.readyState") == "complete"
                      and "not valid" in (d.execute_script("return document.body.innerText;") or ""), timeout=WAIT)
        r.check("nginx: B's launch from another origin of the same site over A's session is refused (login CSRF)",
                "launch=" in driver.current_url)
        driver.get(app_url)
        page.wait_for(arrived, timeout=WAIT)
        r.equal("nginx: A's session is kept after the refused launch", page.text("greeting"),
                f"Hallo {user['firstName']} {user['lastName']}")
        # 8b. Opened as the native app opens it (a navigation of its own: Sec-Fetch-Site none),
        # B's launch is exchanged and replaces A's session.
        driver.get(mint(binary, root, registry, other_user))
        page.wait_for(lambda d: arrived(d) and d.execute_script("return document.getElementById('greeting').textContent;")
                      != f"Hallo {user['firstName']} {user['lastName']}", timeout=WAIT)
        r.equal("nginx: with A's session live, B's launch is exchanged: the page greets B",
                page.text("greeting"), f"Hallo {other_user['firstName']} {other_user['lastName']}")
        r.equal("nginx: B's page is at the clean URL", driver.current_url, app_url)
        access_log = (nginx_dir / "webapp-launch.access.log").read_text(encoding="utf-8")
        r.check("nginx access log: still no launch token after B's launch", "launch=" not in access_log, access_log[-500:])

        console_messages = page.collect_console()
        csp = [e for e in console_messages if "Content Security Policy" in e.get("message", "")]
        r.check("browser console: no Content Security Policy errors", not csp, csp)

        # 9. The same walk in the reverse-proxy shape: a second gate proxies to the same upstream;
        # launches minted for it (development keyring), A's first, then B's over A's session.
        proxy_port = free_port()
        proxy_url = f"http://127.0.0.1:{proxy_port}/page"
        reverse = Process("gate (reverse proxy)", [binary, "gate", "--upstream", f"http://127.0.0.1:{upstream_port}",
                                                   "--host", "127.0.0.1", "--port", str(proxy_port), "--app", APP,
                                                   "--public-url", proxy_url, "--keyring", str(keyring), "--replay", "memory"],
                          artifacts / "gate-walk-reverse-proxy.log", root)
        processes.append(reverse)
        reverse.wait_until(lambda: accepts(proxy_port))
        proxy_registry = tmp / "registry-reverse-proxy.json"
        proxied = json.loads(registry.read_text(encoding="utf-8"))
        for entry in proxied["apps"]:
            if entry["id"] == APP:
                entry["url"] = proxy_url
        proxy_registry.write_text(json.dumps(proxied, ensure_ascii=False, indent=2), encoding="utf-8")
        driver.delete_all_cookies()
        proxy_page = Page(driver, proxy_url, opener)

        def arrived_at_proxy(d) -> bool:
            try:
                return (d.current_url == proxy_url and d.execute_script("return document.readyState") == "complete"
                        and d.execute_script("return !!document.getElementById('greeting');"))
            except WebDriverException:
                return False

        driver.get(mint(binary, root, proxy_registry, user))
        proxy_page.wait_for(arrived_at_proxy, timeout=WAIT)
        r.equal("reverse proxy: A's launch -> the page greets A", proxy_page.text("greeting"),
                f"Hallo {user['firstName']} {user['lastName']}")
        driver.get(mint(binary, root, proxy_registry, other_user))
        proxy_page.wait_for(lambda d: arrived_at_proxy(d) and d.execute_script(
            "return document.getElementById('greeting').textContent;") != f"Hallo {user['firstName']} {user['lastName']}", timeout=WAIT)
        r.equal("reverse proxy: with A's session live, B's launch is exchanged: the page greets B",
                proxy_page.text("greeting"), f"Hallo {other_user['firstName']} {other_user['lastName']}")
        r.equal("reverse proxy: the app never receives a session cookie", proxy_page.text("cookies"), "(none)")
    finally:
        if driver is not None:
            try:
                driver.quit()
            except Exception:
                pass
        for process in reversed(processes):
            process.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.environ.get("WEBAPP_LAUNCH_BIN", ".build/debug/webapp-launch"))
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[2]))
    args = parser.parse_args()
    root = Path(args.root).resolve()
    binary = str((root / args.bin) if not os.path.isabs(args.bin) else Path(args.bin))
    artifacts = root / "artifacts"
    artifacts.mkdir(parents=True, exist_ok=True)

    started = time.monotonic()
    r = Results()
    print(f"gate walk: {binary}: console -> launch -> nginx -> gate -> Python upstream")
    with tempfile.TemporaryDirectory(prefix="webapp-launch-gate-walk-") as tmp:
        try:
            walk(r, root, binary, Path(tmp), artifacts)
        except Exception as error:
            r.check("gate walk ran to the end", False, f"{type(error).__name__}: {error}")
            traceback.print_exc()
    print(f"took {time.monotonic() - started:.1f} s; artifacts in {artifacts}")
    if r.failures:
        print("failures:")
        for failure in r.failures:
            print(f"  - {failure}")
    print(f"{r.passed} passed, {r.failed} failed")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
