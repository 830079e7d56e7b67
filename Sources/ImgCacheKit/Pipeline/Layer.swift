// The layers Pipeline may use: those below it (docs/architecture.md, Layers). A use of a
// layer above does not compile.

@_exported import ImgCacheIndex
@_exported import ImgCacheRemote
@_exported import ImgCacheSniffer
@_exported import ImgCacheStorage
@_exported import ImgCacheSupport
@_exported import ImgCacheTransport
@_exported import ImgCacheUntrusted
@_exported import ImgCacheVariants
