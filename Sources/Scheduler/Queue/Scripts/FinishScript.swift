/// Ends a job, counts it in its batch, publishes its final event and claims
/// the worker's next job, atomically.
///
/// KEYS: leases, events, dead, queue, wake.
/// ARGV: prefix, job id, lease token, state (completed | failed | dead),
///       worker id, source, bytes, error code, message, events max length,
///       batch events max length, retention seconds, jobs to claim next (0 or
///       more), lease milliseconds.
///
/// Refuses with `LEASE_LOST` when the token is not the job's current lease.
/// When the batch's counters reach its total, marks it finished, publishes
/// `batchCompleted` and lets the batch expire after the retention. Claiming
/// the next job in the same call saves a worker a round trip per job and lets
/// every busy slot feed itself. Returns the claimed jobs (see `claimFunctions`).
let finishScript = RedisScript(claimFunctions + "\n" + #"""
local prefix, id, token, state, worker = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local source, bytes, code, message = ARGV[6], ARGV[7], ARGV[8], ARGV[9]
local maxEvents, maxBatchEvents, retention = ARGV[10], ARGV[11], tonumber(ARGV[12])
local jobKey = prefix .. 'job:' .. id
if redis.call('HGET', jobKey, 'lease') ~= token then
  return redis.error_reply('LEASE_LOST job ' .. id .. ' is leased to another worker')
end
local timestamp = now()

redis.call('ZREM', KEYS[1], id)
redis.call('HDEL', jobKey, 'lease')
redis.call('HSET', jobKey, 'state', state, 'finishedAt', timestamp)
if code ~= '' then redis.call('HSET', jobKey, 'error', code, 'message', message) end
if state == 'dead' then redis.call('ZADD', KEYS[3], timestamp, id) end
redis.call('EXPIRE', jobKey, retention)

local job = redis.call('HMGET', jobKey, 'batch', 'url', 'attempts')
local batch = job[1] or ''
local eventType = state == 'dead' and 'deadLettered' or state
local event = { 'v', '1', 'type', eventType, 'job', id, 'batch', batch, 'url', job[2] or '',
  'ts', tostring(timestamp), 'worker', worker, 'attempt', job[3] or '0' }
if source ~= '' then event[#event + 1] = 'source'; event[#event + 1] = source end
if bytes ~= '' then event[#event + 1] = 'bytes'; event[#event + 1] = bytes end
if code ~= '' then
  event[#event + 1] = 'error'; event[#event + 1] = code
  event[#event + 1] = 'message'; event[#event + 1] = message
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', maxEvents, '*', unpack(event))

local batchKey = prefix .. 'batch:' .. batch
if batch ~= '' and redis.call('EXISTS', batchKey) == 1 then
  local batchEvents = batchKey .. ':events'
  redis.call('HINCRBY', batchKey, state, 1)
  redis.call('XADD', batchEvents, 'MAXLEN', '~', maxBatchEvents, '*', unpack(event))
  local c = redis.call('HMGET', batchKey, 'total', 'completed', 'failed', 'cancelled', 'dead', 'finishedAt')
  local total = tonumber(c[1]) or 0
  local done = (tonumber(c[2]) or 0) + (tonumber(c[3]) or 0) + (tonumber(c[4]) or 0) + (tonumber(c[5]) or 0)
  if not c[6] and done >= total then
    redis.call('HSET', batchKey, 'finishedAt', timestamp)
    local summary = { 'v', '1', 'type', 'batchCompleted', 'batch', batch, 'ts', tostring(timestamp),
      'total', c[1], 'completed', c[2], 'failed', c[3], 'cancelled', c[4], 'dead', c[5] }
    redis.call('XADD', KEYS[2], 'MAXLEN', '~', maxEvents, '*', unpack(summary))
    redis.call('XADD', batchEvents, 'MAXLEN', '~', maxBatchEvents, '*', unpack(summary))
    redis.call('EXPIRE', batchKey, retention)
    redis.call('EXPIRE', batchEvents, retention)
  end
end
return claimJobs(prefix, KEYS[4], KEYS[1], KEYS[5], tonumber(ARGV[13]), worker, tonumber(ARGV[14]), timestamp)
"""#)
