import RedisKit

/// The Lua scripts of the worker registry (docs/wire-format.md, "Workers").
///
/// Each reads Redis's clock (`TIME`), so every worker's timestamps and every
/// reader's idea of "expired" share one clock whatever the hosts' clocks say.
enum WorkerScripts {
    /// Writes or refreshes a worker's record and prunes lapsed ids.
    ///
    /// KEYS: the `workers` sorted set, the worker's hash. ARGV: id, lease
    /// (ms), startedAt ('' on the first beat: now), host, pid, version,
    /// concurrency, busy, jobs (comma-separated). The hash lives for one
    /// lease (`PEXPIRE`); the id's score is the same expiry. Returns startedAt.
    static let heartbeat = RedisScript(#"""
    local time = redis.call('TIME')
    local now = time[1] * 1000 + math.floor(time[2] / 1000)
    local id, lease = ARGV[1], tonumber(ARGV[2])
    if not lease or lease < 1 or lease ~= math.floor(lease) then
      return redis.error_reply('BAD_ARGUMENT lease must be a positive number of ms')
    end
    local startedAt = ARGV[3]
    if startedAt == '' then startedAt = string.format('%.0f', now) end
    redis.call('HSET', KEYS[2], 'id', id, 'host', ARGV[4], 'pid', ARGV[5], 'version', ARGV[6],
      'concurrency', ARGV[7], 'busy', ARGV[8], 'jobs', ARGV[9], 'startedAt', startedAt,
      'heartbeatAt', string.format('%.0f', now), 'expiresAt', string.format('%.0f', now + lease),
      'lease', string.format('%.0f', lease))
    redis.call('PEXPIRE', KEYS[2], lease)
    redis.call('ZADD', KEYS[1], string.format('%.0f', now + lease), id)
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
    return startedAt
    """#)

    /// Lists live workers: prunes lapsed ids, then reads each live one's hash.
    ///
    /// KEYS: the `workers` sorted set. ARGV: the prefix of the workers'
    /// hashes (`warmer:{Q}:worker:`, same hash tag). Returns
    /// [now (ms), [HGETALL reply…]]; an id whose hash is already gone is skipped.
    static let list = RedisScript(#"""
    local time = redis.call('TIME')
    local now = time[1] * 1000 + math.floor(time[2] / 1000)
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
    local records = {}
    for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
      local fields = redis.call('HGETALL', ARGV[1] .. id)
      if #fields > 0 then records[#records + 1] = fields end
    end
    return { string.format('%.0f', now), records }
    """#)

    /// Counts live workers without writing anything.
    ///
    /// KEYS: the `workers` sorted set. Returns the number of ids whose
    /// record has not lapsed.
    static let count = RedisScript(#"""
    local time = redis.call('TIME')
    local now = time[1] * 1000 + math.floor(time[2] / 1000)
    return redis.call('ZCOUNT', KEYS[1], '(' .. string.format('%.0f', now), '+inf')
    """#)
}
