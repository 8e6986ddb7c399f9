import BenchKit
import Glibc
import Testing
@testable import strata_bench

struct MemoryTests {
    /// Growth is the slope over every sample, so one high or low sample does not make it.
    @Test func theSlopeIgnoresOneOutlierThatTwoSamplesWouldNot() throws {
        let times = (0..<100).map(Double.init)
        var values = times.map { 1_000_000 + 0 * $0 }
        values[99] += 5_000_000
        let slope = try #require(Fit.slope(x: times, y: values))
        #expect(slope < 5_000_000 / 99 / 10, "a last-sample spike moves the slope a tenth as much as a difference would")
        let leak = try #require(Fit.slope(x: times, y: times.map { 1_000_000 + 4096 * $0 }))
        #expect(abs(leak - 4096) < 1e-6)
        #expect(Fit.slope(x: [1], y: [1]) == nil)
        #expect(Fit.slope(x: [1, 1], y: [1, 2]) == nil)
        #expect(Fit.slope(x: [0, 1], y: [1, .nan]) == nil)
        #expect(Fit.slope(x: [0, 1, 2], y: [1, 2]) == nil)
    }

    @Test func thisProcessHasResidentMemoryAndAShareOfIt() throws {
        let usage = try MemoryUsage.read()
        #expect(usage.resident > 1_000_000)
        #expect(usage.proportional > 0 && usage.proportional <= usage.resident)
    }

    static let rollup = """
        55d37d674000-7ffdbbb65000 ---p 00000000 00:00 0                          [rollup]
        Rss:               41720 kB
        Pss:               20367 kB
        Pss_Dirty:           108 kB
        Pss_Anon:          12108 kB
        Pss_File:           5259 kB
        Pss_Shmem:          3000 kB
        Shared_Clean:       1568 kB
        Private_Clean:       100 kB
        Private_Dirty:      2000 kB
        """

    /// The driver reads both toolkits' processes with this one parser, in bytes.
    @Test func aRollupIsReadInBytesWithItsSplit() throws {
        let rollup = try SmapsRollup(parsing: Self.rollup, source: "test")
        #expect(rollup.resident == 41720 * 1024 && rollup.proportional == 20367 * 1024)
        #expect(rollup.proportionalAnonymous == 12108 * 1024 && rollup.proportionalFile == 5259 * 1024
                 && rollup.proportionalShared == 3000 * 1024)
        #expect(rollup.unique == 2100 * 1024)
        // An older kernel's rollup has no split: the sizes still read.
        let old = try SmapsRollup(parsing: "Rss: 8 kB\nPss: 4 kB\n", source: "test")
        #expect(old.proportional == 4096 && old.proportionalAnonymous == nil && old.unique == nil)
    }

    @Test func aRollupWithoutPssOrWithABadValueIsAnError() {
        #expect(throws: BenchError.self) { try SmapsRollup(parsing: "Rss: 8 kB\n", source: "test") }
        #expect(throws: BenchError.self) { try SmapsRollup(parsing: "Rss: 8 kB\nPss: x kB\n", source: "test") }
        #expect(throws: BenchError.self) { try SmapsRollup(parsing: "Rss: 8 kB\nPss: -4 kB\n", source: "test") }
    }

    @Test func anotherProcessIsReadByItsPid() throws {
        let byPid = try SmapsRollup.read(process: String(getpid()))
        #expect(byPid.resident > 1_000_000)
        #expect(byPid.proportional > 0 && byPid.proportional <= byPid.resident)
        #expect(throws: BenchError.self) { try SmapsRollup.read(process: "0") }
        // The test runner links the Swift runtime, whose mappings the whole smaps file holds.
        let smaps = try ProcFile.read("/proc/\(getpid())/smaps")
        #expect(MappingPSS.bytes(inSmaps: smaps) { $0.contains("/lib/swift/") } > 0)
    }

    @Test func mappedFontsAreTheDistinctFontFilesOfTheMaps() {
        let maps = """
            7f0000000000-7f0000100000 r--p 00000000 08:01 1234   /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
            7f0000100000-7f0000200000 r--p 00000000 08:01 1234   /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
            7f0000200000-7f0000300000 r--p 00000000 08:01 1235   /usr/share/fonts/opentype/Noto Sans CJK.TTC
            7f0000300000-7f0000400000 r-xp 00000000 08:01 1236   /usr/lib/x86_64-linux-gnu/libfreetype.so.6.18.3
            7f0000400000-7f0000500000 r--p 00000000 08:01 1237   /var/cache/fontconfig/abc-le64.cache-8
            7f0000500000-7f0000600000 rw-p 00000000 00:00 0      [heap]
            7f0000600000-7f0000700000 r--p 00000000 08:01 1238   /tmp/Gone.otf (deleted)
            """
        #expect(MappedFonts.paths(inMaps: maps) == [
            "/tmp/Gone.otf", "/usr/share/fonts/opentype/Noto Sans CJK.TTC", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        ])
    }

    /// The GTK peer's Swift runtime, which SwiftPM links in, is told apart by its mappings' paths.
    @Test func thePssOfSomeMappingsIsSummedByPath() {
        let smaps = """
            7f0000000000-7f0000100000 r-xp 00000000 08:01 1234                       /opt/swift/usr/lib/swift/linux/libswiftCore.so
            Size:               1024 kB
            Rss:                 600 kB
            Pss:                 300 kB
            Pss_Dirty:            10 kB
            7f0000100000-7f0000200000 rw-p 00000000 00:00 0 
            Rss:                 900 kB
            Pss:                 900 kB
            7f0000200000-7f0000300000 r--p 00000000 08:01 1235                       /usr/lib/x86_64-linux-gnu/libgtk-4.so.1
            Pss:                6000 kB
            7f0000300000-7f0000400000 r--p 00100000 08:01 1234                       /opt/swift/usr/lib/swift/linux/libswiftCore.so
            Pss:                  20 kB
            """
        #expect(MappingPSS.bytes(inSmaps: smaps) { $0.contains("/lib/swift/") } == 320 * 1024)
        #expect(MappingPSS.bytes(inSmaps: smaps) { $0.hasSuffix("libgtk-4.so.1") } == 6000 * 1024)
        #expect(MappingPSS.bytes(inSmaps: smaps) { _ in false } == 0)
    }
}
