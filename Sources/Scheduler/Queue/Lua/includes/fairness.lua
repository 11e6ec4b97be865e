-- fairness.lua: fair queueing across groups (docs/wire-format.md, "The
-- order jobs are handed out"): every job entering or leaving the queue, and
-- every end of a claimed job, keeps the groups in step.
--
-- @include context priorities records

-- A queued job is in `queue` (every queued job, for counts and
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
