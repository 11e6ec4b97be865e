-- renew.lua: extends the leases a worker holds, in one call per tick, then
-- recovers other workers' expired leases and promotes due retries (so a
-- cluster of busy workers still recovers a dead one's jobs)
-- (`JobQueue.renewLeases`).
--
-- @include context housekeeping
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue delayed leases work events dead batches metrics metricsSeconds groups fairness groupWeights groupLimits recent
--
-- ARGV, after the queue context (context.lua):
--   id, token…  pairs: a job's id and the lease token it was claimed with
-- Returns [lost ids, ids cancelled while running, housekeeping report].
-- Events: those of the housekeeping (`stalled`, `deadLettered`,
-- `cancelled`).
local ids, tokens = {}, {}
for i = FIRST, #ARGV, 2 do
  ids[#ids + 1] = ARGV[i]
  tokens[#ids] = ARGV[i + 1]
end

local at = now()
local lost, cancelled = {}, {}
-- The caller's own leases first: one its renewal reaches late, but before
-- anyone else took the job over, is still its own.
for n, id in ipairs(ids) do
  local token = tokens[n]
  local state = redis.call('HMGET', jobKey(id), 'lease', 'state', 'expiredLease', 'claims')
  if state[1] ~= token then
    -- Lost when this lease expired or the job was claimed again since
    -- (tokens are WORKER/CLAIM); a job that ended or was released through
    -- this lease (its finish crossed the renewal) is not.
    local claim = tonumber(string.match(token, '/(%d+)$')) or 0
    if state[3] == token or (tonumber(state[4]) or 0) > claim or (state[1] and state[1] ~= '') then
      lost[#lost + 1] = id
    end
  else
    redis.call('ZADD', K.leases, 'XX', integer(at + Q.leaseMs), id)
    if state[2] == 'cancelling' then cancelled[#cancelled + 1] = id end
  end
end
promoteDelayed(at, 100)
sweepLeases(at, 100)
return { lost, cancelled, REPORT }
