/// Publishes a worker's event of a job (`progress`, `retrying`) in each of
/// the job's batches, only while the worker still holds the job's lease.
///
/// ARGV: job id, lease token, then the event's fields (name, value, …)
/// without `batch`. Returns 1 when published, 0 when the lease is no longer
/// the caller's (the job stalled and another worker runs it, or it ended):
/// a worker cut off by a partition cannot add events behind the new run's.
/// The batches are the job's current ones, so a batch that joined the job
/// while it ran gets its later events too.
let publishWhileLeasedScript = QueueScript(#"""
local job = readJob(ARGV[FIRST])
if not job or job.lease ~= ARGV[FIRST + 1] then return 0 end
local fields = {}
for i = FIRST + 2, #ARGV, 2 do
  fields[#fields + 1] = ARGV[i]
  fields[#fields + 1] = (ARGV[i] == 'url' or ARGV[i] == 'message') and masked(ARGV[i + 1] or '') or ARGV[i + 1]
end
for _, batch in ipairs(job.batches) do emit(batch, fields, true) end
return 1
"""#)
