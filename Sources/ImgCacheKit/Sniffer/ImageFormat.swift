import FoundationEssentials
import Glibc

/// The image formats the sniffer recognises by full signature.
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
  case jpeg, png, gif, webp, heic, heif, avif, tiff, bmp, ico, svg, jxl, pdf

  /// The usual MIME type of the format.
  public var mimeType: String {
    switch self {
    case .jpeg: return "image/jpeg"
    case .png: return "image/png"
    case .gif: return "image/gif"
    case .webp: return "image/webp"
    case .heic: return "image/heic"
    case .heif: return "image/heif"
    case .avif: return "image/avif"
    case .tiff: return "image/tiff"
    case .bmp: return "image/bmp"
    case .ico: return "image/vnd.microsoft.icon"
    case .svg: return "image/svg+xml"
    case .jxl: return "image/jxl"
    case .pdf: return "application/pdf"
    }
  }
}

/// What the sniffer learnt of a body without decoding pixels.
public struct ImageInfo: Sendable, Equatable {
  /// The detected format.
  public var format: ImageFormat
  /// Width in pixels, when the headers tell it (vector formats may not).
  public var width: Int?
  /// Height in pixels, when the headers tell it.
  public var height: Int?

  /// Creates a description of an image.
  public init(format: ImageFormat, width: Int? = nil, height: Int? = nil) {
    self.format = format
    self.width = width
    self.height = height
  }

  /// False when the headers give a zero width or height (SDWebImage's "0 pixels").
  public var hasPixels: Bool { width != 0 && height != 0 }
}

/// Random access to the bytes of a body, bounds-checked: a short read is nil, never a crash.
protocol ByteSource {
  /// Total length in bytes.
  var length: Int { get }
  /// Exactly `count` bytes at `offset`, or nil when they are not all there.
  func bytes(at offset: Int, count: Int) -> [UInt8]?
}

extension ByteSource {
  func u8(_ offset: Int) -> Int? { bytes(at: offset, count: 1).map { Int($0[0]) } }
  func be16(_ offset: Int) -> Int? {
    bytes(at: offset, count: 2).map { Int($0[0]) << 8 | Int($0[1]) }
  }
  func le16(_ offset: Int) -> Int? {
    bytes(at: offset, count: 2).map { Int($0[1]) << 8 | Int($0[0]) }
  }
  func be32(_ offset: Int) -> Int? {
    bytes(at: offset, count: 4).map { $0.reduce(0) { $0 << 8 | Int($1) } }
  }
  func le32(_ offset: Int) -> Int? {
    bytes(at: offset, count: 4).map { $0.reversed().reduce(0) { $0 << 8 | Int($1) } }
  }
  func be64(_ offset: Int) -> Int? {
    bytes(at: offset, count: 8).map { $0.reduce(0) { ($0 << 8) | Int($1) } }
  }
  func ascii(_ offset: Int, _ count: Int) -> String? {
    bytes(at: offset, count: count).map { String(decoding: $0, as: UTF8.self) }
  }
  func matches(_ offset: Int, _ signature: [UInt8]) -> Bool {
    bytes(at: offset, count: signature.count) == signature
  }
}

/// An in-memory body.
struct ArraySource: ByteSource {
  let data: [UInt8]
  var length: Int { data.count }
  func bytes(at offset: Int, count: Int) -> [UInt8]? {
    guard offset >= 0, count >= 0, offset <= data.count, count <= data.count - offset else {
      return nil
    }
    return Array(data[offset..<(offset + count)])
  }
}

/// A body in memory as `Data`, read in place (no copy of the whole body into an array).
struct DataSource: ByteSource {
  let data: Data
  var length: Int { data.count }
  func bytes(at offset: Int, count: Int) -> [UInt8]? {
    guard offset >= 0, count >= 0, offset <= data.count, count <= data.count - offset else {
      return nil
    }
    let start = data.startIndex + offset
    return Array(data[start..<(start + count)])
  }
}

/// A body in a file, read where a parser looks, a block of 64 KiB at a time: one `pread` for a
/// small body, and a walk over headers (JPEG markers, ISOBMFF boxes) costs a read per block,
/// not one per field (a JPEG took a dozen one-byte reads). Used by one thread at a time.
final class FileSource: ByteSource {
  private static let blockSize = 64 * 1024
  private let descriptor: Int32
  let length: Int
  /// The bytes of the file from `blockStart`, as last read.
  private var block = [UInt8]()
  private var blockStart = 0

  init?(path: String) {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      close(fd)
      return nil
    }
    descriptor = fd
    length = Int(info.st_size)
  }

  deinit { close(descriptor) }

  func bytes(at offset: Int, count: Int) -> [UInt8]? {
    guard offset >= 0, count >= 0, offset <= length, count <= length - offset else { return nil }
    if offset < blockStart || offset + count > blockStart + block.count {
      block = FileIO.bytes(
        descriptor, at: offset, count: min(max(count, Self.blockSize), length - offset))
      blockStart = offset
      // The file ended early (it shrank since it was opened).
      guard block.count >= count else { return nil }
    }
    let start = offset - blockStart
    return Array(block[start..<(start + count)])
  }
}
