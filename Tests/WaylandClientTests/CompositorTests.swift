import Glibc
import SystemPackage
import Testing
import WaylandTestSupport
import WaylandClient

/// Against the compositor `Scripts/test` starts: headless weston.
@Suite(.enabled(if: TestEnvironment.hasCompositor, "needs a compositor: run Scripts/test, or set WAYLAND_DISPLAY"))
@MainActor
struct CompositorTests {
    @Test func coreGlobalsAreFoundWithTheirVersions() throws {
        let connection = try Connection.connect()
        for interface in ["wl_compositor", "wl_shm", "xdg_wm_base"] {
            let global = try #require(connection.registry.global(interface), "\(interface) not advertised")
            #expect(global.version >= 1)
        }
        let advertised = try #require(connection.registry.global("wl_compositor")).version
        let compositor = try connection.registry.bind(WlCompositor.self, maxVersion: 5)
        #expect(compositor.version == min(advertised, 5))
        let capped = try connection.registry.bind(WlCompositor.self, maxVersion: 1)
        #expect(capped.version == 1)
        let wmBase = try connection.registry.bind(XdgWmBase.self, maxVersion: 5)
        #expect(wmBase.version >= 1 && wmBase.id > 0)
    }

    @Test func shmFormatsIncludeARGBAndXRGB() throws {
        let connection = try Connection.connect()
        let shm = try connection.registry.bind(WlShm.self, maxVersion: 1)
        var formats: Set<WlShm.Format> = []
        shm.addListener { event in
            if case let .format(format) = event { formats.insert(format) }
        }
        try connection.roundtrip()
        #expect(formats.contains(.argb8888))
        #expect(formats.contains(.xrgb8888))
    }

    /// A callback made by a request receives its `done` event through the dispatcher.
    @Test func eventsReachTheirProxy() throws {
        let connection = try Connection.connect()
        let callback = try connection.display.sync()
        var serial: UInt32?
        callback.addListener { event in
            if case let .done(data) = event { serial = data }
        }
        try connection.dispatch(until: { serial != nil })
        #expect(serial != nil)
    }

    /// A file descriptor and a new object in one request, then objects made from that object.
    @Test func sharedMemoryPoolAndBuffer() throws {
        let connection = try Connection.connect()
        let shm = try connection.registry.bind(WlShm.self, maxVersion: 1)
        let memory = try makeSharedMemory(size: 64 * 64 * 4)
        defer { try? memory.close() }
        let pool = try shm.createPool(fd: memory, size: 64 * 64 * 4)
        let buffer = try pool.createBuffer(offset: 0, width: 64, height: 64, stride: 64 * 4, format: .argb8888)
        let surface = try connection.registry.bind(WlCompositor.self, maxVersion: 5).createSurface()
        try surface.attach(buffer: buffer, x: 0, y: 0)
        try surface.commit()
        try connection.roundtrip()
        #expect(connection.error == nil)
        #expect(buffer.id > pool.id && pool.id > shm.id)
    }

    /// The compositor rejects a zero-sized pool; the error names interface, object and code.
    @Test func protocolErrorIsTyped() throws {
        let connection = try Connection.connect()
        let shm = try connection.registry.bind(WlShm.self, maxVersion: 1)
        let memory = try makeSharedMemory(size: 4096)
        defer { try? memory.close() }
        _ = try shm.createPool(fd: memory, size: 0)

        let error = try #require(throws: WaylandError.self) { try connection.roundtrip() }
        #expect(error.code == .protocolError)
        let detail = try #require(error.protocolError)
        #expect(detail.interface == "wl_shm")
        #expect(detail.objectID == shm.id)
        #expect(detail.code == WlShm.ErrorCode.invalidStride.rawValue)
        #expect(detail.message?.contains("invalid size") == true, "compositor text: \(String(describing: detail.message))")

        // The connection is dead: every later request reports the same error instead of vanishing.
        let later = try #require(throws: WaylandError.self) { try shm.createPool(fd: memory, size: 4096) }
        #expect(later.code == .protocolError)
        #expect(connection.error?.code == .protocolError)
    }

    @Test func requestOnDestroyedObjectIsRefused() throws {
        let connection = try Connection.connect()
        let compositor = try connection.registry.bind(WlCompositor.self, maxVersion: 5)
        let surface = try compositor.createSurface()
        let region = try compositor.createRegion()
        try region.destroy()
        #expect(!region.isAlive)

        let onDestroyed = try #require(throws: WaylandError.self) { try region.add(x: 0, y: 0, width: 1, height: 1) }
        #expect(onDestroyed.code == .objectDestroyed)
        #expect(onDestroyed.message.contains("wl_region"))
        // Passing it as an argument is refused too, before anything reaches the compositor.
        let asArgument = try #require(throws: WaylandError.self) { try surface.setOpaqueRegion(region: region) }
        #expect(asArgument.code == .objectDestroyed)

        try connection.roundtrip()
        #expect(connection.error == nil)
    }

    @Test func requestAboveBoundVersionIsRefused() throws {
        let connection = try Connection.connect()
        let surface = try connection.registry.bind(WlCompositor.self, maxVersion: 1).createSurface()
        #expect(surface.version == 1)
        let error = try #require(throws: WaylandError.self) { try surface.setBufferScale(scale: 2) }
        #expect(error.code == .unsupportedRequest)
        #expect(error.message.contains("set_buffer_scale needs version 3"))
        try connection.roundtrip()
        #expect(connection.error == nil)
    }

    @Test func unsendableFixedValueIsRefused() throws {
        let connection = try Connection.connect()
        let surface = try connection.registry.bind(WlCompositor.self, maxVersion: 5).createSurface()
        let viewport = try connection.registry.bind(WpViewporter.self, maxVersion: 1).getViewport(surface: surface)
        for value in [Double.nan, .infinity, 1e12] {
            let error = try #require(throws: WaylandError.self) { try viewport.setSource(x: value, y: 0, width: 1, height: 1) }
            #expect(error.code == .invalidArgument)
        }
        try connection.roundtrip()
        #expect(connection.error == nil)
    }

    @Test func bindingAnUnofferedGlobalIsRefused() throws {
        let connection = try Connection.connect()
        try #require(connection.registry.global("zxdg_decoration_manager_v1") == nil, "this compositor offers it")
        let error = try #require(throws: WaylandError.self) { try connection.registry.bind(ZxdgDecorationManagerV1.self, maxVersion: 1) }
        #expect(error.code == .globalUnavailable)
        let zero = try #require(throws: WaylandError.self) { try connection.registry.bind(WlShm.self, maxVersion: 0) }
        #expect(zero.code == .invalidArgument)
    }
}
