-- wake.lua: idle workers block on the intake list (BLMOVE); a wake-up
-- marker there wakes them into a claim.

local WAKE = 'wake'

-- Leaves one wake-up marker in the intake list for idle workers (who block
-- on it with BLMOVE) unless something is already there to wake them.
local function wakeIdleWorkers()
  if redis.call('LLEN', K.intake) == 0 then redis.call('RPUSH', K.intake, WAKE) end
end
