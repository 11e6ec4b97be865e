-- slices.lua: staging the URLs of a large document past its first slice,
-- and making the next slice of them into jobs (see staging.lua for the keys
-- and the order).
--
-- @include jobs staging

-- The most URLs one call turns into jobs: 15 to 60 µs each (more as the
-- queue grows), so a slice holds Redis for a few milliseconds.
local SLICE_URLS = 100

-- Stages a document: `settings` holds the STAGING_FIELDS (staging.lua) of
-- its jobs (each a string, '' for the default), `fill(urlsKey)` pushes its
-- `count` URLs, in order, to the list `urlsKey` (or renames a filled list
-- to it: parsed.lua).
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
-- batch's total): at once when they fit in a slice, else all staged, the
-- batch made and counting them (the call that checked the document spent
-- its time decoding it; the next claims make the slices). `freshFor` is
-- in seconds ('' for none). Returns the number of new jobs made now, how
-- many URLs were staged, and how many counted as recently warmed.
local function addJobsInSlices(batch, priority, destination, processing, urls, addToTotal, timeout, at, group, freshFor)
  if #urls <= SLICE_URLS then
    local made, recent = addJobs(batch, priority, destination, processing, urls, addToTotal, timeout, at, group,
      (tonumber(freshFor) or 0) * 1000)
    return made, 0, recent
  end
  addJobs(batch, priority, destination, processing, {}, addToTotal, timeout, at, group, 0)
  stageURLs(batch, destination, processing, timeout, group, freshFor, urls)
  return 0, #urls, 0
end

-- Turns the next slice of the oldest staged document into jobs, at its
-- batch's priority now; false when nothing is staged.
local function expandStagedSlice(at)
  local id = redis.call('LINDEX', STAGING, 0)
  if not id then return false end
  local key = stagingKey(id)
  local values = redis.call('HMGET', key, unpack(STAGING_FIELDS))
  local s = {}
  for i, name in ipairs(STAGING_FIELDS) do s[name] = values[i] end
  local urls = redis.call('LPOP', key .. ':urls', SLICE_URLS)
  if urls and s.batch then
    redis.call('DECRBY', STAGED, #urls)
    local priority = redis.call('HGET', batchKey(s.batch), 'priority') or 'normal'
    addJobs(s.batch, priority, s.destination or 'disk', s.processing or '', urls, 0, s.timeout or '', at, s.group or '',
      (tonumber(s.freshFor) or 0) * 1000)
  end
  if redis.call('EXISTS', key .. ':urls') == 0 then
    redis.call('DEL', key)
    redis.call('LPOP', STAGING)
  end
  return true
end
