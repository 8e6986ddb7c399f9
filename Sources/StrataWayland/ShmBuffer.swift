import StrataCore
import SystemPackage
import WaylandClient

/// One `wl_shm` buffer's storage: a memfd mapping, its own `wl_shm_pool` and the `wl_buffer`.
/// Releasing it destroys the protocol objects (their destructors run as the proxies go) and
/// unmaps the memory once the bitmap over it is gone too. Main actor only.
@MainActor
final class ShmBuffer {
    let memory: SharedMemory
    let pool: WlShmPool
    let buffer: WlBuffer

    /// Storage for a `width`×`height` ARGB buffer, and a bitmap over its pixels.
    static func make(width: Int, height: Int, shm: WlShm) throws(StrataError) -> (storage: ShmBuffer, bitmap: Bitmap) {
        let stride = width * 4
        let (size, overflow) = stride.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, !overflow, size <= Int(Int32.max) else {
            throw StrataError(.invalidSize, "a \(width)×\(height) buffer exceeds what wl_shm can address")
        }
        let memory = try SharedMemory(size: size, name: "strata-surface")
        do {
            let pool = try shm.createPool(fd: memory.fileDescriptor, size: Int32(size))
            let buffer = try pool.createBuffer(offset: 0, width: Int32(width), height: Int32(height), stride: Int32(stride),
                                               format: .argb8888)
            return (ShmBuffer(memory: memory, pool: pool, buffer: buffer), try memory.bitmap(width: width, height: height))
        } catch {
            throw StrataError(.systemCall, "the compositor's shm pool could not be made", cause: error)
        }
    }

    private init(memory: SharedMemory, pool: WlShmPool, buffer: WlBuffer) {
        self.memory = memory
        self.pool = pool
        self.buffer = buffer
    }
}
