-- finish.lua: ends a job and claims the worker's next ones, atomically
-- (`JobQueue.finish`).
--
-- @include work
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue delayed leases intake pendingIntake sequence clock work events control dead batches config metrics metricsSeconds
--
-- ARGV, after the queue context (queue.lua):
--   id         the job's id
--   token      the lease token it was claimed with
--   state      completed | failed | dead | cancelled | retry
--   worker     the worker's id
--   source     where the image came from ('' for none), for the event
--   bytes      the image's size ('' for none), for the event
--   code       the error code ('' for none)
--   message    the error message (URL passwords are masked here)
--   delay      for `retry`: the backoff in ms
--   claimNext  the most jobs to claim next (0 for none)
-- `retry` parks the job in the delayed set for `delay` ms; the other states
-- end it (finalize in queue.lua). A job that was cancelled while it ran
-- (state `cancelling`) ends as cancelled whatever the worker reports, unless
-- it completed.
-- Returns [claimed jobs, housekeeping report], as claim.lua. Refuses with
-- LEASE_LOST when `token` is not the job's current lease.
-- Events: `delayed` (with `error`, `message`, `retry_in_ms`) or the job's end
-- (`completed`, `failed`, `deadLettered`, `cancelled`, with `source`,
-- `bytes`, `error`, `message` when given) in each of its batches, then
-- `batchCompleted` for a batch this finishes; then those of claim.lua.
-- A job's end also counts in the queue's throughput (`metrics`) and, failed
-- or dead, in its batches' failure lists (finalize in queue.lua).
local id, token, state, worker, source, bytes, code, message, delay, claimNext = unpack(ARGV, FIRST, FIRST + 9)
message = masked(message)
delay, claimNext = tonumber(delay), tonumber(claimNext)

local job = readJob(id)
if not job or job.lease ~= token then
  return redis.error_reply('LEASE_LOST job ' .. id .. ' is leased to another worker')
end
local at = now()
if job.state == 'cancelling' and state ~= 'completed' then state = 'cancelled' end
if state == 'retry' then
  local key = jobKey(id)
  redis.call('ZREM', K.leases, id)
  redis.call('HDEL', key, 'lease', 'worker')
  redis.call('HSET', key, 'state', 'delayed', 'error', code, 'message', message)
  redis.call('ZADD', K.delayed, at + delay, id)
  local fields = append(jobEvent(job, 'delayed', at, worker),
    { 'error', code, 'message', message, 'retry_in_ms', tostring(delay) })
  for _, batch in ipairs(job.batches) do emit(batch, fields) end
else
  local extra = {}
  if source ~= '' then append(extra, { 'source', source }) end
  if bytes ~= '' then append(extra, { 'bytes', bytes }) end
  if code ~= '' then append(extra, { 'error', code, 'message', message }) end
  finalize(job, state, at, worker, extra)
end
return { claimJobs(claimNext, worker, at), REPORT }
