-- heartbeat.lua: writes or refreshes a worker's record and prunes lapsed
-- ids (`WorkerRegistry.beat`; docs/worker-registry.md). Reads Redis's
-- clock (`TIME`), so every worker's timestamps and every reader's idea of
-- "expired" share one clock whatever the hosts' clocks say.
--
-- KEYS:
--   workers  the queue's `workers` sorted set
--   record   the worker's hash, `warmer:{Q}:worker:ID`
-- ARGV:
--   id           the worker's id
--   lease        how long the record lives without a beat, in ms
--   startedAt    when the worker started (ms), '' on the first beat: now
--   host, pid, version, concurrency, busy, jobs (comma-separated ids)
--                the record's fields, as written
-- The hash lives for one lease (`PEXPIRE`); the id's score is the same
-- expiry. Returns startedAt. Refuses with BAD_ARGUMENT a lease that is not a
-- positive integer.
-- Events: none.
local workers, record = KEYS[1], KEYS[2]
local id, lease, startedAt, host, pid, version, concurrency, busy, jobs = unpack(ARGV, 1, 9)
lease = tonumber(lease)

local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
if not lease or lease < 1 or lease ~= math.floor(lease) then
  return redis.error_reply('BAD_ARGUMENT lease must be a positive number of ms')
end
if startedAt == '' then startedAt = string.format('%.0f', now) end
redis.call('HSET', record, 'id', id, 'host', host, 'pid', pid, 'version', version,
  'concurrency', concurrency, 'busy', busy, 'jobs', jobs, 'startedAt', startedAt,
  'heartbeatAt', string.format('%.0f', now), 'expiresAt', string.format('%.0f', now + lease),
  'lease', string.format('%.0f', lease))
redis.call('PEXPIRE', record, lease)
redis.call('ZADD', workers, string.format('%.0f', now + lease), id)
redis.call('ZREMRANGEBYSCORE', workers, '-inf', now)
return startedAt
