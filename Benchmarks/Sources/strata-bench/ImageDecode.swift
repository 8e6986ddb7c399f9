import ArgumentParser
import BenchKit
import CBenchGdkPixbuf
import Dispatch
import Foundation
import Glibc
import Strata
import Synchronization

/// M14 `image_decode`: thumbnails of real-sized photos (4000×3000 JPEG, 2000×2000 WebP) for a
/// 300×200 view, Strata's `ImageDecoder.decode(_:width:height:mode:)` against gdk-pixbuf's
/// `gdk_pixbuf_new_from_file_at_scale`, what GTK apps thumbnail with, on 1 and 2 workers; with
/// each side's quality (PSNR against an exact reference) and peak memory per decode.
///
/// Both sides start from the file: gdk-pixbuf opens and reads it, and Strata's side reads it into
/// memory inside the timed region too (the page cache holds it for both). Both fit the photo
/// inside the view keeping its aspect ratio (`.aspectFit`; gdk-pixbuf's `preserve_aspect_ratio`),
/// and both decode JPEG with libjpeg-turbo's DCT scaling: they differ in how they shrink the
/// rest of the way (Strata an area filter, gdk-pixbuf bilinear) and in what they cost around it.
enum ImageDecode {
    typealias Format = TestPhotos.Format
    typealias Photo = TestPhotos.Photo

    static let target = (width: 300, height: 200)
    /// Thumbnails per second against gdk-pixbuf's.
    static let goal = 2.0
    /// Strata's PSNR may be at most this far below gdk-pixbuf's, in dB: rounding, not a
    /// visible difference.
    static let psnrTolerance = 0.1

    /// A decoded thumbnail as 8-bit RGB, row after row, for the quality figures.
    struct Thumbnail {
        var width: Int
        var height: Int
        var rgb: [UInt8]
    }

    // MARK: The two sides

    /// The file's bytes, read with plain `read(2)`: what an app does before handing bytes over.
    static func readFile(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BenchError(message: "cannot open \(path): errno \(errno)") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw BenchError(message: "cannot stat \(path): errno \(errno)") }
        let size = Int(info.st_size)
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var done = 0
            while done < size {
                let got = read(descriptor, buffer.baseAddress! + done, size - done)
                if got <= 0 { failed = true; break }
                done += got
            }
            count = done
        }
        guard !failed, bytes.count == size else { throw BenchError(message: "short read of \(path)") }
        return bytes
    }

    /// Strata's thumbnail of the file at `path`.
    static func strataThumbnail(_ path: String) throws -> Bitmap {
        try ImageDecoder.decode(try readFile(path), width: target.width, height: target.height, mode: .aspectFit)
    }

    /// gdk-pixbuf's thumbnail of the file at `path`; the caller unrefs it.
    static func gdkPixbufThumbnail(_ path: String) throws -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        guard let pixbuf = gdk_pixbuf_new_from_file_at_scale(path, Int32(target.width), Int32(target.height), 1, &error) else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "no error given"
            if let error { g_error_free(error) }
            throw BenchError(message: "gdk-pixbuf: \(path): \(message)")
        }
        return pixbuf
    }

    static func unref(_ pixbuf: OpaquePointer) { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }

    /// The name of the gdk-pixbuf loader that takes `path` ("jpeg", "webp"), nil when none does.
    static func gdkPixbufLoader(_ path: String) -> String? {
        guard let format = gdk_pixbuf_get_file_info(path, nil, nil), let name = gdk_pixbuf_format_get_name(format) else { return nil }
        defer { g_free(name) }
        return String(cString: name)
    }

    /// The size Strata gives `photo` (`ImageDecoder.fittedSize`).
    static func strataSize(_ photo: Photo) -> (width: Int, height: Int) {
        ImageDecoder.fittedSize(width: photo.width, height: photo.height, toFill: target.width, target.height, mode: .aspectFit)
    }

    /// Every thumbnail, timed or not, must be the size its side promises: Strata exactly
    /// `strataSize`; gdk-pixbuf, which rounds the free side to nearest instead of evening it
    /// against the view, within a pixel of it on each side.
    static func checkSize(_ width: Int, _ height: Int, of photo: Photo, strata: Bool) throws {
        let expected = strataSize(photo)
        let fine = strata ? (width, height) == expected : abs(width - expected.width) <= 1 && abs(height - expected.height) <= 1
        guard fine else {
            throw BenchError(message: "\(strata ? "strata" : "gdk-pixbuf"): \(photo.path) came out \(width)x\(height), "
                + "expected \(strata ? "" : "within a pixel of ")\(expected.width)x\(expected.height)")
        }
    }

    static func decode(_ photo: Photo, strata: Bool) throws {
        if strata {
            let bitmap = try strataThumbnail(photo.path)
            try checkSize(bitmap.width, bitmap.height, of: photo, strata: true)
        } else {
            let pixbuf = try gdkPixbufThumbnail(photo.path)
            defer { unref(pixbuf) }
            try checkSize(Int(gdk_pixbuf_get_width(pixbuf)), Int(gdk_pixbuf_get_height(pixbuf)), of: photo, strata: false)
        }
    }

    // MARK: Throughput

    struct Jobs: @unchecked Sendable {
        // Read only while the workers run.
        let photos: [Photo]
    }

    /// Thumbnails per second of `photos` (every photo `passes` times) over `workers` threads;
    /// worker `w` takes jobs w, w + workers, …, so that together they decode each job once.
    static func rate(_ photos: [Photo], passes: Int, workers: Int, strata: Bool) throws -> Double {
        let jobs = Jobs(photos: (0..<passes).flatMap { _ in photos })
        let failure = Mutex<(any Error)?>(nil)
        let elapsed = seconds {
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                do {
                    for index in stride(from: worker, to: jobs.photos.count, by: workers) {
                        try decode(jobs.photos[index], strata: strata)
                    }
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return Double(jobs.photos.count) / elapsed
    }

    struct Rates {
        var strata: [Double?] = []
        var peer: [Double?] = []
        var ratio: [Double?] = []
    }

    /// Both sides at `workers`, one untimed pass each first (files in the page cache, loaders
    /// loaded), then `rounds` rounds interleaved with the side that goes first alternating.
    static func measure(_ photos: [Photo], workers: Int, rounds: Int, passes: Int, peer: Bool) throws -> Rates {
        _ = try rate(photos, passes: 1, workers: workers, strata: true)
        if peer { _ = try rate(photos, passes: 1, workers: workers, strata: false) }
        var rates = Rates()
        for round in 0..<rounds {
            var strata = 0.0, gdk: Double?
            if round % 2 == 0 || !peer {
                strata = try rate(photos, passes: passes, workers: workers, strata: true)
                if peer { gdk = try rate(photos, passes: passes, workers: workers, strata: false) }
            } else {
                gdk = try rate(photos, passes: passes, workers: workers, strata: false)
                strata = try rate(photos, passes: passes, workers: workers, strata: true)
            }
            rates.strata.append(strata)
            rates.peer.append(gdk)
            rates.ratio.append(Rounds.ratio(strata, over: gdk))
        }
        return rates
    }

    // MARK: Quality

    /// `image` (8-bit RGB, `width`×`height`) shrunk to `newWidth`×`newHeight` in Double, every
    /// output pixel the exact average of the source area it covers (fractional pixels at its edges
    /// weighed by how much of them it covers). Values are sRGB-encoded, averaged as they are, as
    /// both sides average them.
    static func areaAverage(_ rgb: [UInt8], width: Int, height: Int, to newWidth: Int, _ newHeight: Int) -> [Double] {
        /// For each output index, the source indices it covers and their weights (summing to 1).
        func weights(_ source: Int, _ output: Int) -> [[(Int, Double)]] {
            let scale = Double(source) / Double(output)
            return (0..<output).map { index in
                let start = Double(index) * scale, end = Double(index + 1) * scale
                var list: [(Int, Double)] = []
                var pixel = Int(start.rounded(.down))
                while Double(pixel) < end, pixel < source {
                    let covered = min(end, Double(pixel + 1)) - max(start, Double(pixel))
                    if covered > 0 { list.append((pixel, covered / scale)) }
                    pixel += 1
                }
                return list
            }
        }
        let columns = weights(width, newWidth), rows = weights(height, newHeight)
        // Columns first: height × newWidth, then rows.
        var narrow = [Double](repeating: 0, count: height * newWidth * 3)
        rgb.withUnsafeBufferPointer { source in
            for y in 0..<height {
                for (x, list) in columns.enumerated() {
                    var sum = (0.0, 0.0, 0.0)
                    for (column, weight) in list {
                        let at = (y * width + column) * 3
                        sum.0 += weight * Double(source[at])
                        sum.1 += weight * Double(source[at + 1])
                        sum.2 += weight * Double(source[at + 2])
                    }
                    let out = (y * newWidth + x) * 3
                    (narrow[out], narrow[out + 1], narrow[out + 2]) = sum
                }
            }
        }
        var result = [Double](repeating: 0, count: newWidth * newHeight * 3)
        for (y, list) in rows.enumerated() {
            for (row, weight) in list {
                for index in 0..<(newWidth * 3) {
                    result[y * newWidth * 3 + index] += weight * narrow[row * newWidth * 3 + index]
                }
            }
        }
        return result
    }

    /// A Strata bitmap's pixels as RGB. Photos are opaque, so premultiplied values are the colour.
    static func rgb(_ bitmap: Bitmap) throws -> Thumbnail {
        var rgb = [UInt8](repeating: 0, count: bitmap.width * bitmap.height * 3)
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                let pixel = bitmap.pixel(x: x, y: y)
                guard pixel >> 24 == 0xFF else { throw BenchError(message: "strata: a photo decoded with alpha \(pixel >> 24)") }
                let at = (y * bitmap.width + x) * 3
                rgb[at] = UInt8(truncatingIfNeeded: pixel >> 16)
                rgb[at + 1] = UInt8(truncatingIfNeeded: pixel >> 8)
                rgb[at + 2] = UInt8(truncatingIfNeeded: pixel)
            }
        }
        return Thumbnail(width: bitmap.width, height: bitmap.height, rgb: rgb)
    }

    /// A pixbuf's pixels as RGB (its alpha channel, if any, must be opaque).
    static func rgb(_ pixbuf: OpaquePointer) throws -> Thumbnail {
        let width = Int(gdk_pixbuf_get_width(pixbuf)), height = Int(gdk_pixbuf_get_height(pixbuf))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf)), rowStride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        guard gdk_pixbuf_get_bits_per_sample(pixbuf) == 8, channels == 3 || channels == 4,
              let pixels = gdk_pixbuf_read_pixels(pixbuf) else {
            throw BenchError(message: "gdk-pixbuf: a thumbnail in an unexpected layout (\(channels) channels)")
        }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let from = y * rowStride + x * channels, to = (y * width + x) * 3
                if channels == 4, pixels[from + 3] != 0xFF {
                    throw BenchError(message: "gdk-pixbuf: a photo decoded with alpha \(pixels[from + 3])")
                }
                (rgb[to], rgb[to + 1], rgb[to + 2]) = (pixels[from], pixels[from + 1], pixels[from + 2])
            }
        }
        return Thumbnail(width: width, height: height, rgb: rgb)
    }

    /// The squared error summed over every channel of `thumbnail` against `reference`, and the
    /// number of values summed.
    static func squaredError(_ thumbnail: Thumbnail, _ reference: [Double]) -> (sum: Double, count: Int) {
        var sum = 0.0
        for (value, exact) in zip(thumbnail.rgb, reference) {
            let difference = Double(value) - exact
            sum += difference * difference
        }
        return (sum, thumbnail.rgb.count)
    }

    static func psnr(_ error: (sum: Double, count: Int)) -> Double? {
        guard error.count > 0 else { return nil }
        let mean = error.sum / Double(error.count)
        return mean > 0 ? 10 * log10(255 * 255 / mean) : nil
    }

    /// Each side's PSNR over `photos`, the squared errors of all their thumbnails pooled, against
    /// one reference per photo and size: Strata's full-size decode (libjpeg-turbo or libwebp with
    /// no scaling, the same libraries gdk-pixbuf decodes with) shrunk by `areaAverage` to the size
    /// that side's thumbnail has.
    static func quality(_ photos: [Photo], peer: Bool) throws -> (strata: Double?, peer: Double?) {
        var strataError = (sum: 0.0, count: 0), peerError = (sum: 0.0, count: 0)
        for photo in photos {
            let full = try rgb(try ImageDecoder.decode(try readFile(photo.path)))
            guard (full.width, full.height) == (photo.width, photo.height) else {
                throw BenchError(message: "strata: \(photo.path) decoded at \(full.width)x\(full.height) in full")
            }
            let ours = try rgb(try strataThumbnail(photo.path))
            let ourError = squaredError(ours, areaAverage(full.rgb, width: full.width, height: full.height, to: ours.width, ours.height))
            strataError = (strataError.sum + ourError.sum, strataError.count + ourError.count)
            guard peer else { continue }
            let pixbuf = try gdkPixbufThumbnail(photo.path)
            defer { unref(pixbuf) }
            let theirs = try rgb(pixbuf)
            let theirError = squaredError(theirs, areaAverage(full.rgb, width: full.width, height: full.height,
                                                              to: theirs.width, theirs.height))
            peerError = (peerError.sum + theirError.sum, peerError.count + theirError.count)
        }
        return (psnr(strataError), peer ? psnr(peerError) : nil)
    }

    // MARK: Peak memory

    /// One decode's peak memory, measured in a fresh `decode-subject` process: bytes the peak
    /// resident size rose while it decoded.
    static func peak(_ photo: Photo, warmUp: Photo, strata: Bool) throws -> Double {
        let command = [BenchContext.programDirectory + "strata-bench", "decode-subject", strata ? "strata" : "gdk-pixbuf",
                       photo.path, warmUp.path].joined(separator: " ")
        let output = try capture(command)
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("peak=") }) else {
            throw BenchError(message: "decode-subject printed no peak: \(output)")
        }
        let fields = reportFields(line)
        guard let peak = fields["peak"].flatMap({ Double($0) }), let width = fields["width"].flatMap({ Int($0) }),
              let height = fields["height"].flatMap({ Int($0) }) else {
            throw BenchError(message: "decode-subject: unreadable line \(line)")
        }
        try checkSize(width, height, of: photo, strata: strata)
        return peak
    }

    // MARK: The metric

    static func run(_ context: BenchContext, rounds: Int, _ recorder: inout MetricRecorder) throws {
        let smoke = context.smoke
        // The runs share two cores with other work; what else ran says how far 2 workers could scale.
        let load = try String(contentsOfFile: "/proc/loadavg", encoding: .utf8).split(separator: " ").first.flatMap { Double($0) }
        recorder.record("load_average_at_start", load, unit: "",
                        note: "the 1-minute load average as M14 started (/proc/loadavg): other work on the 2 cores, which a second worker competes with")
        let photos = try TestPhotos.make(count: smoke ? 1 : 4, jpegSize: smoke ? (800, 600) : (4000, 3000),
                                         webpSize: smoke ? (400, 400) : (2000, 2000))
        defer { photos.remove() }
        let passes = smoke ? 1 : 4
        for format in Format.allCases {
            let set = photos.photos(format)
            let first = set[0]
            let loaders = Swift.Set(set.map { gdkPixbufLoader($0.path) ?? "none" })
            // A format gdk-pixbuf has no loader for has no peer: Strata's figures are kept alone.
            let peer = loaders == [format.loaderName]
            recorder.check("\(format)_gdk_pixbuf_loader", peer ? 1 : 0, unit: "", expect: .exactly(1),
                           note: "gdk-pixbuf's loader for the photos: \(loaders.sorted().joined(separator: ", "))")
            let size = strataSize(first)
            let kilobytes = Double(set.reduce(0) { $0 + $1.fileBytes }) / Double(set.count) / 1024
            for workers in [1, 2] {
                let rates = try measure(set, workers: workers, rounds: rounds, passes: passes, peer: peer)
                recorder.record("\(format)_strata_\(workers)w", rounds: rates.strata, unit: "thumbnails/s",
                                note: workers == 1 ? "\(set.count) photos of \(first.width)x\(first.height), "
                                    + "\(Int(kilobytes.rounded())) KB on average, each \(passes) times a round; "
                                    + "to \(size.width)x\(size.height) (aspect fit in \(target.width)x\(target.height)), file read in the timed region" : nil)
                if peer {
                    recorder.record("\(format)_gdk_pixbuf_\(workers)w", rounds: rates.peer, unit: "thumbnails/s",
                                    note: workers == 1 ? "gdk_pixbuf_new_from_file_at_scale(path, \(target.width), \(target.height), TRUE)" : nil)
                    recorder.record("\(format)_vs_gdk_pixbuf_\(workers)w", rounds: rates.ratio, unit: "x", goal: .atLeast(goal),
                                    note: "median of per-round ratios")
                }
            }
            let quality = try quality(set, peer: peer)
            recorder.record("\(format)_psnr_strata", quality.strata, unit: "dB",
                            note: "against the full decode shrunk by an exact area average in Double, errors of all photos pooled")
            if peer {
                recorder.record("\(format)_psnr_gdk_pixbuf", quality.peer, unit: "dB", note: "against the same reference at its own size")
                recorder.record("\(format)_psnr_strata_minus_gdk_pixbuf", quality.strata.flatMap { ours in quality.peer.map { ours - $0 } },
                                unit: "dB", goal: .atLeast(-psnrTolerance), note: "at most \(psnrTolerance) dB worse")
            }
            guard let warmUp = photos.warmUp[format] else { throw BenchError(message: "no \(format) warm-up photo") }
            var strataPeaks: [Double?] = [], peerPeaks: [Double?] = []
            for _ in 0..<rounds {
                strataPeaks.append(try peak(first, warmUp: warmUp, strata: true))
                if peer { peerPeaks.append(try peak(first, warmUp: warmUp, strata: false)) }
            }
            let fullBitmap = Double(first.width * first.height * 4)
            // The goal is the JPEG's: a thumbnail of a 12-megapixel photo must never hold it whole.
            recorder.record("\(format)_peak_strata", rounds: strataPeaks, unit: "bytes",
                            goal: format.isJPEG && !smoke ? .atMost(fullBitmap / 4) : nil,
                            note: "one decode in a fresh process, file read included: the rise of VmHWM after clear_refs; "
                                + "the full bitmap is \(Int(fullBitmap)) bytes")
            if peer {
                recorder.record("\(format)_peak_gdk_pixbuf", rounds: peerPeaks, unit: "bytes", note: "the same, gdk-pixbuf reading the file")
            }
        }
    }
}

/// M14's memory subject: one thumbnail decode in a process of its own, so that nothing else the
/// benchmark did is in its peak. It decodes a tiny photo of the same format first (codec and
/// loader set-up is not the decode's), reads the file (Strata's side) or lets gdk-pixbuf read it,
/// after resetting the kernel's peak resident size (`/proc/self/clear_refs`, 5), and prints
/// `peak=BYTES width=W height=H`: how far the peak rose over the resident size at the reset.
struct DecodeSubject: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "decode-subject", abstract: "M14's subject: one decode's peak memory.",
                                                    shouldDisplay: false)
    @Argument(help: "strata or gdk-pixbuf") var side: String
    @Argument var path: String
    @Argument(help: "A small photo of the same format, decoded first.") var warmUp: String

    /// A field of /proc/self/status ("VmHWM", "VmRSS") in bytes.
    static func status(_ field: String) throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            if let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) { return kilobytes * 1024 }
        }
        throw BenchError(message: "no \(field) in /proc/self/status")
    }

    static func resetPeak() throws {
        guard let file = fopen("/proc/self/clear_refs", "w") else { throw BenchError(message: "cannot open clear_refs") }
        let wrote = fputs("5", file) >= 0
        guard fclose(file) == 0, wrote else { throw BenchError(message: "cannot reset the peak resident size") }
    }

    func run() throws {
        guard side == "strata" || side == "gdk-pixbuf" else { throw ValidationError("side: strata or gdk-pixbuf") }
        let strata = side == "strata"
        func thumbnail(_ path: String) throws -> (width: Int, height: Int) {
            if strata {
                let bitmap = try ImageDecode.strataThumbnail(path)
                return (bitmap.width, bitmap.height)
            }
            let pixbuf = try ImageDecode.gdkPixbufThumbnail(path)
            defer { ImageDecode.unref(pixbuf) }
            return (Int(gdk_pixbuf_get_width(pixbuf)), Int(gdk_pixbuf_get_height(pixbuf)))
        }
        _ = try thumbnail(warmUp)
        try Self.resetPeak()
        let before = try Self.status("VmRSS")
        let size = try thumbnail(path)
        let peak = try Self.status("VmHWM")
        print("peak=\(peak - before) width=\(size.width) height=\(size.height)")
    }
}
