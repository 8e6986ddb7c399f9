@testable import StrataRender
import Synchronization
import Testing

@Suite struct BitmapTests {
    @Test func newBitmapIsTransparent() throws {
        let bitmap = try Bitmap(width: 7, height: 3)
        #expect(bitmap.width == 7 && bitmap.height == 3 && bitmap.stride == 28 && bitmap.byteCount == 84)
        #expect(allPixels(bitmap).allSatisfy { $0 == 0 })
    }

    /// Large bitmaps live in pages of their own (see `Bitmap.ownPagesThreshold`); they start
    /// transparent and can be written to the last byte, like small ones, again and again.
    @Test func bitmapsOnTheirOwnPagesAreTransparentAndWritable() throws {
        for _ in 0..<3 {
            let bitmap = try Bitmap(width: 300, height: 200)
            #expect(bitmap.byteCount >= Bitmap.ownPagesThreshold)
            #expect(allPixels(bitmap).allSatisfy { $0 == 0 })
            bitmap.clear(to: Color(rgb: 0x336699))
            #expect(bitmap.pixel(x: 299, y: 199) == Color(rgb: 0x336699).premultipliedARGB)
        }
    }

    @Test func clearFillsEveryPixel() throws {
        let bitmap = try Bitmap(width: 5, height: 5)
        bitmap.clear(to: Color(rgb: 0x336699, alpha: 0.5))
        #expect(allPixels(bitmap).allSatisfy { $0 == Color(rgb: 0x336699, alpha: 0.5).premultipliedARGB })
        bitmap.clear()
        #expect(allPixels(bitmap).allSatisfy { $0 == 0 })
    }

    @Test func invalidSizesThrow() {
        for (width, height) in [(0, 10), (10, 0), (-1, 10), (10, -5), (100_000, 10), (10, 100_000), (16385, 1), (Int.max, Int.max)] {
            let error = #expect(throws: RenderError.self) { try Bitmap(width: width, height: height) }
            #expect(error?.code == .invalidSize, "\(width)×\(height)")
        }
        #expect(throws: Never.self) { try Bitmap(width: 16384, height: 1) }
    }

    @Test func wrappedMemoryHonoursStrideAndIsReleasedOnce() throws {
        let releases = Atomic<Int>(0)
        let stride = 40  // 8 pixels of 4 bytes, plus 8 bytes of padding a row
        let memory = UnsafeMutableRawPointer.allocate(byteCount: stride * 4, alignment: 16)
        memory.initializeMemory(as: UInt8.self, repeating: 0xAB, count: stride * 4)
        do {
            let bitmap = try Bitmap(wrapping: memory, width: 8, height: 4, stride: stride) { pointer in
                releases.add(1, ordering: .relaxed)
                pointer.deallocate()
            }
            #expect(bitmap.stride == 40 && bitmap.byteCount == 160 && bitmap.pixels == memory)
            bitmap.clear()
            Canvas(bitmap: bitmap).fill(Rect(x: 0, y: 1, width: 1, height: 1), color: .red)
            #expect(memory.load(fromByteOffset: 40, as: UInt32.self) == 0xFFFF_0000)
            // Padding bytes between rows are never touched.
            #expect(memory.load(fromByteOffset: 32, as: UInt32.self) == 0xABAB_ABAB)
            let releasedEarly = releases.load(ordering: .relaxed)
            #expect(releasedEarly == 0)
        }
        let releaseCount = releases.load(ordering: .relaxed)
        #expect(releaseCount == 1)
    }

    @Test func wrappingWithABadStrideThrowsAndKeepsOwnership() throws {
        let released = Atomic<Bool>(false)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 1024, alignment: 16)
        defer { memory.deallocate() }
        for (width, height, stride) in [(8, 4, 31), (8, 4, 30), (8, 4, -32), (0, 4, 32), (8, 100_000, 32)] {
            let error = #expect(throws: RenderError.self) {
                try Bitmap(wrapping: memory, width: width, height: height, stride: stride) { _ in
                    released.store(true, ordering: .relaxed)
                }
            }
            #expect(error?.code == .invalidSize)
        }
        let wasReleased = released.load(ordering: .relaxed)
        #expect(!wasReleased)
    }

    @Test func bitmapsMoveBetweenThreads() async throws {
        let bitmap = try Bitmap(width: 16, height: 16)
        // Rendered on a worker, then read here: ownership travels with the object.
        let rendered = await Task.detached {
            Canvas(bitmap: bitmap).fill(Rect(x: 0, y: 0, width: 16, height: 16), color: .blue, cornerRadius: 4)
            return bitmap
        }.value
        #expect(rendered.pixel(x: 8, y: 8) == Color.blue.premultipliedARGB)
        // Several readers at once are fine.
        let image = try sampleImage()
        try await withThrowingTaskGroup(of: UInt32.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let target = try Bitmap(width: 32, height: 32)
                    Canvas(bitmap: target).draw(image, in: Rect(x: 0, y: 0, width: 32, height: 32))
                    return target.pixel(x: 6, y: 10)
                }
            }
            for try await pixel in group { #expect(pixel == 0xFFFF_0000) }
        }
    }

    @Test func overlappingUseStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let bitmap = try Bitmap(width: 4, height: 4)
            bitmap.beginWriting()
            _ = bitmap.pixel(x: 0, y: 0)  // a read while a write is in progress
        }
    }
}
