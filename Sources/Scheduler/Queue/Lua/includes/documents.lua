-- documents.lua: what intake documents and control documents (JSON pushed
-- by clients onto `intake` and `commands`) share: strict decoding, and
-- dead-lettering one that cannot be used.
--
-- @include context masking dead-letters

-- Decodes a document as strict JSON. Redis's cjson also takes hex (`0x10`),
-- `Infinity` and `NaN` for numbers unless told not to; the setting is the
-- Lua VM's, so it is put back at once (the decode cannot raise).
local function decodeDocument(document)
  local strict = cjson.decode_invalid_numbers
  if not strict then return pcall(cjson.decode, document) end
  local previous = strict()
  strict(false)
  local ok, result = pcall(cjson.decode, document)
  strict(previous)
  return ok, result
end

-- Dead-letters a document that cannot be used (an intake document, `kind`
-- `document`, or a control document, `kind` `control`) as a pseudo-job
-- `doc-N` holding it (up to 64 KiB, as sent: `dead retry` pushes it again)
-- and the reason, URL passwords masked. Returns the id, the masked message
-- and the fields of its `deadLettered` event, for the caller to complete
-- and publish.
local function deadLetterDocumentOfKind(kind, document, code, message, at)
  message = masked(message)
  local id = 'doc-' .. redis.call('INCR', K.sequence)
  redis.call('HSET', jobKey(id), 'id', id, 'kind', kind, 'state', 'dead', 'document',
    string.sub(document, 1, 65536), 'error', code, 'message', message, 'finishedAt', integer(at))
  redis.call('EXPIRE', jobKey(id), Q.retention)
  deadLetter(id, at)
  return id, message, { 'v', '1', 'type', 'deadLettered', 'job', id, 'ts', integer(at), 'error', code, 'message', message }
end
