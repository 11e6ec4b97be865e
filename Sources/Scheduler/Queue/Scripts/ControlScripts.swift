/// Cancels jobs for one batch or for every batch they serve, atomically per
/// call (`cancelBatchChunk`, `cancelJobs` in `controlLibrary`).
///
/// ARGV: batch id ('' to cancel the given jobs in all their batches), the
/// most jobs to take from the batch in this call, job id…
///
/// Returns [jobs cancelled, running jobs signalled, jobs of the batch left to
/// process]; call again while the last is positive. Errors with `NO_BATCH`
/// for an unknown batch.
let cancelScript = QueueScript(controlLibrary + #"""
local batch, limit = ARGV[FIRST], tonumber(ARGV[FIRST + 1])
local at = now()
if batch ~= '' then
  local cancelled, signalled, left = cancelBatchChunk(batch, limit, at)
  if not cancelled then return redis.error_reply('NO_BATCH ' .. batch) end
  return { cancelled, signalled, left }
end
local ids = {}
for i = FIRST + 2, #ARGV do ids[#ids + 1] = ARGV[i] end
local cancelled, signalled = cancelJobs('', ids, at)
return { cancelled, signalled, 0 }
"""#)

/// Changes the priority of a batch's jobs or of single jobs
/// (`setBatchPriority`, `prioritizeJobs` in `controlLibrary`).
///
/// ARGV: batch id ('' for single jobs), priority, job id…
///
/// For a batch, the batch's own priority changes and each of its jobs takes
/// the highest priority of the batches it serves. Returns the number of jobs
/// changed.
let priorityScript = QueueScript(controlLibrary + #"""
local batch, priority = ARGV[FIRST], ARGV[FIRST + 1]
if not BANDS[priority] then return redis.error_reply('BAD_PRIORITY ' .. priority) end
local ids = {}
if batch ~= '' then
  if not setBatchPriority(batch, priority) then return redis.error_reply('NO_BATCH ' .. batch) end
  ids = redis.call('SMEMBERS', batchKey(batch) .. ':jobs')
else
  for i = FIRST + 2, #ARGV do ids[#ids + 1] = ARGV[i] end
end
return prioritizeJobs(batch, priority, ids, now())
"""#)
