import FoundationEssentials

/// The hosts the fleet has paused (docs/fleet.md, Politeness), for `job status`'s metrics.
extension JobQueue {
  /// Scans the hosts' hashes (`imgcache:host:*`, at most ``pausedHostsScans`` SCAN calls of a
  /// thousand keys each, on the server in one script) and returns whether the scan went round
  /// the whole keyspace (`1` or `0`), then each host whose pause outlasts Redis's clock now
  /// and the microseconds left. A key of another type counts as unpaused.
  static let pausedHostsScript = RedisScript(
    """
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
    local cursor = '0'
    local found = {'0'}
    local scans = 0
    repeat
      local reply = redis.call('SCAN', cursor, 'MATCH', 'imgcache:host:*', 'COUNT', 1000)
      cursor = reply[1]
      for _, key in ipairs(reply[2]) do
        local value = redis.pcall('HGET', key, 'paused')
        local paused = (type(value) == 'string' and tonumber(value)) or 0
        if paused > now then
          found[#found + 1] = string.sub(key, string.len('imgcache:host:') + 1)
          found[#found + 1] = tostring(paused - now)
        end
      end
      scans = scans + 1
    until cursor == '0' or scans >= tonumber(ARGV[1])
    if cursor == '0' then found[1] = '1' end
    return found
    """)

  /// The most SCAN calls of one look at the paused hosts: a hundred thousand keys, a few
  /// milliseconds of Redis's time (a script holds every other client meanwhile).
  static let pausedHostsScans = 100

  /// The hosts the fleet holds paused now, with the seconds left; nil when the keyspace is
  /// too large to scan whole (the answer would be part of it). A reply out of what the script
  /// writes (a wait negative or past a day, a name that is not text) is left out.
  public func pausedHosts() throws -> [String: Double]? {
    guard
      case .array(let flat) = try run(
        Self.pausedHostsScript, keys: [], [.text(String(Self.pausedHostsScans))]),
      flat.count % 2 == 1, let whole = flat[0].text
    else { throw CacheError(.network, "job \(name): a malformed reply about paused hosts") }
    guard whole == "1" else { return nil }
    var hosts = [String: Double]()
    for index in stride(from: 1, to: flat.count, by: 2) {
      guard let host = flat[index].text, !host.isEmpty,
        let micro = flat[index + 1].text.flatMap({ Checked.digits($0) }),
        (1...RedisFleetHosts.longestWait).contains(micro)
      else { continue }
      hosts[host] = Double(micro) / 1_000_000
    }
    return hosts
  }
}
