-- recent.lua: recently completed work, so that a batch asking `freshFor`
-- can count a URL warmed lately as completed without making a job.
--
-- @include context

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
