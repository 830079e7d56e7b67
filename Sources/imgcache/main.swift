import ImgCacheCLI

ImgCacheCommand.runMain()
