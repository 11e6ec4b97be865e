-- work.lua: claiming jobs for a worker, after the housekeeping every claim
-- does (promoting due retries, recovering expired leases, expanding one
-- intake document).
--
-- @include context records events fairness wake housekeeping intake

local function isPaused()
  return redis.call('HGET', K.config, 'paused') == '1'
end

-- Claims up to `count` jobs for `worker` in the fair order (by priority and
-- aging, then round-robin across groups: popFairJob), after
-- the housekeeping above; a paused queue hands out none. Each claimed job gets a
-- lease token (worker + claim number) and deadline, and a `started` event in
-- each of its batches. Returns [id, url, priority, destination, processing,
-- attempt, token, batches (comma-separated), timeout (seconds, '' for the
-- worker's), enqueuedAt, claimedAt (ms, Redis clock)] per job (the scripts
-- return it beside `REPORT`).
local function claimJobs(count, worker, at)
  promoteDelayed(at, 100)
  sweepLeases(at, 100)
  takeIntake(at, worker)
  local claimed = {}
  if count < 1 or isPaused() then return claimed end
  adoptUngrouped(100)
  local atText = integer(at)
  local deadline = integer(at + Q.leaseMs)
  local leases = {}
  for _ = 1, count do
    local id, group = popFairJob()
    if not id then break end
    local job = readJob(id)
    if job then
      job.attempts = tostring((tonumber(job.attempts) or 0) + 1)
      local token = worker .. '/' .. ((tonumber(job.claims) or 0) + 1)
      redis.call('HSET', jobKey(id), 'attempts', job.attempts, 'claims', (tonumber(job.claims) or 0) + 1,
        'state', 'active', 'worker', worker, 'lease', token, 'claimedAt', atText, 'flight', group)
      leases[#leases + 1] = deadline
      leases[#leases + 1] = id
      local fields = jobEvent(job, 'started', at, worker)
      for _, batch in ipairs(job.batches) do emit(batch, fields, true) end
      claimed[#claimed + 1] = { id, job.url or '', job.priority or 'normal', job.destination or '',
        job.processing or '', job.attempts, token, table.concat(job.batches, ','), job.timeout or '',
        job.enqueuedAt or '', atText }
    end
  end
  withMembers('ZADD', K.leases, leases)
  if #claimed > 0 and redis.call('EXISTS', K.groups) == 1 then wakeIdleWorkers() end
  return claimed
end
