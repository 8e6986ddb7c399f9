import Foundation
import Glibc

/// M14's photos, made at benchmark time so that nothing large is committed and every run decodes
/// the same bytes: each a seeded picture written as a PPM, then encoded by the stock encoders
/// (`cjpeg -quality 85`, baseline and `-progressive`, and `cwebp -q 80`) as a camera or a web
/// server would.
///
/// Flat colour would flatter both decoders (JPEG's entropy decoding and WebP's prediction cost
/// little where nothing changes), so each picture has what a photo has: smooth light across it,
/// hard-edged objects, mid-frequency texture (foliage, fabric) and sensor noise. Every pixel comes
/// from the seed alone, so the files are identical from run to run.
enum TestPhotos {
    enum Format: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Baseline JPEG, as cameras and most encoders write it.
        case jpeg
        /// Progressive JPEG, as many web servers and mozjpeg's defaults serve photos.
        case jpegProgressive = "jpeg_progressive"
        case webp

        var fileExtension: String { self == .webp ? "webp" : "jpg" }
        /// The gdk-pixbuf loader that should take it.
        var loaderName: String { self == .webp ? "webp" : "jpeg" }
        /// Whether it is a JPEG of either kind.
        var isJPEG: Bool { self != .webp }
        var description: String { rawValue }
    }

    /// One encoded photo on disk.
    struct Photo: Sendable {
        let path: String
        let format: Format
        let width: Int
        let height: Int
        let fileBytes: Int
    }

    /// The photos of one run, in a temporary directory removed by `remove()`.
    struct Batch: Sendable {
        let directory: String
        let photos: [Photo]
        /// A tiny photo per format, decoded by M14's memory subjects before they measure, so that
        /// loading a codec (gdk-pixbuf's loader modules, libjpeg's tables) is not counted as the
        /// decode's memory.
        let warmUp: [Format: Photo]

        func photos(_ format: Format) -> [Photo] { photos.filter { $0.format == format } }

        func remove() {
            do { try FileManager.default.removeItem(atPath: directory) } catch {
                printError("strata-bench: could not remove \(directory): \(error)\n")
            }
        }
    }

    /// `count` photos of each format: JPEGs of `jpegSize`, WebPs of `webpSize`, with distinct seeds
    /// so that no two decode the same data.
    static func make(count: Int, jpegSize: (Int, Int), webpSize: (Int, Int)) throws -> Batch {
        var template = Array("/tmp/strata-m14-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError(message: "mkdtemp failed: errno \(errno)") }
        let directory = String(cString: made)
        var photos: [Photo] = []
        var warmUp: [Format: Photo] = [:]
        do {
            for index in 0..<count {
                photos.append(try make(.jpeg, width: jpegSize.0, height: jpegSize.1, seed: UInt64(index + 1), in: directory))
            }
            for index in 0..<count {
                photos.append(try make(.jpegProgressive, width: jpegSize.0, height: jpegSize.1, seed: UInt64(index + 51), in: directory))
            }
            for index in 0..<count {
                photos.append(try make(.webp, width: webpSize.0, height: webpSize.1, seed: UInt64(index + 101), in: directory))
            }
            for format in Format.allCases {
                warmUp[format] = try make(format, width: 64, height: 48, seed: 999, in: directory, name: "warm-up-\(format.rawValue)")
            }
        } catch {
            Batch(directory: directory, photos: [], warmUp: [:]).remove()
            throw error
        }
        return Batch(directory: directory, photos: photos, warmUp: warmUp)
    }

    static func make(_ format: Format, width: Int, height: Int, seed: UInt64, in directory: String,
                     name: String? = nil) throws -> Photo {
        let stem = directory + "/" + (name ?? "\(format.rawValue)-\(seed)")
        let ppm = stem + ".ppm", encoded = stem + "." + format.fileExtension
        try Data(picture(width: width, height: height, seed: seed)).write(to: URL(fileURLWithPath: ppm))
        switch format {
        case .jpeg: try runTool("/usr/bin/cjpeg", ["-quality", "85", "-outfile", encoded, ppm])
        case .jpegProgressive: try runTool("/usr/bin/cjpeg", ["-quality", "85", "-progressive", "-outfile", encoded, ppm])
        case .webp: try runTool("/usr/bin/cwebp", ["-quiet", "-q", "80", ppm, "-o", encoded])
        }
        try FileManager.default.removeItem(atPath: ppm)
        let size = try FileManager.default.attributesOfItem(atPath: encoded)[.size] as? Int ?? 0
        guard size > 0 else { throw BenchError(message: "\(encoded) is empty") }
        return Photo(path: encoded, format: format, width: width, height: height, fileBytes: size)
    }

    /// Runs an encoder and fails with its output when it does not exit 0.
    static func runTool(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do { try process.run() } catch {
            throw BenchError(message: "cannot run \(executable) (Benchmarks/run installs it): \(error)")
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw BenchError(message: "\(executable) \(arguments.joined(separator: " ")) failed: \(text)")
        }
    }

    /// A binary PPM (P6) of the picture for `seed`.
    static func picture(width: Int, height: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix(seed: seed)
        let header = Array("P6\n\(width) \(height)\n255\n".utf8)
        var bytes = [UInt8](repeating: 0, count: header.count + width * height * 3)
        bytes.replaceSubrange(0..<header.count, with: header)
        // Light: per channel, waves across each axis: one to three cycles over the picture, then
        // finer ones (texture, and grain a few pixels wide that keeps the encoded size near a
        // camera's: 2-3 MB for 12 megapixels at quality 85).
        // Separable, so that a 12-megapixel picture costs tables, not sines per pixel.
        func waves(_ length: Int) -> [[Double]] {
            (0..<3).map { _ in
                let (cycles, phase) = (random.unit(1, 3), random.unit(0, 2 * .pi))
                let (fine, finePhase) = (random.unit(20, 60), random.unit(0, 2 * .pi))
                let (grain, grainPhase) = (random.unit(150, 500), random.unit(0, 2 * .pi))
                return (0..<length).map { index in
                    let t = Double(index) / Double(length)
                    return sin(2 * .pi * cycles * t + phase) + 0.15 * sin(2 * .pi * fine * t + finePhase)
                        + 0.3 * sin(2 * .pi * grain * t + grainPhase)
                }
            }
        }
        let across = waves(width), down = waves(height)
        let base = (0..<3).map { _ in random.unit(70, 150) }
        // Objects: discs and boxes with hard edges, each its own colour shaded across it.
        struct Shape { var disc: Bool; var x, y, a, b: Double; var colour: [Double] }
        let shapes: [Shape] = (0..<12).map { _ in
            Shape(disc: random.unit(0, 1) < 0.5, x: random.unit(0, Double(width)), y: random.unit(0, Double(height)),
                  a: random.unit(0.03, 0.15) * Double(width), b: random.unit(0.03, 0.15) * Double(height),
                  colour: (0..<3).map { _ in random.unit(20, 235) })
        }
        var offset = header.count
        var noise = SplitMix(seed: seed &* 0x9E37_79B9_7F4A_7C15)
        for y in 0..<height {
            let rowShapes = shapes.filter { abs(Double(y) - $0.y) < $0.b }
            for x in 0..<width {
                var covering: Shape?
                for shape in rowShapes where abs(Double(x) - shape.x) < shape.a {
                    let (dx, dy) = ((Double(x) - shape.x) / shape.a, (Double(y) - shape.y) / shape.b)
                    if !shape.disc || dx * dx + dy * dy < 1 { covering = shape }
                }
                let bits = noise.next()
                for channel in 0..<3 {
                    let light = across[channel][x] * down[channel][y]
                    var value = (covering?.colour[channel] ?? base[channel]) + 45 * light
                    // Sensor noise: triangular, about ±12.
                    let n = Double((bits >> (channel * 16)) & 0xFF) + Double((bits >> (channel * 16 + 8)) & 0xFF)
                    value += (n - 255) / 21
                    bytes[offset + channel] = UInt8(max(0, min(255, value.rounded())))
                }
                offset += 3
            }
        }
        return bytes
    }
}
