import Testing

@testable import ImgCacheConfiguration

/// The resolver applies only the keys something set: a default left unapplied must be the
/// value its text would give.
struct PolicyDefaultsTests {
  @Test("each key's default text, applied, changes nothing any key shows")
  func defaultsRoundTrip() throws {
    for key in PolicyKey.all {
      var configuration = Configuration()
      #expect(try key.apply(&configuration, key.defaultText), "\(key.name)")
      for other in PolicyKey.all {
        #expect(other.render(configuration) == other.defaultText, "\(key.name) moved \(other.name)")
      }
    }
  }

  @Test("a resolution with nothing set shows every default, from 'default'")
  func nothingSet() throws {
    let resolved = try ResolvedConfiguration(
      flags: [:], environment: [:], cacheFile: nil, userFile: nil, userFileRequired: false)
    for key in PolicyKey.all {
      let (text, origin) = resolved.value(of: key)
      #expect(text == key.redact(key.defaultText) && origin == "default", "\(key.name)")
    }
  }
}
