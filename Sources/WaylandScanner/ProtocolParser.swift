import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A protocol file that cannot be turned into Swift, with where and why.
public struct ScannerError: Error, CustomStringConvertible, Equatable {
    public var file: String
    public var line: Int
    public var message: String

    public var description: String { "\(file):\(line): \(message)" }
}

/// Reads a Wayland protocol XML document into a `ProtocolSpec`.
public enum ProtocolParser {
    public static func parse(contentsOf url: URL) throws -> ProtocolSpec {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ScannerError(file: url.path, line: 0, message: "cannot read file: \(error.localizedDescription)")
        }
        return try parse(data, fileName: url.lastPathComponent)
    }

    public static func parse(_ data: Data, fileName: String) throws -> ProtocolSpec {
        // FoundationXML traps on an element name that is not UTF-8, and XML forbids NUL: such a
        // file is refused before it reaches the parser.
        guard String(validating: data, as: UTF8.self) != nil, !data.contains(0) else {
            throw ScannerError(file: fileName, line: 0, message: "malformed XML: not UTF-8 text")
        }
        // FoundationXML passes a processing instruction without data to strlen(NULL) and
        // crashes (found by the scanner fuzz target). Protocol files have none besides the XML
        // declaration at the very start, so any other `<?` is refused before parsing.
        let declaration = Data("<?xml".utf8)
        var searchStart = data.startIndex
        while let found = data[searchStart...].firstRange(of: Data("<?".utf8)) {
            let after = found.lowerBound + declaration.count
            let isDeclaration = found.lowerBound == data.startIndex && data.count > declaration.count
                && data[found.lowerBound..<after] == declaration && [0x20, 0x09, 0x0A, 0x0D].contains(data[after])
            guard isDeclaration else {
                let line = data[..<found.lowerBound].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
                throw ScannerError(file: fileName, line: line, message: "malformed XML: processing instructions are not supported")
            }
            searchStart = found.upperBound
        }
        let parser = XMLParser(data: data)
        let builder = SpecBuilder(fileName: fileName)
        parser.delegate = builder
        let succeeded = parser.parse()
        if let error = builder.error { throw error }
        // FoundationXML on Linux reports success for a truncated document, so check nesting here.
        if let unclosed = builder.openElements.last {
            throw ScannerError(file: fileName, line: parser.lineNumber, message: "malformed XML: <\(unclosed)> is never closed")
        }
        guard succeeded, let spec = builder.spec else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "no <protocol> element"
            throw ScannerError(file: fileName, line: parser.lineNumber, message: "malformed XML: \(reason)")
        }
        return spec
    }
}

/// SAX delegate: keeps the element being filled and folds it into its parent when it closes.
private final class SpecBuilder: NSObject, XMLParserDelegate {
    let fileName: String
    var spec: ProtocolSpec?
    var error: ScannerError?

    private var interface: InterfaceSpec?
    private var message: MessageSpec?
    private var messageIsEvent = false
    private var enumeration: EnumSpec?
    private var entry: EntrySpec?
    private var argument: ArgumentSpec?
    private var documentation: Documentation?
    private var text = ""
    private(set) var openElements: [String] = []

    init(fileName: String) { self.fileName = fileName }

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        guard error == nil else { return }
        openElements.append(element)
        do {
            try start(element, attributes, line: parser.lineNumber)
        } catch let failure as ScannerError {
            error = failure
            parser.abortParsing()
        } catch {}
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        guard error == nil else { return }
        openElements.removeLast()
        end(element)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    private func start(_ element: String, _ attributes: [String: String], line: Int) throws {
        func required(_ key: String) throws -> String {
            guard let value = attributes[key], !value.isEmpty else {
                throw ScannerError(file: fileName, line: line, message: "<\(element)> needs a '\(key)' attribute")
            }
            return value
        }
        func number(_ key: String, default fallback: Int) throws -> Int {
            guard let raw = attributes[key] else { return fallback }
            guard let value = Int(raw), value >= 1 else {
                throw ScannerError(file: fileName, line: line, message: "<\(element)> has an invalid \(key) '\(raw)'")
            }
            return value
        }
        text = ""
        switch element {
        case "protocol":
            spec = ProtocolSpec(name: try required("name"))
        case "copyright":
            break
        case "description":
            documentation = Documentation(summary: attributes["summary"], text: nil)
        case "interface":
            interface = InterfaceSpec(name: try required("name"), version: try number("version", default: 0))
            if interface?.version == 0 {
                throw ScannerError(file: fileName, line: line, message: "<interface> needs a 'version' attribute")
            }
        case "request", "event":
            messageIsEvent = element == "event"
            message = MessageSpec(name: try required("name"), since: try number("since", default: 1),
                                  isDestructor: attributes["type"] == "destructor")
        case "enum":
            enumeration = EnumSpec(name: try required("name"), since: try number("since", default: 1),
                                   isBitfield: attributes["bitfield"] == "true")
        case "entry":
            let raw = try required("value")
            let value = raw.hasPrefix("0x") ? UInt32(raw.dropFirst(2), radix: 16) : UInt32(raw)
            guard let value else {
                throw ScannerError(file: fileName, line: line, message: "entry value '\(raw)' is not a 32-bit unsigned number")
            }
            entry = EntrySpec(name: try required("name"), value: value, since: try number("since", default: 1),
                              documentation: attributes["summary"].map { Documentation(summary: $0, text: nil) })
        case "arg":
            let typeName = try required("type")
            guard let kind = ArgumentSpec.Kind(rawValue: typeName) else {
                throw ScannerError(file: fileName, line: line, message: "unknown argument type '\(typeName)'")
            }
            let allowsNull = attributes["allow-null"] == "true"
            if allowsNull && ![.string, .object, .newID].contains(kind) {
                throw ScannerError(file: fileName, line: line, message: "allow-null on a '\(typeName)' argument")
            }
            if kind == .newID && messageIsEvent && attributes["interface"] == nil {
                throw ScannerError(file: fileName, line: line, message: "an event cannot carry an untyped new_id")
            }
            argument = ArgumentSpec(name: try required("name"), kind: kind, interface: attributes["interface"],
                                    allowsNull: allowsNull, enumName: attributes["enum"],
                                    documentation: attributes["summary"].map { Documentation(summary: $0, text: nil) })
        default:
            throw ScannerError(file: fileName, line: line, message: "unexpected element <\(element)>")
        }
    }

    private func end(_ element: String) {
        switch element {
        case "copyright":
            spec?.copyright = text
        case "description":
            documentation?.text = text
            attachDocumentation()
        case "interface":
            if let interface { spec?.interfaces.append(interface) }
            interface = nil
        case "request", "event":
            if let message {
                if messageIsEvent { interface?.events.append(message) } else { interface?.requests.append(message) }
            }
            message = nil
        case "enum":
            if let enumeration { interface?.enums.append(enumeration) }
            enumeration = nil
        case "entry":
            if let entry { enumeration?.entries.append(entry) }
            entry = nil
        case "arg":
            if let argument { message?.arguments.append(argument) }
            argument = nil
        default:
            break
        }
    }

    /// A description belongs to the innermost open element.
    private func attachDocumentation() {
        defer { documentation = nil }
        if argument != nil { argument?.documentation = documentation }
        else if entry != nil { entry?.documentation = documentation }
        else if enumeration != nil { enumeration?.documentation = documentation }
        else if message != nil { message?.documentation = documentation }
        else if interface != nil { interface?.documentation = documentation }
        else { spec?.documentation = documentation }
    }
}
