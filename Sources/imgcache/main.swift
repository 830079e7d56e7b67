import ImgCacheCLI

await ImgCacheCommand.runMain()
