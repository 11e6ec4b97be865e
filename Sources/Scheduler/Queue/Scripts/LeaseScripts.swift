/// Gives a claimed job back to the queue without counting an attempt (graceful stop).
///
/// KEYS: queue, leases, wake.  ARGV: prefix, job id, lease token.
/// Returns 1, or 0 when the lease was already lost.
let releaseScript = RedisScript(#"""
local prefix, id, token = ARGV[1], ARGV[2], ARGV[3]
local jobKey = prefix .. 'job:' .. id
if redis.call('HGET', jobKey, 'lease') ~= token then return 0 end
redis.call('ZREM', KEYS[2], id)
redis.call('HDEL', jobKey, 'lease', 'worker')
redis.call('HSET', jobKey, 'state', 'queued')
redis.call('HINCRBY', jobKey, 'attempts', -1)
redis.call('ZADD', KEYS[1], redis.call('HGET', jobKey, 'score'), id)
if redis.call('EXISTS', KEYS[3]) == 0 then redis.call('RPUSH', KEYS[3], '1') end
return 1
"""#)

/// Extends the leases a worker still holds, in one call per tick.
///
/// KEYS: leases.  ARGV: prefix, lease milliseconds, then job id, token pairs.
/// Returns the ids whose lease was lost (taken over after expiring).
let renewScript = RedisScript(#"""
local prefix, leaseMs = ARGV[1], tonumber(ARGV[2])
local time = redis.call('TIME')
local deadline = time[1] * 1000 + math.floor(time[2] / 1000) + leaseMs
local lost = {}
for i = 3, #ARGV, 2 do
  local id, token = ARGV[i], ARGV[i + 1]
  if redis.call('HGET', prefix .. 'job:' .. id, 'lease') == token then
    redis.call('ZADD', KEYS[1], 'XX', deadline, id)
  else
    lost[#lost + 1] = id
  end
end
return lost
"""#)
