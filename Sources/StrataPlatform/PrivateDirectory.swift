import Glibc
import SystemPackage

/// Scratch directories no other user can enter or plant links in: made with mkdtemp(3), mode
/// 0700, under `$TMPDIR` (or `/tmp`), never at a fixed, predictable path.
public enum PrivateDirectory {
    /// Makes a new directory named `prefix` and six random characters.
    /// - Returns: its absolute path. Nothing removes it: callers remove what they make.
    /// - Throws: `SystemCallError` with mkdtemp's errno; a prefix with a `/` or a NUL is `EINVAL`.
    public static func make(prefix: String) throws(SystemCallError) -> String {
        guard !prefix.utf8.contains(where: { $0 == 0 || $0 == UInt8(ascii: "/") }) else {
            throw SystemCallError("mkdtemp", errno: .invalidArgument)
        }
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!) }
        guard let made else { throw SystemCallError("mkdtemp", errno: Errno(rawValue: errno)) }
        return String(cString: made)
    }
}
