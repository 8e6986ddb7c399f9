import CSDBus
import Glibc

/// Bounds on what is read from a reply or a signal. The bus is another process, and any peer on
/// it may answer: a message that passes a bound is dropped whole with `limitExceeded`, never
/// trusted in part. sd-bus checks the wire format, UTF-8 and signatures itself.
public struct DBusLimits: Hashable, Sendable {
    /// The longest string, object path or signature, in bytes.
    public var maximumStringBytes: Int
    /// The most values in one message, counting every element, key and field.
    public var maximumValues: Int
    /// The deepest nesting of containers (arrays, dictionaries, structures, variants).
    public var maximumDepth: Int

    /// Bounds given one by one; negative ones count as zero.
    public init(maximumStringBytes: Int = 64 * 1024, maximumValues: Int = 65_536, maximumDepth: Int = 32) {
        self.maximumStringBytes = max(maximumStringBytes, 0)
        self.maximumValues = max(maximumValues, 0)
        self.maximumDepth = max(maximumDepth, 0)
    }

    /// 64 KiB strings, 65 536 values, 32 levels: ample for settings and accessibility trees.
    public static let standard = DBusLimits()
}

/// sd-bus's type characters.
private func typeCode(_ scalar: Unicode.Scalar) -> CChar { CChar(bitPattern: UInt8(scalar.value)) }

/// Appends values to a message being built. Recursion is bounded by `maximumDepth`.
struct MessageWriter {
    let message: OpaquePointer
    let maximumDepth = 32

    func append(_ values: [DBusValue]) throws(DBusError) {
        for value in values { try append(value, depth: 0) }
    }

    private func check(_ result: Int32, _ function: String) throws(DBusError) {
        guard result >= 0 else { throw DBusError.library(function, result, code: .invalidArgument) }
    }

    private func appendBasic<T: BitwiseCopyable>(_ type: Unicode.Scalar, _ value: T) throws(DBusError) {
        var copy = value
        try check(sd_bus_message_append_basic(message, typeCode(type), &copy), "sd_bus_message_append_basic")
    }

    private func appendText(_ type: Unicode.Scalar, _ text: String) throws(DBusError) {
        // A NUL would silently cut the string short in C.
        guard !text.utf8.contains(0) else { throw DBusError(.invalidArgument, "a D-Bus string cannot contain a NUL byte") }
        // For strings, sd-bus takes the characters themselves, not a pointer to them.
        let result = text.withCString { sd_bus_message_append_basic(message, typeCode(type), $0) }
        try check(result, "sd_bus_message_append_basic")
    }

    private func open(_ type: Unicode.Scalar, _ contents: String) throws(DBusError) {
        guard !contents.utf8.contains(0) else { throw DBusError(.invalidArgument, "a D-Bus signature cannot contain a NUL byte") }
        let result = contents.withCString { sd_bus_message_open_container(message, typeCode(type), $0) }
        try check(result, "sd_bus_message_open_container(\(contents))")
    }

    private func close() throws(DBusError) {
        try check(sd_bus_message_close_container(message), "sd_bus_message_close_container")
    }

    private func append(_ value: DBusValue, depth: Int) throws(DBusError) {
        guard depth <= maximumDepth else { throw DBusError(.invalidArgument, "a value nested deeper than \(maximumDepth) levels") }
        switch value {
        case let .byte(v): try appendBasic("y", v)
        case let .bool(v): try appendBasic("b", Int32(v ? 1 : 0))
        case let .int16(v): try appendBasic("n", v)
        case let .uint16(v): try appendBasic("q", v)
        case let .int32(v): try appendBasic("i", v)
        case let .uint32(v): try appendBasic("u", v)
        case let .int64(v): try appendBasic("x", v)
        case let .uint64(v): try appendBasic("t", v)
        case let .double(v): try appendBasic("d", v)
        case let .string(v): try appendText("s", v)
        case let .objectPath(v): try appendText("o", v)
        case let .signature(v): try appendText("g", v.rawValue)
        case let .variant(inner):
            try open("v", inner.signature.rawValue)
            try append(inner, depth: depth + 1)
            try close()
        case let .array(element, elements):
            try open("a", element.rawValue)
            for item in elements {
                guard item.signature == element else {
                    throw DBusError(.invalidArgument, "an element of type \(item.signature) in an array of \(element)")
                }
                try append(item, depth: depth + 1)
            }
            try close()
        case let .dictionary(key, valueType, entries):
            let entrySignature = key.rawValue + valueType.rawValue
            try open("a", "{" + entrySignature + "}")
            for entry in entries {
                guard entry.key.signature == key, entry.value.signature == valueType else {
                    throw DBusError(.invalidArgument, "an entry of type {\(entry.key.signature)\(entry.value.signature)} in a dictionary of {\(entrySignature)}")
                }
                try open("e", entrySignature)
                try append(entry.key, depth: depth + 1)
                try append(entry.value, depth: depth + 1)
                try close()
            }
            try close()
        case let .structure(fields):
            guard !fields.isEmpty else { throw DBusError(.invalidArgument, "a D-Bus structure needs at least one field") }
            try open("r", fields.map(\.signature.rawValue).joined())
            for field in fields { try append(field, depth: depth + 1) }
            try close()
        }
    }
}

/// Reads every value of a received message, within `limits`. Recursion is bounded by
/// `limits.maximumDepth`.
struct MessageReader {
    let message: OpaquePointer
    let limits: DBusLimits
    private var count = 0

    init(message: OpaquePointer, limits: DBusLimits) {
        self.message = message
        self.limits = limits
    }

    /// The message's values, from the start of its body.
    mutating func readBody() throws(DBusError) -> [DBusValue] {
        try check(sd_bus_message_rewind(message, 1), "sd_bus_message_rewind")
        return try readContainer(depth: 0)
    }

    private func check(_ result: Int32, _ function: String) throws(DBusError) {
        // A read that fails on a message the bus delivered means its content is not what it claims.
        guard result >= 0 else { throw DBusError.library(function, result, code: .unexpectedReply) }
    }

    /// Values until the end of the current container.
    private mutating func readContainer(depth: Int) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while let value = try readNext(depth: depth) { values.append(value) }
        return values
    }

    private func readBasic<T: BitwiseCopyable>(_ type: CChar, _ initial: T) throws(DBusError) -> T {
        var value = initial
        try check(sd_bus_message_read_basic(message, type, &value), "sd_bus_message_read_basic")
        return value
    }

    private func readText(_ type: CChar) throws(DBusError) -> String {
        var pointer: UnsafePointer<CChar>?
        try check(sd_bus_message_read_basic(message, type, &pointer), "sd_bus_message_read_basic")
        guard let pointer else { throw DBusError(.unexpectedReply, "a string with no characters pointer") }
        let length = strnlen(pointer, limits.maximumStringBytes + 1)
        guard length <= limits.maximumStringBytes else {
            throw DBusError(.limitExceeded, "a string longer than \(limits.maximumStringBytes) bytes")
        }
        guard let text = String(validatingCString: pointer) else { throw DBusError(.unexpectedReply, "a string that is not UTF-8") }
        return text
    }

    private func enter(_ type: CChar, _ contents: UnsafePointer<CChar>?) throws(DBusError) {
        try check(sd_bus_message_enter_container(message, type, contents), "sd_bus_message_enter_container")
    }

    private func exit() throws(DBusError) {
        try check(sd_bus_message_exit_container(message), "sd_bus_message_exit_container")
    }

    /// The next value, or nil at the end of the current container.
    private mutating func readNext(depth: Int) throws(DBusError) -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = sd_bus_message_peek_type(message, &type, &contents)
        if peeked == 0 { return nil }
        try check(peeked, "sd_bus_message_peek_type")
        count += 1
        guard count <= limits.maximumValues else { throw DBusError(.limitExceeded, "more than \(limits.maximumValues) values") }
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "y"): return .byte(try readBasic(type, UInt8(0)))
        case UInt8(ascii: "b"): return .bool(try readBasic(type, Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int16(try readBasic(type, Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try readBasic(type, UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try readBasic(type, Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try readBasic(type, UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try readBasic(type, Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try readBasic(type, UInt64(0)))
        case UInt8(ascii: "d"): return .double(try readBasic(type, Double(0)))
        case UInt8(ascii: "s"): return .string(try readText(type))
        case UInt8(ascii: "o"): return .objectPath(try readText(type))
        case UInt8(ascii: "g"): return .signature(DBusSignature(try readText(type)))
        case UInt8(ascii: "h"):
            throw DBusError(.unexpectedReply, "a Unix file descriptor, which Strata does not accept")
        default: break
        }
        // A container: its contents' signature comes with it.
        guard depth < limits.maximumDepth else { throw DBusError(.limitExceeded, "values nested deeper than \(limits.maximumDepth)") }
        guard let contents, let signature = String(validatingCString: contents) else {
            throw DBusError(.unexpectedReply, "a container without a signature")
        }
        try enter(type, contents)
        let value: DBusValue
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "v"):
            guard let inner = try readNext(depth: depth + 1) else { throw DBusError(.unexpectedReply, "an empty variant") }
            value = .variant(inner)
        case UInt8(ascii: "r"):
            value = .structure(try readContainer(depth: depth + 1))
        case UInt8(ascii: "a") where signature.hasPrefix("{"):
            // `{kv}`: the key is one basic type code, the value the rest.
            let inner = signature.dropFirst().dropLast()
            guard let keyCode = inner.first else { throw DBusError(.unexpectedReply, "a dictionary of \(signature)") }
            let (key, valueType) = (DBusSignature(String(keyCode)), DBusSignature(String(inner.dropFirst())))
            var entries: [DBusValue.Entry] = []
            while true {
                var entryType: CChar = 0
                var entryContents: UnsafePointer<CChar>?
                let more = sd_bus_message_peek_type(message, &entryType, &entryContents)
                if more == 0 { break }
                try check(more, "sd_bus_message_peek_type")
                try enter(entryType, entryContents)
                let pair = try readContainer(depth: depth + 1)
                try exit()
                guard pair.count == 2 else { throw DBusError(.unexpectedReply, "a dictionary entry of \(pair.count) values") }
                entries.append(DBusValue.Entry(pair[0], pair[1]))
            }
            value = .dictionary(key: key, value: valueType, entries)
        case UInt8(ascii: "a"):
            value = .array(element: DBusSignature(signature), try readContainer(depth: depth + 1))
        default:
            throw DBusError(.unexpectedReply, "a value of unknown type '\(Character(Unicode.Scalar(UInt8(bitPattern: type))))'")
        }
        try exit()
        return value
    }
}

/// A header field of a received message (sender, path, interface, member), which sd-bus has
/// checked against the D-Bus name rules.
func headerField(_ pointer: UnsafePointer<CChar>?) -> String? {
    pointer.flatMap { String(validatingCString: $0) }
}
