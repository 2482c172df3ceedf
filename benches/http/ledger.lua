-- wrk script: POST /api/spools/<spool>/movements with a unique operation key per request.
-- Environment: SPOOL (id), TOKEN (session cookie value), ORIGIN (http://127.0.0.1:port).
local counter = 0
local thread_id = 0
local run_id = 0
local threads = {}

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  thread_id = id
  -- Keys must be unique across runs too: a reused key is (rightly) booked only once.
  run_id = os.time() % 65536
  wrk.method = "POST"
  wrk.path = "/api/spools/" .. os.getenv("SPOOL") .. "/movements"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Origin"] = os.getenv("ORIGIN")
  wrk.headers["Cookie"] = "print-cost-session=" .. os.getenv("TOKEN")
end

function request()
  counter = counter + 1
  -- A UUID-shaped key unique per thread, run and request.
  local key = string.format("%08x-%04x-4000-8000-%012x", thread_id, run_id, counter)
  local body = '{"kind":"CORRECTION","grams":"-0.001","operationKey":"' .. key .. '"}'
  return wrk.format(nil, nil, nil, body)
end

local failures = 0
function response(status, headers, body)
  if status ~= 201 then failures = failures + 1 end
end

function done(summary, latency, requests)
  io.write(string.format("non-201 answers: %d of %d\n", summary.errors.status, summary.requests))
end
