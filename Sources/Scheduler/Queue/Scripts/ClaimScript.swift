/// Lua shared by the claim and finish scripts: `now()` and `claimJobs`.
///
/// `claimJobs` first re-queues up to 100 jobs whose lease expired (their
/// worker died or stalled), at their original score, then pops up to `count`
/// jobs in priority order. Each claimed job gets a fresh lease token (worker
/// id + claim number) and a lease deadline. When jobs remain queued, it
/// leaves the wake marker so that another idle worker wakes too. It returns
/// an array of [id, url, batch, priority, destination, attempt, token,
/// processing].
let claimFunctions = #"""
local function now()
  local time = redis.call('TIME')
  return time[1] * 1000 + math.floor(time[2] / 1000)
end

local function claimJobs(prefix, queueKey, leasesKey, wakeKey, count, worker, leaseMs, at)
  local expired = redis.call('ZRANGEBYSCORE', leasesKey, '-inf', at, 'LIMIT', 0, 100)
  for _, id in ipairs(expired) do
    local jobKey = prefix .. 'job:' .. id
    redis.call('ZREM', leasesKey, id)
    local score = redis.call('HGET', jobKey, 'score')
    if score then
      redis.call('HSET', jobKey, 'state', 'queued')
      redis.call('HDEL', jobKey, 'lease', 'worker')
      redis.call('ZADD', queueKey, score, id)
    end
  end

  local claimed = {}
  if count < 1 then return claimed end
  local popped = redis.call('ZPOPMIN', queueKey, count)
  for i = 1, #popped, 2 do
    local id = popped[i]
    local jobKey = prefix .. 'job:' .. id
    local fields = redis.call('HMGET', jobKey, 'url', 'batch', 'priority', 'destination', 'processing')
    local attempt = redis.call('HINCRBY', jobKey, 'attempts', 1)
    local token = worker .. '/' .. redis.call('HINCRBY', jobKey, 'claims', 1)
    redis.call('HSET', jobKey, 'state', 'active', 'worker', worker, 'lease', token, 'claimedAt', at)
    redis.call('ZADD', leasesKey, at + leaseMs, id)
    claimed[#claimed + 1] = { id, fields[1] or '', fields[2] or '', fields[3] or '', fields[4] or '', attempt, token,
      fields[5] or '' }
  end

  if redis.call('ZCARD', queueKey) > 0 then
    if redis.call('EXISTS', wakeKey) == 0 then redis.call('RPUSH', wakeKey, '1') end
  else
    redis.call('DEL', wakeKey)
  end
  return claimed
end
"""#

/// Claims up to N jobs in priority order and leases them to a worker, atomically.
///
/// KEYS: queue, leases, wake.
/// ARGV: prefix, count, worker id, lease milliseconds.
/// Returns the claimed jobs (see `claimFunctions`).
let claimScript = RedisScript(claimFunctions + "\n" + #"""
return claimJobs(ARGV[1], KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), now())
"""#)
