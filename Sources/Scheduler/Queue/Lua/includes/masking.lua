-- masking.lua: passwords in URLs are masked in every text a queue script
-- publishes or keeps (events, failure entries, dead letters, messages).
--
-- `text` with the password (or lone user name) of every URL in it replaced
-- by `***`: `http://user:***@host/`. The rule of `URLCredentials` in Swift
-- (URLCredentialsDifferentialTests checks both agree): a URL starts at a
-- `:` followed by one or more `/` or `\/` (or the `:` of a lone `http` or
-- `https` scheme, any case, with no slash: `http:user:pw@host`, which curl
-- reads as `http://user:pw@host`); its authority runs to the first
-- `/`, `?` or `#`; the userinfo is what comes before the authority's last
-- `@`, masked after its first `:` (entirely when it has none).
local SLASH, BACKSLASH, COLON, AT = 47, 92, 58, 64
local function authorityStart(text, anchor)
  if string.byte(text, anchor) ~= COLON then return nil end
  local index = anchor + 1
  while true do
    local byte = string.byte(text, index)
    if byte == SLASH then
      index = index + 1
    elseif byte == BACKSLASH and string.byte(text, index + 1) == SLASH then
      index = index + 2
    else
      break
    end
  end
  if index > anchor + 1 then return index end
  for _, scheme in ipairs({ 'https', 'http' }) do
    local start = anchor - #scheme
    if start >= 1 and string.lower(string.sub(text, start, anchor - 1)) == scheme then
      if start == 1 or not string.find(string.sub(text, start - 1, start - 1), '^[%w+.-]') then return anchor + 1 end
      return nil
    end
  end
  return nil
end
local function masked(text)
  if not text or not string.find(text, '@', 1, true) then return text end
  local parts = {}
  local copied = 1
  local index = string.find(text, ':', 1, true)
  while index do
    local start = authorityStart(text, index)
    if not start then
      index = index + 1
    else
      local stop = string.find(text, '[/?#]', start) or (#text + 1)
      local lastAt, colon
      for position = start, stop - 1 do
        local byte = string.byte(text, position)
        if byte == AT then
          lastAt = position
        elseif byte == COLON and not colon then
          colon = position
        end
      end
      if not lastAt then
        index = start
      else
        local keep = (colon and colon < lastAt) and colon or (start - 1)
        parts[#parts + 1] = string.sub(text, copied, keep)
        parts[#parts + 1] = '***'
        copied = lastAt
        index = lastAt
      end
    end
    index = string.find(text, ':', index, true)
  end
  parts[#parts + 1] = string.sub(text, copied)
  return table.concat(parts)
end
