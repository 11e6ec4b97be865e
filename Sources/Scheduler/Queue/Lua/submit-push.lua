-- submit-push.lua: pushes the next URLs of a large document that the client
-- parsed itself before submitting it (`JobQueue.submit`, `POST
-- /v1/queues/{queue}/batches`; docs/wire-format.md, "Large documents"), so
-- that Redis never decodes it in one long call. They wait in
-- `intake:submitting:<token>` (staging.lua) until submit.lua, given the
-- token, accepts the document and stages them; the list expires
-- SUBMITTING_SECONDS after its last push, so a client that dies midway
-- leaves nothing behind for long, and nothing counted anywhere.
--
-- @include context staging
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue
--
-- ARGV, after the queue context (context.lua):
--   token   the submission's token (1-64 letters, digits, -; the client's own)
--   offset  how many of the document's URLs were pushed before these
--   then the URLs, in the document's order (up to 1,000: one call stays
--   well under a millisecond)
-- Idempotent: a call repeated after its reply was lost (the list already
-- holds offset + its URLs) pushes nothing.
-- Returns how many URLs are pushed now.
-- Refuses with `BAD_ARGUMENT …` for a token it cannot use, and with
-- `OUT_OF_STEP …` when the list holds neither `offset` URLs nor `offset` +
-- these.
-- Events: none.
local token, offset = unpack(ARGV, FIRST, FIRST + 1)
local urls = { unpack(ARGV, FIRST + 2) }

local list = submittingKey(token or '')
if not list then return redis.error_reply('BAD_ARGUMENT token') end
local pushed = pushAt(list, tonumber(offset), urls)
if not pushed then
  return redis.error_reply('OUT_OF_STEP ' .. redis.call('LLEN', list) .. ' URLs pushed, not ' .. tostring(offset))
end
redis.call('EXPIRE', list, SUBMITTING_SECONDS)
return pushed
