import StrataRender
import Testing

/// The matrix algebra on its own.
@Suite struct AffineTransformTests {
    @Test func concatenationAppliesTheReceiverFirst() {
        let translate = AffineTransform(translationX: 10, y: 0), scale = AffineTransform(scaleX: 2, y: 3)
        #expect(translate.concatenating(scale).apply(to: Point(x: 1, y: 1)) == Point(x: 22, y: 3))
        #expect(scale.concatenating(translate).apply(to: Point(x: 1, y: 1)) == Point(x: 12, y: 3))
        // The prepending helpers act in the space the transform starts from, as CoreGraphics's do.
        #expect(translate.scaledBy(x: 2, y: 3) == scale.concatenating(translate))
        #expect(scale.translatedBy(x: 10, y: 0) == translate.concatenating(scale))
        #expect(AffineTransform.identity.rotated(by: .pi / 2).translatedBy(x: 1, y: 0).apply(to: .zero) == Point(x: 0, y: 1))
    }

    @Test func quarterTurnMapsXOntoY() {
        let quarter = AffineTransform(rotationAngle: .pi / 2)
        // Exactly: sines and cosines this close to zero are snapped.
        #expect(quarter.apply(to: Point(x: 1, y: 0)) == Point(x: 0, y: 1))
        #expect(quarter.apply(to: Point(x: 0, y: 1)) == Point(x: -1, y: 0))
        #expect(!quarter.isAxisAligned)
        let half = AffineTransform(rotationAngle: .pi)
        #expect(half.isAxisAligned && half.apply(to: Point(x: 2, y: 3)) == Point(x: -2, y: -3))
        let thirty = AffineTransform(rotationAngle: .pi / 6).apply(to: Point(x: 1, y: 0))
        #expect(abs(thirty.x - 3.0.squareRoot() / 2) < 1e-15 && abs(thirty.y - 0.5) < 1e-15)
    }

    @Test func inversionRoundTrips() throws {
        let transform = AffineTransform(rotationAngle: 0.7).scaledBy(x: 1.5, y: -0.25).translatedBy(x: 3, y: -8)
            .concatenating(AffineTransform(a: 1, b: 0.3, c: -0.2, d: 1, tx: 40, ty: -7))
        let inverse = try #require(transform.inverted())
        for point in [Point(x: 0, y: 0), Point(x: 13.5, y: -2), Point(x: -1000, y: 250)] {
            let back = inverse.apply(to: transform.apply(to: point))
            #expect(abs(back.x - point.x) < 1e-9 && abs(back.y - point.y) < 1e-9)
        }
        let product = transform.concatenating(inverse)
        for (value, expected) in [(product.a, 1.0), (product.b, 0), (product.c, 0), (product.d, 1), (product.tx, 0), (product.ty, 0)] {
            #expect(abs(value - expected) < 1e-12)
        }
    }

    @Test func boundingBoxOfARotatedRect() {
        let box = AffineTransform(rotationAngle: .pi / 4).boundingBox(of: Rect(x: -1, y: -1, width: 2, height: 2))
        let half = 2.0.squareRoot()
        #expect(abs(box.minX + half) < 1e-12 && abs(box.minY + half) < 1e-12)
        #expect(abs(box.width - 2 * half) < 1e-12 && abs(box.height - 2 * half) < 1e-12)
        // A flip normalizes; the identity changes nothing.
        #expect(AffineTransform(scaleX: -1, y: 2).boundingBox(of: Rect(x: 1, y: 1, width: 3, height: 4)) == Rect(x: -4, y: 2, width: 3, height: 8))
        #expect(AffineTransform.identity.boundingBox(of: Rect(x: 1, y: 2, width: 3, height: 4)) == Rect(x: 1, y: 2, width: 3, height: 4))
    }

    @Test func nonInvertibleTransformsHaveNoInverse() {
        #expect(AffineTransform(scaleX: 0, y: 1).inverted() == nil)
        #expect(AffineTransform(a: 1, b: 2, c: 2, d: 4, tx: 5, ty: 5).inverted() == nil)  // collapses onto a line
        #expect(AffineTransform(scaleX: 1e300, y: 1e300).inverted() == nil)  // determinant overflows
        #expect(AffineTransform(scaleX: 1e-200, y: 1e-200).inverted() == nil)  // determinant underflows to 0
        #expect(AffineTransform(translationX: .nan, y: 0).inverted() == nil)
        #expect(AffineTransform(scaleX: 2, y: 4).inverted() == AffineTransform(scaleX: 0.5, y: 0.25))
    }

    @Test func classification() {
        #expect(AffineTransform.identity.isIdentity && AffineTransform.identity.isTranslationOnly)
        #expect(AffineTransform(translationX: 3, y: 4).isTranslationOnly && !AffineTransform(translationX: 3, y: 4).isIdentity)
        #expect(AffineTransform(scaleX: -2, y: 3).isAxisAligned && !AffineTransform(scaleX: -2, y: 3).isTranslationOnly)
        #expect(!AffineTransform(rotationAngle: 0.1).isAxisAligned)
        #expect(!AffineTransform(a: 1, b: 0, c: 0.5, d: 1, tx: 0, ty: 0).isAxisAligned)  // a skew
        #expect(AffineTransform(rotationAngle: 1).isFinite && !AffineTransform(rotationAngle: .infinity).isFinite)
    }

    @Test func componentsRoundTrip() {
        let components = AffineTransform.Components(translation: Point(x: 5, y: -3), scale: Size(width: 2, height: -0.5), rotation: 0.6)
        let transform = AffineTransform(components)
        let back = transform.components
        #expect(abs(back.translation.x - 5) < 1e-12 && abs(back.translation.y + 3) < 1e-12)
        #expect(abs(back.scale.width - 2) < 1e-12 && abs(back.scale.height + 0.5) < 1e-12)
        #expect(abs(back.rotation - 0.6) < 1e-12)
        #expect(AffineTransform(AffineTransform.Components()) == .identity)
        #expect(AffineTransform(scaleX: 0, y: 3).components.scale == Size(width: 0, height: 3))
    }

    @Test func hostileValuesDoNotTrap() {
        let values: [Double] = [.nan, .infinity, -.infinity, 1e308, -1e308, 0, .leastNonzeroMagnitude]
        for value in values {
            let transforms = [
                AffineTransform(rotationAngle: value), AffineTransform(scaleX: value, y: value),
                AffineTransform(translationX: value, y: value), AffineTransform(a: value, b: value, c: value, d: value, tx: value, ty: value),
            ]
            for transform in transforms {
                _ = transform.inverted()
                _ = transform.concatenating(transform).rotated(by: value).scaledBy(x: value, y: value).translatedBy(x: value, y: value)
                _ = transform.apply(to: Point(x: value, y: value))
                _ = transform.boundingBox(of: Rect(x: value, y: 0, width: value, height: 1))
                _ = transform.components
                _ = AffineTransform(transform.components)
                #expect(transform.isFinite || transform.inverted() == nil)
            }
        }
        #expect(!AffineTransform(rotationAngle: .nan).boundingBox(of: Rect(x: 0, y: 0, width: 1, height: 1)).minX.isFinite)
    }
}
