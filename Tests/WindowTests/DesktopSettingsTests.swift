@testable import StrataWayland
import Testing

/// Reading the desktop's double-click interval, which no Wayland protocol carries.
struct DesktopSettingsTests {
    @Test func kdeglobalsGivesTheIntervalOfItsKDEGroup() {
        let file = """
            [General]
            DoubleClickInterval=900

            [KDE]
            SingleClick=false
              DoubleClickInterval = 650\r
            """
        #expect(DesktopSettings.kdeInterval(in: file) == 650)
        #expect(DesktopSettings.kdeInterval(in: "[KDE]\nDoubleClickInterval=abc") == nil)
        #expect(DesktopSettings.kdeInterval(in: "[KDE]\nDoubleClickInterval=5") == nil, "outside the sensible range")
        #expect(DesktopSettings.kdeInterval(in: "") == nil)
    }

    @Test func gsettingsOutputIsReadWithOrWithoutItsType() {
        #expect(DesktopSettings.parseGSettingsInt("400\n") == 400)
        #expect(DesktopSettings.parseGSettingsInt("int32 550\n") == 550)
        #expect(DesktopSettings.parseGSettingsInt("No such schema") == nil)
        #expect(DesktopSettings.parseGSettingsInt("99999999999999999999") == nil)
    }
}
