-- submit.lua: enqueues one intake document sent over HTTP (`JobQueue.submit`,
-- `POST /v1/queues/{queue}/batches`) with the intake list's rules and texts,
-- atomically; a document it refuses is answered, not dead-lettered.
--
-- @include context documents staging intake
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue delayed leases intake pendingIntake sequence clock work events control dead batches metrics metricsSeconds groups fairness groupWeights groupLimits recent
--
-- ARGV, after the queue context (context.lua):
--   document  the intake document, as sent; or, with `token`, its fields:
--             the document without `urls`, as a JSON object
--   fallback  the batch id to use when the document names none
--   digest    a digest of the document: a document naming its batch is
--             accepted once per digest, so that a client may send it again
--             (a retry after a lost answer) without enqueuing it twice
--   count     (a document the client parsed) how many URLs it holds, all
--             pushed to `intake:submitting:<token>` (submit-push.lua)
--   token     (a document the client parsed) the submission's token
-- A document the client parsed is checked here by its fields (the rules of
-- the expansion's after the URLs', which the client checked) and staged
-- whole, its pushed list renamed to its staging list; its list is deleted
-- when it is refused or replayed.
-- Returns { batch, new jobs, replayed (1 when this digest was accepted
-- before for the batch, and nothing was done), URLs staged (a document of
-- more than 50 URLs: they become jobs over the next claims, slices.lua), URLs counted as
-- recently warmed (`freshFor`) }.
-- Refuses, before writing anything, with `MALFORMED_DOCUMENT <message>` or
-- `INVALID_DOCUMENT <message>`: the dead letter's code and message the same
-- document gets on the intake list; and, for a parsed document, with
-- `OUT_OF_STEP …` when not `count` URLs are pushed.
-- Events: those of enqueue.lua.
local document, fallback, digest, count, token = unpack(ARGV, FIRST, FIRST + 4)
local pushed = token and token ~= '' and submittingKey(token)
if token and token ~= '' and not pushed then return redis.error_reply('BAD_ARGUMENT token') end
count = tonumber(count)
if pushed and redis.call('LLEN', pushed) ~= count then
  return redis.error_reply('OUT_OF_STEP ' .. redis.call('LLEN', pushed) .. ' URLs pushed, not ' .. tostring(count))
end

-- Refuses the document with `code` and `message`, dropping its pushed URLs.
local function refuse(code, message)
  if pushed then redis.call('DEL', pushed) end
  return redis.error_reply(code .. ' ' .. message)
end

local ok, d = decodeDocument(document)
if not ok then return refuse('MALFORMED_DOCUMENT', 'not JSON: ' .. tostring(d)) end
local problem
if pushed then problem = parsedFieldsProblem(d, count) else problem = documentProblem(d) end
if problem then return refuse('INVALID_DOCUMENT', problem) end
if not pushed then count = #d.urls end
local batch = d.batch or fallback
local partField = 'part:' .. digest
if d.batch and redis.call('HEXISTS', batchKey(batch), partField) == 1 then
  if pushed then redis.call('DEL', pushed) end
  return { batch, 0, 1, 0, 0 }
end
local received
problem, received = partProblem(d, batch, count)
if problem then return refuse('INVALID_DOCUMENT', problem) end
local newJobs, staged, recent = 0, count, 0
if pushed then
  stagePushedDocument(d, batch, received, count, pushed, now())
else
  newJobs, staged, recent = acceptDocument(d, batch, received, now())
end
if d.batch then redis.call('HSET', batchKey(batch), partField, '1') end
return { batch, newJobs, 0, staged, recent }
