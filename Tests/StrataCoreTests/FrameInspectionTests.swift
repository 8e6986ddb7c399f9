@testable import StrataCore
import StrataPlatform
import Testing

/// `LayerHost.frameInspector` sees every frame the backend presents, before it does, with the
/// pixels it will get and the tick that collected the tree.
@MainActor
struct FrameInspectionTests {
    @Test func theInspectorSeesEachPresentedFrameFirst() throws {
        let loop = MainLoop()
        let backend = HeadlessBackend()
        let host = LayerHost(size: Size(width: 20, height: 10), backend: backend, loop: loop)
        let layer = Layer()
        layer.frame = Rect(x: 0, y: 0, width: 20, height: 10)
        layer.backgroundColor = .red
        host.rootLayer.addSublayer(layer)
        var inspected: [(pixel: UInt32, tick: Int, presentedBefore: Int)] = []
        var presented = 0
        backend.onPresent = { _, _ in presented += 1 }
        host.frameInspector = { frame in
            inspected.append((frame.bitmap.pixel(x: 5, y: 5), frame.tick, presented))
            #expect(frame.geometry == host.geometry)
            #expect(!frame.damage.isEmpty)
        }
        #expect(try backend.renderUntilIdle())
        layer.backgroundColor = .blue
        let tickBefore = host.statistics.ticks
        #expect(try backend.renderUntilIdle())

        #expect(inspected.count == host.statistics.framesCommitted)
        #expect(inspected.map(\.pixel) == [Color.red.premultipliedARGB, Color.blue.premultipliedARGB])
        #expect(inspected.map(\.presentedBefore) == [0, 1], "before the backend presents it")
        #expect(inspected[1].tick == tickBefore + 1, "collected by the tick after the change")

        host.frameInspector = nil
        layer.backgroundColor = .green
        #expect(try backend.renderUntilIdle())
        #expect(inspected.count == 2)
    }
}
