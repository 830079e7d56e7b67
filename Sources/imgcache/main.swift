import ImgCacheCLI

ImgCacheCommand.main()
