-- enqueue.lua: adds URLs to a batch as jobs (coalescing identical work),
-- atomically (`JobQueue.enqueue`, in chunks of `enqueueChunkSize` URLs).
--
-- @include jobs
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue delayed leases intake sequence clock work events control dead batches metrics metricsSeconds groups fairness groupWeights groupLimits
--
-- ARGV, after the queue context (queue.lua):
--   batch        the batch's id (created with the first chunk)
--   priority     veryHigh | high | normal | low | veryLow
--   destination  disk | processed
--   processing   the processing spec, '' for none
--   addToTotal   the count to add to the batch's total (the whole count with
--                the first chunk, 0 with the others)
--   timeout      the jobs' time limit in seconds, '' for the worker's
--   group        the group new jobs are queued in, '' for the batch's own
--                (1-128 characters from letters, digits, . _ -)
--   url…         the URLs
-- Returns the number of new jobs (URLs that joined a live job are not new).
-- Refuses with BAD_ARGUMENT, before writing anything, arguments
-- `JobQueue.enqueue` never sends.
-- Events: `started` in this batch for each running job a URL joins; a
-- `priority` message on the control stream for each running job the batch
-- makes more urgent; a wake-up marker on `intake` for idle workers.
local batch, priority, destination, processing, addToTotal, timeout, group = unpack(ARGV, FIRST, FIRST + 6)
addToTotal = tonumber(addToTotal)
local urls = {}
for i = FIRST + 7, #ARGV do urls[#urls + 1] = ARGV[i] end

if not BANDS[priority] or (destination ~= 'disk' and destination ~= 'processed')
  or not isInteger(addToTotal, 0, MAX_TOTAL) or (timeout ~= '' and not isInteger(tonumber(timeout), 1, MAX_TIMEOUT))
  or (group ~= '' and not isGroupName(group)) then
  return redis.error_reply('BAD_ARGUMENT priority, destination, total, timeout or group')
end
return addJobs(batch, priority, destination, processing, urls, addToTotal, timeout, now(), group)
