-- dead-letters.lua: the dead-letter set (`dead`), where failed and dead
-- jobs and unusable documents are kept, newest last, for the retention.
--
-- @include context

-- Puts `id` in the dead-letter set, above its other entries (latestScore).
-- Dead letters, like everything that ended, stay for the retention: older
-- entries leave the set here (their hashes expire on their own).
local function deadLetter(id, at)
  redis.call('ZADD', K.dead, latestScore(K.dead, at), id)
  redis.call('ZREMRANGEBYSCORE', K.dead, '-inf', '(' .. integer(at - Q.retention * 1000))
end
