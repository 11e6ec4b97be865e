-- staging.lua: large documents become jobs a slice at a time, so that no
-- call holds Redis for long (docs/wire-format.md, "Large documents").
--
-- A document (or a POSTed batch) of more than SLICE_URLS (slices.lua) URLs is
-- checked whole and counted whole in its batch's total (so the batch cannot
-- complete early), and staged:
--   intake:staging             list of staged document ids, oldest first
--   intake:staging:<id>        hash: STAGING_FIELDS (batch, destination, processing,
--                              timeout, group, freshFor): what its slices need to
--                              become jobs
--   intake:staging:<id>:urls   list of its URLs not yet jobs, in order
--   intake:staged              how many URLs are staged in all
-- Each claim then turns the next SLICE_URLS staged URLs into jobs before it
-- takes a new document, so documents still become jobs in the order they
-- came. Every step is one script call: a worker that dies between two
-- leaves the rest staged for the next claim, whoever makes it.
--
-- This file holds the staging keys and what a cancel needs (dropStaged);
-- slices.lua stages documents and makes their slices into jobs.
--
-- @include queue

local function stagingKey(id) return Q.prefix .. 'intake:staging:' .. id end
local STAGING = Q.prefix .. 'intake:staging'
local STAGED = Q.prefix .. 'intake:staged'
-- The fields of a staged document's hash, in the order they are written and
-- read: a new setting that jobs are made with is one more name here (and
-- in the settings stagingSettings, intake.lua, takes from a document).
local STAGING_FIELDS = { 'batch', 'destination', 'processing', 'timeout', 'group', 'freshFor' }

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
