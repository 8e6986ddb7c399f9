import StrataPlatform
import Testing

@Suite struct LogTextTests {
    @Test func controlCharactersQuotesAndBackslashesAreEscaped() {
        #expect(LogText.quoted("a\u{1B}[31m\n\"b\"\\\u{0}") == #""a\u{1b}[31m\n\"b\"\\\u{0}""#)
    }

    @Test func longTextIsCutAndSaysHowMuchWasDropped() {
        let text = String(repeating: "x", count: 1_000_000)
        let logged = LogText.quoted(text, limit: 10)
        #expect(logged == "\"xxxxxxxxxx\"…(+999990)")
    }

    @Test func bidiOverridesAreEscaped() {
        #expect(LogText.quoted("a\u{202E}b") == #""a\u{202e}b""#)
    }
}
