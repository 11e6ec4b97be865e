-- claim.lua: claims up to `count` jobs for a worker, after the housekeeping
-- (`JobQueue.claim`; see claimJobs in work.lua).
--
-- @include context housekeeping work
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue delayed leases intake pendingIntake sequence clock work events control dead batches config metrics metricsSeconds groups fairness groupWeights groupLimits recent
--
-- ARGV, after the queue context (context.lua):
--   count   the most jobs to claim
--   worker  the worker's id
-- Returns [claimed jobs, housekeeping report] (claimJobs, REPORT).
-- Events: `started` in each batch of each claimed job; those of the
-- housekeeping (`stalled`, `deadLettered`, `cancelled`, and what expanding an
-- intake document publishes).
local count, worker = unpack(ARGV, FIRST, FIRST + 1)

return { claimJobs(tonumber(count), worker, now()), REPORT }
