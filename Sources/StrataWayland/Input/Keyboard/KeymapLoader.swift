import CXKBCommon
import Glibc
import StrataPlatform
import SystemPackage
import WaylandClient

/// Turns a `wl_keyboard.keymap` event into a compiled keymap, treating every part of it as
/// hostile: the format, the size, the descriptor and the text.
enum KeymapLoader {
    /// Real keymaps are 50–100 KiB; anything this large is a bug or an attack.
    static let maximumSize: UInt32 = 16 << 20

    /// Maps the descriptor privately and read-only, and compiles the text.
    ///
    /// The size is checked against the file first: reading a mapping past the end of its file
    /// raises `SIGBUS`. (A compositor that shrinks the file while it is being read can still
    /// cause that; the protocol gives no way to rule it out short of copying with `read`.)
    /// - Throws: `KeymapError`, never traps.
    static func compile(format: WlKeyboard.KeymapFormat, fd: FileDescriptor, size: UInt32,
                        context: XKBContext) throws(KeymapError) -> XKBKeymap {
        switch format {
        case .xkbV1: break
        case .noKeymap: throw KeymapError(.noKeymap, "the compositor sent no keymap (format no_keymap)")
        default: throw KeymapError(.unsupportedFormat, "unknown keymap format \(format.rawValue)")
        }
        guard size > 0, size <= maximumSize else {
            throw KeymapError(.invalidSize, "a keymap of \(size) bytes (the limit is \(maximumSize))")
        }
        var info = stat()
        do {
            try SystemCall.run("fstat(keymap)") { fstat(fd.rawValue, &info) }
        } catch {
            throw KeymapError(.unreadable, "cannot examine the keymap descriptor", cause: error)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw KeymapError(.unreadable, "the keymap descriptor is not a file (mode 0o\(String(info.st_mode, radix: 8)))")
        }
        guard Int64(info.st_size) >= Int64(size) else {
            throw KeymapError(.invalidSize, "a keymap of \(size) bytes in a file of \(info.st_size)")
        }
        let length = Int(size)
        let address: UnsafeMutableRawPointer
        do {
            // MAP_PRIVATE: wl_keyboard v7 and later may refuse MAP_SHARED.
            address = try SystemCall.map("mmap(keymap)") { mmap(nil, length, PROT_READ, MAP_PRIVATE, fd.rawValue, 0) }
        } catch {
            throw KeymapError(.unreadable, "cannot map the keymap's \(size) bytes", cause: error)
        }
        defer { munmap(address, length) }

        // Compositors send a NUL-terminated string, but nothing guarantees it: compile exactly the
        // bytes before any trailing NULs, never reading past the mapping.
        let bytes = UnsafeRawBufferPointer(start: address, count: length)
        var end = length
        while end > 0, bytes[end - 1] == 0 { end -= 1 }
        guard end > 0 else { throw KeymapError(.compilationFailed, "the keymap is empty") }
        _ = context.takeMessages()
        let keymap = xkb_keymap_new_from_buffer(context.raw, address.assumingMemoryBound(to: CChar.self), end,
                                                XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS)
        let messages = context.takeMessages()
        guard let keymap else {
            let reason = messages.first.map { ": \($0)" } ?? ""
            throw KeymapError(.compilationFailed, "xkbcommon cannot compile the keymap\(reason)")
        }
        return XKBKeymap(adopting: keymap, context: context)
    }
}
