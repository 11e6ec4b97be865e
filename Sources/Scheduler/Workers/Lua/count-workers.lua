-- count-workers.lua: counts live workers without writing anything
-- (`WorkerRegistry.liveCount`).
--
-- KEYS:
--   workers  the queue's `workers` sorted set
-- ARGV: none.
-- Returns the number of ids whose record has not lapsed (Redis clock).
-- Events: none.
local workers = KEYS[1]

local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
return redis.call('ZCOUNT', workers, '(' .. string.format('%.0f', now), '+inf')
