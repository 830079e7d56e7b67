import ArgumentParser
import FoundationEssentials
import ImgCacheKit

/// The filters of `list`: what each entry must match.
struct ListFilters: ParsableArguments {
  @Option(name: .long, help: "Only URLs matching this shell glob (case-sensitive).")
  var urlGlob: String?
  @Option(name: .long, help: "Only these formats, comma-separated (jpeg,png,gif,webp,…).")
  var format: String?
  @Option(name: .long, help: "Only entries larger than SIZE (500K, 2M).")
  var largerThan: String?
  @Option(name: .long, help: "Only entries smaller than SIZE.")
  var smallerThan: String?
  @Option(name: .long, help: "Only entries not used for DURATION (last use at or before now - D).")
  var unusedFor: String?
  @Option(name: .long, help: "Only entries used within DURATION.")
  var usedWithin: String?
  @Option(name: .long, help: "Only entries stored before TIME (RFC 3339, or a duration ago).")
  var createdBefore: String?
  @Option(name: .long, help: "Only entries stored after TIME (RFC 3339, or a duration ago).")
  var createdAfter: String?
  @Flag(name: .long, help: "Only variants (derived images).")
  var variants = false
  @Flag(name: .long, help: "Only originals (downloaded images).")
  var originals = false

  /// The engine's filter, relative to `now`; a bad value is a usage error naming its option.
  func filter(now: Date) throws -> EntryFilter {
    var filter = EntryFilter()
    filter.urlGlob = urlGlob
    if let format {
      let names = format.split(separator: ",").map { $0.trimmingWhitespace() }
      for name in names where ImageFormat(rawValue: name.lowercased()) == nil {
        let known = ImageFormat.allCases.map(\.rawValue).joined(separator: ", ")
        throw CacheError(.invalidInput, "--format: unknown format '\(name)' (known: \(known))")
      }
      filter.formats = names.map { $0.lowercased() }
    }
    filter.largerThan = try size(largerThan, "--larger-than")
    filter.smallerThan = try size(smallerThan, "--smaller-than")
    filter.lastAccessAtOrBefore = try ago(unusedFor, "--unused-for", now: now)
    filter.lastAccessAfter = try ago(usedWithin, "--used-within", now: now)
    filter.createdBefore = try time(createdBefore, "--created-before", now: now)
    filter.createdAfter = try time(createdAfter, "--created-after", now: now)
    guard !(variants && originals) else {
      throw CacheError(.invalidInput, "give --variants or --originals, not both")
    }
    filter.variants = variants ? true : originals ? false : nil
    return filter
  }

  private func size(_ text: String?, _ option: String) throws -> Int64? {
    guard let text else { return nil }
    guard let value = PolicyValue.size(text) else {
      throw CacheError(
        .invalidInput, "\(option): invalid size '\(text)' (expected 500K, 20M, 1.5G)")
    }
    return value
  }

  private func ago(_ text: String?, _ option: String, now: Date) throws -> Date? {
    guard let text else { return nil }
    guard let seconds = PolicyValue.duration(text), seconds >= 0 else {
      throw CacheError(
        .invalidInput, "\(option): invalid duration '\(text)' (expected 90s, 30m, 12h, 7d, 2w)")
    }
    return now.addingTimeInterval(-seconds)
  }

  private func time(_ text: String?, _ option: String, now: Date) throws -> Date? {
    guard let text else { return nil }
    if let seconds = PolicyValue.duration(text), seconds >= 0 {
      return now.addingTimeInterval(-seconds)
    }
    let forms = [
      Date.ISO8601FormatStyle(), Date.ISO8601FormatStyle(includingFractionalSeconds: true),
      Date.ISO8601FormatStyle().year().month().day(),
    ]
    // The whole text: a date with anything after it is not a time.
    for form in forms {
      if let date = text.wholeMatch(of: form)?.output { return date }
    }
    throw CacheError(
      .invalidInput,
      "\(option): invalid time '\(text)' (expected RFC 3339 like 2026-11-01T00:00:00Z, a date "
        + "like 2026-11-01, or a duration ago like 7d)")
  }
}
