import ArgumentParser
import ImgCacheKit

// The commands the front parser builds, every property set to what the full parser gives it
// when its flag is absent (FrontParser). A property wrapper made by `init()` holds its
// declaration, not a value, so each is set here; `FrontParserTests` compares every command
// built here with the full parser's, property by property, and fails on one left out or unlike.

extension GlobalOptions {
  /// No global option given.
  static var unset: GlobalOptions {
    var options = GlobalOptions()
    options.dir = nil
    options.config = nil
    options.quiet = false
    options.verbose = false
    options.json = false
    options.color = nil
    options.statsLog = nil
    return options
  }
}

extension ImgCacheCommand {
  /// The root command with `global` given.
  static func unset(global: GlobalOptions) -> ImgCacheCommand {
    var root = ImgCacheCommand()
    root.global = global
    return root
  }
}

extension KeyFilterOption {
  /// No `--key-filter`.
  static var unset: KeyFilterOption {
    var option = KeyFilterOption()
    option.keyFilter = nil
    return option
  }
}

extension FetchFlags {
  /// No cache flag given.
  static var unset: FetchFlags {
    var flags = FetchFlags()
    flags.offline = false
    flags.reload = false
    flags.refresh = false
    flags.retryFailed = false
    flags.any = false
    flags.keys = .unset
    flags.roDir = []
    flags.freshness = nil
    flags.staleIfError = nil
    flags.remote = nil
    flags.noRemote = false
    flags.robots = nil
    return flags
  }
}

extension TransferFlags {
  /// No transfer flag given.
  static var unset: TransferFlags {
    var flags = TransferFlags()
    flags.header = []
    flags.resolve = []
    flags.user = nil
    flags.netrc = false
    flags.cookieJar = nil
    flags.insecure = false
    flags.cacert = nil
    flags.connectTimeout = nil
    flags.timeout = nil
    flags.maxTime = nil
    flags.maxFilesize = nil
    flags.retry = nil
    flags.rate = nil
    flags.ratePerHost = nil
    flags.userAgent = nil
    flags.failedTTL = nil
    return flags
  }
}

extension VariantFlags {
  /// No variant flag given.
  static var unset: VariantFlags {
    var flags = VariantFlags()
    flags.resize = nil
    flags.gravity = nil
    flags.format = nil
    flags.quality = nil
    flags.enlarge = false
    flags.keepMetadata = false
    flags.noRotate = false
    flags.animated = false
    flags.variant = nil
    return flags
  }
}

extension ImgCacheCommand.Fetch {
  /// `imgcache fetch` with nothing else given but `global` (a set of the global options
  /// costs 35,000 instructions to build: built once).
  static func unset(global: GlobalOptions) -> Self {
    var command = Self()
    command.global = global
    command.fetchFlags = .unset
    command.transfer = .unset
    command.variantFlags = .unset
    command.discardOriginal = false
    command.parent = .unset(global: global)
    command.output = nil
    command.link = false
    command.key = nil
    command.input = nil
    command.urls = []
    return command
  }
}

extension ImgCacheCommand.Query {
  /// `imgcache query` with nothing else given but `global`.
  static func unset(global: GlobalOptions) -> Self {
    var command = Self()
    command.global = global
    command.parent = .unset(global: global)
    command.touch = false
    command.keys = .unset
    command.variantFlags = .unset
    command.roDir = []
    command.urls = []
    return command
  }
}
