// The engine's one product: every layer, re-exported (docs/architecture.md, Layers).

@_exported import ImgCacheConfiguration
@_exported import ImgCacheIndex
@_exported import ImgCachePipeline
@_exported import ImgCacheRemote
@_exported import ImgCacheSniffer
@_exported import ImgCacheStorage
@_exported import ImgCacheSupport
@_exported import ImgCacheTransport
@_exported import ImgCacheUntrusted
@_exported import ImgCacheVariants
