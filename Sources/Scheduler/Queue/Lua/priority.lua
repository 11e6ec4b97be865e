-- priority.lua: changes the priority of a batch's jobs or of single jobs
-- (`JobQueue.setPriority`; setBatchPriority and prioritizeJobs in
-- control.lua).
--
-- @include context priorities control
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue delayed leases intake clock work events control commands dead batches config metrics metricsSeconds groups fairness groupWeights groupLimits recent
--
-- ARGV, after the queue context (context.lua):
--   batch     the batch's id, or '' for single jobs
--   priority  veryHigh | high | normal | low | veryLow
--   cursor    for a batch: where this step starts (`SSCAN` cursor, 0 first)
--   count     for a batch: about how many of its jobs to take in this step
--   id…       for batch '': the jobs' ids
-- For a batch, the batch's own priority changes and each of its jobs takes
-- the highest priority of the batches it serves, one step of about `count`
-- jobs per call (a batch of a million jobs must not hold Redis for seconds);
-- a job seen twice is already at its priority and not counted again.
-- Returns, for a batch, [jobs changed, next cursor] (call again with it
-- until it is '0'); for single jobs, the number changed. Refuses with
-- BAD_PRIORITY for an unknown priority, NO_BATCH for an unknown batch.
-- Events: a `priority` message on the control stream for each running job
-- changed.
local batch, priority = unpack(ARGV, FIRST, FIRST + 1)
local ids = {}
for i = FIRST + 2, #ARGV do ids[#ids + 1] = ARGV[i] end

if not BANDS[priority] then return redis.error_reply('BAD_PRIORITY ' .. priority) end
if batch ~= '' then
  local cursor, count = unpack(ARGV, FIRST + 2, FIRST + 3)
  cursor, count = cursor or '0', tonumber(count) or 1000
  if not setBatchPriority(batch, priority) then return redis.error_reply('NO_BATCH ' .. batch) end
  local page = redis.call('SSCAN', batchKey(batch) .. ':jobs', cursor, 'COUNT', math.max(1, count))
  return { prioritizeJobs(batch, priority, page[2], now()), page[1] }
end
return prioritizeJobs(batch, priority, ids, now())
