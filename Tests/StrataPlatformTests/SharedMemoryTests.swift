import StrataPlatform
import Testing

/// Shared memory takes any size and any name: a typed error or a working mapping, never a trap.
struct SharedMemoryTests {
    @Test(arguments: [0, -1, Int.min, Int.max, 1 << 62, 1 << 50])
    func absurdSizesAreTypedErrors(size: Int) {
        #expect(throws: StrataError.self) { try SharedMemory(size: size) }
    }

    @Test(arguments: ["", String(repeating: "x", count: 100_000), "a\0b\0", String(repeating: "é", count: 300),
                      "\u{1B}[31m", String(repeating: "🦆", count: 70)])
    func anyNameMakesAMapping(name: String) throws {
        let memory = try SharedMemory(size: 4096, name: name)
        memory.address.storeBytes(of: 7, as: UInt8.self)
        #expect(memory.size == 4096)
    }
}
