import CAtspiConstants
import DBusTestSupport
import StrataCore
import StrataDBus
import StrataDesktop
import StrataWidgets
import Testing

/// A value's words through the bridge: `Layer.accessibilityValue` replaces the number where a
/// screen reader speaks it, in `Value.Text` and in the `valuetext` attribute Orca 43 reads.
@MainActor
@Suite(.serialized)
struct AccessibleValueTests {
    @Test func aSlidersValueIsToldInTheWordsTheAppGivesIt() throws {
        let rig = try Rig()
        let slider = Slider(value: 0.5)
        slider.frame = Rect(x: 0, y: 0, width: 200, height: 30)
        rig.window.host.rootLayer.addSublayer(slider)
        try rig.window.scene.settle()
        let path = try rig.path(slider)
        func attributes(of target: String? = nil) throws -> [String: String] {
            let values = try rig.call(target ?? path, ATSPI_DBUS_INTERFACE_ACCESSIBLE, "GetAttributes").get().values
            guard case let .dictionary(_, _, entries)? = values.first else { return [:] }
            var result: [String: String] = [:]
            for entry in entries { if let key = entry.key.string, let value = entry.value.string { result[key] = value } }
            return result
        }
        // Without words, the number alone, as GTK tells it.
        #expect(try attributes()["valuetext"] == nil)
        #expect(try rig.property(path, ATSPI_DBUS_INTERFACE_VALUE, "Text") == .string(""))
        slider.accessibilityValue = "50 %"
        #expect(try attributes()["valuetext"] == "50 %")
        #expect(try rig.property(path, ATSPI_DBUS_INTERFACE_VALUE, "Text") == .string("50 %"))
        #expect(try rig.property(path, ATSPI_DBUS_INTERFACE_VALUE, "CurrentValue") == .double(0.5), "the number is still there")
        // A layer without a value has no words for one.
        let label = Label(text: "Plain")
        label.frame = Rect(x: 0, y: 40, width: 100, height: 20)
        label.accessibilityValue = "ignored"
        rig.window.host.rootLayer.addSublayer(label)
        try rig.window.scene.settle()
        let labelPath = try rig.path(label)
        let labelAttributes = try attributes(of: labelPath)
        #expect(labelAttributes["toolkit"] == "Strata" && labelAttributes["valuetext"] == nil)
    }
}
