/// Structured values read off a fuzzer's raw bytes: each read takes what it needs from the front,
/// and reads past the end give zeros, so every byte string is a valid input and small mutations
/// move values a little. Numbers lean towards the values that break code (zero, NaN, infinities,
/// the extremes) as well as ordinary ones.
public struct FuzzInput {
    private var bytes: ArraySlice<UInt8>

    /// Reads `bytes` from the front.
    public init<Bytes: Collection<UInt8>>(_ bytes: Bytes) { self.bytes = ArraySlice(bytes) }

    /// Whether every byte has been read.
    public var isEmpty: Bool { bytes.isEmpty }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    /// The next `count` bytes (fewer at the end).
    public mutating func bytes(_ count: Int) -> [UInt8] {
        let taken = Array(bytes.prefix(max(count, 0)))
        bytes = bytes.dropFirst(taken.count)
        return taken
    }

    /// Everything left.
    public mutating func rest() -> [UInt8] {
        defer { bytes = [] }
        return Array(bytes)
    }

    /// Four bytes, little-endian.
    public mutating func uint32() -> UInt32 {
        (0..<4).reduce(0) { value, shift in value | UInt32(byte()) << (8 * shift) }
    }

    /// A boolean from one byte.
    public mutating func bool() -> Bool { byte() & 1 == 1 }

    /// An integer: mostly small, sometimes an extreme.
    public mutating func int() -> Int {
        switch byte() % 8 {
        case 0: .zero
        case 1: .max
        case 2: .min
        case 3: -Int(byte())
        case 4: Int(Int32(bitPattern: uint32()))
        default: Int(byte())
        }
    }

    /// An `Int32`, as the protocol carries: mostly small, sometimes an extreme.
    public mutating func int32() -> Int32 {
        switch byte() % 6 {
        case 0: .max
        case 1: .min
        case 2: Int32(bitPattern: uint32())
        default: Int32(byte()) - 16
        }
    }

    /// A double: ordinary values in `ordinary`, or a hostile one (NaN, ±infinity, ±0, huge, tiny).
    public mutating func double(ordinary: ClosedRange<Double> = 0...1000) -> Double {
        switch byte() % 12 {
        case 0: .nan
        case 1: .infinity
        case 2: -.infinity
        case 3: -0.0
        case 4: .greatestFiniteMagnitude
        case 5: -.greatestFiniteMagnitude
        case 6: .leastNonzeroMagnitude
        case 7: Double(Int32(bitPattern: uint32()))
        default:
            ordinary.lowerBound + (ordinary.upperBound - ordinary.lowerBound) * Double(uint32()) / Double(UInt32.max)
        }
    }

    /// One of `choices`, which must not be empty.
    public mutating func pick<T>(_ choices: [T]) -> T { choices[Int(byte()) % choices.count] }
}
