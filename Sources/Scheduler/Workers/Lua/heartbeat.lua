-- heartbeat.lua: writes or refreshes a worker's record and prunes lapsed
-- ids (`WorkerRegistry.beat`; docs/worker-registry.md). Reads Redis's
-- clock (`TIME`), so every worker's timestamps and every reader's idea of
-- "expired" share one clock whatever the hosts' clocks say.
--
-- @include context
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys workers
-- The worker's record is the hash `worker:ID` (workerKey).
--
-- ARGV, after the queue context (context.lua):
--   id           the worker's id
--   lease        how long the record lives without a beat, in ms
--   startedAt    when the worker started (ms), '' on the first beat: now
--   host, pid, version, concurrency, busy, jobs (comma-separated ids)
--                the record's fields, as written
-- The hash lives for one lease (`PEXPIRE`); the id's score is the same
-- expiry. Returns startedAt. Refuses with BAD_ARGUMENT a lease that is not a
-- positive integer.
-- Events: none.
local id, lease, startedAt, host, pid, version, concurrency, busy, jobs = unpack(ARGV, FIRST, FIRST + 8)
lease = tonumber(lease)

local at = now()
if not lease or lease < 1 or lease ~= math.floor(lease) then
  return redis.error_reply('BAD_ARGUMENT lease must be a positive number of ms')
end
if startedAt == '' then startedAt = integer(at) end
local record = workerKey(id)
redis.call('HSET', record, 'id', id, 'host', host, 'pid', pid, 'version', version,
  'concurrency', concurrency, 'busy', busy, 'jobs', jobs, 'startedAt', startedAt,
  'heartbeatAt', integer(at), 'expiresAt', integer(at + lease), 'lease', integer(lease))
redis.call('PEXPIRE', record, lease)
redis.call('ZADD', K.workers, integer(at + lease), id)
redis.call('ZREMRANGEBYSCORE', K.workers, '-inf', at)
return startedAt
