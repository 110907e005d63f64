-- The real mix's Lua benchmark (issue 15): a few classic interpreter
-- kernels, each printing a deterministic result, so that the output of
-- lua under the DCPI kernel can be compared with lua under qemu-alpha.
-- Usage: lua bench.lua [SCALE]   (SCALE multiplies the work, default 1)
local scale = tonumber(arg and arg[1]) or 1

-- Recursive calls: the interpreter's call and return paths.
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
print(string.format("fib(%d) = %d", 20 + scale, fib(20 + scale)))

-- A linear congruential generator (exact in 64-bit integers).
local seed = 42
local function random(limit)
  seed = (seed * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
  return (seed >> 33) % limit
end

-- Tables and the sort library: sort 20000 * SCALE numbers, checksum.
local numbers = {}
for i = 1, 20000 * scale do numbers[i] = random(1000000) end
table.sort(numbers)
local sum = 0
for i = 1, #numbers, 97 do sum = (sum * 31 + numbers[i]) % 1000000007 end
print(string.format("sort %d numbers: checksum %d", #numbers, sum))

-- Strings: build, concatenate, pattern-match, count words.
local words = {"alpha", "dcpi", "profile", "sample", "kernel", "cycle", "image", "loader"}
local parts = {}
for i = 1, 6000 * scale do parts[#parts + 1] = words[random(#words) + 1] end
local text = table.concat(parts, " ")
local counts = {}
for word in text:gmatch("%a+") do counts[word] = (counts[word] or 0) + 1 end
local keys = {}
for word in pairs(counts) do keys[#keys + 1] = word end
table.sort(keys)
for _, word in ipairs(keys) do io.write(word, "=", counts[word], " ") end
print(string.format("\nupper-case e's: %d", select(2, text:upper():gsub("E", "e"))))

-- Floating point: the spectral norm of a 100 x 100 matrix.
local function A(i, j)
  local ij = i + j - 1
  return 1.0 / (ij * (ij - 1) * 0.5 + i)
end
local function Av(x, y, n)
  for i = 1, n do
    local a = 0
    for j = 1, n do a = a + x[j] * A(i, j) end
    y[i] = a
  end
end
local function Atv(x, y, n)
  for i = 1, n do
    local a = 0
    for j = 1, n do a = a + x[j] * A(j, i) end
    y[i] = a
  end
end
local n, u, v, t = 100, {}, {}, {}
for i = 1, n do u[i] = 1 end
for _ = 1, 5 * scale do
  Av(u, t, n) Atv(t, v, n) Av(v, t, n) Atv(t, u, n)
end
local vBv, vv = 0, 0
for i = 1, n do vBv = vBv + u[i] * v[i]; vv = vv + v[i] * v[i] end
print(string.format("spectral norm %.9f", math.sqrt(vBv / vv)))

-- Closures and coroutines: a generator pipeline.
local producer = coroutine.wrap(function()
  for i = 1, 30000 * scale do coroutine.yield(i) end
  coroutine.yield(nil)
end)
local total = 0
while true do
  local value = producer()
  if not value then break end
  if value % 3 == 0 or value % 5 == 0 then total = total + value end
end
print(string.format("coroutine sum %d", total))
print("bench.lua done")
