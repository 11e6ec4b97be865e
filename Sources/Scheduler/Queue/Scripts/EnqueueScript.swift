/// Adds URLs to a batch as queued jobs, atomically.
///
/// KEYS: queue, sequence, wake, batches.
/// ARGV: prefix, batch id, priority name, priority band, destination,
///       count to add to the batch total, processing spec ('' for none), URL…
///
/// The batch total grows by the whole count in the first call of a chunked
/// enqueue (later chunks pass 0), so counters can never reach the total
/// before every job is in. Returns the number of jobs added.
let enqueueScript = RedisScript(#"""
local prefix, batch, priority, destination = ARGV[1], ARGV[2], ARGV[3], ARGV[5]
local band = tonumber(ARGV[4])
local addToTotal = tonumber(ARGV[6])
local processing = ARGV[7]
local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
local batchKey = prefix .. 'batch:' .. batch

if addToTotal > 0 then
  if redis.call('HSETNX', batchKey, 'createdAt', now) == 1 then
    redis.call('HSET', batchKey, 'id', batch, 'priority', priority, 'destination', destination,
      'processing', processing, 'total', 0, 'completed', 0, 'failed', 0, 'cancelled', 0, 'dead', 0)
    redis.call('ZADD', KEYS[4], now, batch)
  end
  redis.call('HINCRBY', batchKey, 'total', addToTotal)
  -- Appending to a finished batch reopens it.
  redis.call('HDEL', batchKey, 'finishedAt')
  redis.call('PERSIST', batchKey)
end

for i = 8, #ARGV do
  local sequence = redis.call('INCR', KEYS[2])
  local id = tostring(sequence)
  -- Band first, then arrival order: ZPOPMIN serves the highest priority, FIFO within it.
  -- Scores stay below 2^53, so doubles hold them exactly; format them as integers.
  local score = string.format('%.0f', band * 4398046511104 + sequence)
  redis.call('HSET', prefix .. 'job:' .. id, 'id', id, 'url', ARGV[i], 'batch', batch,
    'priority', priority, 'destination', destination, 'processing', processing, 'state', 'queued',
    'attempts', 0, 'claims', 0, 'score', score, 'enqueuedAt', now)
  redis.call('ZADD', KEYS[1], score, id)
end

if redis.call('EXISTS', KEYS[3]) == 0 then redis.call('RPUSH', KEYS[3], '1') end
return #ARGV - 7
"""#)
