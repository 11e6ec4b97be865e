-- records.lua: a job's record: its hash read as a table, the field of the
-- `work` hash naming the job that does its URL's work, and whether it is live.
--
-- @include context

-- The job hash as a table; `batches` lists the batches it counts in and
-- `counts[batch]` how many of that batch's URLs it serves.
local function readJob(id)
  local flat = redis.call('HGETALL', jobKey(id))
  if #flat == 0 then return nil end
  local job = { id = id, batches = {}, counts = {} }
  local byte = string.byte
  for i = 1, #flat, 2 do
    local field, value = flat[i], flat[i + 1]
    local first, second = byte(field, 1, 2)
    if first == 98 and second == 58 then -- 'b:'
      local batch = string.sub(field, 3)
      job.batches[#job.batches + 1] = batch
      job.counts[batch] = tonumber(value)
    else
      job[field] = value
    end
  end
  return job
end

local function workField(job)
  return (job.destination or '') .. '|' .. (job.processing or '') .. '|' .. (job.url or '')
end

local function isLive(state)
  return state == 'queued' or state == 'active' or state == 'delayed'
end
