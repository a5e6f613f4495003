-- wrk script for scripts/bench-gate: the same request every time (wrk's URL and -H headers),
-- and done() prints one JSON line in the shape launches.lua prints, so both benchmarks share
-- loadtool.py's INVALID rules and report.
--
--   wrk -t2 -c32 -d10s --latency -s requests.lua http://127.0.0.1:PORT/page -H "Cookie: …" -- LABEL

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  label = args[1] or "load"
end

function done(summary, latency, requests)
  -- done() runs in wrk's main Lua state, which init() never saw: the label is a thread's.
  local label = threads[1] and threads[1]:get("label") or "load"
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    '{"label":"%s","requests":%d,"seconds":%.3f,"rps":%.1f,"bytes":%d,' ..
    '"p50_ms":%.3f,"p90_ms":%.3f,"p99_ms":%.3f,"p999_ms":%.3f,"max_ms":%.3f,' ..
    '"non_2xx_3xx":%d,"connect_errors":%d,"read_errors":%d,"write_errors":%d,"timeouts":%d,' ..
    '"lines":0,"lines_used":0,"exhausted_threads":0}\n',
    label, summary.requests, seconds, summary.requests / seconds, summary.bytes,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency:percentile(99.9) / 1000, latency.max / 1000,
    e.status, e.connect, e.read, e.write, e.timeout))
end
