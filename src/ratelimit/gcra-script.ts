/**
 * The GCRA (generic cell rate algorithm) as one Lua script, so the read, the decision and
 * the write happen atomically on the Redis server however many api processes share a bucket.
 *
 * The key holds one number: the theoretical arrival time (TAT), in milliseconds of Redis
 * server time, at which the bucket would be empty again. A request of `cost` cells moves the
 * TAT forward by `cost * interval`; it is allowed while the new TAT stays within
 * `burst * interval` of now. Nothing else is stored, so there is no refill timer.
 *
 * Time comes from `TIME` on the server, never from a client, so processes with skewed clocks
 * still agree. Redis 5+ replicates script effects rather than the script, which is what makes
 * the non-deterministic `TIME` call allowed before a write.
 *
 * KEYS[1]  the bucket key
 * ARGV[1]  emission interval in ms (60000 / perMinute, may be fractional)
 * ARGV[2]  burst, in cells
 * ARGV[3]  cost, in cells
 * Returns  { allowed (1|0), retryAfterMs (integer, 0 when allowed), remaining (integer) }
 *
 * @example
 * ```ts
 * redis.defineCommand('rateLimitGcra', { numberOfKeys: 1, lua: GCRA_SCRIPT });
 * ```
 */
export const GCRA_SCRIPT = `
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000

local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end

local capacity = burst * interval
local new_tat = tat + cost * interval
-- The wait from the differences: new_tat - capacity - now rounds, and a hair above zero
-- refused the first request of an idle bucket when cost = burst. Below 1 ns is no wait.
local wait = (tat - now) + (cost * interval - capacity)

-- The epsilon keeps float noise (1.9999999 cells) from costing a whole cell.
local function cells(ms)
  local n = math.floor(ms / interval + 1e-9)
  if n < 0 then return 0 end
  return n
end

if wait > 1e-6 then
  return { 0, math.ceil(wait), cells(capacity - (tat - now)) }
end

if new_tat > now then
  -- The key lives exactly until the bucket is full again; an idle key holds no information.
  local ttl = math.ceil(new_tat - now)
  redis.call('SET', KEYS[1], string.format('%.3f', new_tat), 'PX', ttl)
end
return { 1, 0, cells(capacity - (new_tat - now)) }
`;
