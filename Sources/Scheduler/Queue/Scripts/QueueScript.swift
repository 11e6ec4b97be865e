import RedisKit

/// A queue transition: one Lua script made of the queue's Lua library
/// (`queueLibrary`, `workLibrary`) and its own body.
///
/// Redis compiles the library with every script once (EVALSHA sends only the
/// hash afterwards), so sharing it costs nothing per call.
struct QueueScript: Sendable {
    let script: RedisScript

    init(_ body: String) {
        script = RedisScript(queueLibrary + "\n" + workLibrary + "\n" + body)
    }
}

/// Adds URLs to a batch as jobs (coalescing identical work), atomically.
///
/// ARGV: batch id, priority, destination, processing spec ('' for none),
/// count to add to the batch total, job time limit in seconds ('' for the
/// worker's), URL…  Returns the number of new jobs. Refuses arguments
/// `JobQueue.enqueue` would never send with `BAD_ARGUMENT`, before writing
/// anything.
let enqueueScript = QueueScript(#"""
local priority, destination, addToTotal, timeout = ARGV[FIRST + 1], ARGV[FIRST + 2], tonumber(ARGV[FIRST + 4]), ARGV[FIRST + 5]
if not BANDS[priority] or (destination ~= 'disk' and destination ~= 'processed')
  or not isInteger(addToTotal, 0, MAX_TOTAL) or (timeout ~= '' and not isInteger(tonumber(timeout), 1, MAX_TIMEOUT)) then
  return redis.error_reply('BAD_ARGUMENT priority, destination, total or timeout')
end
local urls = {}
for i = FIRST + 6, #ARGV do urls[#urls + 1] = ARGV[i] end
return addJobs(ARGV[FIRST], priority, destination, ARGV[FIRST + 3], urls, addToTotal, timeout, now())
"""#)

/// Claims up to N jobs for a worker (see `claimJobs`).
///
/// ARGV: count, worker id.  Returns [claimed jobs, housekeeping report].
let claimScript = QueueScript(#"""
return { claimJobs(tonumber(ARGV[FIRST]), ARGV[FIRST + 1], now()), REPORT }
"""#)

/// Ends a job and claims the worker's next ones, atomically.
///
/// ARGV: job id, lease token, state (completed | failed | dead | cancelled |
/// retry), worker id, source, bytes, error code, message, retry delay ms,
/// jobs to claim next.
///
/// Refuses with `LEASE_LOST` when the token is not the job's current lease.
/// `retry` parks the job in the delayed set for the given delay with a
/// `delayed` event; the other states end it (see `finalize`). A job that was
/// cancelled while it ran (state `cancelling`) ends as cancelled whatever
/// the worker reports, unless it completed. Returns [claimed jobs,
/// housekeeping report].
let finishScript = QueueScript(#"""
local id, token, state, worker = ARGV[FIRST], ARGV[FIRST + 1], ARGV[FIRST + 2], ARGV[FIRST + 3]
local source, bytes, code, message = ARGV[FIRST + 4], ARGV[FIRST + 5], ARGV[FIRST + 6], masked(ARGV[FIRST + 7])
local delay, claimNext = tonumber(ARGV[FIRST + 8]), tonumber(ARGV[FIRST + 9])
local job = readJob(id)
if not job or job.lease ~= token then
  return redis.error_reply('LEASE_LOST job ' .. id .. ' is leased to another worker')
end
local at = now()
if job.state == 'cancelling' and state ~= 'completed' then state = 'cancelled' end
if state == 'retry' then
  local key = jobKey(id)
  redis.call('ZREM', K.leases, id)
  redis.call('HDEL', key, 'lease', 'worker')
  redis.call('HSET', key, 'state', 'delayed', 'error', code, 'message', message)
  redis.call('ZADD', K.delayed, at + delay, id)
  local fields = append(jobEvent(job, 'delayed', at, worker),
    { 'error', code, 'message', message, 'retry_in_ms', tostring(delay) })
  for _, batch in ipairs(job.batches) do emit(batch, fields) end
else
  local extra = {}
  if source ~= '' then append(extra, { 'source', source }) end
  if bytes ~= '' then append(extra, { 'bytes', bytes }) end
  if code ~= '' then append(extra, { 'error', code, 'message', message }) end
  finalize(job, state, at, worker, extra)
end
return { claimJobs(claimNext, worker, at), REPORT }
"""#)

/// Gives a claimed job back to the queue at its score without counting an
/// attempt (graceful stop, lost lease). A job cancelled while it ran ends as
/// cancelled instead.
///
/// ARGV: job id, lease token.  Returns 1, or 0 when the lease was already lost.
let releaseScript = QueueScript(#"""
local id, token = ARGV[FIRST], ARGV[FIRST + 1]
local job = readJob(id)
if not job or job.lease ~= token then return 0 end
local at = now()
if job.state == 'cancelling' then
  finalize(job, 'cancelled', at, job.worker, {})
  return 1
end
local key = jobKey(id)
redis.call('ZREM', K.leases, id)
redis.call('HDEL', key, 'lease', 'worker')
redis.call('HSET', key, 'state', 'queued')
redis.call('HINCRBY', key, 'attempts', -1)
redis.call('ZADD', K.queue, job.score, id)
wakeIdleWorkers()
return 1
"""#)

/// Extends the leases a worker holds, in one call per tick, then recovers
/// other workers' expired leases and promotes due retries (so a cluster of
/// busy workers still recovers a dead one's jobs).
///
/// ARGV: job id, token pairs.  Returns [lost ids, ids cancelled while
/// running, housekeeping report].
let renewScript = QueueScript(#"""
local at = now()
local lost, cancelled = {}, {}
-- The caller's own leases first: one its renewal reaches late, but before
-- anyone else took the job over, is still its own.
for i = FIRST, #ARGV, 2 do
  local id, token = ARGV[i], ARGV[i + 1]
  local state = redis.call('HMGET', jobKey(id), 'lease', 'state', 'expiredLease', 'claims')
  if state[1] ~= token then
    -- Lost when this lease expired or the job was claimed again since
    -- (tokens are WORKER/CLAIM); a job that ended or was released through
    -- this lease (its finish crossed the renewal) is not.
    local claim = tonumber(string.match(token, '/(%d+)$')) or 0
    if state[3] == token or (tonumber(state[4]) or 0) > claim or (state[1] and state[1] ~= '') then
      lost[#lost + 1] = id
    end
  else
    redis.call('ZADD', K.leases, 'XX', integer(at + Q.leaseMs), id)
    if state[2] == 'cancelling' then cancelled[#cancelled + 1] = id end
  end
end
promoteDelayed(at, 100)
sweepLeases(at, 100)
return { lost, cancelled, REPORT }
"""#)
