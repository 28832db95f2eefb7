-- wrk script for scripts/bench-http.sh: cycles through the request targets in $NEARBY_PATHS (one
-- a line, as workload.py paths writes them), each thread from its own start, and prints one JSON
-- line with the counts and latency percentiles (microseconds) at the end.
local paths, i = {}, 0
local threads, next_id = {}, 0

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

function init(args)
  for line in io.lines(os.getenv("NEARBY_PATHS")) do paths[#paths + 1] = line end
  i = (id * 1009) % #paths
end

function request()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"seconds":%.3f,"qps":%.1f,"p50_us":%d,"p90_us":%d,"p99_us":%d,' ..
    '"errors_connect":%d,"errors_read":%d,"errors_write":%d,"errors_status":%d,"errors_timeout":%d}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout))
end
