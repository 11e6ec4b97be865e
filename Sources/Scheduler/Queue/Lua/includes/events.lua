-- events.lua: publishing events to the queue's stream (`events`) and to
-- each batch's (`batch:ID:events`); docs/events.md lists them.
--
-- @include context masking

local function xadd(key, maxLength, fields)
  redis.call('XADD', key, 'MAXLEN', '~', maxLength, '*', unpack(fields))
end

-- Publishes `fields` with `batch` to the queue's stream and the batch's
-- stream (unless the batch hash is gone; `exists` skips that check). With
-- `batch` empty the event has no `batch` field and goes to the queue's
-- stream only.
local function emit(batch, fields, exists)
  if batch == '' then return xadd(K.events, Q.maxEvents, fields) end
  local n = #fields
  fields[n + 1] = 'batch'
  fields[n + 2] = batch
  xadd(K.events, Q.maxEvents, fields)
  if exists or redis.call('EXISTS', batchKey(batch)) == 1 then
    xadd(batchKey(batch) .. ':events', Q.maxBatchEvents, fields)
  end
  fields[n + 1] = nil
  fields[n + 2] = nil
end

local function jobEvent(job, eventType, at, worker)
  local fields = { 'v', '1', 'type', eventType, 'job', job.id, 'url', masked(job.url or ''), 'ts', integer(at),
    'attempt', job.attempts or '0' }
  if worker and worker ~= '' then
    fields[#fields + 1] = 'worker'
    fields[#fields + 1] = worker
  end
  return fields
end
