-- dead-purge.lua: deletes dead-lettered entries for good
-- (`JobQueue.purgeDeadLetters`; purgeDeadLetters in control.lua).
--
-- @include context control
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue delayed leases intake clock work events control commands dead batches config metrics metricsSeconds groups fairness groupWeights groupLimits recent
--
-- ARGV, after the queue context (context.lua):
--   count  how many to take when no ids are given (oldest first)
--   id…    the dead letters' ids
-- Returns the number of entries deleted.
-- Events: none.
local count = tonumber(ARGV[FIRST])
local ids = {}
for i = FIRST + 1, #ARGV do ids[#ids + 1] = ARGV[i] end

local purged = purgeDeadLetters(deadLetterIDs(count, ids))
return purged
