import RenderTestSupport
import Testing
@testable import Strata
import CoreTestSupport

/// A `width × height` test picture (even sides): red, green, blue and yellow quadrants in a
/// one-pixel black frame.

private func solidImage(_ color: Color, width: Int = 20, height: Int = 20) throws -> Bitmap {
    let image = try Bitmap(width: width, height: height)
    image.clear(to: color)
    return image
}

@MainActor
struct ImageViewTests {
    private func imageView(_ image: Bitmap?, mode: ContentMode = .scaleToFill, in scene: HeadlessScene,
                           frame: Rect = Rect(x: 10, y: 10, width: 40, height: 20)) -> ImageView {
        let view = ImageView(image: image, contentMode: mode)
        view.frame = frame
        scene.root.addSublayer(view)
        return view
    }

    @Test func showsItsImageRenderedOffTheMainThread() throws {
        let scene = HeadlessScene()
        let image = try quadrantImage(width: 40, height: 20)
        let view = imageView(image, in: scene)
        #expect(view.delegate === view)
        try scene.settle()
        // 40×20 into 40×20 at scale 1: every pixel is copied.
        for y in 0..<20 {
            for x in 0..<40 where scene.pixel(10 + x, 10 + y) != image.pixel(x: x, y: y) {
                Issue.record("pixel (\(x), \(y)) differs")
                return
            }
        }
        #expect(scene.pixel(5, 5) == Color.white.premultipliedARGB)
        #expect(scene.host.statistics.displayTasksStarted == 1)
        #expect(scene.host.statistics.displayTasksFinished == 1)
        #expect(scene.host.statistics.displayTasksSynchronous == 0)
    }

    @Test func manyChangesInOneTickRenderOnceWithTheLastValues() throws {
        let scene = HeadlessScene()
        let red = try solidImage(.red), green = try solidImage(.green), blue = try solidImage(.blue)
        let view = imageView(red, in: scene, frame: Rect(x: 10, y: 10, width: 40, height: 40))
        try scene.settle()
        #expect(scene.pixel(12, 12) == Color.red.premultipliedARGB)
        let started = scene.host.statistics.displayTasksStarted

        let modes = ContentMode.allCases
        for i in 0..<100 {
            view.image = i % 2 == 0 ? green : red
            view.contentMode = modes[i % modes.count]
        }
        view.image = blue
        view.contentMode = .center
        try scene.settle()

        #expect(scene.host.statistics.displayTasksStarted == started + 1)
        #expect(scene.host.statistics.displayTasksFinished == started + 1)
        // The blue 20×20 image centred in 40×40: blue in the middle, background at the edges.
        #expect(scene.pixel(30, 30) == Color.blue.premultipliedARGB)
        #expect(scene.pixel(12, 12) == Color.white.premultipliedARGB)
        #expect(scene.pixel(20, 20) == Color.blue.premultipliedARGB)
        #expect(scene.pixel(19, 19) == Color.white.premultipliedARGB)
    }

    @Test func settingTheSameValuesSchedulesNothing() throws {
        let scene = HeadlessScene()
        let image = try solidImage(.red)
        let view = imageView(image, mode: .aspectFit, in: scene)
        try scene.settle()
        let statistics = scene.host.statistics
        view.image = image
        view.contentMode = .aspectFit
        try scene.settle()
        #expect(scene.host.statistics.transactionsCommitted == statistics.transactionsCommitted)
        #expect(scene.host.statistics.displayTasksStarted == statistics.displayTasksStarted)
    }

    @Test func aNilImageClearsTheContents() throws {
        let scene = HeadlessScene()
        let view = imageView(try solidImage(.red), in: scene)
        try scene.settle()
        #expect(view.contents != nil)
        #expect(scene.pixel(20, 20) == Color.red.premultipliedARGB)
        view.image = nil
        try scene.settle()
        #expect(view.contents == nil)
        #expect(scene.pixel(20, 20) == Color.white.premultipliedARGB)
        scene.expectPresentedFrameIsCompleteRepaint()
    }

    /// The compositor rounds contents when clipsToBounds is set; the contents themselves stay
    /// square.
    @Test func anAvatarHasRoundCorners() throws {
        let scene = HeadlessScene(background: Color(rgb: 0x202020))
        let view = imageView(try solidImage(.red, width: 40, height: 40), in: scene,
                             frame: Rect(x: 10, y: 10, width: 40, height: 40))
        view.cornerRadius = 20
        view.clipsToBounds = true
        try scene.settle()
        let background = Color(rgb: 0x202020).premultipliedARGB
        for (x, y) in [(10, 10), (49, 10), (10, 49), (49, 49), (13, 13)] {
            #expect(scene.pixel(x, y) == background, "corner pixel (\(x), \(y))")
        }
        for (x, y) in [(30, 30), (30, 11), (11, 30), (48, 30), (30, 48), (20, 20)] {
            #expect(scene.pixel(x, y) == Color.red.premultipliedARGB, "inside pixel (\(x), \(y))")
        }
        let contents = try #require(view.contents)
        #expect(contents.pixel(x: 0, y: 0) == Color.red.premultipliedARGB)
    }

    /// One view per content mode, with a wide and a tall image, one of each row an avatar.
    @Test func goldenScene() throws {
        let scene = HeadlessScene(width: 232, height: 120, background: Color(rgb: 0xF2F2F7))
        let images = [try quadrantImage(width: 40, height: 20), try quadrantImage(width: 20, height: 40)]
        for (row, image) in images.enumerated() {
            for (column, mode) in ContentMode.allCases.enumerated() {
                let view = imageView(image, mode: mode, in: scene,
                                     frame: Rect(x: 8 + 56 * Double(column), y: 8 + 56 * Double(row), width: 48, height: 48))
                view.backgroundColor = Color(rgb: 0xD1D1D6)
                view.cornerRadius = 12
                view.clipsToBounds = row == 1
            }
        }
        try scene.settle()
        let frame = try #require(scene.backend.presentedBitmap)
        GoldenImage().check(frame, named: "image-views")
        scene.expectPresentedFrameIsCompleteRepaint()
    }
}
