import StrataRender

/// Fonts from Debian's packages, pinned so golden images match on any machine with them:
/// DejaVu Sans (fonts-dejavu-core) first, WenQuanYi Micro Hei (fonts-wqy-microhei) for Chinese.
public let pinnedFonts: FontLibrary = {
    do {
        return try FontLibrary(files: ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                       "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"])
    } catch {
        fatalError("the pinned test fonts are missing: install fonts-dejavu-core and fonts-wqy-microhei (\(error))")
    }
}()
