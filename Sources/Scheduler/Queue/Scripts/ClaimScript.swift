/// Claims up to N jobs in priority order and leases them to a worker, atomically.
///
/// KEYS: queue, leases, wake.
/// ARGV: prefix, count, worker id, lease milliseconds.
///
/// First re-queues up to 100 jobs whose lease expired (their worker died or
/// stalled), at their original score. Each claimed job gets a fresh lease
/// token (worker id + claim number) and a lease deadline. When jobs remain
/// queued, leaves the wake marker so that another idle worker wakes too.
/// Returns an array of [id, url, batch, priority, destination, attempt, token].
let claimScript = RedisScript(#"""
local prefix, count, worker, leaseMs = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)

local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 100)
for _, id in ipairs(expired) do
  local jobKey = prefix .. 'job:' .. id
  redis.call('ZREM', KEYS[2], id)
  local score = redis.call('HGET', jobKey, 'score')
  if score then
    redis.call('HSET', jobKey, 'state', 'queued')
    redis.call('HDEL', jobKey, 'lease', 'worker')
    redis.call('ZADD', KEYS[1], score, id)
  end
end

local claimed = {}
local popped = redis.call('ZPOPMIN', KEYS[1], count)
for i = 1, #popped, 2 do
  local id = popped[i]
  local jobKey = prefix .. 'job:' .. id
  local fields = redis.call('HMGET', jobKey, 'url', 'batch', 'priority', 'destination')
  local attempt = redis.call('HINCRBY', jobKey, 'attempts', 1)
  local token = worker .. '/' .. redis.call('HINCRBY', jobKey, 'claims', 1)
  redis.call('HSET', jobKey, 'state', 'active', 'worker', worker, 'lease', token, 'claimedAt', now)
  redis.call('ZADD', KEYS[2], now + leaseMs, id)
  claimed[#claimed + 1] = { id, fields[1] or '', fields[2] or '', fields[3] or '', fields[4] or '', attempt, token }
end

if redis.call('ZCARD', KEYS[1]) > 0 then
  if redis.call('EXISTS', KEYS[3]) == 0 then redis.call('RPUSH', KEYS[3], '1') end
else
  redis.call('DEL', KEYS[3])
end
return claimed
"""#)
