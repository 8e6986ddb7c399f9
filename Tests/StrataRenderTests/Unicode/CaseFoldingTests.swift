import StrataRender
import Testing

/// `CaseFolding` is ICU's full folding: what lists' type-ahead matches names with.
@Suite struct CaseFoldingTests {
    @Test(arguments: [
        ("Straße", "strasse"),  // ß folds to two letters: full folding, not lowercasing
        ("STRASSE", "strasse"),
        ("ΌΣΟΣ", "όσοσ"),  // final and medial sigma fold alike
        ("İstanbul", "i̇stanbul"),  // dotted capital I keeps its dot (default, not Turkic, mappings)
        ("ﬁle", "file"),  // a ligature folds to its letters
        ("𐐀𐐁", "𐐨𐐩"),  // Deseret, outside the BMP
        ("", ""),
        ("already folded 123", "already folded 123"),
    ])
    func foldsAsICUDoes(_ input: String, _ expected: String) {
        #expect(CaseFolding.folded(input) == expected)
    }

    @Test func foldedTextMayGrowPastItsLength() {
        // Each ŉ folds to two units: room for the growth is made, nothing is cut.
        let input = String(repeating: "ŉ", count: 1000)
        #expect(CaseFolding.folded(input) == String(repeating: "ʼn", count: 1000))
    }

    /// Text that folds longer than it is overflows the first try, which has room only for its
    /// own length: these are folded whole by the retry with the length ICU asks for.
    @Test(arguments: [("ß", "ss"), ("ﬃ", "ffi"), ("Maße ﬃ", "masse ffi")])
    func textThatGrowsIsFoldedWhole(_ input: String, _ expected: String) {
        #expect(CaseFolding.folded(input) == expected)
        let long = String(repeating: input, count: 10_000)
        #expect(CaseFolding.folded(long) == String(repeating: expected, count: 10_000))
    }
}
