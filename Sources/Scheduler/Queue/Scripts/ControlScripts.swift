/// Cancels jobs for one batch or for every batch they serve, atomically per
/// call.
///
/// ARGV: batch id ('' to cancel the given jobs in all their batches), the
/// most jobs to take from the batch in this call, job id…
///
/// A job stops counting in the cancelled batch (its URLs count as
/// `cancelled` there, with a `cancelled` event). A job no other batch needs
/// any more is removed from the queue (or the delayed set) at once; if it is
/// running, it is marked `cancelling` and a `cancel` message on the control
/// stream tells its worker to abort it. A job another batch still needs goes
/// on. Returns [jobs cancelled, running jobs signalled, jobs of the batch
/// left to process]; call again while the last is positive. Errors with
/// `NO_BATCH` for an unknown batch.
let cancelScript = QueueScript(#"""
local batch, limit = ARGV[FIRST], tonumber(ARGV[FIRST + 1])
local at = now()
local ids = {}
if batch ~= '' then
  if redis.call('EXISTS', batchKey(batch)) == 0 then return redis.error_reply('NO_BATCH ' .. batch) end
  redis.call('HSETNX', batchKey(batch), 'cancelledAt', integer(at))
  ids = redis.call('SPOP', batchKey(batch) .. ':jobs', limit)
else
  for i = FIRST + 2, #ARGV do ids[#ids + 1] = ARGV[i] end
end
local cancelled, signalled = 0, 0
for _, id in ipairs(ids) do
  local job = readJob(id)
  if job and isLive(job.state) then
    local targets = batch ~= '' and { batch } or job.batches
    local remaining = #job.batches
    local fields = jobEvent(job, 'cancelled', at, '')
    for _, b in ipairs(targets) do
      local count = job.counts[b]
      if count then
        remaining = remaining - 1
        redis.call('HDEL', jobKey(id), 'b:' .. b)
        redis.call('SREM', batchKey(b) .. ':jobs', id)
        if redis.call('EXISTS', batchKey(b)) == 1 then
          emit(b, fields, true)
          countInBatch(b, 'cancelled', count, at)
        end
      end
    end
    if remaining <= 0 then
      cancelled = cancelled + 1
      if job.state == 'active' then
        releaseWork(job)
        redis.call('HSET', jobKey(id), 'state', 'cancelling')
        xadd(K.control, 10000, { 'v', '1', 'type', 'cancel', 'job', id, 'lease', job.lease or '', 'ts', integer(at) })
        signalled = signalled + 1
      else
        job.batches = {}
        finalize(job, 'cancelled', at, '', {})
      end
    end
  end
end
local left = batch ~= '' and redis.call('SCARD', batchKey(batch) .. ':jobs') or 0
return { cancelled, signalled, left }
"""#)

/// Changes the priority of a batch's jobs or of single jobs.
///
/// ARGV: batch id ('' for single jobs), priority, job id…
///
/// For a batch, the batch's own priority changes and each of its jobs takes
/// the highest priority of the batches it serves (a job shared with a more
/// urgent batch keeps that batch's priority). Single jobs take the priority
/// as given. Queued jobs move in the queue at once; running jobs are told
/// through the control stream. Returns the number of jobs changed.
let priorityScript = QueueScript(#"""
local batch, priority = ARGV[FIRST], ARGV[FIRST + 1]
if not BANDS[priority] then return redis.error_reply('BAD_PRIORITY ' .. priority) end
local at = now()
local ids = {}
if batch ~= '' then
  if redis.call('EXISTS', batchKey(batch)) == 0 then return redis.error_reply('NO_BATCH ' .. batch) end
  redis.call('HSET', batchKey(batch), 'priority', priority)
  ids = redis.call('SMEMBERS', batchKey(batch) .. ':jobs')
else
  for i = FIRST + 2, #ARGV do ids[#ids + 1] = ARGV[i] end
end
local changed = 0
for _, id in ipairs(ids) do
  local job = readJob(id)
  if job and isLive(job.state) then
    local wanted = priority
    if batch ~= '' then
      for _, b in ipairs(job.batches) do
        local other = redis.call('HGET', batchKey(b), 'priority')
        if other and BANDS[other] and BANDS[other] < BANDS[wanted] then wanted = other end
      end
    end
    if wanted ~= job.priority then
      local score = rescored(job, wanted)
      redis.call('HSET', jobKey(id), 'priority', wanted, 'score', score)
      if job.state == 'queued' then redis.call('ZADD', K.queue, 'XX', score, id) end
      if job.state == 'active' then
        xadd(K.control, 10000, { 'v', '1', 'type', 'priority', 'job', id, 'priority', wanted, 'ts', integer(at) })
      end
      changed = changed + 1
    end
  end
end
return changed
"""#)
