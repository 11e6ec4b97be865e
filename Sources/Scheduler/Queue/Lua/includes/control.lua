-- control.lua: the queue's control operations — cancel, priority,
-- dead-letter retry and purge, pause and resume — shared by the scripts
-- `warmer cancel`, `priority` and `dead retry`/`purge` run (cancel.lua,
-- priority.lua, dead-retry.lua, dead-purge.lua) and by the control documents
-- any client pushes onto `warmer:{Q}:commands` (control-document.lua), so
-- that both make exactly the same checks and changes.
--
-- @include context priorities records events batches fairness ends wake staging

-- Cancels `ids`: in `batch` only, or ('') in every batch they serve. A job
-- stops counting in the cancelled batch (its URLs count as `cancelled` there,
-- with a `cancelled` event). A job no other batch needs any more is removed
-- from the queue (or the delayed set) at once; if it is running, it is marked
-- `cancelling` and a `cancel` message on the control stream tells its worker
-- to abort it. A job another batch still needs goes on.
-- Returns jobs cancelled, running jobs signalled.
local function cancelJobs(batch, ids, at)
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
  return cancelled, signalled
end

-- Cancels up to `limit` of batch `batch`'s jobs (see `cancelJobs`), marking
-- the batch cancelled. Returns jobs cancelled, running jobs signalled, jobs
-- of the batch left to cancel, and whether the batch had already finished
-- (then nothing is changed, `cancelledAt` included: 0, 0, 0, true); nil for
-- an unknown batch.
local function cancelBatchChunk(batch, limit, at)
  if redis.call('EXISTS', batchKey(batch)) == 0 then return nil end
  if redis.call('HEXISTS', batchKey(batch), 'finishedAt') == 1 then return 0, 0, 0, true end
  redis.call('HSETNX', batchKey(batch), 'cancelledAt', integer(at))
  -- URLs staged to become jobs are cancelled before they do.
  local staged = dropStaged(batch)
  if staged > 0 then countInBatch(batch, 'cancelled', staged, at) end
  local ids = redis.call('SPOP', batchKey(batch) .. ':jobs', limit)
  local cancelled, signalled = cancelJobs(batch, ids, at)
  return cancelled, signalled, redis.call('SCARD', batchKey(batch) .. ':jobs'), false
end

-- Gives `ids` a new priority. For a batch (`batch` not ''), each job takes
-- the highest priority of the batches it serves (a job shared with a more
-- urgent batch keeps that batch's priority; set the batch's own first, with
-- `setBatchPriority`); single jobs take `priority` as given. Queued jobs
-- move in the queue at once; running jobs are told through the control
-- stream. Returns the number of jobs changed.
local function prioritizeJobs(batch, priority, ids, at)
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
        if job.state == 'queued' then queueJob(id, score, groupOf(job)) end
        if job.state == 'active' then
          xadd(K.control, 10000, { 'v', '1', 'type', 'priority', 'job', id, 'priority', wanted, 'ts', integer(at) })
        end
        changed = changed + 1
      end
    end
  end
  return changed
end

-- Sets batch `batch`'s own priority; false for an unknown batch.
local function setBatchPriority(batch, priority)
  if redis.call('EXISTS', batchKey(batch)) == 0 then return false end
  redis.call('HSET', batchKey(batch), 'priority', priority)
  return true
end

-- Runs dead letters `ids` again. A job goes back to the queue as new
-- (attempts and stalls reset, queued at the current time with its priority)
-- and counts again in each of its batches: their `failed`/`dead` counter
-- drops and a finished batch reopens. A dead-lettered intake document is
-- pushed to the intake list again, a control document to the commands list.
-- Returns the number retried and the ids that were no dead letters.
local function retryDeadLetters(ids, at)
  local retried, unknown = 0, {}
  local base = tonumber(redis.call('GET', K.clock) or '0')
  if base < at * 1000 then base = at * 1000 end
  for _, id in ipairs(ids) do
    local job = readJob(id)
    if redis.call('ZREM', K.dead, id) == 1 then retried = retried + 1 else unknown[#unknown + 1] = id end
    if job and (job.state == 'failed' or job.state == 'dead') then
      local key = jobKey(id)
      if job.kind == 'document' or job.kind == 'control' then
        redis.call('RPUSH', job.kind == 'control' and K.commands or K.intake, job.document)
        redis.call('DEL', key)
      else
        for _, b in ipairs(job.batches) do
          local bkey = batchKey(b)
          if redis.call('EXISTS', bkey) == 1 then
            redis.call('HINCRBY', bkey, job.state, -(job.counts[b] or 1))
            redis.call('HDEL', bkey, 'finishedAt')
            for _, suffix in ipairs(BATCH_SUFFIXES) do redis.call('PERSIST', bkey .. suffix) end
            redis.call('SADD', bkey .. ':jobs', id)
          end
        end
        base = base + 1
        local score = integer(base + bandOffset(BANDS[job.priority] or 2, Q.agingMs))
        redis.call('HSET', key, 'state', 'queued', 'attempts', 0, 'stalls', 0, 'aging', Q.aging, 'score', score)
        redis.call('HDEL', key, 'error', 'message', 'finishedAt', 'worker', 'lease')
        redis.call('PERSIST', key)
        redis.call('HSETNX', K.work, workField(job), id)
        queueJob(id, score, groupOf(job))
      end
    end
  end
  redis.call('SET', K.clock, integer(base))
  if retried > 0 then wakeIdleWorkers() end
  return retried, unknown
end

-- Deletes dead letters `ids` for good. Returns the number deleted and the
-- ids that were no dead letters.
local function purgeDeadLetters(ids)
  local purged, unknown = 0, {}
  for _, id in ipairs(ids) do
    if redis.call('ZREM', K.dead, id) == 1 then
      redis.call('DEL', jobKey(id))
      purged = purged + 1
    else
      unknown[#unknown + 1] = id
    end
  end
  return purged, unknown
end

local function pauseQueue()
  redis.call('HSET', K.config, 'paused', '1')
end

-- Resumes a paused queue and wakes idle workers.
local function resumeQueue()
  redis.call('HDEL', K.config, 'paused')
  redis.call('RPUSH', K.intake, WAKE)
end

-- The dead letters a retry or purge acts on: `ids` when there are any, or
-- else the oldest `count` of the set.
local function deadLetterIDs(count, ids)
  if #ids > 0 then return ids end
  return redis.call('ZRANGE', K.dead, 0, count - 1)
end
