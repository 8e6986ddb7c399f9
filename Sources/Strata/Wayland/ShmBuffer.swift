import SystemPackage

/// One `wl_shm` buffer: a sealed memfd mapping, its own `wl_shm_pool` and `wl_buffer`, and a
/// bitmap over the pixels. Releasing it destroys the protocol objects (their destructors run as
/// the proxies go) and unmaps the memory once the bitmap is gone too. Main actor only.
@MainActor
final class ShmBuffer {
    let id: Int
    let memory: SharedMemory
    let pool: WlShmPool
    let buffer: WlBuffer
    var handle: SurfaceBuffer

    init(id: Int, width: Int, height: Int, shm: WlShm) throws {
        let stride = width * 4
        let (size, overflow) = stride.multipliedReportingOverflow(by: height)
        guard !overflow, size <= Int(Int32.max) else {
            throw StrataError(.invalidSize, "a \(width)×\(height) buffer exceeds what wl_shm can address")
        }
        memory = try SharedMemory(size: size, name: "strata-surface")
        pool = try shm.createPool(fd: FileDescriptor(rawValue: memory.fileDescriptor), size: Int32(size))
        buffer = try pool.createBuffer(offset: 0, width: Int32(width), height: Int32(height), stride: Int32(stride),
                                       format: .argb8888)
        self.id = id
        handle = SurfaceBuffer(id: id, bitmap: try memory.bitmap(width: width, height: height), age: 0)
    }
}
