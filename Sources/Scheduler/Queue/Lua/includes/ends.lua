-- ends.lua: a job's end. finalize ends a job for good — its state, its
-- events, its batches' counters, the dead-letter set, the throughput, the
-- recent completions, its group's flight — and a tally lets the ends of
-- one call write the keys they share once.
--
-- @include context records events batches dead-letters throughput recent fairness

-- Forgets that the job does its URL's work, so new requests make a new job.
local function releaseWork(job)
  local field = workField(job)
  if redis.call('HGET', K.work, field) == job.id then redis.call('HDEL', K.work, field) end
end

-- A tally gathers what several job ends of one script call add to shared
-- keys — their batches' counters, job sets and failure lists, the leases
-- they leave and the queue's throughput — so that each key is written once
-- per call instead of once per job (finish.lua ends a busy worker's jobs
-- together). Their events are published as each job ends; settleTally
-- writes the rest, batches in the order their first job ended, so a
-- `batchCompleted` still comes after every event of the batch's jobs.
local function newTally()
  return { batches = {}, order = {}, leases = {}, recent = {}, completed = 0, failed = 0, bytes = 0 }
end

-- The tally's entry of `batch`, made on first use.
local function tallyOf(tally, batch)
  local entry = tally.batches[batch]
  if not entry then
    entry = { counts = {}, jobs = {}, failures = {} }
    tally.batches[batch] = entry
    tally.order[#tally.order + 1] = batch
  end
  return entry
end

-- Counts the job's outcome in every batch it serves and publishes `fields`
-- (an event without `batch`) to each; `failure` as countInBatch. With a
-- `tally` the counting waits for settleTally.
local function countInBatches(job, counter, fields, at, failure, tally)
  for _, batch in ipairs(job.batches) do
    -- The event goes first, so that `batchCompleted` is the batch's last.
    -- (A live job's batch exists; should its hash have been deleted by
    -- hand, the stream just created for the event goes too.)
    emit(batch, fields, true)
    local count = job.counts[batch] or 1
    if tally then
      local entry = tallyOf(tally, batch)
      entry.jobs[#entry.jobs + 1] = job.id
      entry.counts[counter] = (entry.counts[counter] or 0) + count
      if failure then entry.failures[#entry.failures + 1] = failure end
    else
      redis.call('SREM', batchKey(batch) .. ':jobs', job.id)
      if not countInBatch(batch, counter, count, at, failure) then
        redis.call('DEL', batchKey(batch) .. ':events')
      end
    end
  end
end

-- Writes what `tally` gathered (newTally).
local function settleTally(tally, at)
  withMembers('ZREM', K.leases, tally.leases)
  for _, batch in ipairs(tally.order) do
    local entry = tally.batches[batch]
    withMembers('SREM', batchKey(batch) .. ':jobs', entry.jobs)
    if not tallyInBatch(batch, entry.counts, at, entry.failures) then
      redis.call('DEL', batchKey(batch) .. ':events')
    end
  end
  addThroughput(tally.completed, tally.failed, tally.bytes, at)
  rememberCompleted(tally.recent, at)
end

-- Ends a job for good: `completed`, `failed`, `dead` or `cancelled`.
-- Failed and dead jobs also go to the dead-letter set and their batches'
-- failure lists; every ended job expires after the retention. Counts the
-- end in the queue's throughput (addThroughput). With a `tally` the
-- writes to keys other jobs share wait for settleTally.
local function finalize(job, state, at, worker, extra, tally)
  local key = jobKey(job.id)
  if job.state == 'queued' then
    unqueueJob(job.id, groupOf(job))
  elseif job.state == 'delayed' then
    redis.call('ZREM', K.delayed, job.id)
  else
    leaveFlight(job)
    if tally then
      tally.leases[#tally.leases + 1] = job.id
    else
      redis.call('ZREM', K.leases, job.id)
    end
  end
  redis.call('HSET', key, 'state', state, 'finishedAt', integer(at), 'lease', '')
  releaseWork(job)
  if state == 'completed' and Q.recentCapacity > 0 then
    local remembered = { integer(at), workDigest(workField(job)) }
    if tally then append(tally.recent, remembered) else rememberCompleted(remembered, at) end
  end
  -- A cancellation is the queue's decision, not a worker's result: its
  -- event never names a worker, whoever acknowledged it.
  if state == 'cancelled' then worker = nil end
  local eventType = state == 'dead' and 'deadLettered' or state
  local fields = append(jobEvent(job, eventType, at, worker), extra or {})
  local code, message, bytes
  for i = 1, #fields - 1, 2 do
    local field = fields[i]
    if field == 'error' then
      code = fields[i + 1]
      redis.call('HSET', key, 'error', code)
    elseif field == 'message' then
      message = fields[i + 1]
      redis.call('HSET', key, 'message', message)
    elseif field == 'bytes' then
      bytes = fields[i + 1]
    end
  end
  local failure = (state == 'failed' or state == 'dead') and failureEntry(job, state, at, code, message) or nil
  countInBatches(job, state, fields, at, failure, tally)
  local completed, failed, size = throughputOf(state, bytes)
  if tally then
    tally.completed, tally.failed, tally.bytes = tally.completed + completed, tally.failed + failed, tally.bytes + size
  else
    addThroughput(completed, failed, size, at)
  end
  if state == 'failed' or state == 'dead' then deadLetter(job.id, at) end
  redis.call('EXPIRE', key, Q.retention)
end
