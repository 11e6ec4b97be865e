-- list-workers.lua: lists live workers: prunes lapsed ids, then reads each
-- live one's hash (`WorkerRegistry.workers`).
--
-- @include context
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys workers
-- Each worker's record is the hash `worker:ID` (workerKey).
--
-- ARGV, after the queue context (context.lua): none.
-- Returns [now (ms, Redis clock), [HGETALL reply…]]; an id whose hash is
-- already gone is skipped.
-- Events: none.
local at = now()
redis.call('ZREMRANGEBYSCORE', K.workers, '-inf', at)
local records = {}
for _, id in ipairs(redis.call('ZRANGE', K.workers, 0, -1)) do
  local fields = redis.call('HGETALL', workerKey(id))
  if #fields > 0 then records[#records + 1] = fields end
end
return { integer(at), records }
