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

/// `pinnedFonts` with Thai (Garuda, from fonts-thai-tlwg) and colour emoji (Noto Color Emoji,
/// from fonts-noto-color-emoji) after them, for text in every script the engine is tested in.
/// DejaVu Sans covers Arabic and Hebrew.
public let pinnedScriptFonts: FontLibrary = {
    do {
        return try FontLibrary(files: ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                       "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
                                       "/usr/share/fonts/truetype/tlwg/Garuda.ttf",
                                       "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"])
    } catch {
        fatalError("the pinned test fonts are missing: install fonts-dejavu-core, fonts-wqy-microhei, fonts-thai-tlwg and fonts-noto-color-emoji (\(error))")
    }
}()
