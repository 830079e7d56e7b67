import ArgumentParser
import ImgCacheKit

/// The command lines a shell loop sends most — `fetch` and `query` with URLs and the usual
/// flags, and `--version` — recognised without swift-argument-parser, whose parse reflects the
/// whole command tree at every start (docs/architecture.md, Start-up). What it recognises it
/// turns into the very command values the full parser would build (a differential test over
/// every flag below holds the two equal); anything else — help, an unknown or repeated flag,
/// `--`, a value that looks like a flag, a failed validation — returns nil and goes to the full
/// parser, so help, errors and completions stay the parser's own.
enum FrontParser {
  /// The command `arguments` (without the program's name) ask for, validated as the parser
  /// would, or nil for the full parser. (`--version` never reaches it: ``asksVersion(_:)``.)
  static func parse(_ arguments: [String]) -> (any CacheCommand)? {
    var words = FrontWords(arguments)
    var global = GlobalOptions.unset
    guard words.globals(into: &global), let name = words.next() else { return nil }
    let command: (any CacheCommand)?
    switch name {
    case "fetch": command = fetch(&words, global: global)
    case "query": command = query(&words, global: global)
    default: command = nil
    }
    guard var command, (try? command.validate()) != nil else { return nil }
    return command
  }

  /// Whether `arguments` are `--version` alone: answered on the main thread, before any task
  /// (``ImgCacheCommand/runMain()``).
  static func asksVersion(_ arguments: [String]) -> Bool { arguments == ["--version"] }

  // A global option, before or after the command's name, is the parser's value for both the
  // root's options and the command's.

  private static func fetch(_ words: inout FrontWords, global: GlobalOptions)
    -> (any CacheCommand)?
  {
    var command = ImgCacheCommand.Fetch.unset(global: global)
    var (global, urls) = (global, [String]())
    let taken = words.rest(urls: &urls, global: &global) { words, word in
      var known = words.flag(word, "--offline", &command.fetchFlags.offline)
      known = known ?? words.flag(word, "--reload", &command.fetchFlags.reload)
      known = known ?? words.flag(word, "--refresh", &command.fetchFlags.refresh)
      known = known ?? words.flag(word, "--retry-failed", &command.fetchFlags.retryFailed)
      known = known ?? words.flag(word, "--any", &command.fetchFlags.any)
      known = known ?? words.flag(word, "--link", &command.link)
      known = known ?? words.option(word, ["-o", "--output"], &command.output)
      known = known ?? words.option(word, ["--key"], &command.key)
      return known ?? words.option(word, ["-i", "--input"], &command.input)
    }
    guard taken else { return nil }
    (command.urls, command.global, command.parent) = (urls, global, .unset(global: global))
    return command
  }

  private static func query(_ words: inout FrontWords, global: GlobalOptions)
    -> (any CacheCommand)?
  {
    var command = ImgCacheCommand.Query.unset(global: global)
    var (global, urls) = (global, [String]())
    let taken = words.rest(urls: &urls, global: &global) { words, word in
      words.flag(word, "--touch", &command.touch)
    }
    guard taken else { return nil }
    (command.urls, command.global, command.parent) = (urls, global, .unset(global: global))
    return command
  }
}

/// The words of a command line, read once from the front; every spelling the front parser
/// takes is written here. A method returns nil when `word` is not its flag, false when it is
/// but cannot be taken here (repeated, or its value missing or looking like a flag), true
/// when taken.
struct FrontWords {
  private let words: [String]
  private var position = 0
  /// The flags and options taken so far: a repeated one goes to the full parser.
  private var seen = Set<String>()

  init(_ words: [String]) { self.words = words }

  /// The next word, or nil at the end.
  mutating func next() -> String? {
    guard position < words.count else { return nil }
    defer { position += 1 }
    return words[position]
  }

  /// The global options before the command's name; false on anything else that starts with `-`.
  mutating func globals(into options: inout GlobalOptions) -> Bool {
    while position < words.count, words[position].hasPrefix("-") {
      let word = words[position]
      position += 1
      guard global(word, into: &options) == true else { return false }
    }
    return true
  }

  /// The words after the command's name: each URL into `urls`, each global option into
  /// `global`, any other flag to `own`; false on a word none of them takes.
  mutating func rest(
    urls: inout [String], global: inout GlobalOptions, own: (inout FrontWords, String) -> Bool?
  ) -> Bool {
    while let word = next() {
      if !word.hasPrefix("-") {
        urls.append(word)
        continue
      }
      guard (self.global(word, into: &global) ?? own(&self, word)) == true else { return false }
    }
    return true
  }

  /// `word` as one of ``GlobalOptions``.
  mutating func global(_ word: String, into options: inout GlobalOptions) -> Bool? {
    var known = flag(word, ["-q", "--quiet"], &options.quiet)
    known = known ?? flag(word, ["-v", "--verbose"], &options.verbose)
    known = known ?? flag(word, ["--json"], &options.json)
    known = known ?? option(word, ["-d", "--dir"], &options.dir)
    known = known ?? option(word, ["--config"], &options.config)
    var color: String?
    if let taken = option(word, ["--color"], &color) {
      guard taken, let mode = color.flatMap(ColorMode.init(rawValue:)) else { return false }
      options.color = mode
      return true
    }
    return known
  }

  /// `word` as the flag spelled `spelling`.
  mutating func flag(_ word: String, _ spelling: String, _ value: inout Bool) -> Bool? {
    flag(word, [spelling], &value)
  }

  /// `word` as the flag spelled one of `spellings` (its short and long names).
  mutating func flag(_ word: String, _ spellings: [String], _ value: inout Bool) -> Bool? {
    guard spellings.contains(word) else { return nil }
    guard seen.insert(spellings[0]).inserted else { return false }
    value = true
    return true
  }

  /// `word` as the option spelled one of `spellings`, its value the next word (or after `=`
  /// for a long name).
  mutating func option(_ word: String, _ spellings: [String], _ value: inout String?) -> Bool? {
    var given: String?
    if spellings.contains(word) {
      given = next()
    } else if let equals = word.utf8.firstIndex(of: UInt8(ascii: "=")),
      word.hasPrefix("--"), spellings.contains(String(word[..<equals]))
    {
      given = String(word[word.index(after: equals)...])
    } else {
      return nil
    }
    guard let given, !given.isEmpty, given == "-" || !given.hasPrefix("-"),
      seen.insert(spellings[0]).inserted
    else { return false }
    value = given
    return true
  }
}
