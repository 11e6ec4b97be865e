-- jobs.lua: adding URLs to a batch as jobs, for `enqueue` and for intake
-- documents, and the limits both check their arguments against.
--
-- @include context masking priorities records events batches recent fairness wake

-- The largest integer every JSON reader (and Lua's doubles) holds exactly: 2^53 - 1.
local MAX_TOTAL = 9007199254740991
-- The longest job time limit a document may ask for: a day, in seconds.
local MAX_TIMEOUT = 86400
-- The longest `freshFor` a batch may give: 30 days, in seconds (`recent`
-- remembers a completion for the retention at most, 7 days by default).
local MAX_FRESH_FOR = 2592000

-- Whether `value` is a group name: 1-128 characters from letters, digits, . _ -
-- (the rule of batch ids).
local function isGroupName(value)
  return type(value) == 'string' and #value <= 128 and string.match(value, '^[%w%._%-]+$') ~= nil
end

-- Whether `value` is a number holding an integer from `low` to `high`.
local function isInteger(value, low, high)
  return type(value) == 'number' and value >= low and value <= high and value == math.floor(value)
end

-- Adds `urls` to `batch` as jobs. A URL whose work (destination + processing
-- + URL) is already queued, delayed or running joins that job instead: the
-- job counts in this batch too and takes this batch's priority if higher.
-- `addToTotal` grows the batch's total (a chunked enqueue passes the whole
-- count with its first chunk and 0 after, so the batch never completes early).
-- `timeout` is the new jobs' time limit in seconds ('' for the worker's);
-- `group` the group the new jobs are queued in ('' for the batch's own:
-- see queueJobs in fairness.lua).
-- `freshMs` (0 for none: the batch's `freshFor`) makes a URL whose work
-- is not live but completed within the last `freshMs` ms (`recent`, see
-- rememberCompleted in recent.lua) count as completed at once, with source
-- `recent`, without a job.
-- Callers validate every argument first: nothing here may fail half-way.
-- Publishes `started` in `batch` for each running job it joins, `priority`
-- on the control stream for each running job it makes more urgent, and
-- `completed` (no job, source `recent`) for each recently warmed URL.
-- Returns the number of new jobs, and of URLs counted as recently warmed.
local function addJobs(batch, priority, destination, processing, urls, addToTotal, timeout, at, group, freshMs)
  if not group or group == '' then group = batch end
  local key = batchKey(batch)
  if redis.call('HSETNX', key, 'createdAt', integer(at)) == 1 then
    redis.call('HSET', key, 'id', batch, 'priority', priority, 'destination', destination,
      'processing', processing, 'total', 0, 'completed', 0, 'failed', 0, 'cancelled', 0, 'dead', 0)
    -- Above every batch listed so far: newest first, at any speed.
    redis.call('ZADD', K.batches, latestScore(K.batches, at), batch)
  end
  if addToTotal > 0 then
    redis.call('HINCRBY', key, 'total', addToTotal)
    -- Appending to a finished batch reopens it.
    redis.call('HDEL', key, 'finishedAt')
    for _, suffix in ipairs(BATCH_SUFFIXES) do redis.call('PERSIST', key .. suffix) end
  end
  local jobsKey = key .. ':jobs'
  local band = BANDS[priority]
  local offset, aging = bandOffset(band, Q.agingMs), Q.aging
  local base = tonumber(redis.call('GET', K.clock) or '0')
  if base < at * 1000 then base = at * 1000 end
  local batchField = 'b:' .. batch
  local enqueuedAt = integer(at)
  -- Ids for every URL are reserved at once; ids of URLs that join a live job stay unused.
  local nextID = redis.call('INCRBY', K.sequence, #urls) - #urls
  local scored, members, recent = {}, {}, 0
  local freshSince = (freshMs or 0) > 0 and at - freshMs or nil
  for _, url in ipairs(urls) do
    nextID = nextID + 1
    local id = tostring(nextID)
    local field = destination .. '|' .. processing .. '|' .. url
    local warmed = freshSince and redis.call('HEXISTS', K.work, field) == 0 and (lastCompleted(field) or -1) >= freshSince
    if warmed then
      recent = recent + 1
      emit(batch, { 'v', '1', 'type', 'completed', 'url', masked(url), 'ts', enqueuedAt, 'source', 'recent' }, true)
    elseif redis.call('HSETNX', K.work, field, id) == 1 then
      base = base + 1
      local score = integer(base + offset)
      -- (String arguments only: Redis formats a Lua number with printf.)
      local fields = { 'url', url, batchField, '1', 'priority', priority, 'destination', destination,
        'state', 'queued', 'aging', aging, 'score', score, 'enqueuedAt', enqueuedAt, 'group', group }
      if processing ~= '' then append(fields, { 'processing', processing }) end
      if timeout ~= '' then append(fields, { 'timeout', timeout }) end
      redis.call('HSET', jobKey(id), unpack(fields))
      scored[#scored + 1] = score
      scored[#scored + 1] = id
      members[#members + 1] = id
    else
      local existing = redis.call('HGET', K.work, field)
      local jkey = jobKey(existing)
      local joins = redis.call('HINCRBY', jkey, batchField, 1) == 1
      members[#members + 1] = existing
      local current = redis.call('HMGET', jkey, 'priority', 'state', 'score', 'aging', 'attempts', 'worker', 'group')
      if joins and current[2] == 'active' then
        -- The job already runs: this batch gets its `started` too.
        local job = { id = existing, url = url, attempts = current[5] }
        emit(batch, jobEvent(job, 'started', at, current[6]), true)
      end
      if (BANDS[current[1]] or 2) > band then
        local score = rescored({ priority = current[1], score = current[3], aging = current[4] }, priority)
        redis.call('HSET', jkey, 'priority', priority, 'score', score)
        if current[2] == 'queued' then queueJob(existing, score, current[7] or groupOf(readJob(existing))) end
        if current[2] == 'active' then
          xadd(K.control, 10000, { 'v', '1', 'type', 'priority', 'job', existing, 'priority', priority, 'ts', enqueuedAt })
        end
      end
    end
  end
  -- Many members per command, in slices that stay well inside Lua's stack.
  queueJobs(group, scored)
  for i = 1, #members, 1000 do redis.call('SADD', jobsKey, unpack(members, i, math.min(i + 999, #members))) end
  redis.call('SET', K.clock, integer(base))
  if recent > 0 then
    redis.call('HINCRBY', key, 'recent', recent)
    tallyInBatch(batch, { completed = recent }, at, {})
  end
  wakeIdleWorkers()
  return #scored / 2, recent
end
