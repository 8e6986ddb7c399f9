import Glibc
import StrataPlatform
import SystemPackage
import Testing

/// Every system call goes through one helper: interrupted calls are retried, failures become
/// typed errors carrying the errno, never a crash.
struct SystemCallTests {
    @Test func anInterruptedCallIsRetried() throws {
        var attempts = 0
        let result = try SystemCall.run("fake") { () -> Int32 in
            attempts += 1
            if attempts < 3 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(result == 7)
        #expect(attempts == 3)
    }

    @Test func aFailureCarriesItsErrno() {
        let error = #expect(throws: SystemCallError.self) {
            try SystemCall.run("close") { close(-1) }
        }
        #expect(error?.errno == .badFileDescriptor)
        #expect(error?.call == "close")
    }

    @Test func aFailingMemfdIsATypedErrorWithItsErrno() {
        let error = SystemCall.withInjectedFailure("memfd_create", errno: .tooManyOpenFiles) {
            #expect(throws: StrataError.self) { try SharedMemory(size: 4096) }
        }
        #expect(error?.code == .systemCall)
        #expect(error?.errno == .tooManyOpenFiles)
    }

    @Test func aFailingMmapIsATypedErrorWithItsErrno() {
        let error = SystemCall.withInjectedFailure("mmap", errno: .noMemory) {
            #expect(throws: StrataError.self) { try SharedMemory(size: 4096) }
        }
        #expect(error?.code == .outOfMemory)
        #expect(error?.errno == .noMemory)
    }

    @Test func injectedFailuresStayOnTheirThread() {
        SystemCall.withInjectedFailure("memfd_create", errno: .tooManyOpenFiles) {
            let otherThread = Thread { (try? SharedMemory(size: 4096)) != nil }
            #expect(otherThread.join(), "another thread's memfd is not affected")
            #expect(throws: StrataError.self) { try SharedMemory(size: 4096) }
        }
        #expect(throws: Never.self) { try SharedMemory(size: 4096) }
    }

    @Test func sharedMemoryIsSealedAndSized() throws {
        let memory = try SharedMemory(size: 8192)
        #expect(memory.isSealed)
        var status = stat()
        #expect(fstat(memory.fileDescriptor.rawValue, &status) == 0)
        #expect(status.st_size == 8192)
        #expect(ftruncate(memory.fileDescriptor.rawValue, 4096) != 0, "sealed against shrinking")
    }

    @Test func absurdSizesAreRefused() {
        for size in [0, -1, Int.min] {
            let error = #expect(throws: StrataError.self) { try SharedMemory(size: size) }
            #expect(error?.code == .invalidSize)
        }
    }
}

/// A pthread running `body`, for checks that need a thread other than the test's.
private final class Thread: @unchecked Sendable {
    // Written by the thread before it ends, read after `join`: pthread_join orders the two.
    private var result = false
    private var handle = pthread_t()
    private let body: () -> Bool

    init(_ body: @escaping () -> Bool) {
        self.body = body
        let box = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&handle, nil, { raw in
            let thread = Unmanaged<Thread>.fromOpaque(raw!).takeRetainedValue()
            thread.result = thread.body()
            return nil
        }, box)
    }

    func join() -> Bool {
        pthread_join(handle, nil)
        return result
    }
}
