import Glibc
import StrataPlatform
import Testing

struct PrivateDirectoryTests {
    @Test func eachDirectoryIsNewAndOnlyItsOwnerMayEnterIt() throws {
        let first = try PrivateDirectory.make(prefix: "strata-private-test")
        let second = try PrivateDirectory.make(prefix: "strata-private-test")
        defer { rmdir(first); rmdir(second) }
        #expect(first != second)
        var info = stat()
        #expect(lstat(first, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFDIR)
        #expect(info.st_mode & 0o777 == 0o700)
        #expect(info.st_uid == getuid())
    }

    @Test(arguments: ["a/b", "../escape", "nul\u{0}byte"])
    func prefixesThatLeaveTheTemporaryDirectoryAreRefused(prefix: String) {
        #expect(throws: SystemCallError.self) { try PrivateDirectory.make(prefix: prefix) }
    }
}
