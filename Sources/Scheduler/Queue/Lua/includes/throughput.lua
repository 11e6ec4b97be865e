-- throughput.lua: the queue's throughput, job ends counted per second
-- (`metrics`, `metricsSeconds`; `JobQueue.throughput` reads them).
--
-- @include context

-- Finished seconds of throughput kept in `metricsSeconds` (15 minutes).
local METRICS_SECONDS = 900

-- Adds job ends to the throughput of the second `at` falls in: the
-- current second's counts are the hash K.metrics (`second`, `completed`,
-- `failed` — failed and dead —, `bytes`); a job ending in a later second
-- first pushes the finished one onto K.metricsSeconds as
-- `SECOND COMPLETED FAILED BYTES`, newest first, METRICS_SECONDS kept.
-- Seconds without job ends have no entry. A clock that goes back (a
-- failover) counts in the current second. Cancelled jobs are not counted.
local function addThroughput(completed, failed, bytes, at)
  if completed == 0 and failed == 0 then return end
  local second = math.floor(at / 1000)
  local m = redis.call('HMGET', K.metrics, 'second', 'completed', 'failed', 'bytes')
  local current = tonumber(m[1])
  if not current or second > current then
    if current then
      redis.call('LPUSH', K.metricsSeconds, m[1] .. ' ' .. (m[2] or '0') .. ' ' .. (m[3] or '0') .. ' ' .. (m[4] or '0'))
      redis.call('LTRIM', K.metricsSeconds, 0, METRICS_SECONDS - 1)
    end
    redis.call('HSET', K.metrics, 'second', integer(second), 'completed', 0, 'failed', 0, 'bytes', 0)
  end
  if completed > 0 then redis.call('HINCRBY', K.metrics, 'completed', completed) end
  if failed > 0 then redis.call('HINCRBY', K.metrics, 'failed', failed) end
  if bytes > 0 then redis.call('HINCRBY', K.metrics, 'bytes', integer(bytes)) end
end

-- One job's end as addThroughput counts it: (completed, failed, bytes).
local function throughputOf(state, bytes)
  local size = (bytes and string.find(bytes, '^%d+$')) and tonumber(bytes) or 0
  if state == 'completed' then return 1, 0, size end
  if state == 'failed' or state == 'dead' then return 0, 1, size end
  return 0, 0, 0
end
