-- parse-push.lua: pushes the next URLs of the large intake document a worker
-- is parsing (step 2 of parsing.lua; `JobQueue.parseLargeDocument`), and
-- renews the worker's lease on it.
--
-- @include context staging parsing
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue
--
-- ARGV, after the queue context (context.lua):
--   token   the parsing lease's token (from the claim's `parse` report)
--   offset  how many of the document's URLs were pushed before these
--   then the URLs, in the document's order (up to 1,000: one call stays
--   well under a millisecond)
-- Idempotent: a call repeated after its reply was lost (the list already
-- holds offset + its URLs) pushes nothing.
-- Returns how many URLs are pushed now.
-- Refuses with `LEASE_LOST …` when `token` no longer holds the document (its
-- lease expired and another worker took it over, or it was finished), and
-- with `OUT_OF_STEP …` when the list holds neither `offset` URLs nor
-- `offset` + these.
-- Events: none.
local token, offset = unpack(ARGV, FIRST, FIRST + 1)
local urls = { unpack(ARGV, FIRST + 2) }

if not holdsParsing(token) then
  return redis.error_reply('LEASE_LOST the document is no longer leased to this worker')
end
local pushed = pushAt(PARSING_URLS, tonumber(offset), urls)
if not pushed then
  return redis.error_reply('OUT_OF_STEP ' .. redis.call('LLEN', PARSING_URLS) .. ' URLs pushed, not ' .. tostring(offset))
end
redis.call('HSET', PARSING, 'deadline', integer(now() + Q.leaseMs))
return pushed
