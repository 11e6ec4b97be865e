-- enqueue.lua: adds URLs to a batch as jobs (coalescing identical work),
-- atomically (`JobQueue.enqueue`, in chunks of `enqueueChunkSize` URLs).
--
-- @include context priorities jobs slices
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue leases intake sequence clock work events control batches groups fairness groupWeights groupLimits recent
--
-- ARGV, after the queue context (context.lua):
--   batch        the batch's id (created with the first chunk)
--   priority     veryHigh | high | normal | low | veryLow
--   destination  disk | processed
--   processing   the processing spec, '' for none
--   addToTotal   the count to add to the batch's total (the whole count with
--                the first chunk, 0 with the others)
--   timeout      the jobs' time limit in seconds, '' for the worker's
--   group        the group new jobs are queued in, '' for the batch's own
--                (1-128 characters from letters, digits, . _ -)
--   freshFor     seconds: a URL whose work completed this recently counts as
--                completed at once, without a job (addJobs); '' or 0 for none
--   url…         the URLs
-- Up to 50 URLs become jobs at once (`JobQueue.enqueue` sends no more); a
-- call with more stages them all, as a large document's (slices.lua).
-- Returns { new jobs (URLs that joined a live job are not new), URLs counted
-- as recently warmed, URLs staged }.
-- Refuses with BAD_ARGUMENT, before writing anything, arguments
-- `JobQueue.enqueue` never sends.
-- Events: `started` in this batch for each running job a URL joins; a
-- `priority` message on the control stream for each running job the batch
-- makes more urgent; `completed` (source `recent`) in this batch for each
-- recently warmed URL; a wake-up marker on `intake` for idle workers.
local batch, priority, destination, processing, addToTotal, timeout, group, freshFor = unpack(ARGV, FIRST, FIRST + 7)
addToTotal, freshFor = tonumber(addToTotal), freshFor == '' and 0 or tonumber(freshFor)
local urls = {}
for i = FIRST + 8, #ARGV do urls[#urls + 1] = ARGV[i] end

if not BANDS[priority] or (destination ~= 'disk' and destination ~= 'processed')
  or not isInteger(addToTotal, 0, MAX_TOTAL) or (timeout ~= '' and not isInteger(tonumber(timeout), 1, MAX_TIMEOUT))
  or (group ~= '' and not isGroupName(group)) or not isInteger(freshFor, 0, MAX_FRESH_FOR) then
  return redis.error_reply('BAD_ARGUMENT priority, destination, total, timeout, group or freshFor')
end
local made, staged, recent = addJobsInSlices(batch, priority, destination, processing, urls, addToTotal, timeout, now(),
  group, freshFor == 0 and '' or integer(freshFor))
return { made, recent, staged }
