-- publish-while-leased.lua: publishes a worker's event of a job (`progress`,
-- `retrying`) in each of the job's batches, only while the worker still
-- holds the job's lease (`EventStream.publish`).
--
-- @include context masking records events
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys queue events
--
-- ARGV, after the queue context (context.lua):
--   id            the job's id
--   token         the lease token it was claimed with
--   field, value… the event's fields without `batch` (the values of `url`
--                 and `message` are published with URL passwords masked)
-- Returns 1 when published, 0 when the lease is no longer the caller's (the
-- job stalled and another worker runs it, or it ended): a worker cut off by
-- a partition cannot add events behind the new run's. The batches are the
-- job's current ones, so a batch that joined the job while it ran gets its
-- later events too.
-- Events: the given one, in each of the job's batches.
local id, token = unpack(ARGV, FIRST, FIRST + 1)
local fields = {}
for i = FIRST + 2, #ARGV, 2 do
  fields[#fields + 1] = ARGV[i]
  fields[#fields + 1] = (ARGV[i] == 'url' or ARGV[i] == 'message') and masked(ARGV[i + 1] or '') or ARGV[i + 1]
end

local job = readJob(id)
if not job or job.lease ~= token then return 0 end
for _, batch in ipairs(job.batches) do emit(batch, fields, true) end
return 1
