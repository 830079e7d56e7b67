// The layers Dataset may use: those below it (docs/architecture.md, Layers). A use of a layer
// above does not compile.

@_exported import ImgCacheConfiguration
