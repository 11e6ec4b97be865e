-- staging.lua: large documents become jobs a slice at a time, so that no
-- call holds Redis for long (docs/wire-format.md, "Large documents").
--
-- A document (or a POSTed batch, or an enqueue call) of more than DIRECT_URLS
-- (slices.lua) URLs is
-- checked whole and counted whole in its batch's total (so the batch cannot
-- complete early), and staged:
--   intake:staging             list of staged document ids, oldest first
--   intake:staging:<id>        hash: STAGING_FIELDS (batch, destination, processing,
--                              timeout, group, freshFor): what its slices need to
--                              become jobs
--   intake:staging:<id>:urls   list of its URLs not yet jobs, in order
--   intake:staged              how many URLs are staged in all
--   intake:submitting:<token>  list: the URLs of a large document a client
--                              parsed before submitting it (submit-push.lua),
--                              renamed to its staging list when submit.lua
--                              accepts it; expires unless pushed to
-- Each claim then turns the next SLICE_URLS staged URLs (fewer once it has
-- spent its time budget) into jobs before it takes a new document, so documents still become jobs in the order they
-- came. Every step is one script call: a worker that dies between two
-- leaves the rest staged for the next claim, whoever makes it.
--
-- This file holds the staging keys and what a cancel needs (dropStaged);
-- slices.lua stages documents and makes their slices into jobs.
--
-- @include context

local function stagingKey(id) return Q.prefix .. 'intake:staging:' .. id end
local STAGING = Q.prefix .. 'intake:staging'
local STAGED = Q.prefix .. 'intake:staged'
-- The fields of a staged document's hash, in the order they are written and
-- read: a new setting that jobs are made with is one more name here (and
-- in the settings stagingSettings, intake.lua, takes from a document).
local STAGING_FIELDS = { 'batch', 'destination', 'processing', 'timeout', 'group', 'freshFor' }

-- The list the URLs of a document a client parsed itself wait in until
-- submit.lua accepts it; `token` is the client's, 1-64 letters, digits, -.
local function submittingKey(token)
  if not string.match(token, '^[%w%-]+$') or #token > 64 then return nil end
  return Q.prefix .. 'intake:submitting:' .. token
end
-- Seconds the list of a submission lives after its last push.
local SUBMITTING_SECONDS = 600

-- Pushes `urls` to `list` when it holds `offset` URLs; nothing when it
-- already holds `offset` + these (a call repeated after its reply was
-- lost). Returns how many URLs the list holds, or nil when it holds
-- neither: the client is out of step.
local function pushAt(list, offset, urls)
  local pushed = redis.call('LLEN', list)
  if pushed == offset then
    if #urls > 0 then pushed = redis.call('RPUSH', list, unpack(urls)) end
    return pushed
  end
  if pushed == offset + #urls then return pushed end
  return nil
end

-- Drops the staged URLs of `batch` (it is being cancelled); returns how many.
local function dropStaged(batch)
  local dropped = 0
  for _, id in ipairs(redis.call('LRANGE', STAGING, 0, -1)) do
    local key = stagingKey(id)
    if redis.call('HGET', key, 'batch') == batch then
      dropped = dropped + redis.call('LLEN', key .. ':urls')
      redis.call('DEL', key, key .. ':urls')
      redis.call('LREM', STAGING, 1, id)
    end
  end
  if dropped > 0 then redis.call('DECRBY', STAGED, dropped) end
  return dropped
end
