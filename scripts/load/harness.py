#!/usr/bin/env python3
"""The load and fault tests' shared pieces (standard library only), imported by
scripts/load-test and scripts/fault-test: the release binary (`release_binary`), the server
under test on loopback (`LoopbackServer`: start, mint, RSS, logs, log hygiene), the mixed
traffic (`MixedLoad`), and the JSON report and verdict. The benchmark reports are
loadtool.py's.
"""
import base64, http.client, json, os, random, re, shutil, signal, socket, string, subprocess, tempfile, threading, time
from collections import Counter

from loadtool import b64url

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPORTS = os.path.join(ROOT, ".build-load")
B64 = string.ascii_letters + string.digits + "-_"
FORM_TYPE = "application/x-www-form-urlencoded"
FORM = {"Content-Type": FORM_TYPE}


def log(*args):
    print("[%s]" % time.strftime("%H:%M:%S"), *args, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def release_binary():
    """$WEBAPP_LAUNCH_BIN, or the release `webapp-launch` of the Benchmarks package, built now:
    the binary scripts/bench and scripts/bench-gate measure, so one release build serves all."""
    if os.environ.get("WEBAPP_LAUNCH_BIN"):
        return os.environ["WEBAPP_LAUNCH_BIN"]
    build = ["swift", "build", "-c", "release", "--package-path", os.path.join(ROOT, "Benchmarks")]
    log("building: " + " ".join(build) + " --product webapp-launch")
    subprocess.run(build + ["--product", "webapp-launch"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    bin_path = subprocess.run(build + ["--show-bin-path"], cwd=ROOT, check=True, capture_output=True, text=True)
    return os.path.join(bin_path.stdout.strip(), "webapp-launch")


def exit_on_signals():
    """SIGINT and SIGTERM end the script through SystemExit, so every `with` block cleans up."""
    def stop(signum, _frame):
        raise SystemExit(130)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def read_status(sock):
    """The status code of the answer arriving on `sock`, or 'closed', 'bad_response'."""
    buf = b""
    while b"\r\n" not in buf:
        chunk = sock.recv(4096)
        if not chunk:
            return "closed"
        buf += chunk
    m = re.match(rb"HTTP/1\.[01] (\d{3})", buf)
    return int(m.group(1)) if m else "bad_response"


def raw_request(port, data, timeout=10):
    """Sends raw bytes on a new connection; returns the status code, or 'closed', 'timeout',
    'reset', 'bad_response'."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            try:
                s.sendall(data)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return read_status(s)
        except socket.timeout:
            return "timeout"
        except ConnectionResetError:
            return "reset"


def post(path, content_type, length, body=b"", extra=""):
    """A POST request's bytes (`path` as bytes); `length` None sends no Content-Length."""
    return b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\n%s%s\r\n%s" % (
        path, content_type.encode(), b"Content-Length: %d\r\n" % length if length is not None else b"", extra.encode(), body)


class LoopbackServer:
    """`webapp-launch serve` on a free loopback port, in a temporary directory: the development
    keyring, keys/registry.sample.json rebased to the port, `--skew 5`, `--log-level trace`
    (every log line, kept for the hygiene check). Also mints the run's launches, and forged
    ones: the active development kid with another secret. A `with` block stops and removes it."""
    APP, PATH = "healthmagazin", "/apps/healthmagazin"

    def __init__(self, binary, name, replay="memory"):
        self.binary, self.name, self.proc = binary, name, None
        self.dir = tempfile.mkdtemp(prefix="webapp-load-")
        self.port, self.metrics_port = free_port(), free_port()
        self.registry = os.path.join(self.dir, "registry.json")
        with open(os.path.join(ROOT, "keys", "registry.sample.json")) as f, open(self.registry, "w") as out:
            out.write(f.read().replace("8080", str(self.port)))
        self.keyring = os.path.join(ROOT, "keys", "dev.keyring.json")
        with open(self.keyring) as f:
            kid = [k for k in json.load(f)["keys"] if k["status"] == "active"][-1]["kid"]
        self.forger_keyring = os.path.join(self.dir, "forger.keyring.json")
        with open(os.open(self.forger_keyring, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            json.dump({"development": True, "keys": [{"kid": kid, "status": "active", "secret": b64url(os.urandom(32))}]}, f)
        self.log_path = os.path.join(self.dir, name + ".log")
        self.args = [binary, "serve", "--port", str(self.port), "--registry", self.registry, "--keyring", self.keyring,
                     "--replay", replay, "--skew", "5", "--log-level", "trace",
                     "--metrics-address", "127.0.0.1:%d" % self.metrics_port]

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop(signal.SIGKILL)
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self, timeout=30):
        with open(self.log_path, "ab") as out:
            self.proc = subprocess.Popen(self.args, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited with %s: %s" % (self.proc.returncode, self.logs()[-2000:]))
            try:
                if raw_request(self.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", timeout=2) == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError("server did not become ready")

    def stop(self, sig=signal.SIGTERM, timeout=30):
        """Sends `sig` and returns the exit code (None if never started)."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc and self.proc.returncode
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return "killed after timeout"

    def rss_kib(self):
        try:
            with open("/proc/%d/status" % self.proc.pid) as f:
                return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            return None

    def logs(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def metric(self, prefix):
        """The last line of /metrics starting with `prefix`, or None."""
        _, _, body = Client(self.metrics_port).request("GET", "/metrics", close=True)
        lines = [line for line in body.decode(errors="replace").splitlines() if line.startswith(prefix)]
        return lines[-1] if lines else None

    def mint(self, count, lifetime=20, forged=False):
        """`count` launches, each for its own user (`mint --distinct-users`), as dicts with the url,
        token and claims, so that the hygiene check can look for every value of the run."""
        tag = "F" if forged else "L"
        out = subprocess.run([self.binary, "mint", "--app", self.APP, "--registry", self.registry,
                              "--keyring", self.forger_keyring if forged else self.keyring,
                              "--access-token", "env:LOAD_MINT_TOKEN", "--firstname", "Vorname" + tag,
                              "--lastname", "Nachname" + tag, "--kvnumber", "A123456780", "--ttl", str(lifetime),
                              "--count", str(count), "--distinct-users", "--output", "json"],
                             cwd=ROOT, check=True, capture_output=True, text=True,
                             env={**os.environ, "LOAD_MINT_TOKEN": "at." + tag}).stdout
        return [json.loads(line) for line in out.splitlines() if line.strip()]

    def hygiene_failures(self, launches, cookies=()):
        """Keeps the server's log in .build-load/logs/ and checks it (`hygiene`)."""
        os.makedirs(os.path.join(REPORTS, "logs"), exist_ok=True)
        shutil.copy(self.log_path, os.path.join(REPORTS, "logs", self.name + ".log"))
        return ["LOG HYGIENE: " + p for p in hygiene(self.logs(), launches, cookies)]


def hygiene(logs, launches, cookies, window=16, step=24):
    """Any access token, name, KVNR, launch token, MAC or cookie value of the run that appears
    in the logs, as a list of problems. Names, access tokens and KVNRs are matched exactly (and
    names and access tokens as fragments); long values through `window`-character pieces every
    `step` characters, so a leaked substring of about 40 characters or more is caught."""
    exact, windows = {}, {}

    def secret_parts(token):
        """The random parts of a token's text: its nonce, and the body on (sealed claims, MAC).
        The rest of the header (version, kid, times, app, audience) is shared and no secret."""
        try:
            blob = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
            k = blob[2]
            a = blob[35 + k]
            d = int.from_bytes(blob[36 + k + a:38 + k + a], "big")
            nonce = (19 + k) * 4 // 3 + 1, (35 + k) * 4 // 3
            body = (42 + k + a + d) * 4 // 3 + 1
            if body >= len(token) or nonce[1] - nonce[0] < window:
                raise ValueError
            return [token[nonce[0]:nonce[1]], token[body:]]
        except (ValueError, IndexError):
            return []

    def add(value, what):
        if len(value) < window:
            if len(value) >= 10:
                exact[value] = what
            return
        for i in list(range(0, len(value) - window + 1, step)) + [len(value) - window]:
            windows[value[i:i + window]] = what

    for item in launches:
        exact.update({item["access_token"]: "access token", item["firstname"]: "first name",
                      item["lastname"]: "last name", item["kvnumber"]: "KVNR"})
        for part in secret_parts(item["token"]):
            add(part, "launch token")
        mac = base64.urlsafe_b64decode(item["token"] + "=" * (-len(item["token"]) % 4))[-32:]
        add(b64url(mac), "MAC (base64url)")
        add(mac.hex(), "MAC (hex)")
    for c in cookies:
        add(c, "cookie value")
    found = Counter()
    for m in re.finditer(r"[A-Za-z0-9._-]+", logs):
        word = m.group(0)
        if word in exact:
            found[exact[word]] += 1
        elif len(word) >= window:
            what = next((windows[word[i:i + window]] for i in range(len(word) - window + 1)
                         if word[i:i + window] in windows), None)
            if what:
                found[what] += 1
        if "Vorname" in word or "Nachname" in word or word.startswith(("at.L", "at.F")):
            found["name or access token fragment"] += 1
    return ["%d occurrence(s) of a %s in the logs" % (n, what) for what, n in found.items()]


def rss_flat(samples, warmup):
    """samples: [(t, KiB)]. Flat: the largest RSS of the last third <= 1.25 x the RSS at the end
    of warm-up + 8 MiB. Returns (flat, RSS after warm-up, largest of the last third)."""
    after = [(t, r) for t, r in samples if t >= warmup and r]
    if len(after) < 3:
        return True, None, None
    base, tail = after[0][1], [r for _, r in after[len(after) * 2 // 3:]]
    return max(tail) <= base * 1.25 + 8 * 1024, base, max(tail)


def status_counts(statuses):
    return dict(sorted(Counter(str(s) for s in statuses).items()))


def write_report(name, data):
    os.makedirs(REPORTS, exist_ok=True)
    with open(os.path.join(REPORTS, name), "w") as f:
        json.dump(data, f, indent=1)


def verdict(failures):
    """Logs each part's failures, or OK; returns the exit status (1 if any part failed)."""
    for part, found in failures.items():
        log("%-10s %s" % (part, "FAILED: " + "; ".join(map(str, found)) if found else "OK: all expectations met"))
    return 1 if any(failures.values()) else 0


class Client:
    """One keep-alive HTTP connection to loopback; reconnects when the server closed it."""

    def __init__(self, port, timeout=10):
        self.port, self.timeout, self.conn = port, timeout, None

    def request(self, method, target, body=None, headers=None, close=False):
        """Returns (status or 'closed'/'refused'/'timeout', Set-Cookie, body)."""
        for _ in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            try:
                self.conn.request(method, target, body=body, headers=headers or {})
                r = self.conn.getresponse()
                answer = r.status, r.getheader("Set-Cookie"), r.read()
                if close or r.getheader("Connection", "").lower() == "close":
                    self.close()
                return answer
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError,
                    http.client.CannotSendRequest, http.client.ResponseNotReady):
                self.close()
            except ConnectionRefusedError:
                self.close()
                return "refused", None, b""
            except socket.timeout:
                self.close()
                return "timeout", None, b""
        return "closed", None, b""

    def close(self):
        if self.conn is not None:
            self.conn.close()
        self.conn = None


def tampered(token, rng):
    """The token with one character changed, the end cut, characters appended, or two swapped."""
    i, j = rng.randrange(len(token)), rng.randrange(len(token) - 8)
    swapped = token[:j] + token[j + 5] + token[j + 1:j + 5] + token[j] + token[j + 6:]
    return rng.choice([
        token[:i] + rng.choice(B64.replace(token[i], "")) + token[i + 1:],
        token[:rng.randrange(1, len(token) - 1)],
        token + rng.choice(B64) * rng.randrange(1, 5),
        swapped if swapped != token else token[:-1],
    ])


# Raw requests no server should answer with anything but 4xx or a closed connection.
GARBAGE = [
    lambda rng, path: "".join(chr(rng.randrange(256)) for _ in range(rng.randrange(1, 300))),
    lambda rng, path: "GET %s?%s HTTP/1.1\r\nHost: x\r\n\r\n" % (
        path, "".join(rng.choice("%&=?#/\\.;:+ \t\x00\x7f" + B64) for _ in range(rng.randrange(1, 80)))),
    lambda rng, path: "BREW %s HTTP/1.1\r\nHost: x\r\n\r\n" % path,
    lambda rng, path: "GET %s?launch=%s&launch=x HTTP/1.1\r\nHost: x\r\n\r\n" % (
        path, "".join(rng.choice(B64) for _ in range(rng.randrange(1, 600)))),
    lambda rng, path: "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                      "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" % path,
    lambda rng, path: "GET /%setc/passwd HTTP/1.1\r\nHost: x\r\n\r\n" % ("../" * rng.randrange(1, 40)),
    lambda rng, path: "GET %s?launch=%%41%%41%%41 HTTP/1.1\r\nHost: x\r\nCookie: webapp_launch_session=%s\r\n\r\n" % (
        path, "".join(rng.choice(B64) for _ in range(rng.randrange(1, 400)))),
    lambda rng, path: "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                      "Content-Length: 30\r\n\r\nlaunch=\xff\xfe\x00%s" % (path, "x" * 20),
]


class MixedLoad:
    """`workers` threads sending a weighted mix of traffic kinds (`mix`: kind -> weight) to a
    LoopbackServer for `seconds`, recording (t, kind, status) for every request. Fresh launches
    come from rolling batches (lifetime `lifetime` s) and each is used once; one answered 503 is
    sent again later. A kind with nothing to send yet (no cookie, no accepted launch) sends
    /healthz instead."""

    MIX = {"valid_get": 22, "valid_post": 10, "page": 6, "replay": 12, "tampered": 12, "forged": 6,
           "oversize_token": 4, "oversize_form": 3, "oversize_head": 2, "garbage": 15, "health": 8}
    NEVER_ACCEPTED = ("replay", "tampered", "forged")

    BATCH_INTERVAL = 4.0  # seconds between minting batches

    def __init__(self, server, seconds, workers=8, mix=None, lifetime=20):
        self.server, self.seconds, self.workers, self.lifetime = server, seconds, workers, lifetime
        self.mix = mix or self.MIX
        self.lock, self.stop_event = threading.Lock(), threading.Event()
        self.fresh, self.forged, self.retry = [], [], []  # launches not sent yet; forged; answered 503
        self.accepted, self.accepted_set, self.accepted_twice = [], set(), 0  # tokens answered 303
        self.got_503, self.retried_ok = set(), 0          # answered 503; of those, accepted later
        self.cookies, self.secrets = [], []               # session cookies; every launch minted
        self.timeline, self.errors = [], []               # (t, kind, status); the harness's own
        self.rate_estimate, self.t0 = 300.0, None

    def usable(self, launch, margin=6):
        return time.time() - launch["minted_at"] < self.lifetime - margin

    def refill(self, count):
        batch, forged = self.server.mint(count, self.lifetime), self.server.mint(max(4, count // 8), self.lifetime, forged=True)
        for item in batch + forged:
            item["minted_at"] = time.time()
        with self.lock:
            self.fresh = [x for x in self.fresh if self.usable(x)] + batch
            self.forged = self.forged[-200:] + forged
            self.secrets += batch + forged

    def minter(self):
        while not self.stop_event.wait(self.BATCH_INTERVAL):
            with self.lock:
                self.fresh = [x for x in self.fresh if self.usable(x)]
                need = int(self.rate_estimate * 0.4 * (self.BATCH_INTERVAL + 2)) - len(self.fresh)
            if need > 0:
                try:
                    self.refill(min(max(need, 50), 20000))
                except Exception as e:  # noqa: BLE001 - a failure of the run
                    self.errors.append("minting failed: %r" % e)

    def take_fresh(self, rng):
        with self.lock:
            self.retry = [x for x in self.retry if self.usable(x)]
            if self.retry and rng.random() < 0.5:
                return self.retry.pop()
            if self.fresh and self.usable(self.fresh[-1], margin=4):
                return self.fresh.pop()
            self.fresh = []  # the newest is stale, so all are (minted in order)
            return None

    def launch(self, client, token, as_form):
        if as_form:
            return client.request("POST", self.server.PATH, body="launch=" + token, headers=FORM)
        return client.request("GET", self.server.PATH + "?launch=" + token)

    def send_valid(self, client, rng, as_form):
        launch = self.take_fresh(rng)
        if launch is None:
            return None
        status, set_cookie, _ = self.launch(client, launch["token"], as_form)
        with self.lock:
            if status == 303:
                self.retried_ok += launch["token"] in self.got_503
                self.accepted_twice += launch["token"] in self.accepted_set
                self.accepted_set.add(launch["token"])
                self.accepted.append(launch["token"])
                m = re.match(r"\s*webapp_launch_session=([^;]*)", set_cookie or "")
                if m:
                    self.cookies.append(m.group(1))
            elif status == 503:
                self.retry.append(launch)
                self.got_503.add(launch["token"])
        return status

    def send_tampered(self, client, rng):
        launch = self.take_fresh(rng)
        if launch is None:
            return None
        with self.lock:
            self.fresh.insert(0, launch)  # the original stays usable
        return self.launch(client, tampered(launch["token"], rng), False)[0]

    def send(self, kind, client, rng):
        """One request of `kind`; its status, or None when there is nothing to send yet."""
        path, port = self.server.PATH, self.server.port
        with self.lock:
            cookie = rng.choice(self.cookies) if self.cookies else None
            replay = rng.choice(self.accepted) if self.accepted else None
            forged = self.forged.pop() if kind == "forged" and self.forged else None
        send = {
            "valid_get": lambda: self.send_valid(client, rng, False),
            "valid_post": lambda: self.send_valid(client, rng, True),
            "page": lambda: cookie and client.request("GET", path, headers={"Cookie": "webapp_launch_session=" + cookie})[0],
            "replay": lambda: replay and self.launch(client, replay, rng.random() < 0.5)[0],
            "tampered": lambda: self.send_tampered(client, rng),
            "forged": lambda: forged and self.launch(client, forged["token"], False)[0],
            "oversize_token": lambda: client.request("GET", path + "?launch=" + "A" * 20000)[0],
            "oversize_form": lambda: client.request("POST", path, "launch=" + "A" * 40 * 1024, FORM, close=True)[0],
            "oversize_head": lambda: raw_request(port, ("GET %s HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n"
                                                        % (path, "a" * 100 * 1024)).encode()),
            "garbage": lambda: raw_request(port, rng.choice(GARBAGE)(rng, path).encode("latin-1")),
            "health": lambda: client.request("GET", "/healthz")[0],
        }
        return send[kind]()

    def worker(self, seed):
        rng, client = random.Random(seed), Client(self.server.port)
        kinds, weights = list(self.mix), list(self.mix.values())
        while not self.stop_event.is_set() and time.time() - self.t0 < self.seconds:
            kind = rng.choices(kinds, weights)[0]
            try:
                status = self.send(kind, client, rng)
                if status is None:
                    kind, status = "health", self.send("health", client, rng)
            except Exception as e:  # noqa: BLE001 - recorded as the request's outcome
                status = "client_error:" + type(e).__name__
                client.close()
            with self.lock:
                self.timeline.append((time.time() - self.t0, kind, status))
        client.close()

    def run(self, on_tick=None, tick=2.0):
        """Runs the load; calls on_tick(seconds since start) every `tick` seconds."""
        self.refill(1500)
        self.t0 = time.time()
        threading.Thread(target=self.minter, daemon=True).start()
        threads = [threading.Thread(target=self.worker, args=(i,), daemon=True) for i in range(self.workers)]
        for t in threads:
            t.start()
        last, next_tick = 0, self.t0
        while any(t.is_alive() for t in threads):
            next_tick += tick
            time.sleep(max(0.0, next_tick - time.time()))
            total = len(self.timeline)
            self.rate_estimate, last = max(50.0, (total - last) / tick), total
            if on_tick:
                on_tick(time.time() - self.t0)
        self.stop_event.set()

    def statuses(self, *kinds):
        return [s for _, k, s in self.timeline if not kinds or k in kinds]

    def by_kind(self):
        return {kind: status_counts(self.statuses(kind)) for kind in sorted(self.mix)}

    def failures(self, allowed_5xx=()):
        """What no run may show: a 5xx (but those allowed), a replayed, tampered or forged launch
        accepted, a launch accepted twice, a harness error."""
        found = list(self.errors)
        five = [s for s in self.statuses() if isinstance(s, int) and s >= 500 and s not in allowed_5xx]
        if five:
            found.append("%d responses were 5xx%s: %s" % (len(five), " other than %s" % (allowed_5xx,) if allowed_5xx else "", status_counts(five)))
        for kind in self.NEVER_ACCEPTED:
            accepted = [s for s in self.statuses(kind) if s in (200, 303)]
            if accepted:
                found.append("%d %s launches accepted" % (len(accepted), kind))
        if self.accepted_twice:
            found.append("%d launches accepted twice" % self.accepted_twice)
        return found
