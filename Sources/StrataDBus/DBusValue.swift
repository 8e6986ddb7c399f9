/// A D-Bus type signature, such as `s`, `a{sv}` or `(ddd)`. It is sent as written; sd-bus checks
/// it when a message is built, so a malformed one becomes a `DBusError.invalidArgument` there.
public struct DBusSignature: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The signature's text.
    public let rawValue: String
    /// A signature from its text.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A signature from its text.
    public init(_ text: String) { rawValue = text }
    /// A signature from a literal.
    public init(stringLiteral value: String) { rawValue = value }

    /// `y`
    public static let byte: DBusSignature = "y"
    /// `b`
    public static let bool: DBusSignature = "b"
    /// `n`
    public static let int16: DBusSignature = "n"
    /// `q`
    public static let uint16: DBusSignature = "q"
    /// `i`
    public static let int32: DBusSignature = "i"
    /// `u`
    public static let uint32: DBusSignature = "u"
    /// `x`
    public static let int64: DBusSignature = "x"
    /// `t`
    public static let uint64: DBusSignature = "t"
    /// `d`
    public static let double: DBusSignature = "d"
    /// `s`
    public static let string: DBusSignature = "s"
    /// `o`
    public static let objectPath: DBusSignature = "o"
    /// `g`
    public static let signature: DBusSignature = "g"
    /// `v`
    public static let variant: DBusSignature = "v"

    /// The signature of an array of `element`.
    public static func array(of element: DBusSignature) -> DBusSignature { DBusSignature("a" + element.rawValue) }
    /// The signature of a dictionary from `key` (a basic type) to `value`.
    public static func dictionary(_ key: DBusSignature, _ value: DBusSignature) -> DBusSignature {
        DBusSignature("a{" + key.rawValue + value.rawValue + "}")
    }

    public var description: String { rawValue }
}

/// One D-Bus value of any type: what method calls take as arguments and what replies and signals
/// carry. Values read from the bus have passed `DBusLimits` and sd-bus's own checks (UTF-8,
/// well-formed signatures and paths). Unix file descriptors (`h`) are not supported.
public indirect enum DBusValue: Hashable, Sendable {
    /// `y`
    case byte(UInt8)
    /// `b`
    case bool(Bool)
    /// `n`
    case int16(Int16)
    /// `q`
    case uint16(UInt16)
    /// `i`
    case int32(Int32)
    /// `u`
    case uint32(UInt32)
    /// `x`
    case int64(Int64)
    /// `t`
    case uint64(UInt64)
    /// `d`
    case double(Double)
    /// `s`; sending one with a NUL in it is refused.
    case string(String)
    /// `o`, such as `/org/freedesktop/portal/desktop`.
    case objectPath(String)
    /// `g`
    case signature(DBusSignature)
    /// `v`: a value that carries its own type.
    case variant(DBusValue)
    /// `a…`: elements that all have the `element` signature (given, so that an empty array has a type).
    case array(element: DBusSignature, [DBusValue])
    /// `a{…}`: key–value entries; keys are of a basic type. Kept in the order they came.
    case dictionary(key: DBusSignature, value: DBusSignature, [Entry])
    /// `(…)`: fields in order.
    case structure([DBusValue])

    /// One entry of a dictionary.
    public struct Entry: Hashable, Sendable {
        /// The entry's key.
        public var key: DBusValue
        /// The entry's value.
        public var value: DBusValue
        /// An entry from its key and value.
        public init(_ key: DBusValue, _ value: DBusValue) {
            self.key = key
            self.value = value
        }
    }

    /// An `a{sv}` dictionary, the usual shape of options and settings.
    public static func stringVariantDictionary(_ entries: [(String, DBusValue)]) -> DBusValue {
        .dictionary(key: .string, value: .variant, entries.map { Entry(.string($0.0), .variant($0.1)) })
    }

    /// An `as` array.
    public static func stringArray(_ strings: [String]) -> DBusValue { .array(element: .string, strings.map(DBusValue.string)) }

    /// The value's D-Bus type.
    public var signature: DBusSignature {
        switch self {
        case .byte: .byte
        case .bool: .bool
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .variant: .variant
        case let .array(element, _): .array(of: element)
        case let .dictionary(key, value, _): .dictionary(key, value)
        case let .structure(fields): DBusSignature("(" + fields.map(\.signature.rawValue).joined() + ")")
        }
    }

    // MARK: Reading values

    /// The string of an `s`, nil for any other type.
    public var string: String? { if case let .string(value) = self { value } else { nil } }
    /// The value of a `b`, nil for any other type.
    public var bool: Bool? { if case let .bool(value) = self { value } else { nil } }
    /// The value of a `u`, nil for any other type.
    public var uint32: UInt32? { if case let .uint32(value) = self { value } else { nil } }
    /// The value of an `i`, nil for any other type.
    public var int32: Int32? { if case let .int32(value) = self { value } else { nil } }
    /// The value of a `d`, nil for any other type.
    public var double: Double? { if case let .double(value) = self { value } else { nil } }
    /// The path of an `o`, nil for any other type.
    public var objectPath: String? { if case let .objectPath(value) = self { value } else { nil } }
    /// The elements of an array, nil for any other type.
    public var elements: [DBusValue]? { if case let .array(_, values) = self { values } else { nil } }
    /// The fields of a structure, nil for any other type.
    public var fields: [DBusValue]? { if case let .structure(values) = self { values } else { nil } }
    /// The entries of a dictionary, nil for any other type.
    public var entries: [Entry]? { if case let .dictionary(_, _, entries) = self { entries } else { nil } }

    /// A dictionary with string keys (`a{s…}`) as a Swift dictionary, nil for any other type. Of
    /// keys sent twice, the last counts.
    public var stringKeyedDictionary: [String: DBusValue]? {
        guard case let .dictionary(key, _, entries) = self, key == .string else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries { if let name = entry.key.string { result[name] = entry.value } }
        return result
    }

    /// The value inside any number of variants, up to `limit` of them (a peer may nest a variant
    /// in a variant, as xdg-desktop-portal's `Settings.Read` does); nil when more are nested.
    public func unwrappingVariants(limit: Int = 8) -> DBusValue? {
        var value = self
        for _ in 0...max(limit, 0) {
            guard case let .variant(inner) = value else { return value }
            value = inner
        }
        return nil
    }
}
