-- group.lua: sets a group's weight and its fleet-wide limit of jobs in
-- flight (`JobQueue.setGroup`), and puts the group in or out of line at
-- once (refreshGroup in fairness.lua).
--
-- @include context fairness wake jobs
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue leases intake sequence clock work events control batches groups fairness groupWeights groupLimits recent
--
-- ARGV, after the queue context (context.lua):
--   group   the group's name (a batch id, or a producer's `group`)
--   weight  1-1000: claims it gets per turn of a weight-1 group; '' for 1
--   limit   the most of its jobs running at once, fleet-wide (0 or more);
--           '' for no limit
-- Returns 1. Refuses with BAD_ARGUMENT, before writing anything, a name,
-- weight or limit out of range.
-- Events: a wake-up marker on `intake` for idle workers when the group has
-- queued jobs.
local group, weight, limit = unpack(ARGV, FIRST, FIRST + 2)

if not isGroupName(group) or (weight ~= '' and not isInteger(tonumber(weight), 1, MAX_WEIGHT))
  or (limit ~= '' and not isInteger(tonumber(limit), 0, MAX_TOTAL)) then
  return redis.error_reply('BAD_ARGUMENT group, weight or limit')
end
if weight == '' then redis.call('HDEL', K.groupWeights, group) else redis.call('HSET', K.groupWeights, group, weight) end
if limit == '' then redis.call('HDEL', K.groupLimits, group) else redis.call('HSET', K.groupLimits, group, limit) end
refreshGroup(group)
if redis.call('EXISTS', groupQueueKey(group)) == 1 then wakeIdleWorkers() end
return 1
