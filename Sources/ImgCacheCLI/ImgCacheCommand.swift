import ArgumentParser

public struct ImgCacheCommand: ParsableCommand { public init() {} }
