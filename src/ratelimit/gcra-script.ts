/**
 * The GCRA (generic cell rate algorithm) as one Lua script, so the reads, the decision and
 * the writes happen atomically on the Redis server however many api processes share a
 * bucket.
 *
 * Each key holds one number: the theoretical arrival time (TAT), in milliseconds of Redis
 * server time, at which the bucket would be empty again. A request of `cost` cells moves the
 * TAT forward by `cost * interval`; it is allowed while the new TAT stays within
 * `burst * interval` of now. Nothing else is stored, so there is no refill timer.
 *
 * One call decides for every bucket a request counts against (an API key's and its
 * workspace's): the request is allowed only when all of them allow it, and then takes its
 * cells from each; a refused request takes nothing from any. So one round trip decides,
 * and a bucket that refuses never spends another bucket's budget.
 *
 * Time comes from `TIME` on the server, never from a client, so processes with skewed clocks
 * still agree. Redis 5+ replicates script effects rather than the script, which is what makes
 * the non-deterministic `TIME` call allowed before a write. The keys of one call must live on
 * one Redis server (the service uses one Redis, not a cluster).
 *
 * KEYS[i]      the buckets' keys
 * ARGV[1]      cost, in cells
 * ARGV[2i]     bucket i's emission interval in ms (60000 / perMinute, may be fractional)
 * ARGV[2i + 1] bucket i's burst, in cells
 * Returns      { allowed (1|0), retryAfterMs (integer: 0 when allowed, else the wait until
 *              every bucket would allow this cost), remaining (integer: unit-cost requests
 *              that would pass now, the fewest of any bucket) }
 *
 * @example
 * ```ts
 * redis.defineCommand('rateLimitGcra', { lua: GCRA_SCRIPT }); // KEYS count given per call
 * ```
 */
export const GCRA_SCRIPT = `
local cost = tonumber(ARGV[1])

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000

-- The epsilon keeps float noise (1.9999999 cells) from costing a whole cell.
local function cells(ms, interval)
  local n = math.floor(ms / interval + 1e-9)
  if n < 0 then return 0 end
  return n
end

local intervals, capacities, tats = {}, {}, {}
local wait = 0
for i = 1, #KEYS do
  local interval = tonumber(ARGV[2 * i])
  local capacity = tonumber(ARGV[2 * i + 1]) * interval
  local tat = tonumber(redis.call('GET', KEYS[i])) or now
  if tat < now then tat = now end
  intervals[i], capacities[i], tats[i] = interval, capacity, tat
  -- The wait from the differences: new_tat - capacity - now rounds, and a hair above zero
  -- refused the first request of an idle bucket when cost = burst.
  local bucket_wait = (tat - now) + (cost * interval - capacity)
  if bucket_wait > wait then wait = bucket_wait end
end

local remaining = nil
local function fewest(n)
  if remaining == nil or n < remaining then remaining = n end
end

-- Below 1 ns is no wait.
if wait > 1e-6 then
  for i = 1, #KEYS do
    fewest(cells(capacities[i] - (tats[i] - now), intervals[i]))
  end
  return { 0, math.ceil(wait), remaining }
end

for i = 1, #KEYS do
  local new_tat = tats[i] + cost * intervals[i]
  if new_tat > now then
    -- The key lives exactly until the bucket is full again; an idle key holds no information.
    redis.call('SET', KEYS[i], string.format('%.3f', new_tat), 'PX', math.ceil(new_tat - now))
  end
  fewest(cells(capacities[i] - (new_tat - now), intervals[i]))
end
return { 1, 0, remaining }
`;
