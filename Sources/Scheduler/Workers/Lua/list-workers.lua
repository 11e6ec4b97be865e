-- list-workers.lua: lists live workers: prunes lapsed ids, then reads each
-- live one's hash (`WorkerRegistry.workers`).
--
-- KEYS:
--   workers  the queue's `workers` sorted set
-- ARGV:
--   recordPrefix  the prefix of the workers' hashes, `warmer:{Q}:worker:`
--                 (same hash tag as `workers`)
-- Returns [now (ms, Redis clock), [HGETALL reply…]]; an id whose hash is
-- already gone is skipped.
-- Events: none.
local workers = KEYS[1]
local recordPrefix = ARGV[1]

local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
redis.call('ZREMRANGEBYSCORE', workers, '-inf', now)
local records = {}
for _, id in ipairs(redis.call('ZRANGE', workers, 0, -1)) do
  local fields = redis.call('HGETALL', recordPrefix .. id)
  if #fields > 0 then records[#records + 1] = fields end
end
return { string.format('%.0f', now), records }
