-- queue.lua: the library every queue script starts with (after the `K` table
-- `QueueScript` writes from the script's `@keys`): the call context, and the
-- helpers that read jobs, publish events, count outcomes in batches and end
-- jobs.
--
-- Context: every queue script gets the same first eleven arguments (built
-- once per queue by `JobQueue`); its own arguments start at ARGV[FIRST].
--   ARGV[1] prefix          the queue's prefix, `warmer:{NAME}:`; the keys of
--                           one job or batch are built from it (jobKey,
--                           batchKey: same hash tag as every declared key)
--   ARGV[2] maxEvents       approximate length of the queue's event stream
--   ARGV[3] maxBatchEvents  approximate length of each batch's event stream
--   ARGV[4] retention       seconds an ended job or finished batch stays
--   ARGV[5] leaseMs         a claim's lease, in ms
--   ARGV[6] maxStalls       expired leases a job survives before dead-lettering
--   ARGV[7] agingMs         the wait one priority band is worth, in ms (0: strict)
--   ARGV[8] recentCapacity  completed works remembered for `freshFor` (0: none)
--   ARGV[9] burst           the head start of a newly active group, in claims
--                           (fair queueing: refreshGroup; 0: none)
--   ARGV[10] largeDocuments 'worker': the client's claims leave large intake
--                           documents to it to parse (parsing.lua); '': Redis
--                           decodes every document
--   ARGV[11] sliceBudgetUs  how long making one slice of staged URLs into jobs
--                           may take, in µs (slices.lua; 0: no limit, a
--                           whole slice each call)
--
-- K: the queue's fixed keys the script declared, by name (`K.queue`,
-- `K.leases`…; `QueueKeys.Fixed` in Swift holds the layout). A script that
-- may end a job (finalize) declares `metrics` and `metricsSeconds`.
local Q = {
  prefix = ARGV[1], maxEvents = ARGV[2], maxBatchEvents = ARGV[3], retention = tonumber(ARGV[4]),
  leaseMs = tonumber(ARGV[5]), maxStalls = tonumber(ARGV[6]), agingMs = tonumber(ARGV[7]),
  largeDocuments = ARGV[10], sliceBudgetUs = tonumber(ARGV[11]) or 0,
  -- The aging as sent, for job hashes (Redis formats a Lua number with printf).
  aging = ARGV[7], recentCapacity = tonumber(ARGV[8]) or 0, burst = math.max(0, tonumber(ARGV[9]) or 0),
}
local FIRST = 12
local WAKE = 'wake'
local BANDS = { veryHigh = 0, high = 1, normal = 2, low = 3, veryLow = 4 }
-- With aging off, a band is worth ~31 years of waiting: strict priorities.
local STRICT_BAND = 1000000000000000
-- The keys of a batch beside its hash, which expire with it once it finished.
local BATCH_SUFFIXES = { '', ':events', ':jobs', ':failures' }
-- Failures a batch keeps in its `:failures` list (the newest).
local BATCH_FAILURES = 1000
-- Finished seconds of throughput kept in `metricsSeconds` (15 minutes).
local METRICS_SECONDS = 900

local function now()
  local time = redis.call('TIME')
  return time[1] * 1000 + math.floor(time[2] / 1000)
end

local function jobKey(id) return Q.prefix .. 'job:' .. id end
local function batchKey(id) return Q.prefix .. 'batch:' .. id end
local function integer(value) return string.format('%.0f', value) end

-- `text` with the password (or lone user name) of every URL in it replaced
-- by `***`: `http://user:***@host/`. The rule of `URLCredentials` in Swift
-- (URLCredentialsDifferentialTests checks both agree): a URL starts at a
-- `:` followed by one or more `/` or `\/` (or the `:` of a lone `http` or
-- `https` scheme, any case, with no slash: `http:user:pw@host`, which curl
-- reads as `http://user:pw@host`); its authority runs to the first
-- `/`, `?` or `#`; the userinfo is what comes before the authority's last
-- `@`, masked after its first `:` (entirely when it has none).
local SLASH, BACKSLASH, COLON, AT = 47, 92, 58, 64
local function authorityStart(text, anchor)
  if string.byte(text, anchor) ~= COLON then return nil end
  local index = anchor + 1
  while true do
    local byte = string.byte(text, index)
    if byte == SLASH then
      index = index + 1
    elseif byte == BACKSLASH and string.byte(text, index + 1) == SLASH then
      index = index + 2
    else
      break
    end
  end
  if index > anchor + 1 then return index end
  for _, scheme in ipairs({ 'https', 'http' }) do
    local start = anchor - #scheme
    if start >= 1 and string.lower(string.sub(text, start, anchor - 1)) == scheme then
      if start == 1 or not string.find(string.sub(text, start - 1, start - 1), '^[%w+.-]') then return anchor + 1 end
      return nil
    end
  end
  return nil
end
local function masked(text)
  if not text or not string.find(text, '@', 1, true) then return text end
  local parts = {}
  local copied = 1
  local index = string.find(text, ':', 1, true)
  while index do
    local start = authorityStart(text, index)
    if not start then
      index = index + 1
    else
      local stop = string.find(text, '[/?#]', start) or (#text + 1)
      local lastAt, colon
      for position = start, stop - 1 do
        local byte = string.byte(text, position)
        if byte == AT then
          lastAt = position
        elseif byte == COLON and not colon then
          colon = position
        end
      end
      if not lastAt then
        index = start
      else
        local keep = (colon and colon < lastAt) and colon or (start - 1)
        parts[#parts + 1] = string.sub(text, copied, keep)
        parts[#parts + 1] = '***'
        copied = lastAt
        index = lastAt
      end
    end
    index = string.find(text, ':', index, true)
  end
  parts[#parts + 1] = string.sub(text, copied)
  return table.concat(parts)
end

-- A queued job's score: its arrival (in µs of the queue clock) plus a
-- handicap of `agingMs` per band. A job waiting longer than the handicap
-- between two bands overtakes newer jobs of the higher band: no starvation.
local function bandOffset(band, agingMs)
  if agingMs <= 0 then return band * STRICT_BAND end
  return band * agingMs * 1000
end

-- The score of a job (fields `score`, `priority`, `aging`) moved to `priority`.
local function rescored(job, priority)
  local aging = tonumber(job.aging) or Q.agingMs
  local arrival = tonumber(job.score) - bandOffset(BANDS[job.priority] or 2, aging)
  return integer(arrival + bandOffset(BANDS[priority] or 2, aging))
end

-- The job hash as a table; `batches` lists the batches it counts in and
-- `counts[batch]` how many of that batch's URLs it serves.
local function readJob(id)
  local flat = redis.call('HGETALL', jobKey(id))
  if #flat == 0 then return nil end
  local job = { id = id, batches = {}, counts = {} }
  local byte = string.byte
  for i = 1, #flat, 2 do
    local field, value = flat[i], flat[i + 1]
    local first, second = byte(field, 1, 2)
    if first == 98 and second == 58 then -- 'b:'
      local batch = string.sub(field, 3)
      job.batches[#job.batches + 1] = batch
      job.counts[batch] = tonumber(value)
    else
      job[field] = value
    end
  end
  return job
end

local function workField(job)
  return (job.destination or '') .. '|' .. (job.processing or '') .. '|' .. (job.url or '')
end

-- Forgets that the job does its URL's work, so new requests make a new job.
local function releaseWork(job)
  local field = workField(job)
  if redis.call('HGET', K.work, field) == job.id then redis.call('HDEL', K.work, field) end
end

local function isLive(state)
  return state == 'queued' or state == 'active' or state == 'delayed'
end

local function xadd(key, maxLength, fields)
  redis.call('XADD', key, 'MAXLEN', '~', maxLength, '*', unpack(fields))
end

-- Publishes `fields` with `batch` to the queue's stream and the batch's
-- stream (unless the batch hash is gone; `exists` skips that check). With
-- `batch` empty the event has no `batch` field and goes to the queue's
-- stream only.
local function emit(batch, fields, exists)
  if batch == '' then return xadd(K.events, Q.maxEvents, fields) end
  local n = #fields
  fields[n + 1] = 'batch'
  fields[n + 2] = batch
  xadd(K.events, Q.maxEvents, fields)
  if exists or redis.call('EXISTS', batchKey(batch)) == 1 then
    xadd(batchKey(batch) .. ':events', Q.maxBatchEvents, fields)
  end
  fields[n + 1] = nil
  fields[n + 2] = nil
end

local function jobEvent(job, eventType, at, worker)
  local fields = { 'v', '1', 'type', eventType, 'job', job.id, 'url', masked(job.url or ''), 'ts', integer(at),
    'attempt', job.attempts or '0' }
  if worker and worker ~= '' then
    fields[#fields + 1] = 'worker'
    fields[#fields + 1] = worker
  end
  return fields
end

local function append(fields, extra)
  for i = 1, #extra do fields[#fields + 1] = extra[i] end
  return fields
end

local COUNTERS = { completed = 2, failed = 3, cancelled = 4, dead = 5 }
local COUNTER_NAMES = { 'completed', 'failed', 'cancelled', 'dead' }

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
    if c[6] then redis.call('EXPIRE', key .. ':failures', Q.retention) end
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
  for _, suffix in ipairs(BATCH_SUFFIXES) do redis.call('EXPIRE', key .. suffix, Q.retention) end
  -- The index of batches forgets those created longer ago than the retention.
  redis.call('ZREMRANGEBYSCORE', K.batches, '-inf', '(' .. integer(at - Q.retention * 1000))
  return true
end

-- Adds `count` to the batch's `counter` (tallyInBatch); `failure` (JSON, or
-- nil) goes to its failure list.
local function countInBatch(batch, counter, count, at, failure)
  return tallyInBatch(batch, { [counter] = count }, at, { failure })
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

-- `command key members...` in slices of 1,000 values (an even number, so
-- ZADD's score–member pairs stay together) that stay within what Lua's
-- unpack allows (some 8,000 values).
local function withMembers(command, key, members)
  for first = 1, #members, 1000 do
    redis.call(command, key, unpack(members, first, math.min(first + 999, #members)))
  end
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

-- The score that puts a new entry of `key`, a sorted set scored by time
-- (ms), above every entry already there: `at`, or one more than the highest
-- score when that is not below `at` (an entry of the same millisecond, or a
-- clock that went back). Entries written this way are strictly ordered as
-- they were written, however many come in one millisecond, so "newest
-- first" is exact and never falls back to the members' order; a score runs
-- ahead of its time only by as many ms as the entries of a burst.
local function latestScore(key, at)
  local highest = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
  if highest and highest >= at then return integer(highest + 1) end
  return integer(at)
end

-- Puts `id` in the dead-letter set, above its other entries (latestScore).
-- Dead letters, like everything that ended, stay for the retention: older
-- entries leave the set here (their hashes expire on their own).
local function deadLetter(id, at)
  redis.call('ZADD', K.dead, latestScore(K.dead, at), id)
  redis.call('ZREMRANGEBYSCORE', K.dead, '-inf', '(' .. integer(at - Q.retention * 1000))
end

-- Adds job ends to the throughput of the second `at` falls in: the
-- current second's counts are the hash K.metrics (`second`, `completed`,
-- `failed` — failed and dead —, `bytes`); a job ending in a later second
-- first pushes the finished one onto K.metricsSeconds as
-- `SECOND COMPLETED FAILED BYTES`, newest first, METRICS_SECONDS kept.
-- Seconds without job ends have no entry. A clock that goes back (a
-- failover) counts in the current second. Cancelled jobs are not counted.
local function addThroughput(completed, failed, bytes, at)
  if completed == 0 and failed == 0 then return end
  local second = math.floor(at / 1000)
  local m = redis.call('HMGET', K.metrics, 'second', 'completed', 'failed', 'bytes')
  local current = tonumber(m[1])
  if not current or second > current then
    if current then
      redis.call('LPUSH', K.metricsSeconds, m[1] .. ' ' .. (m[2] or '0') .. ' ' .. (m[3] or '0') .. ' ' .. (m[4] or '0'))
      redis.call('LTRIM', K.metricsSeconds, 0, METRICS_SECONDS - 1)
    end
    redis.call('HSET', K.metrics, 'second', integer(second), 'completed', 0, 'failed', 0, 'bytes', 0)
  end
  if completed > 0 then redis.call('HINCRBY', K.metrics, 'completed', completed) end
  if failed > 0 then redis.call('HINCRBY', K.metrics, 'failed', failed) end
  if bytes > 0 then redis.call('HINCRBY', K.metrics, 'bytes', integer(bytes)) end
end

-- One job's end as addThroughput counts it: (completed, failed, bytes).
local function throughputOf(state, bytes)
  local size = (bytes and string.find(bytes, '^%d+$')) and tonumber(bytes) or 0
  if state == 'completed' then return 1, 0, size end
  if state == 'failed' or state == 'dead' then return 0, 1, size end
  return 0, 0, 0
end

-- Recently completed work (docs/wire-format.md, "Recently warmed URLs"):
-- `recent` scores the digest of each completed work field (destination,
-- processing, URL) by its last completion, in ms, so that a batch asking
-- `freshFor` can count a URL as completed without making a job. It is
-- bounded twice: an entry leaves after the retention, and the oldest leave
-- once it holds `recentCapacity`; at most RECENT_TRIM a call, so that
-- lowering the capacity never makes one call long.
local RECENT_TRIM = 1000

-- A work field's member in `recent`: 96 bits of its SHA-1 (24 hex digits,
-- 127 bytes an entry in all; a collision needs some 10^14 entries).
local function workDigest(field) return string.sub(redis.sha1hex(field), 1, 24) end

-- When `field`'s work last completed (ms), if it is remembered.
local function lastCompleted(field)
  return tonumber(redis.call('ZSCORE', K.recent, workDigest(field)))
end

-- Remembers the completions `scored` (score, digest pairs), then forgets
-- what is past the retention or over the capacity.
local function rememberCompleted(scored, at)
  if Q.recentCapacity <= 0 or #scored == 0 then return end
  withMembers('ZADD', K.recent, scored)
  local expired = redis.call('ZCOUNT', K.recent, '-inf', '(' .. integer(at - Q.retention * 1000))
  local over = math.max(expired, redis.call('ZCARD', K.recent) - Q.recentCapacity)
  if over > 0 then redis.call('ZREMRANGEBYRANK', K.recent, 0, math.min(over, RECENT_TRIM) - 1) end
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

-- The entry of a failed or dead job in its batches' `:failures` lists.
local function failureEntry(job, state, at, code, message)
  return cjson.encode({ job = job.id, url = masked(job.url or ''), state = state, error = code or '',
    message = message or '', at = at })
end

-- Fair queueing across groups (docs/wire-format.md, "The order jobs are
-- handed out"). A queued job is in `queue` (every queued job, for counts and
-- readers) and in its group's `group:NAME:queue` (same score). A group with
-- a queued job and room under its in-flight limit is *in line*: in `groups`,
-- scored by its head's score (arrival + band handicap: the band served next
-- is the one the single queue would serve), and in `groups:band:B` of its
-- head's band B, scored by its virtual time (the group served next within
-- the band; ties go to the oldest head: bandMember). Every job that enters or leaves the queue goes through
-- queueJobs/unqueueJob/popFairJob, every end of a claimed job through
-- leaveFlight; nothing else writes these keys.
local function groupKey(name) return Q.prefix .. 'group:' .. name end
local function groupQueueKey(name) return Q.prefix .. 'group:' .. name .. ':queue' end
local function bandGroupsKey(band) return Q.prefix .. 'groups:band:' .. band end
-- A group's member in its band's set: its head's score, 16 digits, then
-- its name, so that groups at one virtual time go oldest head first.
local function bandMember(headScore, name) return string.format('%016.0f', tonumber(headScore)) .. ':' .. name end
local function memberGroup(member) return string.sub(member, 18) end
-- The heaviest weight a group may carry (`groupWeights`).
local MAX_WEIGHT = 1000

-- The group a job is queued in: its `group`, or for a job queued before
-- groups (no `group` field) its first batch's, which is then written down.
local function groupOf(job)
  if not job.group then
    job.group = job.batches[1] or ''
    redis.call('HSET', jobKey(job.id), 'group', job.group)
  end
  return job.group
end

-- A group's weight (`groupWeights`): 1 to MAX_WEIGHT, 1 when unset.
local function groupWeight(name)
  local weight = math.floor(tonumber(redis.call('HGET', K.groupWeights, name)) or 1)
  return math.max(1, math.min(MAX_WEIGHT, weight))
end

-- The head start of a group getting in line in `band` (refreshGroup),
-- in turns behind the band's `clock`: a newly active group finds every slot
-- held by the groups already running, and strict turns would give it only
-- every other freed slot from the start. It may take up to as many claims
-- in a row as
--   - its jobs that can run: its queued jobs, within its in-flight limit;
--   - the slots that turn over in one round, less one for each group in
--     line: the jobs running (`leases`) less the groups in line in the band,
--     so that each of them keeps its next turn within the round (with one
--     slot, turns alternate from the first claim);
--   - what is left of the band's burst: Q.burst claims, shared by every
--     group that gets a head start, refilled by one claim per turn of the
--     band's clock (`burst:B` in `fairness` is the clock at which it was
--     empty, so the level is clock - burst:B, at most Q.burst).
-- A group of weight w gets one turn per w of those claims. Returns the
-- turns and the level of the burst before (0, 0 without a head start).
local function headStart(band, clock, emptyAt, weight, room)
  if Q.burst <= 0 or room <= 0 then return 0, 0 end
  local level = math.min(Q.burst, clock - (emptyAt or -math.huge))
  local round = redis.call('ZCARD', K.leases) - redis.call('ZCARD', bandGroupsKey(band))
  local claims = math.min(level, room, round)
  if claims < weight then return 0, level end
  return math.floor(claims / weight), level
end

-- Puts group `name` in line for its current head, or out of line when it
-- has no queued job or is at its in-flight limit (`groupLimits`); a group
-- with neither queued nor running jobs is forgotten. A group getting in
-- line takes the virtual time max(V, band clock - H): V (the group's own,
-- advanced by its claims) keeps a group just served behind the others, the
-- band's clock lets a newly active group take its turn at once instead of
-- queueing behind older arrivals, and H, its head start (headStart), lets
-- it take the next freed slots one after another before turns alternate; a
-- group staying in line goes on from V. Ties go to the oldest head.
-- Before a band's first claim (it has no clock yet) groups go by their
-- heads' arrivals (µs), as older jobs would in a single queue, but at most
-- Q.burst turns from the first of them (`first:B`), so that a batch
-- queued long after another one (a paused queue, no worker yet) is not
-- left behind by the µs between them. A band left with no group in line
-- forgets its clock, its burst and its first.
local function bandLeft(band)
  if band and redis.call('EXISTS', bandGroupsKey(band)) == 0 then
    redis.call('HDEL', K.fairness, 'clock:' .. band, 'burst:' .. band, 'first:' .. band)
  end
end
local function refreshGroup(name)
  local key = groupKey(name)
  local g = redis.call('HMGET', key, 'head', 'headScore', 'band', 'v', 'active')
  local top = redis.call('ZRANGE', groupQueueKey(name), 0, 0, 'WITHSCORES')
  local active = tonumber(g[5]) or 0
  local head = top[1]
  local limit = head and tonumber(redis.call('HGET', K.groupLimits, name))
  if limit and active >= limit then head = nil end
  if head and g[1] == head and g[2] == top[2] then return end
  local inLine = g[1] and g[1] ~= ''
  if inLine then redis.call('ZREM', bandGroupsKey(g[3]), bandMember(g[2], name)) end
  if not head then
    if inLine then redis.call('ZREM', K.groups, name) end
    if not top[1] and active <= 0 then redis.call('DEL', key) else redis.call('HSET', key, 'head', '') end
    return bandLeft(g[3])
  end
  local job = redis.call('HMGET', jobKey(head), 'priority', 'aging')
  local band = BANDS[job[1]] or 2
  local virtual = tonumber(top[2]) - bandOffset(band, tonumber(job[2]) or Q.agingMs)
  local own = tonumber(g[4])
  if inLine and own then
    -- Still in line (its head was claimed or changed): its turn goes on from its own time.
    virtual = own
  else
    local f = redis.call('HMGET', K.fairness, 'clock:' .. band, 'burst:' .. band)
    local clock = tonumber(f[1])
    if clock then
      local weight = groupWeight(name)
      local room = redis.call('ZCARD', groupQueueKey(name))
      if limit then room = math.min(room, limit - active) end
      local turns, level = headStart(band, clock, tonumber(f[2]), weight, room)
      virtual = clock - turns
      if own and own > virtual then virtual = own end
      -- What the head start taken (the clamp to V may shorten it) leaves of the burst.
      local spent = (clock - virtual) * weight
      if spent > 0 then redis.call('HSET', K.fairness, 'burst:' .. band, integer(clock - level + spent)) end
    else
      -- Before the band's first claim: by arrival, but at most Q.burst
      -- turns after (or before) the band's first group in line (`first:B`).
      local first = tonumber(redis.call('HGET', K.fairness, 'first:' .. band))
      if not first then
        redis.call('HSET', K.fairness, 'first:' .. band, integer(virtual))
      else
        virtual = math.max(first - Q.burst, math.min(virtual, first + Q.burst))
      end
      if own and own > virtual then virtual = own end
    end
  end
  redis.call('ZADD', K.groups, top[2], name)
  redis.call('ZADD', bandGroupsKey(band), integer(virtual), bandMember(top[2], name))
  redis.call('HSET', key, 'head', head, 'headScore', top[2], 'band', band)
  if inLine and tonumber(g[3]) ~= band then bandLeft(g[3]) end
end

-- Queues jobs of group `name`: `scored` holds score, id pairs. A job already
-- queued moves to its new score. Every job entering the queue comes here.
local function queueJobs(name, scored)
  if #scored == 0 then return end
  withMembers('ZADD', K.queue, scored)
  local added = 0
  for first = 1, #scored, 1000 do
    added = added + redis.call('ZADD', groupQueueKey(name), unpack(scored, first, math.min(first + 999, #scored)))
  end
  if added > 0 then redis.call('HINCRBY', K.fairness, 'queued', added) end
  refreshGroup(name)
end

local function queueJob(id, score, name) queueJobs(name, { score, id }) end

-- Takes queued job `id` of group `name` out of the queue (a cancel, an end).
local function unqueueJob(id, name)
  redis.call('ZREM', K.queue, id)
  if redis.call('ZREM', groupQueueKey(name), id) == 1 then
    redis.call('HINCRBY', K.fairness, 'queued', -1)
    refreshGroup(name)
  end
end

-- The next job to hand out, or nil. The band is that of the lowest-scored
-- head in line (priorities and aging as with one queue); within it, the
-- group with the lowest virtual time. The group's time then advances by one
-- per `weight` claims, the band's clock to the group's time (so a group
-- between two steps of its weight keeps its turn, and a stream of new
-- groups, each clamped to the clock, still moves it on), and the job
-- counts in its group's flight (the caller writes the job's `flight` =
-- group). Returns the id and the group.
local function popFairJob()
  -- (Each turn hands out a job or takes an entry out of line: bounded.)
  for _ = 1, 1000 do
    local first = redis.call('ZRANGE', K.groups, 0, 0)[1]
    if not first then return nil end
    local band = redis.call('HGET', groupKey(first), 'band')
    local pick = redis.call('ZRANGE', bandGroupsKey(band), 0, 0, 'WITHSCORES')
    local name, virtual = pick[1] and memberGroup(pick[1]), tonumber(pick[2])
    if not name then
      -- (Only keys edited by hand get here: the group is put back in line.)
      redis.call('HSET', groupKey(first), 'head', 'x')
      refreshGroup(first)
    else
      local key = groupKey(name)
      local id = redis.call('ZPOPMIN', groupQueueKey(name))[1]
      if id then redis.call('HINCRBY', K.fairness, 'queued', -1) end
      -- An entry `queue` no longer holds was taken by a worker of an older
      -- version: skipped.
      if id and redis.call('ZREM', K.queue, id) == 1 then
        local g = redis.call('HMGET', key, 'credit', 'active')
        local weight = groupWeight(name)
        local credit, own = (tonumber(g[1]) or 0) + 1, virtual
        if credit >= weight then credit, own = 0, virtual + 1 end
        redis.call('HSET', key, 'v', integer(own), 'credit', credit, 'active', (tonumber(g[2]) or 0) + 1)
        local clockField = 'clock:' .. band
        if (tonumber(redis.call('HGET', K.fairness, clockField)) or 0) < own then
          redis.call('HSET', K.fairness, clockField, integer(own))
        end
        refreshGroup(name)
        return id, name
      end
      refreshGroup(name)
    end
  end
  return nil
end

-- A claimed job stops running (an end, a retry, a release, a stall): its
-- group's flight shrinks, which puts a group at its limit back in line.
local function leaveFlight(job)
  local name = job.flight
  if not name then return end
  job.flight = nil
  redis.call('HDEL', jobKey(job.id), 'flight')
  local key = groupKey(name)
  if redis.call('EXISTS', key) == 0 then return end
  redis.call('HINCRBY', key, 'active', -1)
  refreshGroup(name)
end

-- Jobs of `queue` in no group's queue — queued by a version before groups
-- (or by one of its workers during a rolling upgrade) — join their group,
-- up to `limit` per call; a cursor in `fairness` walks the queue. Costs one
-- ZCARD and one HGET while there are none.
local function adoptUngrouped(limit)
  local f = redis.call('HMGET', K.fairness, 'queued', 'adoptAfter')
  if redis.call('ZCARD', K.queue) <= (tonumber(f[1]) or 0) then return end
  local from = (f[2] and f[2] ~= '-inf') and ('(' .. f[2]) or '-inf'
  local page = redis.call('ZRANGEBYSCORE', K.queue, from, '+inf', 'WITHSCORES', 'LIMIT', 0, limit)
  for i = 1, #page, 2 do
    local id = page[i]
    local name = redis.call('HGET', jobKey(id), 'group')
    if not name then
      local job = readJob(id)
      name = job and groupOf(job) or ''
    end
    if not redis.call('ZSCORE', groupQueueKey(name), id) then queueJob(id, page[i + 1], name) end
  end
  redis.call('HSET', K.fairness, 'adoptAfter', #page < limit * 2 and '-inf' or page[#page])
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

-- Leaves one wake-up marker in the intake list for idle workers (who block
-- on it with BLMOVE) unless something is already there to wake them.
local function wakeIdleWorkers()
  if redis.call('LLEN', K.intake) == 0 then redis.call('RPUSH', K.intake, WAKE) end
end
