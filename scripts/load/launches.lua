-- wrk script: every request takes the next line of a file of pre-minted request paths
-- (path?query), each used once. Thread i of n takes lines i, i+n, i+2n, ...
--
--   wrk -t2 -c32 -d10s --latency -s launches.lua http://127.0.0.1:PORT -- FILE THREADS LABEL
--
-- A thread that runs out of lines stops and done() reports it ("exhausted_threads"): the
-- run was capped by its input and scripts/bench marks it invalid. No line is sent twice. done() prints one JSON line for scripts/bench.

local threads = {}
local thread_count = 0

function setup(thread)
  thread:set("thread_id", thread_count)
  thread_count = thread_count + 1
  table.insert(threads, thread)
end

function init(args)
  local file, n = args[1], tonumber(args[2])
  label = args[3] or "load"
  paths = {}
  local i = 0
  for line in io.lines(file) do
    if i % n == thread_id then paths[#paths + 1] = line end
    i = i + 1
  end
  line_count = #paths
  next_index = 1
  exhausted = 0
end

function request()
  if next_index > #paths then
    -- Out of lines: never send one twice (for our server a reused launch is a replay, a 401,
    -- and a different workload). This path answers 404, and the run is reported invalid.
    exhausted = 1
    wrk.thread:stop()
    return wrk.format("GET", "/launches-ran-out")
  end
  local path = paths[next_index]
  next_index = next_index + 1
  if next_index > #paths then
    exhausted = 1
    wrk.thread:stop()
  end
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  local used, lines, exhausted_threads = 0, 0, 0
  for _, thread in ipairs(threads) do
    used = used + (thread:get("next_index") - 1)
    lines = lines + thread:get("line_count")
    exhausted_threads = exhausted_threads + thread:get("exhausted")
  end
  local label = threads[1] and threads[1]:get("label") or "load"
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    '{"label":"%s","requests":%d,"seconds":%.3f,"rps":%.1f,"bytes":%d,' ..
    '"p50_ms":%.3f,"p90_ms":%.3f,"p99_ms":%.3f,"max_ms":%.3f,' ..
    '"non_2xx_3xx":%d,"connect_errors":%d,"read_errors":%d,"write_errors":%d,"timeouts":%d,' ..
    '"lines":%d,"lines_used":%d,"exhausted_threads":%d}\n',
    label, summary.requests, seconds, summary.requests / seconds, summary.bytes,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    e.status, e.connect, e.read, e.write, e.timeout, lines, used, exhausted_threads))
end
