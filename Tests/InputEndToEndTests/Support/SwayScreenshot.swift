import Glibc
import StrataPlatform
import StrataRender
import WaylandTestSupport

/// What reached sway's output, through grim (wlr-screencopy), decoded into a `Bitmap`.
enum SwayScreenshot {
    /// Captures `output` of the compositor at `display` (a socket name or absolute path) into a PNG
    /// in a private temporary directory, decodes it and removes the directory. The cursor is left
    /// out. With `STRATA_KEEP_SCREENSHOTS` naming a directory, a copy is kept there as
    /// `name.png`, for a person to look at.
    static func capture(display: String, output: String = "HEADLESS-1", name: String = "sway") throws -> Bitmap {
        let directory = try PrivateDirectory.make(prefix: "strata-grim")
        defer { _ = try? Subprocess.run("rm -rf '\(directory)'") }
        let file = directory + "/shot.png"
        let (status, log) = try Subprocess.run("WAYLAND_DISPLAY='\(display)' timeout 10 grim -o '\(output)' '\(file)'")
        guard status == 0 else { throw TestFailure("grim failed (\(status)): \(log)") }
        if let keep = getenv("STRATA_KEEP_SCREENSHOTS").map({ String(cString: $0) }), !keep.isEmpty {
            _ = try? Subprocess.run("mkdir -p '\(keep)' && cp '\(file)' '\(keep)/\(name).png'")
        }
        return try PNG.read(from: file)
    }
}
