-- housekeeping.lua: what claims and renewals do first — promoting due
-- retries and recovering expired leases — and the report of it the caller
-- logs.
--
-- @include context records events fairness ends

-- What this call's housekeeping did that an operator should hear of, for the
-- caller to log (`QueueHousekeeping`): one entry per recovered or
-- dead-lettered job, { kind, id, url, batches (comma-separated), detail,
-- worker or message }, kind `stalled` (back in the queue; detail = stalls),
-- `dead` (stalled too often; detail = stalls), `cancelled` (its lease expired
-- while it was being cancelled), `document` (an intake document
-- dead-lettered; detail = error code, then the message) or `parse` (a
-- large intake document leased to the calling worker to parse, parsing.lua;
-- id = the lease token, detail = its size in bytes).
local REPORT = {}

-- Moves up to `limit` retries whose backoff has passed back into the queue,
-- at their score.
local function promoteDelayed(at, limit)
  local due = redis.call('ZRANGEBYSCORE', K.delayed, '-inf', at, 'LIMIT', 0, limit)
  for _, id in ipairs(due) do
    redis.call('ZREM', K.delayed, id)
    local job = readJob(id)
    if job and job.score then
      redis.call('HSET', jobKey(id), 'state', 'queued')
      queueJob(id, job.score, groupOf(job))
    end
  end
end

-- Recovers up to `limit` jobs whose lease expired (their worker died or
-- hung): back to the queue at their score with a `stalled` event, or —
-- after more than `maxStalls` stalls — to the dead-letter set
-- (`deadLettered`, error `stalled`). A job nobody needs any more (cancelled
-- while running) ends as `cancelled`.
local function sweepLeases(at, limit)
  local expired = redis.call('ZRANGEBYSCORE', K.leases, '-inf', at, 'LIMIT', 0, limit)
  for _, id in ipairs(expired) do
    redis.call('ZREM', K.leases, id)
    local job = readJob(id)
    -- Its worker's next renewal reports the job lost (not merely ended).
    if job and job.lease then redis.call('HSET', jobKey(id), 'expiredLease', job.lease) end
    if job and job.state == 'cancelling' then
      finalize(job, 'cancelled', at, '', {})
      REPORT[#REPORT + 1] = { 'cancelled', id, job.url or '', table.concat(job.batches, ','), '', job.worker or '' }
    elseif job then
      local stalls = redis.call('HINCRBY', jobKey(id), 'stalls', 1)
      local kind = stalls > Q.maxStalls and 'dead' or 'stalled'
      REPORT[#REPORT + 1] = { kind, id, job.url or '', table.concat(job.batches, ','), tostring(stalls), job.worker or '' }
      if kind == 'dead' then
        finalize(job, 'dead', at, '', { 'error', 'stalled', 'message',
          'The lease expired ' .. stalls .. ' times: the workers running the job died or hung' })
      else
        redis.call('HSET', jobKey(id), 'state', 'queued')
        redis.call('HDEL', jobKey(id), 'lease', 'worker')
        leaveFlight(job)
        queueJob(id, job.score, groupOf(job))
        local fields = append(jobEvent(job, 'stalled', at, job.worker), { 'stalls', tostring(stalls) })
        for _, batch in ipairs(job.batches) do emit(batch, fields) end
      end
    end
  end
end
