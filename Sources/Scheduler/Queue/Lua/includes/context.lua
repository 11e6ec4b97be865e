-- context.lua: what every queue script starts with (after the `K` table
-- `QueueScript` writes from the script's `@keys`): the call context, Redis's
-- clock, the keys of one job, batch or worker, and the small helpers the
-- other libraries share.
--
-- Context: every queue script gets the same first eleven arguments (built
-- once per queue by `JobQueue`); its own arguments start at ARGV[FIRST].
--   ARGV[1] prefix          the queue's prefix, `warmer:{NAME}:`; the keys of
--                           one job, batch or worker are built from it (jobKey,
--                           batchKey, workerKey: same hash tag as every
--                           declared key)
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
-- K: the queue's fixed keys the script declared with `@keys`, by name
-- (K.<name>; `QueueKeys.Fixed` in Swift holds the layout). Nothing here
-- names one: a script declares those its own code and its libraries name.
local Q = {
  prefix = ARGV[1], maxEvents = ARGV[2], maxBatchEvents = ARGV[3], retention = tonumber(ARGV[4]),
  leaseMs = tonumber(ARGV[5]), maxStalls = tonumber(ARGV[6]), agingMs = tonumber(ARGV[7]),
  largeDocuments = ARGV[10], sliceBudgetUs = tonumber(ARGV[11]) or 0,
  -- The aging as sent, for job hashes (Redis formats a Lua number with printf).
  aging = ARGV[7], recentCapacity = tonumber(ARGV[8]) or 0, burst = math.max(0, tonumber(ARGV[9]) or 0),
}
local FIRST = 12

local function now()
  local time = redis.call('TIME')
  return time[1] * 1000 + math.floor(time[2] / 1000)
end

local function jobKey(id) return Q.prefix .. 'job:' .. id end
local function batchKey(id) return Q.prefix .. 'batch:' .. id end
local function workerKey(id) return Q.prefix .. 'worker:' .. id end
local function integer(value) return string.format('%.0f', value) end

-- Appends the values of `extra` to the list `fields`; returns `fields`.
local function append(fields, extra)
  for i = 1, #extra do fields[#fields + 1] = extra[i] end
  return fields
end

-- `command key members...` in slices of 1,000 values (an even number, so
-- ZADD's score–member pairs stay together) that stay within what Lua's
-- unpack allows (some 8,000 values).
local function withMembers(command, key, members)
  for first = 1, #members, 1000 do
    redis.call(command, key, unpack(members, first, math.min(first + 999, #members)))
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
