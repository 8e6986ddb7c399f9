import StrataRender
import Testing

@Suite struct GeometryTests {
    @Test func edgesAndEmptiness() {
        let r = Rect(x: 1, y: 2, width: 3, height: 4)
        #expect(r.minX == 1 && r.minY == 2 && r.maxX == 4 && r.maxY == 6 && r.width == 3 && r.height == 4)
        #expect(!r.isEmpty)
        #expect(Rect.zero.isEmpty)
        #expect(Rect(x: 0, y: 0, width: -1, height: 5).isEmpty)
        #expect(Rect(x: 0, y: 0, width: .nan, height: 5).isEmpty)
        #expect(Size(width: 2, height: 0).isEmpty)
        #expect(!Size(width: 2, height: 1).isEmpty)
    }

    @Test func intersectionAndUnion() {
        let a = Rect(x: 0, y: 0, width: 10, height: 10)
        let b = Rect(x: 5, y: 5, width: 10, height: 10)
        #expect(a.intersection(b) == Rect(x: 5, y: 5, width: 5, height: 5))
        #expect(a.union(b) == Rect(x: 0, y: 0, width: 15, height: 15))
        #expect(a.intersects(b))
        let far = Rect(x: 20, y: 20, width: 1, height: 1)
        #expect(a.intersection(far).isEmpty)
        #expect(!a.intersects(far))
        // Touching edges share no area.
        #expect(!a.intersects(Rect(x: 10, y: 0, width: 5, height: 5)))
        // An empty operand is ignored by union.
        #expect(Rect.zero.union(b) == b)
        #expect(a.union(Rect(x: 100, y: 100, width: 0, height: 0)) == a)
    }

    @Test func containsIsHalfOpen() {
        let r = Rect(x: 0, y: 0, width: 10, height: 10)
        #expect(r.contains(Point(x: 0, y: 0)))
        #expect(r.contains(Point(x: 9.99, y: 5)))
        #expect(!r.contains(Point(x: 10, y: 5)))
        #expect(!r.contains(Point(x: .nan, y: 5)))
    }

    @Test func derivedRects() {
        let r = Rect(x: 1.5, y: 2.25, width: 3.5, height: 4)
        #expect(r.offsetBy(dx: 1, dy: -1) == Rect(x: 2.5, y: 1.25, width: 3.5, height: 4))
        #expect(r.insetBy(dx: 0.5, dy: 1) == Rect(x: 2, y: 3.25, width: 2.5, height: 2))
        #expect(r.insetBy(dx: 10, dy: 0).isEmpty)
        #expect(r.scaled(by: 2) == Rect(x: 3, y: 4.5, width: 7, height: 8))
        #expect(r.integral == Rect(x: 1, y: 2, width: 4, height: 5))
        #expect(Rect(x: 1, y: 1, width: 2, height: 2).integral == Rect(x: 1, y: 1, width: 2, height: 2))
        #expect(Rect(x: -0.5, y: -0.5, width: 1, height: 1).integral == Rect(x: -1, y: -1, width: 2, height: 2))
    }
}

@Suite struct ColorTests {
    @Test func premultipliedValues() {
        #expect(Color.red.premultipliedARGB == 0xFFFF_0000)
        #expect(Color.white.premultipliedARGB == 0xFFFF_FFFF)
        #expect(Color.clear.premultipliedARGB == 0)
        #expect(Color(rgb: 0x336699).premultipliedARGB == 0xFF33_6699)
        // Half alpha: 127.5 rounds to 128 for alpha and for the premultiplied channel.
        #expect(Color.red.withAlpha(0.5).premultipliedARGB == 0x8080_0000)
        #expect(Color.white.withAlpha(0.2).premultipliedARGB == 0x3333_3333)
    }

    @Test func outOfRangeComponentsAreClamped() {
        #expect(Color(red: 2, green: -1, blue: .nan, alpha: 5).premultipliedARGB == 0xFFFF_0000)
        #expect(Color(red: 1, green: 1, blue: 1, alpha: .nan).premultipliedARGB == 0)
        #expect(Color(red: 1, green: 1, blue: 1, alpha: -.infinity).premultipliedARGB == 0)
    }

    @Test func rgbInitializer() {
        let c = Color(rgb: 0xFF8000, alpha: 0.25)
        #expect(c.red == 1 && c.green == Double(0x80) / 255 && c.blue == 0 && c.alpha == 0.25)
        #expect(Color(rgb: 0xAB00_0000) == .black)  // the top byte is ignored
    }
}
