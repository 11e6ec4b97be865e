/// The Lua that adds jobs (from `enqueue` and from intake documents), and the
/// housekeeping every claim does first: promoting due retries, recovering
/// expired leases, and expanding intake documents. Appended to
/// `queueLibrary`.
let workLibrary = #"""
-- What this call's housekeeping did that an operator should hear of, for the
-- caller to log (`QueueHousekeeping`): one entry per recovered or
-- dead-lettered job, { kind, id, url, batches (comma-separated), detail,
-- worker or message }, kind `stalled` (back in the queue; detail = stalls),
-- `dead` (stalled too often; detail = stalls), `cancelled` (its lease expired
-- while it was being cancelled) or `document` (an intake document
-- dead-lettered; detail = error code, then the message).
local REPORT = {}

-- Adds `urls` to `batch` as jobs. A URL whose work (destination + processing
-- + URL) is already queued, delayed or running joins that job instead: the
-- job counts in this batch too and takes this batch's priority if higher.
-- `addToTotal` grows the batch's total (a chunked enqueue passes the whole
-- count with its first chunk and 0 after, so the batch never completes early).
-- `timeout` is the new jobs' time limit in seconds ('' for the worker's).
-- Callers validate every argument first: nothing here may fail half-way.
local function addJobs(batch, priority, destination, processing, urls, addToTotal, timeout, at)
  local key = batchKey(batch)
  if redis.call('HSETNX', key, 'createdAt', integer(at)) == 1 then
    redis.call('HSET', key, 'id', batch, 'priority', priority, 'destination', destination,
      'processing', processing, 'total', 0, 'completed', 0, 'failed', 0, 'cancelled', 0, 'dead', 0)
    redis.call('ZADD', K.batches, at, batch)
  end
  if addToTotal > 0 then
    redis.call('HINCRBY', key, 'total', addToTotal)
    -- Appending to a finished batch reopens it.
    redis.call('HDEL', key, 'finishedAt')
    for _, suffix in ipairs({ '', ':events', ':jobs' }) do redis.call('PERSIST', key .. suffix) end
  end
  local jobsKey = key .. ':jobs'
  local band = BANDS[priority]
  local offset, aging = bandOffset(band, Q.agingMs), ARGV[7]
  local base = tonumber(redis.call('GET', K.clock) or '0')
  if base < at * 1000 then base = at * 1000 end
  local batchField = 'b:' .. batch
  local enqueuedAt = integer(at)
  -- Ids for every URL are reserved at once; ids of URLs that join a live job stay unused.
  local nextID = redis.call('INCRBY', K.seq, #urls) - #urls
  local scored, members = {}, {}
  for _, url in ipairs(urls) do
    nextID = nextID + 1
    local id = tostring(nextID)
    local field = destination .. '|' .. processing .. '|' .. url
    if redis.call('HSETNX', K.work, field, id) == 1 then
      base = base + 1
      local score = integer(base + offset)
      -- (String arguments only: Redis formats a Lua number with printf.)
      local fields = { 'url', url, batchField, '1', 'priority', priority, 'destination', destination,
        'state', 'queued', 'aging', aging, 'score', score, 'enqueuedAt', enqueuedAt }
      if processing ~= '' then append(fields, { 'processing', processing }) end
      if timeout ~= '' then append(fields, { 'timeout', timeout }) end
      redis.call('HSET', jobKey(id), unpack(fields))
      scored[#scored + 1] = score
      scored[#scored + 1] = id
      members[#members + 1] = id
    else
      local existing = redis.call('HGET', K.work, field)
      local jkey = jobKey(existing)
      local joins = redis.call('HINCRBY', jkey, batchField, 1) == 1
      members[#members + 1] = existing
      local current = redis.call('HMGET', jkey, 'priority', 'state', 'score', 'aging', 'attempts', 'worker')
      if joins and current[2] == 'active' then
        -- The job already runs: this batch gets its `started` too.
        local job = { id = existing, url = url, attempts = current[5] }
        emit(batch, jobEvent(job, 'started', at, current[6]), true)
      end
      if (BANDS[current[1]] or 2) > band then
        local score = rescored({ priority = current[1], score = current[3], aging = current[4] }, priority)
        redis.call('HSET', jkey, 'priority', priority, 'score', score)
        if current[2] == 'queued' then redis.call('ZADD', K.queue, 'XX', score, existing) end
        if current[2] == 'active' then
          xadd(K.control, 10000, { 'v', '1', 'type', 'priority', 'job', existing, 'priority', priority, 'ts', enqueuedAt })
        end
      end
    end
  end
  -- Many members per command, in slices that stay well inside Lua's stack.
  for i = 1, #scored, 1000 do redis.call('ZADD', K.queue, unpack(scored, i, math.min(i + 999, #scored))) end
  for i = 1, #members, 1000 do redis.call('SADD', jobsKey, unpack(members, i, math.min(i + 999, #members))) end
  redis.call('SET', K.clock, integer(base))
  wakeIdleWorkers()
  return #scored / 2
end

-- Moves retries whose backoff has passed back into the queue, at their score.
local function promoteDelayed(at, limit)
  local due = redis.call('ZRANGEBYSCORE', K.delayed, '-inf', at, 'LIMIT', 0, limit)
  for _, id in ipairs(due) do
    redis.call('ZREM', K.delayed, id)
    local score = redis.call('HGET', jobKey(id), 'score')
    if score then
      redis.call('HSET', jobKey(id), 'state', 'queued')
      redis.call('ZADD', K.queue, score, id)
    end
  end
end

-- Recovers jobs whose lease expired (their worker died or hung): back to the
-- queue at their score with a `stalled` event, or — after more than
-- `maxStalls` stalls — to the dead-letter set. A job nobody needs any more
-- (cancelled while running) is dropped.
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
        redis.call('ZADD', K.queue, job.score, id)
        local fields = append(jobEvent(job, 'stalled', at, job.worker), { 'stalls', tostring(stalls) })
        for _, batch in ipairs(job.batches) do emit(batch, fields) end
      end
    end
  end
end

-- An intake document that cannot be used goes to the dead-letter set as
-- `doc-N` of kind `document`. Its `deadLettered` event names `batch` when
-- the document named a usable one (then it also goes to that batch's
-- stream, if the batch exists).
local function deadLetterDocument(document, code, message, at, batch)
  local id, reason, fields = deadLetterDocumentOfKind('document', document, code, message, at)
  emit(batch or '', fields)
  REPORT[#REPORT + 1] = { 'document', id, '', batch or '', code, reason }
end

local MAX_DOCUMENT_URLS = 10000
-- The largest integer every JSON reader (and Lua's doubles) holds exactly: 2^53 - 1.
local MAX_TOTAL = 9007199254740991
-- The longest job time limit a document may ask for: a day, in seconds.
local MAX_TIMEOUT = 86400

-- Decodes an intake document as strict JSON. Redis's cjson also takes hex
-- (`0x10`), `Infinity` and `NaN` for numbers unless told not to; the setting
-- is the Lua VM's, so it is put back at once (the decode cannot raise).
local function decodeDocument(document)
  local strict = cjson.decode_invalid_numbers
  if not strict then return pcall(cjson.decode, document) end
  local previous = strict()
  strict(false)
  local ok, result = pcall(cjson.decode, document)
  strict(previous)
  return ok, result
end

-- Whether `value` is a JSON number holding an integer from `low` to `high`.
local function isInteger(value, low, high)
  return type(value) == 'number' and value >= low and value <= high and value == math.floor(value)
end

-- Why an intake document is invalid, or nil.
local function documentProblem(d)
  if type(d) ~= 'table' then return 'the document is not a JSON object' end
  if d.v ~= 1 then return 'unsupported or missing version "v" (expected the number 1)' end
  if type(d.urls) ~= 'table' or #d.urls == 0 then return '"urls" must be a non-empty array of strings' end
  if #d.urls > MAX_DOCUMENT_URLS then return 'more than ' .. MAX_DOCUMENT_URLS .. ' URLs; split the batch' end
  for i, url in ipairs(d.urls) do
    if type(url) ~= 'string' or url == '' or #url > 8192 then return 'urls[' .. (i - 1) .. '] is not a URL string' end
  end
  if d.batch ~= nil and (type(d.batch) ~= 'string' or not string.match(d.batch, '^[%w%._%-]+$') or #d.batch > 128) then
    return '"batch" must be 1-128 characters from letters, digits, . _ -'
  end
  if d.priority ~= nil and not BANDS[d.priority] then return 'unknown "priority"' end
  if d.destination ~= nil and d.destination ~= 'disk' and d.destination ~= 'processed' then
    return '"destination" must be "disk" or "processed"'
  end
  if d.processing ~= nil and (type(d.processing) ~= 'string' or #d.processing > 1024) then
    return '"processing" must be a string'
  end
  if d.processing ~= nil and d.destination ~= 'processed' then
    return '"processing" is only for "destination": "processed" (a disk job is never decoded)'
  end
  if d.total ~= nil and not isInteger(d.total, #d.urls, MAX_TOTAL) then
    return '"total" must be an integer from the number of URLs to ' .. integer(MAX_TOTAL)
  end
  if d.timeout ~= nil and not isInteger(d.timeout, 1, MAX_TIMEOUT) then
    return '"timeout" must be an integer number of seconds from 1 to ' .. MAX_TIMEOUT
  end
  return nil
end

-- Why a part of a batch cannot join it, or nil; and the batch's new count
-- of URLs received through declared parts. A batch sent in parts declares
-- its total in every part: the first part sets it; a part declaring another
-- total, or whose URLs would take the batch past it, is refused, as is a
-- part without `total` while declared parts are still coming in, and a part
-- with `total` for a batch that exists without one.
local function partProblem(d, batch)
  local b = redis.call('HMGET', batchKey(batch), 'createdAt', 'declaredTotal', 'received')
  local created, declared, received = b[1], tonumber(b[2]), tonumber(b[3]) or 0
  local name = 'batch "' .. batch .. '"'
  if not d.total then
    if declared and received < declared then
      return name .. ' is being sent in parts with total ' .. integer(declared) .. ' (' .. integer(received) ..
        ' URLs in so far): give "total": ' .. integer(declared) .. ' in every part'
    end
    return nil
  end
  if not declared then
    if created then return name .. ' exists and was not sent in parts: a part with "total" must start a new batch' end
    return nil, #d.urls
  end
  if declared ~= d.total then
    return name .. ' was declared with total ' .. integer(declared) .. '; this part declares ' .. integer(d.total)
  end
  if received + #d.urls > declared then
    return name .. ' has total ' .. integer(declared) .. ' and ' .. integer(received) .. ' URLs in: this part\'s ' ..
      #d.urls .. ' would make ' .. integer(received + #d.urls)
  end
  return nil, received + #d.urls
end

-- Turns one intake document into jobs, or dead-letters it with its reason.
-- Every check comes before the first write.
local function expandDocument(document, at)
  local ok, d = decodeDocument(document)
  if not ok then return deadLetterDocument(document, 'malformed_document', 'not JSON: ' .. tostring(d), at) end
  local problem = documentProblem(d)
  local named = type(d) == 'table' and type(d.batch) == 'string' and string.match(d.batch, '^[%w%._%-]+$')
    and #d.batch <= 128 and d.batch or nil
  if problem then return deadLetterDocument(document, 'invalid_document', problem, at, named) end
  local batch = d.batch or ('intake-' .. redis.call('INCR', K.seq))
  local received
  problem, received = partProblem(d, batch)
  if problem then return deadLetterDocument(document, 'invalid_document', problem, at, batch) end
  local addToTotal = #d.urls
  if d.total then
    -- The first part sets the batch's total; later ones only bring URLs.
    addToTotal = redis.call('HSETNX', batchKey(batch), 'declaredTotal', integer(d.total)) == 1 and d.total or 0
    redis.call('HSET', batchKey(batch), 'received', integer(received))
  end
  addJobs(batch, d.priority or 'normal', d.destination or 'disk', d.processing or '', d.urls, addToTotal,
    d.timeout and integer(d.timeout) or '', at)
end

-- Expands the next intake document, if any: first one an idle worker moved
-- to `intake:pending` while waking, else the head of the intake list. A
-- wake-up marker at the head stays for idle workers unless a document waits
-- behind it.
local function takeIntake(at)
  local document = redis.call('LPOP', K.pending)
  while document == WAKE do document = redis.call('LPOP', K.pending) end
  if not document then
    local head = redis.call('LINDEX', K.intake, 0)
    if head == WAKE and redis.call('LLEN', K.intake) > 1 then
      redis.call('LPOP', K.intake)
      head = redis.call('LINDEX', K.intake, 0)
    end
    if not head or head == WAKE then return end
    document = redis.call('LPOP', K.intake)
  end
  -- The document has left the list: should its expansion still fail (it
  -- cannot once validated), it is dead-lettered rather than lost, and the
  -- calling script (a claim, or a finish that already ended its job) goes on.
  local ok, failure = pcall(expandDocument, document, at)
  if not ok then
    local reason = type(failure) == 'table' and (failure.err or '?') or tostring(failure)
    deadLetterDocument(document, 'invalid_document', 'the document could not be expanded: ' .. reason, at)
  end
end

-- Claims up to `count` jobs for `worker`, highest score first, after the
-- housekeeping above. Each claimed job gets a lease token (worker + claim
-- number) and deadline, and a `started` event in each of its batches.
-- Returns [id, url, priority, destination, processing, attempt, token,
-- batches (comma-separated), timeout (seconds, '' for the worker's),
-- enqueuedAt, claimedAt (ms, Redis clock)] per job (the scripts return it
-- beside `REPORT`).
local function claimJobs(count, worker, at)
  promoteDelayed(at, 100)
  sweepLeases(at, 100)
  takeIntake(at)
  local claimed = {}
  if count < 1 or isPaused() then return claimed end
  local popped = redis.call('ZPOPMIN', K.queue, count)
  local atText = integer(at)
  local deadline = integer(at + Q.leaseMs)
  for i = 1, #popped, 2 do
    local id = popped[i]
    local job = readJob(id)
    if job then
      job.attempts = tostring((tonumber(job.attempts) or 0) + 1)
      local token = worker .. '/' .. ((tonumber(job.claims) or 0) + 1)
      redis.call('HSET', jobKey(id), 'attempts', job.attempts, 'claims', (tonumber(job.claims) or 0) + 1,
        'state', 'active', 'worker', worker, 'lease', token, 'claimedAt', atText)
      redis.call('ZADD', K.leases, deadline, id)
      local fields = jobEvent(job, 'started', at, worker)
      for _, batch in ipairs(job.batches) do emit(batch, fields, true) end
      claimed[#claimed + 1] = { id, job.url or '', job.priority or 'normal', job.destination or '',
        job.processing or '', job.attempts, token, table.concat(job.batches, ','), job.timeout or '',
        job.enqueuedAt or '', atText }
    end
  end
  if #popped > 0 and redis.call('ZCARD', K.queue) > 0 then wakeIdleWorkers() end
  return claimed
end
"""#
