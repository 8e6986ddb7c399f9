import CoreTestSupport
import RenderTestSupport
import Testing
@testable import Strata

private let hostile: [Double] = [.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                 1e300, -1e9, 0, -0.0, .leastNonzeroMagnitude]

/// Every numeric property of every widget, set to values a bug or an attacker would pass: no
/// trap, no hang, and the widget renders again once given sane values.
@MainActor
struct HostileWidgetTests {
    @Test(arguments: hostile)
    func labelsAndMixedViews(value: Double) throws {
        let scene = HeadlessScene(width: 120, height: 60)
        let label = Label(text: "hostile", font: Font(size: 12))
        label.fontLibrary = pinnedFonts
        label.frame = Rect(x: 0, y: 0, width: 100, height: 20)
        scene.root.addSublayer(label)
        label.lineSpacing = value
        label.insets = value
        label.numberOfLines = value.isFinite ? Int(clamping: Int64(max(min(value, 1e18), -1e18))) : Int.min
        _ = label.measure(in: SizeRange(max: Size(width: value, height: value)))
        try scene.settle()
        for lines in [Int.min, -1, 0, Int.max] {
            label.numberOfLines = lines
            _ = label.measure(in: SizeRange(max: Size(width: 100, height: value)))
            try scene.settle()
        }
        let mixed = MixedView(items: [.text("a", TextStyle(font: Font(size: 12), color: .black)),
                                      .image(nil, size: Size(width: value, height: value), cornerRadius: value)])
        mixed.fontLibrary = pinnedFonts
        mixed.frame = Rect(x: 0, y: 20, width: 100, height: 40)
        scene.root.addSublayer(mixed)
        try scene.settle()
        label.lineSpacing = 1
        label.insets = 0
        label.numberOfLines = 1
        try scene.settle()
        #expect(label.contents != nil)
    }

    @Test(arguments: hostile)
    func controls(value: Double) throws {
        let scene = HeadlessScene(width: 200, height: 120)
        let slider = Slider(value: value, in: value.isNaN ? 0...1 : Swift.min(value, -value)...Swift.max(value, -value))
        slider.frame = Rect(x: 0, y: 0, width: 150, height: 30)
        slider.minimumValue = value
        slider.maximumValue = -value
        slider.step = value
        slider.value = value
        scene.root.addSublayer(slider)
        let button = Button(title: "go")
        button.fontLibrary = pinnedFonts
        button.frame = Rect(x: 0, y: 40, width: 100, height: 30)
        button.imageSize = Size(width: value, height: value)
        button.backgroundCornerRadius = value
        button.horizontalPadding = value
        button.verticalPadding = value
        button.imageSpacing = value
        _ = button.measure(in: SizeRange(max: Size(width: value, height: value)))
        _ = slider.measure(in: SizeRange(max: Size(width: value, height: value)))
        scene.root.addSublayer(button)
        let toggle = Toggle(isOn: true)
        toggle.frame = Rect(x: 0, y: 80, width: value, height: value)
        _ = toggle.measure(in: SizeRange(max: Size(width: value, height: value)))
        scene.root.addSublayer(toggle)
        try scene.settle()
        scene.host.input.post(.pointerEntered(Point(x: 10, y: 10)))
        scene.host.input.post(.pointerButton(.left, isPressed: true))
        scene.host.input.post(.pointerMoved(Point(x: 140, y: 10)))
        scene.host.input.post(.pointerButton(.left, isPressed: false))
        try scene.settle()
        slider.minimumValue = 0
        slider.maximumValue = 1
        slider.step = nil
        slider.value = 0.5
        #expect(slider.value == 0.5)
        try scene.settle()
    }

    @Test(arguments: hostile)
    func fpsLabel(value: Double) throws {
        let scene = HeadlessScene(width: 200, height: 40)
        let label = FPSLabel()
        label.targetFramesPerSecond = value
        label.updateInterval = value.isFinite && abs(value) < 1e9 ? .seconds(value) : .seconds(Int64.max)
        label.frame = Rect(x: 0, y: 0, width: 200, height: 22)
        scene.root.addSublayer(label)
        label.show(framesPerSecond: value, mainThreadTime: .seconds(Int64.max))
        label.show(framesPerSecond: value, mainThreadTime: .seconds(-Int64.max))
        try scene.settle()
    }

    @Test(arguments: hostile)
    func imageViews(value: Double) throws {
        let scene = HeadlessScene(width: 60, height: 60)
        let image = try Bitmap(width: 4, height: 4)
        for mode in ContentMode.allCases {
            let view = ImageView(image: image, contentMode: mode)
            view.frame = Rect(x: 0, y: 0, width: value, height: 10)
            scene.root.addSublayer(view)
        }
        try scene.settle()
    }
}
