-- finish.lua: ends one or more of a worker's jobs and claims its next ones,
-- atomically (`JobQueue.finish`).
--
-- @include context masking records events fairness ends housekeeping work
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue delayed leases intake pendingIntake sequence clock work events control dead batches config metrics metricsSeconds groups fairness groupWeights groupLimits recent
--
-- ARGV, after the queue context (context.lua):
--   worker     the worker's id
--   claimNext  the most jobs to claim next (0 for none)
--   count      how many job ends follow
-- then, `count` times, one job's end (ENTRY fields):
--   id         the job's id
--   token      the lease token it was claimed with
--   state      completed | failed | dead | cancelled | retry
--   source     where the image came from ('' for none), for the event
--   bytes      the image's size ('' for none), for the event
--   code       the error code ('' for none)
--   message    the error message (URL passwords are masked here)
--   delay      for `retry`: the backoff in ms
-- A busy worker ends the jobs its slots finished while its previous call
-- was on the wire in one call (`JobQueue.finish`): the call's fixed costs
-- (the script, the clock, the housekeeping, the claim) are paid once for
-- all of them. Each end is the same transition as alone, in order.
-- `retry` parks the job in the delayed set for `delay` ms; the other states
-- end it (finalize in ends.lua). A job that was cancelled while it ran
-- (state `cancelling`) ends as cancelled whatever the worker reports, unless
-- it completed. An end whose `token` is not the job's current lease changes
-- nothing but the job's `refusedEnds` count (a late finish of a worker that
-- was cut off): its id is listed in the reply's third element (lease lost).
-- Returns [claimed jobs, housekeeping report, ids whose lease was lost];
-- the first two as claim.lua.
-- Events: `delayed` (with `error`, `message`, `retry_in_ms`) or the job's end
-- (`completed`, `failed`, `deadLettered`, `cancelled`, with `source`,
-- `bytes`, `error`, `message` when given) in each of its batches, then
-- `batchCompleted` for a batch this finishes; then those of claim.lua.
-- A job's end also counts in the queue's throughput (`metrics`) and, failed
-- or dead, in its batches' failure lists (finalize in ends.lua).
local ENTRY = 8
local worker, claimNext, count = unpack(ARGV, FIRST, FIRST + 2)
claimNext, count = tonumber(claimNext), tonumber(count)

-- Ends one job (the fields of one ENTRY); false when its lease was lost.
local function finishOne(tally, at, id, token, state, source, bytes, code, message, delay)
  local job = readJob(id)
  if not job then return false end
  if job.lease ~= token then
    redis.call('HINCRBY', jobKey(id), 'refusedEnds', 1)
    return false
  end
  message = masked(message)
  if job.state == 'cancelling' and state ~= 'completed' then state = 'cancelled' end
  if state == 'retry' then
    local key = jobKey(id)
    redis.call('ZREM', K.leases, id)
    redis.call('HDEL', key, 'lease', 'worker')
    leaveFlight(job)
    redis.call('HSET', key, 'state', 'delayed', 'error', code, 'message', message)
    redis.call('ZADD', K.delayed, at + tonumber(delay), id)
    local fields = append(jobEvent(job, 'delayed', at, worker),
      { 'error', code, 'message', message, 'retry_in_ms', delay })
    for _, batch in ipairs(job.batches) do emit(batch, fields) end
  else
    local extra = {}
    if source ~= '' then append(extra, { 'source', source }) end
    if bytes ~= '' then append(extra, { 'bytes', bytes }) end
    if code ~= '' then append(extra, { 'error', code, 'message', message }) end
    finalize(job, state, at, worker, extra, tally)
  end
  return true
end

local at = now()
local lost = {}
local tally = newTally()
for i = 0, count - 1 do
  local base = FIRST + 3 + i * ENTRY
  if not finishOne(tally, at, unpack(ARGV, base, base + ENTRY - 1)) then lost[#lost + 1] = ARGV[base] end
end
settleTally(tally, at)
return { claimJobs(claimNext, worker, at), REPORT, lost }
