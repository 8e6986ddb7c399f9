import StrataRender
import Testing

/// What `StandardLinkDetector` finds, and what it leaves alone.
@Suite struct LinkDetectorTests {
    func found(_ string: String) -> [String] {
        StandardLinkDetector().links(in: string).map { "\($0.target)" }
    }

    @Test func addressesMentionsAndHashtags() {
        #expect(found("see https://strata.dev/a?b=1, then www.example.org.") ==
                ["url(\"https://strata.dev/a?b=1\")", "url(\"www.example.org\")"])
        #expect(found("hi @ana_b and @李雷! #swift6 #日本語") ==
                ["mention(\"ana_b\")", "mention(\"李雷\")", "hashtag(\"swift6\")", "hashtag(\"日本語\")"])
        // A closing bracket with its opener inside the address stays; one without goes.
        #expect(found("(https://en.wikipedia.org/wiki/Swift_(language))") == ["url(\"https://en.wikipedia.org/wiki/Swift_(language)\")"])
    }

    @Test func notLinks() {
        #expect(found("mail ana@example.org") == [], "an address's @ is not a mention")
        #expect(found("issue #1 and C#") == [], "digits alone, and a sign inside a word, are not hashtags")
        #expect(found("https:// alone") == [])
        #expect(found("") == [])
        #expect(found("@ # @@ ##") == [])
    }

    @Test func markingKeepsLinksTheTextAlreadyHas() {
        var text = AttributedText("@ana ", style: TextStyle())
        text.append("@bob", style: TextStyle(link: TextLink(.action("custom"))))
        let marked = StandardLinkDetector().marking(text, color: .blue)
        let links = TextLayout(marked).links.map(\.link.target)
        #expect(links == [.mention("ana"), .action("custom")])
    }

    @Test func aLongTextIsScannedOnce() {
        // Linear: a megabyte of words with no link takes one pass (no per-word lowercasing of the rest).
        let long = String(repeating: "word ", count: 200_000)
        #expect(found(long).isEmpty)
    }
}
