import CHarfBuzz
internal import CStrataICU

/// Unicode scripts (ICU's `uscript`) as HarfBuzz's tags, for itemising text into runs of one
/// script: a run is shaped with its script's rules (Arabic joining, Thai marks, Indic
/// reordering…).
enum Scripts {
    /// ICU's codes for characters used by many scripts (digits, punctuation, spaces) and for
    /// marks that take their base's script: both join the run around them.
    static let common: Int32 = strata_icu_script_common()

    /// HarfBuzz's tag for each ICU script code, made once: ICU names each script by its
    /// ISO 15924 code, which is HarfBuzz's tag.
    private static let tags: [UInt32] = (0..<strata_icu_script_limit()).map { code in
        guard let name = strata_icu_script_short_name(code) else { return 0 }
        return hb_script_from_string(name, -1).rawValue
    }

    /// ICU's script code of `scalar`; Common when ICU cannot say.
    static func code(of scalar: Unicode.Scalar) -> Int32 {
        scalar.value < 0x80 ? asciiCodes[Int(scalar.value)] : strata_icu_script(scalar.value)
    }

    /// ICU's answers for ASCII, asked once: most text is mostly ASCII, and each ICU call is
    /// two lookups.
    private static let asciiCodes: [Int32] = (0..<0x80).map { strata_icu_script($0) }

    /// HarfBuzz's tag for ICU script `code`; 0 (let HarfBuzz guess) for an unknown code.
    static func harfBuzzTag(_ code: Int32) -> UInt32 {
        code >= 0 && Int(code) < tags.count ? tags[Int(code)] : 0
    }

    /// Whether `code` takes the script of the text around it.
    static func isNeutral(_ code: Int32) -> Bool { strata_icu_script_is_neutral(code) }
}
