-- rate-permit.lua: reserves the start of one download under the fleet's
-- rate limits, shared by every worker of the queue (`JobQueue.reserveDownload`).
--
-- @include context
-- KEYS, in this order (read as K.<name>; the layout is QueueKeys.Fixed):
-- @keys rateGlobal
--
-- ARGV, after the queue context (context.lua; this script reads its prefix and agingMs):
--   host            the download's host, lowercased (its key: `rate:host:HOST`)
--   band            the request's priority band, 0 (veryHigh) to 4 (veryLow)
--   waitedMs        how long the request has already waited for a permit
--   globalInterval  µs between two downloads of the fleet (0: no global limit)
--   hostInterval    µs between two downloads from `host` (0: no host limit)
--
-- GCRA with reservations, on Redis's clock: each limit keeps its
-- theoretical arrival time (TAT, µs since the epoch) in its key, the
-- earliest instant its next download may start. The request gets the
-- earliest instant both limits allow, `slot = max(now, TATs)`, provided it
-- is within its *horizon*: `window × 2^(2 − band)` (4, 2, 1, ½, ¼ windows
-- from veryHigh to veryLow), where `window` is one second, or the slower
-- limit's interval when that is longer, and `band` is lowered by one per
-- `agingMs` waited (the queue's aging; none when aging is off). A granted
-- request moves each limit's TAT to `slot + interval` (the key expires once
-- that has passed, plus a second); a refused one reserves nothing. When
-- permits are short the reservations run ahead of now, past the horizons of
-- the lower bands first: the higher bands still get slots, the lower ones
-- come back later. No permit is held, so a worker that dies leaks nothing
-- but the slots it reserved, at most one horizon ahead.
-- Returns { granted, µs }: { 1, µs until the slot } or { 0, µs to wait
-- before asking again (when the slot would be within the horizon) }.
-- Events: none.
local host, band, waitedMs, globalInterval, hostInterval = unpack(ARGV, FIRST, FIRST + 4)
band, waitedMs = tonumber(band), tonumber(waitedMs)
globalInterval, hostInterval = tonumber(globalInterval), tonumber(hostInterval)

local time = redis.call('TIME')
local nowUs = time[1] * 1000000 + time[2]

-- The limits that apply: { key, interval in µs }.
local limits = {}
if globalInterval > 0 then limits[#limits + 1] = { K.rateGlobal, globalInterval } end
if hostInterval > 0 then limits[#limits + 1] = { Q.prefix .. 'rate:host:' .. host, hostInterval } end

local slot, window = nowUs, 1000000
for _, limit in ipairs(limits) do
  local tat = tonumber(redis.call('GET', limit[1]) or '0') or 0
  if tat > slot then slot = tat end
  if limit[2] > window then window = limit[2] end
end

if Q.agingMs > 0 then band = band - math.floor(waitedMs / Q.agingMs) end
if band < 0 then band = 0 elseif band > 4 then band = 4 end
local horizon = window * 2 ^ (2 - band)

local wait = slot - nowUs
if wait > horizon then return { 0, integer(wait - horizon) } end
for _, limit in ipairs(limits) do
  local tat = slot + limit[2]
  redis.call('SET', limit[1], integer(tat), 'PX', integer(math.ceil((tat - nowUs) / 1000) + 1000))
end
return { 1, integer(wait) }
