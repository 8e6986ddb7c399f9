import Foundation
@testable import strata_bench
import Testing

/// M14's quality reference must be the exact area average it claims, its PSNR the textbook one,
/// and its photos the same bytes on every run and different from one another: the figures rest
/// on all three.
struct ImageDecodeTests {
    @Test func areaAverageOfWholeBlocksIsTheirMean() {
        // 4×2 RGB to 2×1: each output pixel averages a 2×2 block.
        let rgb: [UInt8] = [0, 0, 0, 10, 10, 10, 100, 0, 0, 200, 0, 0,
                            20, 20, 20, 30, 30, 30, 0, 100, 0, 0, 40, 0]
        let result = ImageDecode.areaAverage(rgb, width: 4, height: 2, to: 2, 1)
        #expect(result == [15, 15, 15, 75, 35, 0])
    }

    @Test func areaAverageWeighsPartlyCoveredPixels() {
        // 3 pixels to 2: the middle one is split in half between the two outputs.
        let rgb: [UInt8] = [0, 0, 0, 90, 90, 90, 180, 180, 180]
        let result = ImageDecode.areaAverage(rgb, width: 3, height: 1, to: 2, 1)
        // (0 + 90 / 2) / 1.5 and (90 / 2 + 180) / 1.5.
        #expect(result.count == 6)
        #expect(abs(result[0] - 30) < 1e-9)
        #expect(abs(result[3] - 150) < 1e-9)
    }

    @Test func psnrIsTenLogOfPeakOverMeanSquaredError() throws {
        let thumbnail = ImageDecode.Thumbnail(width: 1, height: 1, rgb: [10, 20, 30])
        let error = ImageDecode.squaredError(thumbnail, [11, 19, 30])
        #expect(error.sum == 2 && error.count == 3)
        let psnr = try #require(ImageDecode.psnr(error))
        #expect(abs(psnr - 10 * log10(255.0 * 255 / (2.0 / 3))) < 1e-9)
        // An exact match has no finite PSNR, so it is no figure rather than a win.
        #expect(ImageDecode.psnr((0, 3)) == nil)
    }

    @Test func photosAreSeededDistinctAndNotFlat() {
        let first = TestPhotos.picture(width: 64, height: 48, seed: 1)
        #expect(first == TestPhotos.picture(width: 64, height: 48, seed: 1))
        #expect(first != TestPhotos.picture(width: 64, height: 48, seed: 2))
        let header = Array("P6\n64 48\n255\n".utf8)
        #expect(Array(first.prefix(header.count)) == header)
        #expect(first.count == header.count + 64 * 48 * 3)
        // Photo-like: most neighbouring pixels differ.
        let pixels = Array(first.dropFirst(header.count))
        let differing = stride(from: 3, to: pixels.count, by: 3).filter { pixels[$0] != pixels[$0 - 3] }.count
        #expect(differing > pixels.count / 3 / 2)
    }
}
