-- priorities.lua: the priority bands, and the score of a queued job in them
-- (docs/wire-format.md, "The order jobs are handed out").
--
-- @include context

local BANDS = { veryHigh = 0, high = 1, normal = 2, low = 3, veryLow = 4 }
-- With aging off, a band is worth ~31 years of waiting: strict priorities.
local STRICT_BAND = 1000000000000000

-- A queued job's score: its arrival (in µs of the queue clock) plus a
-- handicap of `agingMs` per band. A job waiting longer than the handicap
-- between two bands overtakes newer jobs of the higher band: no starvation.
local function bandOffset(band, agingMs)
  if agingMs <= 0 then return band * STRICT_BAND end
  return band * agingMs * 1000
end

-- The score of a job (fields `score`, `priority`, `aging`) moved to `priority`.
local function rescored(job, priority)
  local aging = tonumber(job.aging) or Q.agingMs
  local arrival = tonumber(job.score) - bandOffset(BANDS[job.priority] or 2, aging)
  return integer(arrival + bandOffset(BANDS[priority] or 2, aging))
end
