#!/usr/bin/env python3
"""The load harness's shared pieces (standard library only).

As a command, for scripts/bench and scripts/bench-gate:
  loadtool.py nginx-links --count N --path /apps/healthmagazin --length L --secret S > links.txt
  loadtool.py nginx-conf --template T --prefix DIR --port P --path /apps/... --secret S --response FILE > nginx.conf
  loadtool.py report --micro DIR --replay FILE --load FILE --machine FILE --markdown OUT [--update BENCHMARKS.md]
  loadtool.py gate-report --load FILE --machine FILE --markdown OUT [--update BENCHMARKS.md]

As a module, for scripts/load-test and scripts/fault-test: the release binary
(`release_binary`), the server under test on loopback (`LoopbackServer`: start, mint, RSS,
logs, log hygiene), the mixed traffic (`MixedLoad`), and the JSON report and verdict.
"""
import argparse, base64, glob, hashlib, http.client, json, os, random, re, shutil, signal, socket, \
    statistics, string, subprocess, sys, tempfile, threading, time
from collections import Counter


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def nginx_links(a):
    """One secure_link URL per line, each with a distinct random `launch` payload of the
    same text length as our launch token, so both servers parse and hash the same bulk."""
    expires = int(time.time()) + 300
    raw = (a.length * 3) // 4
    out = sys.stdout
    for _ in range(a.count):
        payload = b64url(os.urandom(raw))[: a.length]
        digest = b64url(hashlib.md5(f"{expires}{a.path}{payload} {a.secret}".encode()).digest())
        out.write(f"{a.path}?launch={payload}&md5={digest}&expires={expires}\n")


def nginx_conf(a):
    """Fills the template; the response headers are copied from our server's 303 (captured
    with curl), the cookie value replaced by one of the same length."""
    headers, location = [], "/"
    for line in open(a.response, encoding="latin-1").read().splitlines()[1:]:
        if ":" not in line:
            continue
        name, value = line.split(":", 1)
        name, value = name.strip(), value.strip()
        lower = name.lower()
        if lower == "location":
            location = value
        elif lower == "set-cookie":
            cookie_name, rest = value.split("=", 1)
            cookie_value, _, attributes = rest.partition(";")
            value = f"{cookie_name}={'x' * len(cookie_value)};{attributes}"
            headers.append((name, value))
        elif lower in ("cache-control", "referrer-policy", "x-content-type-options", "content-security-policy"):
            headers.append((name, value))
    lines = "\n".join(f'            add_header {n} "{v.replace(chr(34), chr(92) + chr(34))}" always;' for n, v in headers)
    text = open(a.template).read()
    for key, value in {"@PREFIX@": a.prefix, "@PORT@": str(a.port), "@PATH@": a.path, "@SECRET@": a.secret,
                       "@HEADERS@": lines, "@LOCATION@": location}.items():
        text = text.replace(key, value)
    sys.stdout.write(text)


# Must match `operationsPerSample` in Benchmarks/Benchmarks/LaunchBenchmarks/LaunchBenchmarks.swift.
OPERATIONS_PER_SAMPLE = 64


def percentile_file(micro, name, metric):
    pattern = os.path.join(micro, f"*.{name}.{metric}.histogram.percentiles.tsv")
    files = glob.glob(pattern)
    if not files:
        raise SystemExit(f"no benchmark result {pattern}")
    rows = {}
    unit = ""
    for line in open(files[0]):
        parts = line.rstrip("\n").split("\t")
        if parts[0] == "Percentile":
            unit = parts[1]
            continue
        rows[int(parts[0])] = float(parts[1])
    return rows, unit


def invalid_reason(entry):
    """Why a load row cannot be used, or None. A server that ran out of pre-minted links was
    capped by its input, not by itself; an error or a non-2xx/3xx answer to a valid link means
    the row measured something other than successful launches."""
    if entry is None:
        return "not run"
    reasons = []
    if entry["exhausted_threads"]:
        reasons.append(f"ran out of links in {entry['exhausted_threads']} wrk thread(s)")
    if entry["non_2xx_3xx"]:
        reasons.append(f"{entry['non_2xx_3xx']} non-2xx/3xx answers")
    sockets = entry["connect_errors"] + entry["read_errors"] + entry["write_errors"] + entry["timeouts"]
    if sockets:
        reasons.append(f"{sockets} socket errors")
    if entry["requests"] == 0:
        reasons.append("no requests")
    return "; ".join(reasons) or None


SOCKET_ERRORS = ("connect_errors", "read_errors", "write_errors", "timeouts")
SUMMED = ("requests", "bytes", "non_2xx_3xx", "exhausted_threads", "lines", "lines_used") + SOCKET_ERRORS


def cpu_per_request(entry):
    """The server's CPU time (user + system, every thread of its processes, from /proc) per
    completed request over the measured run, in microseconds; None when not recorded."""
    if entry.get("cpu_us") is None or not entry.get("requests"):
        return None
    return entry["cpu_us"] / entry["requests"]


def cpu_cell(value):
    return "?" if value is None else f"{value:.1f}"


def combined(trials):
    """One server's trials as one row: the median of each rate and percentile (each taken on
    its own), the worst maximum, and the sums of counts and errors, so an invalid trial makes
    the row invalid."""
    row = {key: statistics.median(t[key] for t in trials) for key in ("rps", "p50_ms", "p99_ms", "p999_ms")}
    cpu = [c for c in (cpu_per_request(t) for t in trials) if c is not None]
    row["cpu_us_per_request"] = statistics.median(cpu) if len(cpu) == len(trials) else None
    row["max_ms"] = max(t["max_ms"] for t in trials)
    row.update((key, sum(t.get(key, 0) for t in trials)) for key in SUMMED)
    row["trials"] = trials
    return row


def per_round(numerator, denominator):
    """The ratio of two servers' rates in each round both ran, in round order."""
    rates = {t.get("round", 1): t["rps"] for t in denominator["trials"]}
    return [t["rps"] / rates[t.get("round", 1)] for t in numerator["trials"] if rates.get(t.get("round", 1))]


def read_trials(path):
    """The JSON lines of a load file (one a trial), by label."""
    trials = {}
    for line in open(path):
        if line.strip().startswith("{"):
            entry = json.loads(line)
            trials.setdefault(entry["label"], []).append(entry)
    return trials


def listed(values, form):
    return ", ".join(form(v) for v in values)


def report(a):
    """Prints (and writes) the table. Returns the number of invalid rows: a target that rests
    on an invalid row reads INVALID, never met or missed."""
    have_micro = bool(glob.glob(os.path.join(a.micro, "*.wallClock.histogram.percentiles.tsv")))
    micro = {}
    allocs = {}
    if have_micro:
        for name in ["floor.hmac.signed", "floor.hmac.sealed", "verify.signed", "verify.sealed", "mint.signed",
                     "mint.sealed", "jwtkit.hs256.sign", "jwtkit.hs256.verify"]:
            rows, unit = percentile_file(a.micro, name, "wallClock")
            if "(ns)" not in unit:
                raise SystemExit(f"{name}: unexpected unit {unit!r}")
            micro[name] = rows[50] / OPERATIONS_PER_SAMPLE
        for name in ["allocs.verify.signed", "allocs.verify.sealed", "allocs.mint.signed", "allocs.mint.sealed",
                     "allocs.jwtkit.hs256.verify", "allocs.jwtkit.hs256.sign"]:
            rows, _ = percentile_file(a.micro, name, "mallocCountTotal")
            allocs[name] = rows[50]
    replay = json.load(open(a.replay))
    trials = read_trials(a.load)
    load = {label: combined(entries) for label, entries in trials.items()}
    machine = json.load(open(a.machine))
    invalid = 0

    def ok(flag):
        return "**met**" if flag else "**MISSED**"

    def judged(flag, *entries):
        nonlocal invalid
        reasons = [r for r in (invalid_reason(e) for e in entries) if r]
        if reasons:
            invalid += 1
            return f"**INVALID** ({'; '.join(reasons)})"
        return ok(flag)

    w = ReportLines()
    w(f"Run: {machine['date']} on {machine['cpu']} ({machine['cores']} cores, {machine['memory']}), "
      f"{machine['kernel']}; {machine['swift']}; {machine['openssl']}; {machine['nginx']}; {machine['wrk']}. "
      f"Load average before / after: {machine['load_before']} / {machine['load_after']}.")
    w("")
    if have_micro:
        m = micro
        r_sig = m["verify.signed"] / m["floor.hmac.signed"]
        r_sea = m["verify.sealed"] / m["floor.hmac.sealed"]
        j_ver_sig = m["jwtkit.hs256.verify"] / m["verify.signed"]
        j_ver_sea = m["jwtkit.hs256.verify"] / m["verify.sealed"]
        j_sig_sig = m["jwtkit.hs256.sign"] / m["mint.signed"]
        j_sig_sea = m["jwtkit.hs256.sign"] / m["mint.sealed"]
        w("| Micro-benchmark (one process; median sample of 64 operations, per operation) | ns/op | mallocs | Ratio | Target | Result |")
        w("|---|---:|---:|---:|---|---|")
        w(f"| raw OpenSSL HMAC-SHA256 (the floor: reused keyed ctx), signed / sealed token's MAC input "
          f"({machine.get('mac_input_signed', '?')} / {machine.get('mac_input_sealed', '?')} B) | "
          f"{m['floor.hmac.signed']:.0f} / {m['floor.hmac.sealed']:.0f} | | 1.00 | | |")
        w(f"| `verify` signed | {m['verify.signed']:.0f} | {allocs['allocs.verify.signed']:.0f} | {r_sig:.2f} x floor | ≤ 2.0 x | {ok(r_sig <= 2.0)} |")
        w(f"| `verify` sealed | {m['verify.sealed']:.0f} | {allocs['allocs.verify.sealed']:.0f} | {r_sea:.2f} x floor | ≤ 3.0 x | {ok(r_sea <= 3.0)} |")
        w(f"| jwt-kit 5.8.0 HS256 verify | {m['jwtkit.hs256.verify']:.0f} | {allocs['allocs.jwtkit.hs256.verify']:.0f} | "
          f"{j_ver_sig:.2f} x our signed verify, {j_ver_sea:.2f} x sealed | ≥ 5 x | {ok(min(j_ver_sig, j_ver_sea) >= 5)} |")
        w(f"| `mint` signed / sealed | {m['mint.signed']:.0f} / {m['mint.sealed']:.0f} | "
          f"{allocs['allocs.mint.signed']:.0f} / {allocs['allocs.mint.sealed']:.0f} | | | |")
        w(f"| jwt-kit 5.8.0 HS256 sign | {m['jwtkit.hs256.sign']:.0f} | {allocs['allocs.jwtkit.hs256.sign']:.0f} | "
          f"{j_sig_sig:.2f} x our signed mint, {j_sig_sea:.2f} x sealed | ≥ 3 x | {ok(min(j_sig_sig, j_sig_sea) >= 3)} |")
        if replay["count"]:
            bytes_per_nonce = replay["rss_bytes_per_nonce"]
            w(f"| InMemoryReplayStore, bytes per live nonce (RSS growth over {replay['count']:,}) | {bytes_per_nonce:.1f} | | | ≤ 150 | {ok(bytes_per_nonce <= 150)} |")
        w("")
    if load:
        rounds = max(len(entries) for entries in trials.values())
        servers = [("webapp-launch", "`webapp-launch serve` (release; verify + replay claim + 303 + session cookie)"),
                   ("webapp-launch-postgres", "`webapp-launch serve --replay postgres://…` (same, shared PostgreSQL store on loopback)"),
                   ("nginx", "nginx secure_link (MD5 + expiry, 1 worker; 303 + same headers)")]
        w.detail(f"Each server ran once in each of {rounds} round(s), started afresh every time; a row gives the "
               "median of its trials' rates and of each percentile, the largest maximum, and the sums of counts.")
        w.detail("")
        w(f"| Load: {machine.get('load_shape', '')}; medians of {rounds} rounds | Requests/s | p50 ms | p99 ms | p99.9 ms | max ms | CPU µs/request | non-2xx/3xx | socket errors | bytes/response | links used / minted | Valid |")
        w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for label, title in servers:
            e = load.get(label)
            if not e:
                w(f"| {title} | (not run) | | | | | | | | | | |")
                continue
            sock = sum(e[key] for key in SOCKET_ERRORS)
            reason = invalid_reason(e)
            if reason:
                invalid += 1
            links = f"{e['lines_used']:,} / {e.get('lines', 0):,}"
            w(f"| {title} | {e['rps']:.0f} | {e['p50_ms']:.2f} | {e['p99_ms']:.2f} | {e['p999_ms']:.2f} | {e['max_ms']:.2f} | {cpu_cell(e['cpu_us_per_request'])} | {e['non_2xx_3xx']} | {sock} | "
              f"{e['bytes'] / max(e['requests'], 1):.0f} | {links} | {'**INVALID** (' + reason + ')' if reason else 'yes'} |")
        w("")
        w.detail("CPU µs/request: the server's user + system time over every thread of its processes (nginx: master and worker), "
               "read from /proc just before and after the measured run, divided by the requests wrk completed; the row gives the median of the trials.")
        w.detail("")
        w.detail("Every trial (core migrations: the scheduler's moves of the server's threads between the cores during the trial):")
        w.detail("")
        w.detail("| Round | Server | Requests/s | p50 ms | p99 ms | p99.9 ms | max ms | CPU µs/request | core migrations | links used / minted | Valid |")
        w.detail("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        order = {label: index for index, (label, _) in enumerate(servers)}
        for entry in sorted((t for entries in trials.values() for t in entries),
                            key=lambda t: (t.get("round", 1), order.get(t["label"], len(order)))):
            reason = invalid_reason(entry)
            w.detail(f"| {entry.get('round', 1)} | {entry['label']} | {entry['rps']:.0f} | {entry['p50_ms']:.2f} | {entry['p99_ms']:.2f} | "
                   f"{entry['p999_ms']:.2f} | {entry['max_ms']:.2f} | {cpu_cell(cpu_per_request(entry))} | {entry.get('migrations', '?')} | {entry['lines_used']:,} / {entry.get('lines', 0):,} | "
                   f"{'**INVALID** (' + reason + ')' if reason else 'yes'} |")
        w.detail("")
        ours, ref, postgres = load.get("webapp-launch"), load.get("nginx"), load.get("webapp-launch-postgres")

        w("| Server target (medians of the trials) | Value | Target | Result |")
        w("|---|---:|---|---|")
        if ours and ref:
            share = ours["rps"] / ref["rps"]
            w(f"| throughput vs nginx secure_link | {share * 100:.0f} % (by round: {listed(per_round(ours, ref), lambda r: f'{r * 100:.0f} %')}) | ≥ 60 % | {judged(share >= 0.6, ours, ref)} |")
        if ours:
            w(f"| p99 latency at {machine.get('connections', 32)} connections | {ours['p99_ms']:.2f} ms (trials: {listed((t['p99_ms'] for t in ours['trials']), lambda v: f'{v:.2f}')}) | < 5 ms | {judged(ours['p99_ms'] < 5, ours)} |")
        if ours:
            cpu = ours["cpu_us_per_request"]
            trials_cpu = listed((cpu_per_request(t) for t in ours["trials"]), cpu_cell)
            if cpu is None:
                w(f"| server CPU per launch (/proc, measured runs) | ? (trials: {trials_cpu}) | ≤ 40 µs | **INVALID** (CPU time not recorded) |")
                invalid += 1
            else:
                w(f"| server CPU per launch (/proc, measured runs) | {cpu:.1f} µs (trials: {trials_cpu}) | ≤ 40 µs | {judged(cpu <= 40, ours)} |")
        if ours and postgres:
            pg_share = postgres["rps"] / ours["rps"]
            w(f"| PostgreSQL store vs in-memory store, launches/s | {pg_share * 100:.0f} % (by round: {listed(per_round(postgres, ours), lambda r: f'{r * 100:.0f} %')}) | ≥ 40 % | {judged(pg_share >= 0.4, ours, postgres)} |")
            w(f"| p99 latency with the PostgreSQL store | {postgres['p99_ms']:.2f} ms (trials: {listed((t['p99_ms'] for t in postgres['trials']), lambda v: f'{v:.2f}')}) | < 25 ms | {judged(postgres['p99_ms'] < 25, postgres)} |")
        if ours and all("accepted" in t for t in ours["trials"]):
            accepted = sum(t["accepted"] for t in ours["trials"])
            w.detail(f"| launches accepted during the measured runs (server's /metrics) | {accepted:,} | ≥ {ours['requests']:,} completed requests (in-flight ones at the end count too) | |")
    write_table(w, a, "results")
    return invalid


class ReportLines:
    """A report's lines: `w(line)` for the summary, `w.detail(line)` for what is printed (and kept
    in the results directory) but not written into BENCHMARKS.md, such as every trial."""

    def __init__(self):
        self.lines, self.details = [], set()

    def __call__(self, line):
        self.lines.append(line)

    def detail(self, line):
        self.details.add(len(self.lines))
        self.lines.append(line)


def write_table(report, a, section):
    """Writes a report's lines to --markdown and standard output and, with --update, its summary
    between the file's `<!-- SECTION:begin -->` and `<!-- SECTION:end -->` markers."""
    table = "\n".join(report.lines) + "\n"
    open(a.markdown, "w").write(table)
    sys.stdout.write(table)
    if a.update:
        text = open(a.update).read()
        begin, end = "<!-- %s:begin -->" % section, "<!-- %s:end -->" % section
        if begin not in text or end not in text:
            raise SystemExit(f"{a.update}: no {begin} … {end} block to rewrite")
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        summary = "".join(line + "\n" for index, line in enumerate(report.lines) if index not in report.details)
        open(a.update, "w").write(head + begin + "\n" + summary + end + tail)


GATE_PATHS = [
    ("gate-static", "static nginx (`return 200`, 1 worker)", "gate, reverse proxy (session check + identity headers)"),
    ("nginx-static", "static nginx (`return 200`, 1 worker)", "nginx `proxy_pass` (2 workers), no authentication"),
    ("authreq-static", "static nginx (`return 200`, 1 worker)", "nginx (2 workers) + gate, auth_request shape (`--print-nginx-config`)"),
    ("gate-python", "Python `http.server` (GET /page)", "gate, reverse proxy (session check + identity headers)"),
    ("nginx-python", "Python `http.server` (GET /page)", "nginx `proxy_pass` (2 workers), no authentication"),
]


def gate_invalid_reason(entry):
    """invalid_reason, plus the gate benchmark's own rule: the session must still answer 200
    after the run (a gate that lost it measured refusals)."""
    reason = invalid_reason(entry)
    if entry is not None and entry.get("session_ok", 1) == 0:
        reason = "; ".join(r for r in (reason, "the session no longer answered 200 after the run") if r)
    return reason


def gate_report(a):
    """The gate against nginx proxy_pass: medians of the rounds, every trial, the targets.
    Returns the number of invalid rows and targets."""
    trials = read_trials(a.load)
    load = {label: combined(entries) for label, entries in trials.items()}
    for label, row in load.items():
        reasons = [r for r in (gate_invalid_reason(t) for t in row["trials"]) if r]
        row["invalid"] = "; ".join(dict.fromkeys(reasons)) or None
    machine = json.load(open(a.machine))
    invalid = 0
    w = ReportLines()
    w(f"Run: {machine['date']} on {machine['cpu']} ({machine['cores']} cores); {machine['swift']}; {machine['nginx']}; {machine['wrk']}. "
      f"Load average (1/5/15 min) before / after: {machine['load_before']} / {machine['load_after']}. {machine['load_shape']}")
    w("")
    w("| Upstream | Path | req/s | p50 ms | p99 ms | p99.9 ms | CPU µs/request | requests | non-2xx | socket errors | Valid |")
    w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for label, upstream, title in GATE_PATHS:
        e = load.get(label)
        if not e:
            continue
        sock = sum(e[key] for key in SOCKET_ERRORS)
        if e["invalid"]:
            invalid += 1
        w(f"| {upstream} | {title} | {e['rps']:.0f} | {e['p50_ms']:.2f} | {e['p99_ms']:.2f} | {e['p999_ms']:.2f} | "
          f"{cpu_cell(e['cpu_us_per_request'])} | {e['requests']:,} | {e['non_2xx_3xx']} | {sock} | "
          f"{'**INVALID** (' + e['invalid'] + ')' if e['invalid'] else 'yes'} |")
    w("")
    w.detail("CPU µs/request: user + system time of the proxying processes only (the gate; nginx's master and workers; "
           "in the auth_request shape both), never the upstream's, from /proc before and after each measured run, "
           "divided by the requests wrk completed; a row gives the medians of its trials.")
    w.detail("")
    w.detail("Every trial:")
    w.detail("")
    w.detail("| Round | Path | req/s | p50 ms | p99 ms | CPU µs/request | core migrations | Valid |")
    w.detail("|---:|---|---:|---:|---:|---:|---:|---|")
    order = {label: index for index, (label, _, _) in enumerate(GATE_PATHS)}
    for entry in sorted((t for entries in trials.values() for t in entries),
                        key=lambda t: (t.get("round", 1), order.get(t["label"], len(order)))):
        reason = gate_invalid_reason(entry)
        w.detail(f"| {entry.get('round', 1)} | {entry['label']} | {entry['rps']:.0f} | {entry['p50_ms']:.2f} | {entry['p99_ms']:.2f} | "
               f"{cpu_cell(cpu_per_request(entry))} | {entry.get('migrations', '?')} | {'**INVALID** (' + reason + ')' if reason else 'yes'} |")
    w.detail("")

    def judged(flag, *rows):
        nonlocal invalid
        reasons = [r["invalid"] for r in rows if r and r["invalid"]]
        if any(r is None for r in rows):
            reasons.append("not run")
        if reasons:
            invalid += 1
            return f"**INVALID** ({'; '.join(reasons)})"
        return "**met**" if flag else "**MISSED**"

    gate, nginx, authreq = load.get("gate-static"), load.get("nginx-static"), load.get("authreq-static")
    w("| Gate target (medians of the trials) | Value | Target | Result |")
    w("|---|---:|---|---|")
    if gate and nginx:
        share = gate["rps"] / nginx["rps"]
        w(f"| reverse-proxy gate vs nginx `proxy_pass`, static upstream | {share:.2f} x (by round: {listed(per_round(gate, nginx), lambda r: f'{r:.2f}')}) | ≥ 0.6 x | {judged(share >= 0.6, gate, nginx)} |")
    if gate:
        w(f"| reverse-proxy gate p99 at {machine.get('connections', 32)} connections | {gate['p99_ms']:.2f} ms (trials: {listed((t['p99_ms'] for t in gate['trials']), lambda v: f'{v:.2f}')}) | < 5 ms | {judged(gate['p99_ms'] < 5, gate)} |")
    if authreq and nginx:
        share = authreq["rps"] / nginx["rps"]
        w(f"| nginx + gate (auth_request) vs nginx `proxy_pass` alone, static upstream | {share:.2f} x (by round: {listed(per_round(authreq, nginx), lambda r: f'{r:.2f}')}) | ≥ 0.7 x | {judged(share >= 0.7, authreq, nginx)} |")
    for label, name in (("gate-static", "reverse-proxy gate"), ("authreq-static", "nginx + gate (auth_request)"), ("nginx-static", "nginx `proxy_pass`")):
        row = load.get(label)
        if row:
            w.detail(f"| CPU per request, {name} | {cpu_cell(row['cpu_us_per_request'])} µs (trials: {listed((cpu_per_request(t) for t in row['trials']), cpu_cell)}) | (reported) | |")
    write_table(w, a, "gate-vs-nginx")
    return invalid


# ----------------------------------------------------------------------------- load and fault tests

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


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("nginx-links")
    s.add_argument("--count", type=int, required=True); s.add_argument("--path", required=True)
    s.add_argument("--length", type=int, required=True); s.add_argument("--secret", required=True)
    s = sub.add_parser("nginx-conf")
    for opt in ("--template", "--prefix", "--path", "--secret", "--response"):
        s.add_argument(opt, required=True)
    s.add_argument("--port", type=int, required=True)
    s = sub.add_parser("report")
    for opt in ("--micro", "--replay", "--load", "--machine", "--markdown"):
        s.add_argument(opt, required=True)
    s.add_argument("--update")
    s = sub.add_parser("gate-report")
    for opt in ("--load", "--machine", "--markdown"):
        s.add_argument(opt, required=True)
    s.add_argument("--update")
    a = p.parse_args()
    if a.cmd in ("report", "gate-report"):
        invalid = (report if a.cmd == "report" else gate_report)(a)
        if invalid:
            print(f"loadtool.py: {invalid} invalid result(s); see the rows marked INVALID", file=sys.stderr)
            sys.exit(1)
    else:
        {"nginx-links": nginx_links, "nginx-conf": nginx_conf}[a.cmd](a)


if __name__ == "__main__":
    main()
