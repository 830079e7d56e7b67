// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "imgcache",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "imgcache", targets: ["imgcache"]),
    .library(name: "ImgCacheKit", targets: ["ImgCacheKit"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
  ],
  targets: [
    // Headers only: libcurl is loaded with dlopen on first use (see Transport/CurlLibrary.swift).
    .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
    .systemLibrary(
      name: "COpenSSL", providers: [.apt(["libssl-dev"])]),
    // The Redis client (Redis/RedisConnection* only). No pkg-config: hiredis's adds
    // -D_FILE_OFFSET_BITS=64, which SwiftPM refuses with a warning (its headers are reached as
    // <hiredis/hiredis.h>; the module map links the library).
    .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
    // SQLite's C API and the wrappers Swift needs for its variadic calls (Index/ only).
    .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
    // Declarations only: libvips is loaded with dlopen on first use (Variants/VipsLibrary.swift).
    .systemLibrary(name: "CVips"),
    // Declarations only: libjpeg-turbo and libyuv are loaded with dlopen on first use, for the
    // direct JPEG path (Variants/JPEGLibrary.swift).
    .systemLibrary(name: "CJpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
    // Declarations only: zlib is loaded with dlopen to read a gzip-compressed table
    // (Dataset/GzipBytes.swift).
    .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
    // A shared mapping's SIGBUS caught for that mapping alone, and the boot clock
    // (Transport/SharedMapping.swift, SharedHosts.swift only).
    .systemLibrary(name: "CSharedMemory"),
    // The engine, one target a layer, bottom to top (docs/architecture.md, Layers): each depends
    // on the layers right below it, whose Layer.swift re-exports theirs in turn; ImgCacheKit, at
    // the top, re-exports them all.
    .target(
      name: "ImgCacheSupport", dependencies: ["COpenSSL"], path: "Sources/ImgCacheKit/Support"),
    .target(
      name: "ImgCacheUntrusted", dependencies: ["ImgCacheSupport"],
      path: "Sources/ImgCacheKit/Untrusted"),
    .target(
      name: "ImgCacheSniffer", dependencies: ["ImgCacheUntrusted"],
      path: "Sources/ImgCacheKit/Sniffer"),
    .target(
      name: "ImgCacheTransport",
      dependencies: [
        "ImgCacheUntrusted", "CCurl", "CSharedMemory",
        .product(name: "Atomics", package: "swift-atomics"),
      ],
      path: "Sources/ImgCacheKit/Transport"),
    .target(
      name: "ImgCacheIndex",
      // SQLite through its C API (Index/SQLite/), not GRDB: GRDB's Swift layer imports
      // Foundation, ICU and all (docs/architecture.md, Start-up).
      dependencies: ["ImgCacheSniffer", "CSQLite"],
      path: "Sources/ImgCacheKit/Index"),
    .target(
      name: "ImgCacheStorage", dependencies: ["ImgCacheIndex"],
      path: "Sources/ImgCacheKit/Storage"),
    .target(
      name: "ImgCacheRedis", dependencies: ["ImgCacheUntrusted", "CHiredis"],
      path: "Sources/ImgCacheKit/Redis"),
    .target(
      name: "ImgCacheRemote",
      dependencies: ["ImgCacheStorage", "ImgCacheTransport", "ImgCacheRedis"],
      path: "Sources/ImgCacheKit/Remote"),
    .target(
      name: "ImgCacheVariants", dependencies: ["ImgCacheSniffer", "CVips", "CJpeg"],
      path: "Sources/ImgCacheKit/Variants"),
    .target(
      name: "ImgCachePipeline",
      dependencies: ["ImgCacheRemote", "ImgCacheVariants"],
      path: "Sources/ImgCacheKit/Pipeline"),
    .target(
      name: "ImgCacheConfiguration", dependencies: ["ImgCachePipeline"],
      path: "Sources/ImgCacheKit/Configuration"),
    .target(
      name: "ImgCacheDataset", dependencies: ["ImgCacheConfiguration", "CZlib"],
      path: "Sources/ImgCacheKit/Dataset"),
    .target(
      name: "ImgCacheFleet", dependencies: ["ImgCacheDataset"],
      path: "Sources/ImgCacheKit/Fleet"),
    .target(
      name: "ImgCacheKit", dependencies: ["ImgCacheFleet"],
      path: "Sources/ImgCacheKit/Kit"),
    .target(
      name: "ImgCacheCLI",
      dependencies: [
        "ImgCacheKit",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),
    // Linked by lld (the toolchain's), not position-independent: as a PIE, the loader applied
    // 48,000 relative relocations at every start and each page of pointer tables they wrote
    // was copied, a third of a hit's page faults (docs/architecture.md, Layers; the stack, the
    // heap and every shared library stay at random addresses). Packed relative relocations
    // (DT_RELR, glibc 2.36) stay asked for, for a PIE build of it. Nothing exported:
    // `-static-stdlib` asks for `-export-dynamic`, which put 8,000 symbols (760 KB) in the
    // dynamic table that nothing looks up.
    //
    // A release build links SQLite, libcrypto, hiredis and libstdc++ statically: `link/` holds
    // linker scripts named as their shared libraries that name the archives instead, found first
    // on the search path. Debian builds the shared ones with immediate binding, and the loader
    // resolved their 6,000 symbols at every start: 3.4 M instructions of a 15 M hit
    // (docs/architecture.md, Start-up). Nothing of the archives is exported (`-static-stdlib`'s
    // `--exclude-libs ALL`), so libcurl's own libcrypto, loaded later, keeps to itself.
    .executableTarget(
      name: "imgcache", dependencies: ["ImgCacheCLI"],
      linkerSettings: [
        .unsafeFlags([
          "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker",
          "--no-export-dynamic", "-Xclang-linker", "-no-pie",
        ]),
        .unsafeFlags(
          [
            "-L\(Context.packageDirectory)/link", "-Xlinker",
            "--symbol-ordering-file=\(Context.packageDirectory)/link/hot-symbols.txt",
            "-Xlinker", "--no-warn-symbol-ordering",
          ], .when(configuration: .release)),
      ]),
    .executableTarget(
      name: "imgcache-stress",
      dependencies: ["ImgCacheKit", .product(name: "GRDB", package: "GRDB.swift")]),
    // The untrusted-input fuzzer (make fuzz; a few seconds of it in make test). Not installed.
    .executableTarget(name: "imgcache-fuzz", dependencies: ["ImgCacheKit"]),
    .target(
      name: "ImgCacheTestSupport", dependencies: ["ImgCacheKit"], path: "Tests/ImgCacheTestSupport"),
    .testTarget(
      name: "ImgCacheKitTests",
      dependencies: [
        "ImgCacheKit", "ImgCacheTestSupport", "imgcache-stress", "imgcache-fuzz",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    .testTarget(
      name: "ImgCacheCLITests",
      dependencies: ["ImgCacheCLI", "ImgCacheKit", "ImgCacheTestSupport", "imgcache"]),
  ],
  swiftLanguageModes: [.v6]
)

// A member (an extension's method, say) is visible only in the files that import its module:
// nothing of Foundation reaches imgcache through a dependency's imports (docs/architecture.md,
// Start-up).
for target in package.targets where target.type != .system {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("MemberImportVisibility"),
      // A concrete generic type's metadata (a `[String: Int]`, say) made by its accessor with
      // the conformances it needs, not from its mangled name: from the name, the runtime looks
      // each conformance up by scanning every conformance record of the binary, 280,000
      // instructions a new one; a hit met 31 of them, a quarter of its start-up
      // (docs/architecture.md, Start-up).
      // The dependencies get the same flag from the Makefile's release build (SWIFT_RELEASE):
      // the linker keeps one copy of a specialization (a `Dictionary<String, String>`'s
      // resize, say) and took swift-argument-parser's, made from the mangled name.
      .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"]),
      // A release build's functions each in a section of their own, public ones not kept for
      // clients outside the binary (the unsafe flags keep any other package from depending on
      // these modules): `--gc-sections` drops what nothing calls,
      // 0.6 MB of the binary, and lld can place a hit's functions together (link/).
      .unsafeFlags(
        ["-Xfrontend", "-function-sections", "-Xfrontend", "-internalize-at-link"],
        .when(configuration: .release)),
    ]
}

// Size before speed where imgcache's own code is not what a run waits on: the command line's
// layer (its flags, its records), the fleet's jobs, the remote tier and Redis (people, servers,
// the network), the policy. -Osize there takes 0.2 MB off the binary and adds 1 % to a hit's
// instructions; the pipeline, the index, the transport, the store and all an export runs (the
// sniffer, the variants, the exporter) stay at -O (docs/architecture.md, Layers).
for target in package.targets
where [
  "ImgCacheCLI", "ImgCacheFleet", "ImgCacheRemote", "ImgCacheRedis", "ImgCacheConfiguration",
].contains(target.name) {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [.unsafeFlags(["-Osize"], .when(configuration: .release))]
}
