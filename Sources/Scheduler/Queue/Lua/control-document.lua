-- control-document.lua: applies one step of the queue's control documents
-- (`JobQueue.applyControlDocumentStep`; docs/control-documents.md).
--
-- @include context priorities events documents control
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue delayed leases intake sequence clock work events control commands pendingCommands applyingCommand dead batches config metrics metricsSeconds groups fairness groupWeights groupLimits recent
--
-- ARGV, after the queue context (context.lua):
--   batchChunk  the most jobs of a batch to cancel or re-prioritise in one step
--   deadChunk   the most dead letters to retry or purge in one step (`"all": true`)
--
-- The document being applied is kept in the hash `commands:applying` until
-- its last step, so a worker that dies between steps loses nothing: the
-- next step, by any worker, goes on from where the last one ended. With
-- none in progress, a step takes the next document — first one a waking
-- worker moved to `commands:pending`, else the head of `commands` —
-- validates it (a bad one is dead-lettered with its reason, and nothing
-- else happens) and applies its first step. Every operation is the function
-- the CLI's script runs (control.lua).
--
-- Returns `{'idle'}` (nothing to apply), `{'inProgress', op, id}` (call
-- again), `{'applied', fields of the controlApplied event}` or
-- `{'deadLettered', dead-letter id, error code, message, caller's id, op}`.
-- Events: `controlApplied` on the queue's stream with the counts summed
-- over the steps, after the last step; `deadLettered` (with the caller's
-- `id` and `op` when valid) for a document that cannot be used; and what
-- the operation publishes (see cancel.lua, priority.lua).
local BATCH_CHUNK, DEAD_CHUNK = unpack(ARGV, FIRST, FIRST + 1)
BATCH_CHUNK, DEAD_CHUNK = tonumber(BATCH_CHUNK), tonumber(DEAD_CHUNK)

local MAX_CONTROL_IDS = 1000
local CONTROL_OPS = { cancel = true, priority = true, deadRetry = true, deadPurge = true, pause = true, resume = true }

local function isName(value)
  return type(value) == 'string' and #value <= 128 and string.match(value, '^[%w%._%-]+$') ~= nil
end

-- Why `ids` (the document's field `name`) is not a list of job ids (or of
-- dead-letter ids: digits or doc-N), or nil.
local function idsProblem(name, ids, deadLetters)
  if type(ids) ~= 'table' or #ids == 0 then return '"' .. name .. '" must be a non-empty array of id strings' end
  if #ids > MAX_CONTROL_IDS then return 'more than ' .. MAX_CONTROL_IDS .. ' ids in "' .. name .. '"; send several documents' end
  for i, id in ipairs(ids) do
    if type(id) ~= 'string' or #id > 32
      or not (string.match(id, '^%d+$') or (deadLetters and string.match(id, '^doc%-%d+$'))) then
      return name .. '[' .. (i - 1) .. '] is not a ' .. (deadLetters and 'dead-letter id (digits, or doc-N)' or 'job id (digits)')
    end
  end
  return nil
end

-- Why a control document is invalid, or nil. Fields an operation does not
-- use are ignored.
local function controlProblem(d)
  if type(d) ~= 'table' then return 'the document is not a JSON object' end
  if d.v ~= 1 then return 'unsupported or missing version "v" (expected the number 1)' end
  if d.id ~= nil and not isName(d.id) then return '"id" must be 1-128 characters from letters, digits, . _ -' end
  if type(d.op) ~= 'string' or not CONTROL_OPS[d.op] then
    return 'unknown or missing "op" (expected cancel, priority, deadRetry, deadPurge, pause or resume)'
  end
  if d.op == 'cancel' or d.op == 'priority' then
    if d.op == 'priority' and (type(d.priority) ~= 'string' or not BANDS[d.priority]) then
      return '"priority" must be veryLow, low, normal, high or veryHigh'
    end
    if d.batch ~= nil and d.jobs ~= nil then return 'give "batch" or "jobs", not both' end
    if d.batch == nil and d.jobs == nil then return 'give "batch" or "jobs"' end
    if d.batch ~= nil then
      if not isName(d.batch) then return '"batch" must be 1-128 characters from letters, digits, . _ -' end
      return nil
    end
    return idsProblem('jobs', d.jobs, false)
  end
  if d.op == 'deadRetry' or d.op == 'deadPurge' then
    if d.all ~= nil and type(d.all) ~= 'boolean' then return '"all" must be true or false' end
    if d.all == true then
      if d.ids ~= nil then return 'give "ids" or "all": true, not both' end
      return nil
    end
    if d.ids == nil then return 'give "ids" or "all": true' end
    return idsProblem('ids', d.ids, true)
  end
  return nil
end

-- A control document that cannot be used goes to the dead-letter set as
-- `doc-N` of kind `control` (`dead retry` pushes it onto the commands list
-- again), with a `deadLettered` event carrying its `id` and `op` when valid.
local function deadLetterControl(document, code, message, d, at)
  local id, fields
  id, message, fields = deadLetterDocumentOfKind('control', document, code, message, at)
  local callerID = type(d) == 'table' and isName(d.id) and d.id or ''
  local op = type(d) == 'table' and type(d.op) == 'string' and CONTROL_OPS[d.op] and d.op or ''
  if callerID ~= '' then append(fields, { 'id', callerID }) end
  if op ~= '' then append(fields, { 'op', op }) end
  emit('', fields)
  return { 'deadLettered', id, code, message, callerID, op }
end

local function add(S, counter, count)
  S[counter] = tostring((tonumber(S[counter]) or 0) + count)
end

-- The ids among `ids` whose job hash does not exist (never did, or expired), comma-separated.
local function missingJobs(ids)
  local missing = {}
  for _, id in ipairs(ids) do
    if redis.call('EXISTS', jobKey(id)) == 0 then missing[#missing + 1] = id end
  end
  return table.concat(missing, ',')
end

-- Applies one step of document `d`, adding its counts to `S` (the progress
-- kept in `commands:applying`). Returns whether the document is done.
local function applyStep(d, S, at)
  local first = S.steps == '0'
  add(S, 'steps', 1)
  local op = d.op
  if op == 'pause' then pauseQueue() return true end
  if op == 'resume' then resumeQueue() return true end
  if op == 'cancel' then
    if d.batch then
      local cancelled, signalled, left = cancelBatchChunk(d.batch, BATCH_CHUNK, at)
      if not cancelled then
        if first then S.notFound = d.batch end
        return true
      end
      add(S, 'cancelled', cancelled)
      add(S, 'aborted', signalled)
      return left == 0
    end
    S.notFound = missingJobs(d.jobs)
    local cancelled, signalled = cancelJobs('', d.jobs, at)
    add(S, 'cancelled', cancelled)
    add(S, 'aborted', signalled)
    return true
  end
  if op == 'priority' then
    if d.batch then
      if first and not setBatchPriority(d.batch, d.priority) then
        S.notFound = d.batch
        return true
      end
      -- A cursor over the batch's jobs: a job seen twice is already at its
      -- priority the second time, and is not counted again.
      local page = redis.call('SSCAN', batchKey(d.batch) .. ':jobs', S.cursor, 'COUNT', BATCH_CHUNK)
      S.cursor = page[1]
      add(S, 'updated', prioritizeJobs(d.batch, d.priority, page[2], at))
      return S.cursor == '0'
    end
    S.notFound = missingJobs(d.jobs)
    add(S, 'updated', prioritizeJobs('', d.priority, d.jobs, at))
    return true
  end
  -- deadRetry, deadPurge. "all" is every entry of the dead-letter set when
  -- the document was taken (scored up to `deadUpTo`: latestScore puts each
  -- later one above): what fails again meanwhile is not taken again. A
  -- document an older worker took has only `takenAt`, its time.
  local ids = d.ids
  if d.all == true then ids = redis.call('ZRANGEBYSCORE', K.dead, '-inf', S.deadUpTo or S.takenAt, 'LIMIT', 0, DEAD_CHUNK) end
  local count, unknown
  if op == 'deadRetry' then count, unknown = retryDeadLetters(ids, at) else count, unknown = purgeDeadLetters(ids) end
  add(S, op == 'deadRetry' and 'retried' or 'purged', count)
  if d.all ~= true then S.notFound = table.concat(unknown, ',') end
  return d.all ~= true or #ids < DEAD_CHUNK
end

local at = now()
local S = {}
local flat = redis.call('HGETALL', K.applyingCommand)
for i = 1, #flat, 2 do S[flat[i]] = flat[i + 1] end
local document, taken = S.document, S.document ~= nil
if not taken then
  document = redis.call('LPOP', K.pendingCommands) or redis.call('LPOP', K.commands)
  if not document then return { 'idle' } end
end
local ok, d = decodeDocument(document)
local problem = ok and controlProblem(d) or nil
if not ok or problem then
  -- (A document in progress was valid when taken: this is for a hash written by hand.)
  if taken then redis.call('DEL', K.applyingCommand) end
  if not ok then return deadLetterControl(document, 'malformed_document', 'not JSON: ' .. tostring(d), nil, at) end
  return deadLetterControl(document, 'invalid_document', problem, d, at)
end
if not taken then S = { document = document, takenAt = integer(at), steps = '0', cursor = '0', notFound = '' } end
if not taken and d.all == true then S.deadUpTo = redis.call('ZRANGE', K.dead, -1, -1, 'WITHSCORES')[2] or S.takenAt end

local applied, done = pcall(applyStep, d, S, at)
if not applied then
  -- Redis refused a command (a key of the wrong type written by hand): the
  -- document is dead-lettered with the error rather than retried for ever.
  -- What its steps changed so far stays changed.
  redis.call('DEL', K.applyingCommand)
  local reason = type(done) == 'table' and (done.err or '?') or tostring(done)
  return deadLetterControl(document, 'invalid_document', 'the document could not be applied: ' .. reason, d, at)
end
local callerID = d.id or ''
if not done then
  local fields = {}
  for field, value in pairs(S) do append(fields, { field, value }) end
  redis.call('HSET', K.applyingCommand, unpack(fields))
  return { 'inProgress', d.op, callerID }
end
if taken then redis.call('DEL', K.applyingCommand) end

local op = d.op
local target = (op == 'cancel' or op == 'priority') and d.batch or ''
local fields = { 'v', '1', 'type', 'controlApplied', 'op', op, 'ts', integer(at) }
if callerID ~= '' then append(fields, { 'id', callerID }) end
if op == 'cancel' then
  append(fields, { 'cancelled', S.cancelled or '0', 'aborted', S.aborted or '0', 'notFound', S.notFound })
elseif op == 'priority' then
  append(fields, { 'priority', d.priority, 'updated', S.updated or '0', 'notFound', S.notFound })
elseif op == 'deadRetry' then
  append(fields, { 'retried', S.retried or '0', 'notFound', S.notFound })
elseif op == 'deadPurge' then
  append(fields, { 'purged', S.purged or '0', 'notFound', S.notFound })
end
append(fields, { 'batch', target })
-- The queue's stream only: `batch` names the batch acted on, whose own
-- stream ends with its `batchCompleted`.
xadd(K.events, Q.maxEvents, fields)
return { 'applied', fields }
