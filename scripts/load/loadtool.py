#!/usr/bin/env python3
"""The benchmarks' tool (standard library only), for scripts/bench and scripts/bench-gate:
  loadtool.py nginx-links --count N --path /apps/healthmagazin --length L --secret S > links.txt
  loadtool.py nginx-conf --template T --prefix DIR --port P --path /apps/... --secret S --response FILE > nginx.conf
  loadtool.py report --micro DIR --replay FILE --load FILE --machine FILE --markdown OUT [--update BENCHMARKS.md]
  loadtool.py gate-report --load FILE --machine FILE --markdown OUT [--update BENCHMARKS.md]

The load and fault tests' pieces are scripts/load/harness.py.
"""
import argparse, base64, glob, hashlib, json, os, statistics, sys, time


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


def in_round_order(trials, labels):
    """Every trial of a run, by round and, within a round, in the order of `labels` (others last)."""
    order = {label: index for index, label in enumerate(labels)}
    return sorted((t for entries in trials.values() for t in entries),
                  key=lambda t: (t.get("round", 1), order.get(t["label"], len(order))))


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
    # One JSON line per process of `launch-bench-tools paired`.
    paired = ([json.loads(line) for line in open(a.paired) if line.strip()]
              if a.paired and os.path.exists(a.paired) else [])
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
        for mode, ratio, target in (("signed", r_sig, 2.0), ("sealed", r_sea, 3.0)):
            # Judged on the paired ratio when there is one (floor and verify interleaved in
            # slices, a ratio per pair, so a host phase cannot land on one side only), as the
            # median over several processes (a process's memory layout moves its figure
            # too); the one-process medians, measured seconds apart, are shown beside it.
            if paired:
                runs = sorted(run[mode]["ratio_median"] for run in paired)
                judged_ratio = statistics.median(runs)
                cell = (f"{judged_ratio:.2f} x floor, paired: median of {len(runs)} processes "
                        f"({runs[0]:.2f} to {runs[-1]:.2f}), {paired[0][mode]['pairs']} pairs each; "
                        f"one-process medians {ratio:.2f} x")
            else:
                cell, judged_ratio = f"{ratio:.2f} x floor", ratio
            w(f"| `verify` {mode} | {m['verify.' + mode]:.0f} | {allocs['allocs.verify.' + mode]:.0f} | {cell} | ≤ {target:.1f} x | {ok(judged_ratio <= target)} |")
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
        servers = [("webapp-launch", "`webapp-launch serve` (the shipped build: release, statically linked; verify + replay claim + 303 + session cookie; an event loop per core)"),
                   ("webapp-launch-one-loop", "`webapp-launch serve --event-loops 1` (same, one event loop, as nginx's one worker)"),
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
        for entry in in_round_order(trials, [label for label, _ in servers]):
            reason = invalid_reason(entry)
            w.detail(f"| {entry.get('round', 1)} | {entry['label']} | {entry['rps']:.0f} | {entry['p50_ms']:.2f} | {entry['p99_ms']:.2f} | "
                   f"{entry['p999_ms']:.2f} | {entry['max_ms']:.2f} | {cpu_cell(cpu_per_request(entry))} | {entry.get('migrations', '?')} | {entry['lines_used']:,} / {entry.get('lines', 0):,} | "
                   f"{'**INVALID** (' + reason + ')' if reason else 'yes'} |")
        w.detail("")
        ours, ref, postgres = load.get("webapp-launch"), load.get("nginx"), load.get("webapp-launch-postgres")

        w("| Server target (medians of the trials) | Value | Target | Result |")
        w("|---|---:|---|---|")
        # Each target is judged for both shapes of the server, each on its own row: an event
        # loop per core (the default) and one event loop (nginx runs one worker here).
        for label, shape in (("webapp-launch", "an event loop per core"), ("webapp-launch-one-loop", "one event loop")):
            server = load.get(label)
            if not server:
                continue
            if ref:
                share = server["rps"] / ref["rps"]
                w(f"| throughput vs nginx secure_link, {shape} | {share * 100:.0f} % (by round: {listed(per_round(server, ref), lambda r: f'{r * 100:.0f} %')}) | ≥ 60 % | {judged(share >= 0.6, server, ref)} |")
            w(f"| p99 latency at {machine.get('connections', 32)} connections, {shape} | {server['p99_ms']:.2f} ms (trials: {listed((t['p99_ms'] for t in server['trials']), lambda v: f'{v:.2f}')}) | < 5 ms | {judged(server['p99_ms'] < 5, server)} |")
            cpu = server["cpu_us_per_request"]
            trials_cpu = listed((cpu_per_request(t) for t in server["trials"]), cpu_cell)
            if cpu is None:
                w(f"| server CPU per launch (/proc, measured runs), {shape} | ? (trials: {trials_cpu}) | ≤ 40 µs | **INVALID** (CPU time not recorded) |")
                invalid += 1
            else:
                w(f"| server CPU per launch (/proc, measured runs), {shape} | {cpu:.1f} µs (trials: {trials_cpu}) | ≤ 40 µs | {judged(cpu <= 40, server)} |")
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
    ("proxy-floor", "static nginx (`return 200`, 1 worker)", "SwiftNIO's reverse proxy with nothing of its own (`floor-servers nio-proxy`: HTTP/1 server and client pipelines, a kept-alive upstream connection per client connection on its event loop): the reverse proxy's floor on SwiftNIO"),
    ("nginx-static", "static nginx (`return 200`, 1 worker)", "nginx `proxy_pass` (2 workers), no authentication"),
    ("authreq-static", "static nginx (`return 200`, 1 worker)", "nginx (2 workers) + gate, auth_request shape (`--print-nginx-config`)"),
    ("authreq-floor", "static nginx (`return 200`, 1 worker)", "the same nginx, its auth subrequests answered by a static nginx (`return 204`, 1 worker) in the gate's place: the shape's floor, an authenticator that costs nothing"),
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
    for entry in in_round_order(trials, [label for label, _, _ in GATE_PATHS]):
        reason = gate_invalid_reason(entry)
        w.detail(f"| {entry.get('round', 1)} | {entry['label']} | {entry['rps']:.0f} | {entry['p50_ms']:.2f} | {entry['p99_ms']:.2f} | "
               f"{cpu_cell(cpu_per_request(entry))} | {entry.get('migrations', '?')} | {'**INVALID** (' + reason + ')' if reason else 'yes'} |")
    w.detail("")

    def judged(flag, *rows):
        """The verdict on these rows; `flag` None for a figure reported without a target
        (empty when valid, INVALID like any other when not)."""
        nonlocal invalid
        reasons = [r["invalid"] for r in rows if r and r["invalid"]]
        if any(r is None for r in rows):
            reasons.append("not run")
        if reasons:
            invalid += 1
            return f"**INVALID** ({'; '.join(reasons)})"
        if flag is None:
            return ""
        return "**met**" if flag else "**MISSED**"

    gate, nginx, authreq = load.get("gate-static"), load.get("nginx-static"), load.get("authreq-static")
    w("| Gate target (medians of the trials) | Value | Target | Result |")
    w("|---|---:|---|---|")
    if gate and nginx:
        share = gate["rps"] / nginx["rps"]
        w(f"| reverse-proxy gate vs nginx `proxy_pass`, static upstream | {share:.2f} x (by round: {listed(per_round(gate, nginx), lambda r: f'{r:.2f}')}) | ≥ 0.6 x | {judged(share >= 0.6, gate, nginx)} |")
    proxy_floor = load.get("proxy-floor")
    if proxy_floor and nginx:
        # No target of its own: what a reverse proxy on SwiftNIO reaches with no work of its
        # own, beside which the 0.6 x target is read.
        share = proxy_floor["rps"] / nginx["rps"]
        w(f"| the reverse proxy's floor on SwiftNIO (`floor-servers nio-proxy`) vs nginx `proxy_pass` | {share:.2f} x (by round: {listed(per_round(proxy_floor, nginx), lambda r: f'{r:.2f}')}) | (reported: what SwiftNIO reaches doing nothing else) | {judged(None, proxy_floor, nginx)} |")
    if gate and proxy_floor:
        # No target of its own either: the share of the floor's rate the gate's own work
        # leaves. The floor bounds the ratio to nginx on a host; this share is what our code moves.
        share = gate["rps"] / proxy_floor["rps"]
        w(f"| reverse-proxy gate vs its floor on SwiftNIO | {share:.2f} x (by round: {listed(per_round(gate, proxy_floor), lambda r: f'{r:.2f}')}) | (reported: what the gate's own work leaves of the floor) | {judged(None, gate, proxy_floor)} |")
    if gate:
        w(f"| reverse-proxy gate p99 at {machine.get('connections', 32)} connections | {gate['p99_ms']:.2f} ms (trials: {listed((t['p99_ms'] for t in gate['trials']), lambda v: f'{v:.2f}')}) | < 5 ms | {judged(gate['p99_ms'] < 5, gate)} |")
    if authreq and nginx:
        share = authreq["rps"] / nginx["rps"]
        w(f"| nginx + gate (auth_request) vs nginx `proxy_pass` alone, static upstream | {share:.2f} x (by round: {listed(per_round(authreq, nginx), lambda r: f'{r:.2f}')}) | ≥ 0.7 x | {judged(share >= 0.7, authreq, nginx)} |")
    floor = load.get("authreq-floor")
    if floor and nginx:
        # No target of its own: what any authenticator behind auth_request reaches at best,
        # beside which the 0.7 x target is read.
        share = floor["rps"] / nginx["rps"]
        w(f"| the auth_request shape's floor (static authenticator) vs nginx `proxy_pass` alone | {share:.2f} x (by round: {listed(per_round(floor, nginx), lambda r: f'{r:.2f}')}) | (reported: the best any authenticator reaches) | {judged(None, floor, nginx)} |")
    if authreq and floor:
        share = authreq["rps"] / floor["rps"]
        w(f"| nginx + gate (auth_request) vs its floor (static authenticator) | {share:.2f} x (by round: {listed(per_round(authreq, floor), lambda r: f'{r:.2f}')}) | (reported: what the gate's check leaves of the floor) | {judged(None, authreq, floor)} |")
    for label, name in (("gate-static", "reverse-proxy gate"), ("proxy-floor", "the reverse proxy's floor on SwiftNIO"), ("authreq-static", "nginx + gate (auth_request)"), ("authreq-floor", "the auth_request shape's floor"), ("nginx-static", "nginx `proxy_pass`")):
        row = load.get(label)
        if row:
            w.detail(f"| CPU per request, {name} | {cpu_cell(row['cpu_us_per_request'])} µs (trials: {listed((cpu_per_request(t) for t in row['trials']), cpu_cell)}) | (reported) | |")
    write_table(w, a, "gate-vs-nginx")
    return invalid


FLOOR_SERVERS = [
    ("nginx-return", "nginx `return 200` (1 worker)"),
    ("nio-handler", "SwiftNIO HTTP/1 pipeline + one ChannelHandler (`floor-servers nio`)"),
    ("hummingbird", "bare Hummingbird 2, one route (`floor-servers hummingbird`)"),
    ("webapp-launch-healthz", "`webapp-launch serve`, /healthz through every middleware of ours"),
]


def floor_report(a):
    """The HTTP stacks' own cost (scripts/bench-floor): each server's medians and its CPU per
    request beside nginx's, every trial. Returns the number of invalid rows."""
    trials = read_trials(a.load)
    load = {label: combined(entries) for label, entries in trials.items()}
    for row in load.values():
        reasons = [r for r in (invalid_reason(t) for t in row["trials"]) if r]
        row["invalid"] = "; ".join(dict.fromkeys(reasons)) or None
    machine = json.load(open(a.machine))
    nginx = load.get("nginx-return")
    reference = nginx["cpu_us_per_request"] if nginx and not nginx["invalid"] else None
    invalid = 0
    w = ReportLines()
    w(f"Run: {machine['date']} on {machine['cpu']} ({machine['cores']} cores); {machine['swift']}; {machine['nginx']}; {machine['wrk']}. "
      f"Load average (1/5/15 min) before / after: {machine['load_before']} / {machine['load_after']}. {machine['load_shape']}")
    w("")
    w("| Server answering `GET /healthz` with `ok` | req/s | p50 ms | p99 ms | CPU µs/request | CPU vs nginx | requests | non-2xx | socket errors | Valid |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for label, title in FLOOR_SERVERS:
        e = load.get(label)
        if not e:
            continue
        sock = sum(e[key] for key in SOCKET_ERRORS)
        if e["invalid"]:
            invalid += 1
        cpu = e["cpu_us_per_request"]
        ratio = "?" if e["invalid"] or cpu is None or not reference else f"{cpu / reference:.1f} x"
        w(f"| {title} | {e['rps']:.0f} | {e['p50_ms']:.2f} | {e['p99_ms']:.2f} | {cpu_cell(cpu)} | {ratio} | {e['requests']:,} | "
          f"{e['non_2xx_3xx']} | {sock} | {'**INVALID** (' + e['invalid'] + ')' if e['invalid'] else 'yes'} |")
    w("")
    w.detail("Every trial:")
    w.detail("")
    w.detail("| Round | Server | req/s | p99 ms | CPU µs/request | Valid |")
    w.detail("|---:|---|---:|---:|---:|---|")
    for entry in in_round_order(trials, [label for label, _ in FLOOR_SERVERS]):
        reason = invalid_reason(entry)
        w.detail(f"| {entry.get('round', 1)} | {entry['label']} | {entry['rps']:.0f} | {entry['p99_ms']:.2f} | "
                 f"{cpu_cell(cpu_per_request(entry))} | {'**INVALID** (' + reason + ')' if reason else 'yes'} |")
    w.detail("")
    write_table(w, a, "floor")
    return invalid


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
    s.add_argument("--paired", help="launch-bench-tools paired's JSON lines, one per process: verify is judged on their median ratio")
    s.add_argument("--update")
    for name in ("gate-report", "floor-report"):
        s = sub.add_parser(name)
        for opt in ("--load", "--machine", "--markdown"):
            s.add_argument(opt, required=True)
        s.add_argument("--update")
    a = p.parse_args()
    if a.cmd in ("report", "gate-report", "floor-report"):
        invalid = {"report": report, "gate-report": gate_report, "floor-report": floor_report}[a.cmd](a)
        if invalid:
            print(f"loadtool.py: {invalid} invalid result(s); see the rows marked INVALID", file=sys.stderr)
            sys.exit(1)
    else:
        {"nginx-links": nginx_links, "nginx-conf": nginx_conf}[a.cmd](a)


if __name__ == "__main__":
    main()
