-- wrk script: every request takes the next line of its thread's file of pre-minted request
-- paths (path?query), each used once.
--
--   split -n r/THREADS -d -a 1 FILE FILE.      # FILE.0 … FILE.(THREADS-1), round robin
--   wrk -t2 -c32 -d10s --latency -s launches.lua http://127.0.0.1:PORT -- FILE LABEL MINTED
--
-- Thread i reads FILE.i one line per request, so nothing of the file is held in memory.
-- Loading every line in init() (as this script once did) measured the client, not the server:
--   * wrk starts thread 0 before it runs thread 1's init(), and starts its clock only after
--     the last one: thread 0's requests during that init (over a second for a 1 GB file)
--     were counted against a shorter run (a 1 s run reported 73 k requests/s against nginx,
--     130 k with the requests formatted in init(), where 46 k were real);
--   * a heap of half a million strings, and a new one per request, made LuaJIT's collector
--     pause a thread for tens of milliseconds, which both servers' p99.9 showed (nginx
--     secure_link: 37 ms with it, 2.6-4.4 ms without).
-- MINTED (the links minted, for the report) is the caller's count; it is not checked here.
--
-- A thread that runs out of lines stops and done() reports it ("exhausted_threads"): the run
-- was capped by its input and scripts/bench marks it invalid. No line is sent twice. done()
-- prints one JSON line for scripts/bench.

local threads = {}
local thread_count = 0

function setup(thread)
  thread:set("thread_id", thread_count)
  thread_count = thread_count + 1
  table.insert(threads, thread)
end

function init(args)
  label = args[2] or "load"
  minted = tonumber(args[3]) or 0
  lines = assert(io.open(string.format("%s.%d", args[1], thread_id), "r"))
  used = 0
  exhausted = 0
  -- One line read ahead: a thread stops on its last line instead of sending a request for
  -- a line it does not have.
  upcoming = lines:read("*l")
end

function request()
  local path = upcoming
  if path == nil then
    -- Out of lines: never send one twice (for our server a reused launch is a replay, a 401,
    -- and a different workload). This path answers 404, and the run is reported invalid.
    exhausted = 1
    wrk.thread:stop()
    return wrk.format("GET", "/launches-ran-out")
  end
  used = used + 1
  upcoming = lines:read("*l")
  if upcoming == nil then
    exhausted = 1
    wrk.thread:stop()
  end
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  local used_total, exhausted_threads = 0, 0
  for _, thread in ipairs(threads) do
    used_total = used_total + thread:get("used")
    exhausted_threads = exhausted_threads + thread:get("exhausted")
  end
  local label = threads[1] and threads[1]:get("label") or "load"
  local minted = threads[1] and threads[1]:get("minted") or 0
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    '{"label":"%s","requests":%d,"seconds":%.3f,"rps":%.1f,"bytes":%d,' ..
    '"p50_ms":%.3f,"p90_ms":%.3f,"p99_ms":%.3f,"p999_ms":%.3f,"max_ms":%.3f,' ..
    '"non_2xx_3xx":%d,"connect_errors":%d,"read_errors":%d,"write_errors":%d,"timeouts":%d,' ..
    '"lines":%d,"lines_used":%d,"exhausted_threads":%d}\n',
    label, summary.requests, seconds, summary.requests / seconds, summary.bytes,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency:percentile(99.9) / 1000, latency.max / 1000,
    e.status, e.connect, e.read, e.write, e.timeout, minted, used_total, exhausted_threads))
end
