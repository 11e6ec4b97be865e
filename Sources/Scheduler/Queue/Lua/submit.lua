-- submit.lua: enqueues one intake document sent over HTTP (`JobQueue.submit`,
-- `POST /v1/queues/{queue}/batches`) with the intake list's rules and texts,
-- atomically; a document it refuses is answered, not dead-lettered.
--
-- @include intake
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue delayed leases intake pendingIntake sequence clock work events control dead batches metrics metricsSeconds groups fairness groupWeights groupLimits recent
--
-- ARGV, after the queue context (queue.lua):
--   document  the intake document, as sent
--   fallback  the batch id to use when the document names none
--   digest    a digest of the document: a document naming its batch is
--             accepted once per digest, so that a client may send it again
--             (a retry after a lost answer) without enqueuing it twice
-- Returns { batch, new jobs, replayed (1 when this digest was accepted
-- before for the batch, and nothing was done), URLs staged (a document of
-- more than a slice: they become jobs over the next claims, staging.lua),
-- URLs counted as recently warmed (`freshFor`) }.
-- Refuses, before writing anything, with `MALFORMED_DOCUMENT <message>` or
-- `INVALID_DOCUMENT <message>`: the dead letter's code and message the same
-- document gets on the intake list.
-- Events: those of enqueue.lua.
local document, fallback, digest = unpack(ARGV, FIRST, FIRST + 2)

local ok, d = decodeDocument(document)
if not ok then return redis.error_reply('MALFORMED_DOCUMENT not JSON: ' .. tostring(d)) end
local problem = documentProblem(d)
if problem then return redis.error_reply('INVALID_DOCUMENT ' .. problem) end
local batch = d.batch or fallback
local partField = 'part:' .. digest
if d.batch and redis.call('HEXISTS', batchKey(batch), partField) == 1 then return { batch, 0, 1, 0, 0 } end
local received
problem, received = partProblem(d, batch, #d.urls)
if problem then return redis.error_reply('INVALID_DOCUMENT ' .. problem) end
local newJobs, staged, recent = acceptDocument(d, batch, received, now())
if d.batch then redis.call('HSET', batchKey(batch), partField, '1') end
return { batch, newJobs, 0, staged, recent }
