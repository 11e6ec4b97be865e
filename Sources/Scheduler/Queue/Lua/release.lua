-- release.lua: gives a claimed job back to the queue at its score without
-- counting an attempt (graceful stop, lost lease); a job cancelled while it
-- ran ends as cancelled instead (`JobQueue.release`).
--
-- @include context records fairness ends wake
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue delayed leases intake work events dead batches metrics metricsSeconds groups fairness groupWeights groupLimits recent
--
-- ARGV, after the queue context (context.lua):
--   id     the job's id
--   token  the lease token it was claimed with
-- Returns 1, or 0 when the lease was already lost (nothing changes).
-- Events: `cancelled` (then maybe `batchCompleted`) in each of its batches
-- for a job being cancelled; else a wake-up marker on `intake` for idle
-- workers.
local id, token = unpack(ARGV, FIRST, FIRST + 1)

local job = readJob(id)
if not job or job.lease ~= token then return 0 end
local at = now()
if job.state == 'cancelling' then
  finalize(job, 'cancelled', at, job.worker, {})
  return 1
end
local key = jobKey(id)
redis.call('ZREM', K.leases, id)
redis.call('HDEL', key, 'lease', 'worker')
redis.call('HSET', key, 'state', 'queued')
redis.call('HINCRBY', key, 'attempts', -1)
leaveFlight(job)
queueJob(id, job.score, groupOf(job))
wakeIdleWorkers()
return 1
