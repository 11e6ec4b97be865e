-- parsing.lua: large intake documents are parsed by a worker, not in Redis
-- (docs/wire-format.md, "Large documents").
--
-- Measured on a scratch redis-server (bench/README.md, "Intake in slices"),
-- the call that took a 10,000-URL document (700 KB of JSON) spent about
-- 1.5 ms reading it into Lua, 3 to 5 ms decoding it with cjson, 1 ms
-- checking its URLs and 4 ms pushing them to the staging list: 10 to 15 ms
-- in one call, of which the decode alone cannot be split (cjson decodes a
-- text whole). So when the claiming client parses documents itself (context
-- `largeDocuments` 'worker': a `warmer worker`), a document of more than
-- LARGE_DOCUMENT_BYTES is not decoded here:
--   1. the claim that takes it parks it, as sent, in the parsing slot,
--      leased to the claiming worker (the copy of its bytes is the call's
--      only cost), and reports `parse` with the lease's token:
--        intake:parsing            hash: token, worker, parkedAt, leases,
--                                  deadline (ms, Redis clock)
--        intake:parsing:document   the document, as sent
--        intake:parsing:urls       its URLs pushed so far, in order
--   2. the worker reads it (GET), parses and checks it with the rules and
--      the texts of documentProblem (`IntakeDocument` in Swift, checked
--      against this Lua by IntakeDocumentDifferentialTests), and pushes its
--      URLs in calls of up to 1,000 (parse-push.lua), each renewing the lease;
--   3. one last call (parse-end.lua) counts it in its batch and stages it,
--      its pushed list renamed (O(1)) to the staging list, or dead-letters it
--      with the code and message Redis would have given it.
-- One document is parsed at a time, and no other intake document is taken
-- meanwhile (staged slices still become jobs), so documents count in their
-- batches in the order they came, as when Redis decoded them. A worker that
-- dies at any step leaves the slot leased: once the lease expires, the next
-- claim of a worker takes it over from step 2 under a new token (the URLs
-- pushed so far are dropped; the old token's calls are refused), and a
-- claim of a client that parses nothing expands it here in one call.
--
-- @include context

-- Documents up to this size are decoded, checked and staged by the claim
-- that takes them (at most about 1 ms); larger ones are parsed by the worker.
local LARGE_DOCUMENT_BYTES = 32768
local PARSING = Q.prefix .. 'intake:parsing'
local PARSING_DOCUMENT = PARSING .. ':document'
local PARSING_URLS = PARSING .. ':urls'

-- Leases the parked document to `worker` under a new token (dropping what
-- an earlier holder pushed); returns the entry of the report (REPORT,
-- housekeeping.lua) that tells the worker: { 'parse', token, '', '', bytes,
-- worker }.
local function leaseParsing(worker, at)
  local leases = redis.call('HINCRBY', PARSING, 'leases', 1)
  local token = worker .. '/' .. (redis.call('HGET', PARSING, 'parkedAt') or '') .. '/' .. leases
  redis.call('DEL', PARSING_URLS)
  redis.call('HSET', PARSING, 'token', token, 'worker', worker, 'deadline', integer(at + Q.leaseMs))
  return { 'parse', token, '', '', tostring(redis.call('STRLEN', PARSING_DOCUMENT)), worker }
end

-- Parks `document` in the parsing slot, leased to `worker`; returns the
-- report entry (leaseParsing).
local function parkDocument(document, worker, at)
  redis.call('SET', PARSING_DOCUMENT, document)
  redis.call('HSET', PARSING, 'parkedAt', integer(at))
  return leaseParsing(worker, at)
end

-- Whether `token` holds the parsing slot's lease.
local function holdsParsing(token)
  return token ~= '' and redis.call('HGET', PARSING, 'token') == token
end

-- Empties the parsing slot.
local function clearParsing()
  redis.call('DEL', PARSING, PARSING_DOCUMENT, PARSING_URLS)
end
