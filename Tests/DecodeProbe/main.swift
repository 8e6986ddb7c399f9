// Measures, in a process of its own, the peak memory of one image decode: the file is read first,
// the kernel's peak-RSS mark is reset (/proc/self/clear_refs), the image is decoded, and the rise
// of the peak over the resident size before decoding is printed as "peak BYTES". Run by
// ImageDecodingMemoryTests; a test process's own heap would hide a decode's peak.
//
//   decode-probe FILE WIDTH HEIGHT   decoded for a view of WIDTH×HEIGHT (aspect fill)
//   decode-probe FILE full           decoded at full size
import Foundation
import Glibc
import StrataRender

/// A field of /proc/self/status in bytes ("VmHWM", "VmRSS"); nil when it cannot be read.
func status(_ field: String) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        return kilobytes.map { $0 * 1024 }
    }
    return nil
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, let bytes = FileManager.default.contents(atPath: arguments[1]).map({ [UInt8]($0) }) else {
    print("usage: decode-probe FILE (WIDTH HEIGHT | full)")
    exit(2)
}
// 5 resets the peak resident size to the current one.
guard let clear = fopen("/proc/self/clear_refs", "w"), fputs("5", clear) >= 0, fclose(clear) == 0,
      let before = status("VmRSS") else {
    print("cannot reset or read the peak resident size")
    exit(3)
}
do {
    let image = if arguments[2] == "full" {
        try ImageDecoder.decode(bytes)
    } else {
        try ImageDecoder.decode(bytes, width: Int(arguments[2]) ?? 0, height: Int(arguments[3]) ?? 0, mode: .aspectFill)
    }
    guard let peak = status("VmHWM") else { exit(3) }
    print("decoded \(image.width)x\(image.height)")
    print("peak \(peak - before)")
} catch {
    print("failed: \(error)")
    exit(1)
}
