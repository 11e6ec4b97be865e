-- batches.lua: a batch's counters: counting job ends (and cancelled or
-- recently warmed URLs) in a batch, keeping its failures, and finishing it
-- once its counters add up to its total.
--
-- @include context masking events

-- The keys of a batch beside its hash, which expire with it once it finished.
local BATCH_SUFFIXES = { '', ':events', ':jobs', ':failures' }
-- Failures a batch keeps in its `:failures` list (the newest).
local BATCH_FAILURES = 1000

local COUNTERS = { completed = 2, failed = 3, cancelled = 4, dead = 5 }
local COUNTER_NAMES = { 'completed', 'failed', 'cancelled', 'dead' }

-- When a batch that finished at `finishedAt` (ms) expires, with every key
-- of it: one instant, not each key's own EXPIRE (Redis before 7.2 reads the
-- clock again for each command of a script, so two EXPIREs could differ).
local function batchExpiry(finishedAt)
  return integer(finishedAt + Q.retention * 1000)
end

-- Adds `counts` (counter name -> number) to the batch's counters, then
-- marks the batch finished and publishes `batchCompleted` once its counters
-- add up to its total; a finished batch expires after the retention.
-- `failures` (JSON entries, oldest first) go to the head of the batch's
-- `:failures` list, which keeps the newest BATCH_FAILURES.
-- Returns false when the batch no longer exists.
local function tallyInBatch(batch, counts, at, failures)
  local key = batchKey(batch)
  local c = redis.call('HMGET', key, 'total', 'completed', 'failed', 'cancelled', 'dead', 'finishedAt')
  if not c[1] then return false end
  if #failures > 0 then
    redis.call('LPUSH', key .. ':failures', unpack(failures))
    redis.call('LTRIM', key .. ':failures', 0, BATCH_FAILURES - 1)
    if c[6] then redis.call('PEXPIREAT', key .. ':failures', batchExpiry(tonumber(c[6]))) end
  end
  for _, counter in ipairs(COUNTER_NAMES) do
    local count = counts[counter] or 0
    if count ~= 0 then c[COUNTERS[counter]] = tostring(redis.call('HINCRBY', key, counter, count)) end
  end
  if c[6] then return true end
  local ended = (tonumber(c[2]) or 0) + (tonumber(c[3]) or 0) + (tonumber(c[4]) or 0) + (tonumber(c[5]) or 0)
  if ended < (tonumber(c[1]) or 0) then return true end
  redis.call('HSET', key, 'finishedAt', integer(at))
  emit(batch, { 'v', '1', 'type', 'batchCompleted', 'ts', integer(at), 'total', c[1], 'completed', c[2] or '0',
    'failed', c[3] or '0', 'cancelled', c[4] or '0', 'dead', c[5] or '0' }, true)
  for _, suffix in ipairs(BATCH_SUFFIXES) do redis.call('PEXPIREAT', key .. suffix, batchExpiry(at)) end
  -- The index of batches forgets those created longer ago than the retention.
  redis.call('ZREMRANGEBYSCORE', K.batches, '-inf', '(' .. integer(at - Q.retention * 1000))
  return true
end

-- Adds `count` to the batch's `counter` (tallyInBatch); `failure` (JSON, or
-- nil) goes to its failure list.
local function countInBatch(batch, counter, count, at, failure)
  return tallyInBatch(batch, { [counter] = count }, at, { failure })
end

-- The entry of a failed or dead job in its batches' `:failures` lists.
local function failureEntry(job, state, at, code, message)
  return cjson.encode({ job = job.id, url = masked(job.url or ''), state = state, error = code or '',
    message = message or '', at = at })
end
