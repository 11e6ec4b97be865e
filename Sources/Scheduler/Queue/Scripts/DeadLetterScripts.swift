/// Runs dead-lettered jobs again, atomically per call.
///
/// ARGV: how many to take when no ids are given (oldest first), job id…
///
/// A job goes back to the queue as new (attempts and stalls reset, queued at
/// the current time with its priority) and counts again in each of its
/// batches: their `failed`/`dead` counter drops and a finished batch reopens.
/// A dead-lettered intake document is pushed to the intake list again.
/// Returns the number of entries retried.
let retryDeadScript = QueueScript(#"""
local at = now()
local ids = deadLetterIDs()
local retried = 0
local base = tonumber(redis.call('GET', K.clock) or '0')
if base < at * 1000 then base = at * 1000 end
for _, id in ipairs(ids) do
  local job = readJob(id)
  if redis.call('ZREM', K.dead, id) == 1 then retried = retried + 1 end
  if job and (job.state == 'failed' or job.state == 'dead') then
    local key = jobKey(id)
    if job.kind == 'document' then
      redis.call('RPUSH', K.intake, job.document)
      redis.call('DEL', key)
    else
      for _, b in ipairs(job.batches) do
        local bkey = batchKey(b)
        if redis.call('EXISTS', bkey) == 1 then
          redis.call('HINCRBY', bkey, job.state, -(job.counts[b] or 1))
          redis.call('HDEL', bkey, 'finishedAt')
          for _, suffix in ipairs({ '', ':events', ':jobs' }) do redis.call('PERSIST', bkey .. suffix) end
          redis.call('SADD', bkey .. ':jobs', id)
        end
      end
      base = base + 1
      local score = integer(base + bandOffset(BANDS[job.priority] or 2, Q.agingMs))
      redis.call('HSET', key, 'state', 'queued', 'attempts', 0, 'stalls', 0, 'aging', ARGV[7], 'score', score)
      redis.call('HDEL', key, 'error', 'message', 'finishedAt', 'worker', 'lease')
      redis.call('PERSIST', key)
      redis.call('HSETNX', K.work, workField(job), id)
      redis.call('ZADD', K.queue, score, id)
    end
  end
end
redis.call('SET', K.clock, integer(base))
if retried > 0 then wakeIdleWorkers() end
return retried
"""#)

/// Deletes dead-lettered entries for good.
///
/// ARGV: how many to take when no ids are given (oldest first), job id…
/// Returns the number of entries deleted.
let purgeDeadScript = QueueScript(#"""
local ids = deadLetterIDs()
local purged = 0
for _, id in ipairs(ids) do
  if redis.call('ZREM', K.dead, id) == 1 then
    redis.call('DEL', jobKey(id))
    purged = purged + 1
  end
end
return purged
"""#)
