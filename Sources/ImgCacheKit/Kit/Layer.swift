// The engine's one product: the top layer, which re-exports every layer below it in turn
// (docs/architecture.md, Layers).

@_exported import ImgCacheFleet
