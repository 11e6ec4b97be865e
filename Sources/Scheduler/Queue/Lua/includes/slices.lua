-- slices.lua: making URLs into jobs a bounded slice per call: staging the
-- URLs of a document too large to make at once, and making the next slice
-- of them into jobs (see staging.lua for the keys and the order).
--
-- @include context jobs staging

-- URLs become jobs at 15 to 60 µs each (more as the queue grows; up to
-- 100 µs on a busy machine with a million queued), so no call makes many:
-- - a call that adds URLs (an enqueue chunk, a small document) makes at
--   most DIRECT_URLS of them into jobs; more are all staged, counted in
--   their batch's total at once, and the next claims make them. A count,
--   not a time: what a call made never depends on the machine's speed.
local DIRECT_URLS = 50
-- - a claim makes at most SLICE_URLS staged URLs into jobs, a chunk at a
--   time, and stops after the chunk that passes the context's
--   `sliceBudgetUs`: so it holds Redis for about the budget and one chunk,
--   however slow making a job has become.
local SLICE_URLS = 100
local SLICE_CHUNK = 20

-- Redis's clock in µs, to measure how long a slice has taken.
local function microseconds()
  local time = redis.call('TIME')
  return time[1] * 1000000 + time[2]
end

-- Whether a slice begun at `started` (microseconds()) has spent its budget.
local function spentBudget(started)
  return Q.sliceBudgetUs > 0 and microseconds() - started >= Q.sliceBudgetUs
end

-- Stages a document: `settings` holds the STAGING_FIELDS (staging.lua) of
-- its jobs (each a string, '' for the default), `fill(urlsKey)` pushes its
-- `count` URLs, in order, to the list `urlsKey` (or renames a filled list
-- to it: parse-end.lua).
local function stageDocument(settings, count, fill)
  local id = tostring(redis.call('INCR', K.sequence))
  local key = stagingKey(id)
  local fields = {}
  for _, name in ipairs(STAGING_FIELDS) do append(fields, { name, settings[name] or '' }) end
  redis.call('HSET', key, unpack(fields))
  fill(key .. ':urls')
  redis.call('RPUSH', STAGING, id)
  redis.call('INCRBY', STAGED, count)
end

-- Stages `urls` for `batch` (queued in `group`, checked against `recent`
-- with `freshFor` seconds as they become jobs), to become jobs a slice at a time.
local function stageURLs(batch, destination, processing, timeout, group, freshFor, urls)
  local settings = { batch = batch, destination = destination, processing = processing, timeout = timeout,
    group = group or '', freshFor = freshFor or '' }
  stageDocument(settings, #urls, function(key)
    for i = 1, #urls, 1000 do redis.call('RPUSH', key, unpack(urls, i, math.min(i + 999, #urls))) end
  end)
end

-- Adds `urls` to `batch` as jobs (addJobs, which counts `addToTotal` in the
-- batch's total): at once when they are at most DIRECT_URLS, else all
-- staged, the batch made and counting them (the call that checked the
-- document spent its time decoding it; the next claims make the slices).
-- `freshFor` is in seconds ('' for none). Returns the number of new jobs
-- made now, how many URLs were staged, and how many counted as recently
-- warmed.
local function addJobsInSlices(batch, priority, destination, processing, urls, addToTotal, timeout, at, group, freshFor)
  if #urls <= DIRECT_URLS then
    local made, recent = addJobs(batch, priority, destination, processing, urls, addToTotal, timeout, at, group,
      (tonumber(freshFor) or 0) * 1000)
    return made, 0, recent
  end
  addJobs(batch, priority, destination, processing, {}, addToTotal, timeout, at, group, 0)
  stageURLs(batch, destination, processing, timeout, group, freshFor, urls)
  return 0, #urls, 0
end

-- Turns the next slice of the oldest staged document into jobs, at its
-- batch's priority now: SLICE_URLS of them, or fewer once the slice has
-- taken `sliceBudgetUs` (at least one chunk, so every call makes progress).
-- False when nothing is staged.
local function expandStagedSlice(at)
  local id = redis.call('LINDEX', STAGING, 0)
  if not id then return false end
  local key = stagingKey(id)
  local values = redis.call('HMGET', key, unpack(STAGING_FIELDS))
  local s = {}
  for i, name in ipairs(STAGING_FIELDS) do s[name] = values[i] end
  local started, made = microseconds(), 0
  local priority = s.batch and (redis.call('HGET', batchKey(s.batch), 'priority') or 'normal')
  while made < SLICE_URLS do
    local urls = redis.call('LPOP', key .. ':urls', math.min(SLICE_CHUNK, SLICE_URLS - made))
    if not urls then break end
    made = made + #urls
    if s.batch then
      redis.call('DECRBY', STAGED, #urls)
      addJobs(s.batch, priority, s.destination or 'disk', s.processing or '', urls, 0, s.timeout or '', at,
        s.group or '', (tonumber(s.freshFor) or 0) * 1000)
    end
    if spentBudget(started) then break end
  end
  if redis.call('EXISTS', key .. ':urls') == 0 then
    redis.call('DEL', key)
    redis.call('LPOP', STAGING)
  end
  return true
end
