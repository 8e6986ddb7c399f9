import CLinux

/// Marks memory a system library keeps on purpose for the life of the process, so that
/// LeakSanitizer, when the process runs under it, does not report it; nothing otherwise.
public enum LeakChecking {
    /// Runs `body` with LeakSanitizer ignoring what this thread allocates meanwhile.
    ///
    /// Only for a library's own allocations that it keeps by design where LeakSanitizer cannot
    /// see them kept (fontconfig's process-wide configuration; the offsets a charset finds its
    /// leaves by). The suppression file could name those frames only with the slow unwinder, which
    /// makes the sanitized suite several times slower: Debian's libraries have no frame pointers.
    /// Memory the caller allocates outside `body` (the charset itself) is still checked.
    public static func ignoringAllocations<Result, Failure: Error>(
        _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        strata_leak_checking_pause()
        defer { strata_leak_checking_resume() }
        return try body()
    }
}
