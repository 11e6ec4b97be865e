-- parse-end.lua: ends the parsing of a large intake document by the worker
-- holding its lease (step 3 of parsing.lua; `JobQueue.parseLargeDocument`):
-- counts it in its batch and stages its pushed URLs, or dead-letters it,
-- and empties the parsing slot so that the next claim takes the next
-- intake document.
--
-- @include context documents housekeeping parsing intake
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue delayed leases intake pendingIntake sequence clock work events control dead batches metrics metricsSeconds groups fairness groupWeights groupLimits recent
--
-- ARGV, after the queue context (context.lua):
--   token    the parsing lease's token
--   verdict  accept | refuse | expand
--   then, for `accept` (the worker found the document valid):
--     fields  the document without `urls`, as a JSON object (checked again
--             here with fieldsProblem: the same rules as the expansion's)
--     count   how many URLs it holds: all pushed (parse-push.lua)
--   for `refuse` (the worker found it invalid; nothing is pushed):
--     code     malformed_document | invalid_document
--     message  the reason, as documentProblem or cjson words it
--     batch    the batch the document names, when usable ('' for none):
--              its `deadLettered` event goes to that batch's stream too
--   for `expand` (the worker could not read it byte for byte: not UTF-8):
--     nothing; Redis decodes and expands it in this call, as a client that
--     parses nothing would have it.
-- Accepting is O(1) in the number of URLs: the pushed list is renamed to
-- the document's staging list (staging.lua), which the next claims make
-- into jobs a slice at a time. The dead letter keeps the document's first
-- 64 KiB, as one the expansion refuses.
-- Returns [housekeeping report] (claim.lua's second element).
-- Refuses, writing nothing, with `LEASE_LOST …` when `token` no longer holds
-- the document, and `OUT_OF_STEP …` when `count` URLs are not all pushed.
-- Events: those of an intake document's expansion (`deadLettered` for a
-- refused document; the batch made, when new).
local token, verdict, first, second, third = unpack(ARGV, FIRST, FIRST + 4)

if not holdsParsing(token) then
  return redis.error_reply('LEASE_LOST the document is no longer leased to this worker')
end
local at = now()
if verdict == 'accept' then
  local count = tonumber(second)
  local pushed = redis.call('LLEN', PARSING_URLS)
  if pushed ~= count then
    return redis.error_reply('OUT_OF_STEP ' .. pushed .. ' URLs pushed, not ' .. tostring(second))
  end
  local ok, d = decodeDocument(first)
  acceptParsedDocument(ok and d or nil, count, redis.call('GETRANGE', PARSING_DOCUMENT, 0, 65535), at)
elseif verdict == 'refuse' then
  deadLetterDocument(redis.call('GETRANGE', PARSING_DOCUMENT, 0, 65535), first, second, at,
    third ~= '' and third or nil)
else
  expandTakenDocument(redis.call('GET', PARSING_DOCUMENT) or '', at)
end
clearParsing()
return { REPORT }
