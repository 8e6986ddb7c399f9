import RenderTestSupport
import StrataRender
import Testing

/// Whole scenes compared with the reference PNGs in Golden/. See `GoldenImage` for tolerance and
/// re-recording.
@Suite struct GoldenTests {
    let golden = GoldenImage()

    @Test func solidFills() throws {
        let bitmap = try makeBitmap(64, 64)
        let canvas = Canvas(bitmap: bitmap)
        canvas.fill(Rect(x: 4, y: 4, width: 24, height: 24), color: .red)
        canvas.fill(Rect(x: 16, y: 16, width: 24, height: 24), color: Color.blue.withAlpha(0.5))
        // Fractional edges: a quarter, a half and three quarters of a pixel.
        canvas.fill(Rect(x: 44.25, y: 8.5, width: 14.5, height: 20.75), color: Color(rgb: 0x2E7D32))
        // A one-pixel line and a half-pixel line.
        canvas.fill(Rect(x: 4, y: 48, width: 56, height: 1), color: .black)
        canvas.fill(Rect(x: 4, y: 52.5, width: 56, height: 1), color: .black)
        canvas.fill(Rect(x: 4, y: 56, width: 56, height: 4), color: Color(rgb: 0xFF9800, alpha: 0.75))
        golden.check(bitmap, named: "solid-fills")
    }

    @Test func linearGradient() throws {
        let bitmap = try makeBitmap(96, 64)
        let canvas = Canvas(bitmap: bitmap)
        let horizontal = LinearGradient(start: Point(x: 4, y: 0), end: Point(x: 92, y: 0), colors: [.red, .blue])
        canvas.fill(Rect(x: 4, y: 4, width: 88, height: 24), with: .linearGradient(horizontal))
        let vertical = LinearGradient(start: Point(x: 0, y: 32), end: Point(x: 0, y: 60), stops: [
            .init(location: 0, color: .white), .init(location: 0.5, color: Color(rgb: 0x4CAF50)),
            .init(location: 1, color: .black),
        ])
        canvas.fill(Rect(x: 4, y: 32, width: 40, height: 28), with: .linearGradient(vertical))
        // Diagonal, fading to transparent, in a rounded rect.
        let diagonal = LinearGradient(
            start: Point(x: 52, y: 32), end: Point(x: 92, y: 60),
            colors: [Color(rgb: 0x9C27B0), Color(rgb: 0x9C27B0, alpha: 0)])
        canvas.fill(Rect(x: 52, y: 32, width: 40, height: 28), with: .linearGradient(diagonal), cornerRadius: 8)
        golden.check(bitmap, named: "linear-gradient")
    }

    @Test func roundedRects() throws {
        let bitmap = try makeBitmap(96, 64)
        let canvas = Canvas(bitmap: bitmap)
        canvas.fill(Rect(x: 4, y: 4, width: 40, height: 24), color: Color(rgb: 0x1565C0), cornerRadius: 8)
        canvas.fill(Rect(x: 50, y: 4, width: 24, height: 24), color: .red, cornerRadius: 12)  // a circle
        // Fractional position, size and radius.
        canvas.fill(Rect(x: 4.5, y: 34.25, width: 30.5, height: 25.5), color: Color(rgb: 0x2E7D32), cornerRadius: 6.3)
        // Radius beyond half the height: clamped to a capsule.
        canvas.fill(Rect(x: 40, y: 38, width: 34, height: 12), color: Color(rgb: 0xFF9800), cornerRadius: 100)
        // Narrow and translucent.
        canvas.fill(Rect(x: 80, y: 4, width: 7, height: 56), color: Color.black.withAlpha(0.6), cornerRadius: 3.5)
        canvas.fill(Rect(x: 40, y: 54, width: 34, height: 6), color: .black, cornerRadius: 1.5)
        golden.check(bitmap, named: "rounded-rects")
    }

    @Test func borders() throws {
        let bitmap = try makeBitmap(96, 64)
        let canvas = Canvas(bitmap: bitmap)
        canvas.strokeBorder(Rect(x: 4, y: 4, width: 24, height: 24), width: 1, paint: .color(.black))
        canvas.strokeBorder(Rect(x: 32.5, y: 4.5, width: 24, height: 24), width: 3, paint: .color(.blue))
        canvas.strokeBorder(Rect(x: 60, y: 4, width: 32, height: 24), width: 2, paint: .color(.red), cornerRadius: 10)
        let gradient = LinearGradient(start: Point(x: 4, y: 34), end: Point(x: 44, y: 60), colors: [.red, .blue])
        canvas.strokeBorder(Rect(x: 4, y: 34, width: 40, height: 26), width: 4, paint: .linearGradient(gradient), cornerRadius: 6)
        // Wider than half the rect: fills it.
        canvas.strokeBorder(Rect(x: 50, y: 36, width: 14, height: 14), width: 8, paint: .color(Color(rgb: 0x2E7D32)), cornerRadius: 3)
        // A half-pixel hairline with a radius larger than the width.
        canvas.strokeBorder(Rect(x: 70, y: 36, width: 22, height: 22), width: 0.5, paint: .color(.black), cornerRadius: 6)
        golden.check(bitmap, named: "borders")
    }

    @Test func opacity() throws {
        let bitmap = try makeBitmap(64, 64)
        let canvas = Canvas(bitmap: bitmap)
        canvas.opacity = 0.5
        canvas.fill(Rect(x: 4, y: 4, width: 28, height: 28), color: .red)
        canvas.fill(Rect(x: 18, y: 18, width: 28, height: 28), color: .blue, cornerRadius: 6)
        canvas.draw(try sampleImage(), in: Rect(x: 32, y: 32, width: 28, height: 28))
        canvas.opacity = 1
        canvas.fill(Rect(x: 4, y: 48, width: 20, height: 12), color: .black)
        golden.check(bitmap, named: "opacity")
    }

    @Test func clipping() throws {
        let bitmap = try makeBitmap(64, 64)
        let canvas = Canvas(bitmap: bitmap)
        canvas.clip(to: Rect(x: 8, y: 8, width: 48, height: 48))
        canvas.fill(Rect(x: -100, y: -100, width: 1000, height: 1000), color: Color(rgb: 0xFFCDD2))
        canvas.save()
        canvas.clip(to: Rect(x: 24, y: 24, width: 40, height: 40))
        canvas.fill(Rect(x: 16, y: 16, width: 48, height: 48), color: .blue, cornerRadius: 16)
        canvas.save()
        // Fractional clips round out to whole pixels.
        canvas.clip(to: Rect(x: 40.5, y: 40.5, width: 8, height: 8))
        canvas.clear(.white)
        canvas.restore()
        canvas.restore()
        canvas.fill(Rect(x: 0, y: 40, width: 20, height: 24), color: Color(rgb: 0x2E7D32))
        // Still inside the first clip: only the inner half of this ring shows.
        canvas.strokeBorder(Rect(x: 6, y: 6, width: 52, height: 52), width: 4, paint: .color(.black), cornerRadius: 8)
        golden.check(bitmap, named: "clipping")
    }

    @Test func transforms() throws {
        let bitmap = try makeBitmap(96, 64)
        let canvas = Canvas(bitmap: bitmap)
        canvas.translate(x: 4, y: 4)
        canvas.fill(Rect(x: 0, y: 0, width: 20, height: 20), color: .red, cornerRadius: 5)
        canvas.save()
        canvas.translate(x: 26, y: 0)
        canvas.scale(x: 2, y: 1)  // corners become ellipses 2:1
        canvas.fill(Rect(x: 0, y: 0, width: 12, height: 20), color: .blue, cornerRadius: 5)
        canvas.restore()
        canvas.save()
        canvas.translate(x: 56, y: 0)
        canvas.scale(x: 0.5, y: 0.5)
        canvas.fill(Rect(x: 0, y: 0, width: 64, height: 40), color: Color(rgb: 0x2E7D32), cornerRadius: 12)
        canvas.strokeBorder(Rect(x: 0, y: 0, width: 64, height: 40), width: 4, paint: .color(.black), cornerRadius: 12)
        canvas.restore()
        // A horizontal flip: the gradient runs right to left and the image is mirrored.
        canvas.save()
        canvas.translate(x: 40, y: 30)
        canvas.scale(x: -1, y: 1)
        let gradient = LinearGradient(start: Point(x: 0, y: 0), end: Point(x: 40, y: 0), colors: [.red, Color(rgb: 0xFFEB3B)])
        canvas.fill(Rect(x: 0, y: 0, width: 40, height: 12), with: .linearGradient(gradient))
        canvas.draw(try sampleImage(), in: Rect(x: 0, y: 14, width: 16, height: 16))
        canvas.restore()
        canvas.translate(x: 50, y: 30)
        canvas.scale(x: 1.5, y: 1.5)
        canvas.fill(Rect(x: 0, y: 0, width: 20, height: 20), color: Color(rgb: 0xFF9800), cornerRadius: 10)
        golden.check(bitmap, named: "transforms")
    }

    @Test func imageScaled() throws {
        let bitmap = try makeBitmap(96, 64)
        let canvas = Canvas(bitmap: bitmap)
        let image = try sampleImage()
        canvas.draw(image, in: Rect(x: 4, y: 4, width: 16, height: 16))  // 1:1
        canvas.draw(image, in: Rect(x: 24, y: 4, width: 32, height: 32))  // 2×
        canvas.draw(image, in: Rect(x: 60.5, y: 4.5, width: 30, height: 20))  // fractional, non-uniform
        canvas.draw(image, in: Rect(x: 4, y: 40, width: 8, height: 8))  // ½×
        canvas.draw(image, in: Rect(x: 24, y: 40, width: 64, height: 20))  // stretched
        golden.check(bitmap, named: "image-scaled")
    }

    @Test func imageRounded() throws {
        let bitmap = try makeBitmap(64, 64)
        let canvas = Canvas(bitmap: bitmap)
        let image = try sampleImage()
        canvas.draw(image, in: Rect(x: 4, y: 4, width: 36, height: 36), cornerRadius: 18)  // a circle
        canvas.draw(image, in: Rect(x: 44, y: 4, width: 16, height: 16), cornerRadius: 4)  // 1:1, rounded
        canvas.opacity = 0.5
        canvas.draw(image, in: Rect(x: 30.5, y: 30.5, width: 30, height: 30), cornerRadius: 8)
        golden.check(bitmap, named: "image-rounded")
    }
}
