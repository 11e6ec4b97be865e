-- priority.lua: changes the priority of a batch's jobs or of single jobs
-- (`JobQueue.setPriority`; setBatchPriority and prioritizeJobs in
-- control.lua).
--
-- @include control
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue delayed leases intake clock work events control commands dead batches config metrics metricsSeconds
--
-- ARGV, after the queue context (queue.lua):
--   batch     the batch's id, or '' for single jobs
--   priority  veryHigh | high | normal | low | veryLow
--   id…       for batch '': the jobs' ids
-- For a batch, the batch's own priority changes and each of its jobs takes
-- the highest priority of the batches it serves. Returns the number of jobs
-- changed. Refuses with BAD_PRIORITY for an unknown priority, NO_BATCH for
-- an unknown batch.
-- Events: a `priority` message on the control stream for each running job
-- changed.
local batch, priority = unpack(ARGV, FIRST, FIRST + 1)
local ids = {}
for i = FIRST + 2, #ARGV do ids[#ids + 1] = ARGV[i] end

if not BANDS[priority] then return redis.error_reply('BAD_PRIORITY ' .. priority) end
if batch ~= '' then
  if not setBatchPriority(batch, priority) then return redis.error_reply('NO_BATCH ' .. batch) end
  ids = redis.call('SMEMBERS', batchKey(batch) .. ':jobs')
end
return prioritizeJobs(batch, priority, ids, now())
