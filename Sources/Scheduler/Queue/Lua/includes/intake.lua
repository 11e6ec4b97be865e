-- intake.lua: turning the documents producers push onto `intake` into jobs,
-- one per claim (docs/wire-format.md, "Producing: intake documents").
--
-- @include context priorities events wake documents housekeeping jobs slices parsing

local MAX_DOCUMENT_URLS = 10000

-- An intake document that cannot be used goes to the dead-letter set as
-- `doc-N` of kind `document`. Its `deadLettered` event names `batch` when
-- the document named a usable one (then it also goes to that batch's
-- stream, if the batch exists).
local function deadLetterDocument(document, code, message, at, batch)
  local id, reason, fields = deadLetterDocumentOfKind('document', document, code, message, at)
  emit(batch or '', fields)
  REPORT[#REPORT + 1] = { 'document', id, '', batch or '', code, reason }
end

-- Why the fields of a document of `count` valid URLs are invalid, or nil:
-- the rules after the URLs' (documentProblem), also checked by parse-end.lua
-- on the fields a worker sends.
local function fieldsProblem(d, count)
  if d.batch ~= nil and (type(d.batch) ~= 'string' or not string.match(d.batch, '^[%w%._%-]+$') or #d.batch > 128) then
    return '"batch" must be 1-128 characters from letters, digits, . _ -'
  end
  if d.priority ~= nil and not BANDS[d.priority] then return 'unknown "priority"' end
  if d.group ~= nil and not isGroupName(d.group) then
    return '"group" must be 1-128 characters from letters, digits, . _ -'
  end
  if d.destination ~= nil and d.destination ~= 'disk' and d.destination ~= 'processed' then
    return '"destination" must be "disk" or "processed"'
  end
  if d.processing ~= nil and (type(d.processing) ~= 'string' or #d.processing > 1024) then
    return '"processing" must be a string'
  end
  if d.processing ~= nil and d.destination ~= 'processed' then
    return '"processing" is only for "destination": "processed" (a disk job is never decoded)'
  end
  if d.total ~= nil and not isInteger(d.total, count, MAX_TOTAL) then
    return '"total" must be an integer from the number of URLs to ' .. integer(MAX_TOTAL)
  end
  if d.timeout ~= nil and not isInteger(d.timeout, 1, MAX_TIMEOUT) then
    return '"timeout" must be an integer number of seconds from 1 to ' .. MAX_TIMEOUT
  end
  if d.freshFor ~= nil and not isInteger(d.freshFor, 0, MAX_FRESH_FOR) then
    return '"freshFor" must be an integer number of seconds from 0 to ' .. MAX_FRESH_FOR
  end
  return nil
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
  return fieldsProblem(d, #d.urls)
end

-- Why a part of a batch cannot join it, or nil; and the batch's new count
-- of URLs received through declared parts. A batch sent in parts declares
-- its total in every part: the first part sets it; a part declaring another
-- total, or whose URLs would take the batch past it, is refused, as is a
-- part without `total` while declared parts are still coming in, and a part
-- with `total` for a batch that exists without one. `count`: the document's URLs.
local function partProblem(d, batch, count)
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
    return nil, count
  end
  if declared ~= d.total then
    return name .. ' was declared with total ' .. integer(declared) .. '; this part declares ' .. integer(d.total)
  end
  if received + count > declared then
    return name .. ' has total ' .. integer(declared) .. ' and ' .. integer(received) .. ' URLs in: this part\'s ' ..
      count .. ' would make ' .. integer(received + count)
  end
  return nil, received + count
end

-- Counts a valid document `d` of `count` URLs (one `partProblem` accepted,
-- with the batch's new count `received`) in `batch`'s parts; returns what
-- its URLs add to the batch's total.
local function countDocument(d, batch, received, count)
  if not d.total then return count end
  -- The first part sets the batch's total; later ones only bring URLs.
  local addToTotal = redis.call('HSETNX', batchKey(batch), 'declaredTotal', integer(d.total)) == 1 and d.total or 0
  redis.call('HSET', batchKey(batch), 'received', integer(received))
  return addToTotal
end

-- The settings the jobs of document `d` are made with, as staged
-- (STAGING_FIELDS, staging.lua).
local function stagingSettings(d, batch)
  return { batch = batch, destination = d.destination or 'disk', processing = d.processing or '',
    timeout = d.timeout and integer(d.timeout) or '', group = d.group or '', freshFor = d.freshFor and integer(d.freshFor) or '' }
end

-- Adds the URLs of a valid document `d` (one `partProblem` accepted, with
-- the batch's new count `received`) to `batch`: the first slice as jobs at
-- once, the rest staged (staging.lua). Returns the number of new jobs made
-- now, how many URLs were staged, and how many counted as recently warmed.
local function acceptDocument(d, batch, received, at)
  local addToTotal = countDocument(d, batch, received, #d.urls)
  return addJobsInSlices(batch, d.priority or 'normal', d.destination or 'disk', d.processing or '', d.urls, addToTotal,
    d.timeout and integer(d.timeout) or '', at, d.group, d.freshFor and integer(d.freshFor) or '')
end

-- Why the fields `d` of a document a client parsed (the document without
-- `urls`, its `count` URLs pushed) are invalid, or nil.
local function parsedFieldsProblem(d, count)
  if type(d) ~= 'table' then return 'the document is not a JSON object' end
  return fieldsProblem(d, count)
end

-- Counts a valid document a client parsed, `d` its fields (one
-- `partProblem` accepted, with the batch's new count `received`), in
-- `batch`, and stages its `count` URLs: the list `pushed` they were pushed
-- to becomes its staging list (a rename: O(1) in the URLs).
local function stagePushedDocument(d, batch, received, count, pushed, at)
  local addToTotal = countDocument(d, batch, received, count)
  addJobs(batch, d.priority or 'normal', d.destination or 'disk', d.processing or '', {}, addToTotal,
    d.timeout and integer(d.timeout) or '', at, d.group)
  stageDocument(stagingSettings(d, batch), count, function(key)
    redis.call('RENAME', pushed, key)
    redis.call('PERSIST', key)
  end)
end

-- Accepts a document a worker parsed (parsing.lua): `d` its fields, its
-- `count` URLs pushed to the parsing slot, which becomes its staging list;
-- or dead-letters it as the expansion would. `document` is what its dead
-- letter keeps.
local function acceptParsedDocument(d, count, document, at)
  local problem = parsedFieldsProblem(d, count)
  if problem then return deadLetterDocument(document, 'invalid_document', problem, at) end
  local batch = d.batch or ('intake-' .. redis.call('INCR', K.sequence))
  local received
  problem, received = partProblem(d, batch, count)
  if problem then return deadLetterDocument(document, 'invalid_document', problem, at, batch) end
  stagePushedDocument(d, batch, received, count, PARSING_URLS, at)
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
  local batch = d.batch or ('intake-' .. redis.call('INCR', K.sequence))
  local received
  problem, received = partProblem(d, batch, #d.urls)
  if problem then return deadLetterDocument(document, 'invalid_document', problem, at, batch) end
  acceptDocument(d, batch, received, at)
end

-- Expands `document`, which has left the intake list: should its expansion
-- still fail (it cannot once validated), it is dead-lettered rather than
-- lost, and the calling script (a claim, or a finish that already ended its
-- job) goes on.
local function expandTakenDocument(document, at)
  local ok, failure = pcall(expandDocument, document, at)
  if not ok then
    local reason = type(failure) == 'table' and (failure.err or '?') or tostring(failure)
    deadLetterDocument(document, 'invalid_document', 'the document could not be expanded: ' .. reason, at)
  end
end

-- Turns the next slice of a staged document into jobs if one is staged;
-- else, unless a document is being parsed (parsing.lua), expands the next
-- intake document, if any: first one an idle worker moved to
-- `intake:pending` while waking, else the head of the intake list. A large
-- one is parked for `worker` to parse instead when the client parses
-- (context `largeDocuments`). A document whose parsing lease expired goes
-- to `worker` (or is expanded here when the client parses nothing). A
-- wake-up marker at the head stays for idle workers unless a document
-- waits behind it. While slices are made, the wake-up markers idle workers
-- moved to `intake:pending` (each slice's jobs push one, and each wakes a
-- worker into the next claim) are dropped as they come: left there, the
-- 10,000 of a million-URL document were popped one by one in the claim
-- after its last slice, a call of 7 to 18 ms.
local function takeIntake(at, worker)
  if expandStagedSlice(at) then
    redis.call('LREM', K.pendingIntake, 0, WAKE)
    return
  end
  local parses = Q.largeDocuments == 'worker' and worker ~= nil
  local deadline = tonumber(redis.call('HGET', PARSING, 'deadline'))
  if deadline then
    if deadline > at then return end
    if parses then REPORT[#REPORT + 1] = leaseParsing(worker, at) return end
    local parked = redis.call('GET', PARSING_DOCUMENT) or ''
    clearParsing()
    return expandTakenDocument(parked, at)
  end
  local document = redis.call('LPOP', K.pendingIntake)
  while document == WAKE do document = redis.call('LPOP', K.pendingIntake) end
  if not document then
    local head = redis.call('LINDEX', K.intake, 0)
    if head == WAKE and redis.call('LLEN', K.intake) > 1 then
      redis.call('LPOP', K.intake)
      head = redis.call('LINDEX', K.intake, 0)
    end
    if not head or head == WAKE then return end
    document = redis.call('LPOP', K.intake)
  end
  if parses and #document > LARGE_DOCUMENT_BYTES then
    REPORT[#REPORT + 1] = parkDocument(document, worker, at)
    return
  end
  expandTakenDocument(document, at)
end
