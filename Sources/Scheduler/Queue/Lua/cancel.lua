-- cancel.lua: cancels jobs for one batch or for every batch they serve,
-- atomically per call (`JobQueue.cancel`; cancelBatchChunk and cancelJobs
-- in control.lua).
--
-- @include context control
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue delayed leases intake clock work events control commands dead batches config metrics metricsSeconds groups fairness groupWeights groupLimits recent
--
-- ARGV, after the queue context (context.lua):
--   batch  the batch's id, or '' to cancel the given jobs in all their batches
--   limit  the most jobs to take from the batch in this call
--   id…    for batch '': the jobs' ids
-- Returns [jobs cancelled, running jobs signalled, jobs of the batch left to
-- process, 1 when the batch had already finished (and was left unchanged)
-- else 0]; call again while the third is positive. Refuses with NO_BATCH
-- for an unknown batch.
-- Events: `cancelled` in each batch a job stops counting in (then maybe
-- `batchCompleted`); a `cancel` message on the control stream for each
-- running job no batch needs any more.
local batch, limit = unpack(ARGV, FIRST, FIRST + 1)
limit = tonumber(limit)
local ids = {}
for i = FIRST + 2, #ARGV do ids[#ids + 1] = ARGV[i] end

local at = now()
if batch ~= '' then
  local cancelled, signalled, left, finished = cancelBatchChunk(batch, limit, at)
  if not cancelled then return redis.error_reply('NO_BATCH ' .. batch) end
  return { cancelled, signalled, left, finished and 1 or 0 }
end
local cancelled, signalled = cancelJobs('', ids, at)
return { cancelled, signalled, 0, 0 }
