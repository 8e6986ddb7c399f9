/// A fuzz target: a name (the corpus folder under `Tests/Fuzz/Corpus`) and a function that must
/// accept any bytes without trapping, hanging or growing without bound. A target checks what it
/// can of the result too: a wrong answer to hostile input counts as a crash.
public struct FuzzTarget: Sendable {
    /// The target's name, as `Scripts/fuzz` and `strata-fuzz` take it.
    public let name: String
    /// Runs one input, on the main actor (the Wayland target drives a window).
    public let run: @Sendable ([UInt8]) -> Void

    /// Every target, in the order `Scripts/fuzz` runs them.
    public static let all: [FuzzTarget] = [.png, .jpeg, .webp, .gif, .font, .textLayout, .textQueries, .textEditing, .scanner, .waylandEvents]

    /// The target called `name`, if there is one.
    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// Stops the fuzzer with a message, as a crash it reports and minimises: a target found an answer
/// that breaks its own promise.
func violated(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("fuzz invariant violated: \(message())", file: file, line: line)
}
