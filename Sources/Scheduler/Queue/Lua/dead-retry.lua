-- dead-retry.lua: runs dead-lettered entries again, atomically per call
-- (`JobQueue.retryDeadLetters`; retryDeadLetters in control.lua).
--
-- @include context control
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue delayed leases intake clock work events control commands dead batches config metrics metricsSeconds groups fairness groupWeights groupLimits recent
--
-- ARGV, after the queue context (context.lua):
--   count  how many to take when no ids are given (oldest first)
--   id…    the dead letters' ids
-- A job goes back to the queue as new; a dead-lettered intake document is
-- pushed onto `intake` again, a control document onto `commands`.
-- Returns the number of entries retried.
-- Events: none (a wake-up marker on `intake` for idle workers when any was
-- retried).
local count = tonumber(ARGV[FIRST])
local ids = {}
for i = FIRST + 1, #ARGV do ids[#ids + 1] = ARGV[i] end

local retried = retryDeadLetters(deadLetterIDs(count, ids), now())
return retried
