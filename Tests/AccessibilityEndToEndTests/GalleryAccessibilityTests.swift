import DBusTestSupport
import Foundation
import GalleryKit
import Strata
import Testing
import WaylandTestSupport

/// The gallery as Orca sees it: a pyatspi client on a private accessibility bus walks its tree
/// and acts on it.
@MainActor
@Suite(.serialized, .enabled(if: ATSPIRig.isAvailable || ProcessInfo.processInfo.environment["STRATA_REQUIRE_ATSPI"] == "1"))
struct GalleryAccessibilityTests {
    @Test func theClientFindsEachControlByRoleAndName() throws {
        let rig = try ATSPIRig()
        let tree = try rig.tree()
        #expect(tree["role"] as? String == "application")
        let frame = try #require((tree["children"] as? [[String: Any]])?.first)
        #expect(frame["role"] as? String == "frame" && frame["name"] as? String == "Strata gallery")
        let found = nodes(of: tree).map { "\($0["role"] ?? "") \($0["name"] ?? "")" }
        for (role, name) in [("push button", "Clicked 0 times"), ("push button", "Reset")] {
            #expect(node(in: tree, role: role, name: name) != nil, "no \(role) named \(name) in \(found)")
        }
    }
}
