/// One post of the feed, generated as CONTENT.md defines, so the GTK4 peer of benchmark M9
/// shows exactly the same items.
public struct FeedItem: Sendable, Equatable {
    /// The item's position in the feed; also its id.
    public let index: Int
    /// Which avatar picture (0…23).
    public let avatar: Int
    public let name: String
    public let timestamp: String
    /// The body's sentences, in order.
    public let sentences: [String]
    /// Which sentence is bold.
    public let emphasis: Int
    /// Which photo (0…7), if any.
    public let picture: Int?
    /// Which animated sticker (0…3), if any.
    public let sticker: Int?

    public init(index: Int, avatar: Int, name: String, timestamp: String, sentences: [String], emphasis: Int,
                picture: Int?, sticker: Int? = nil) {
        self.index = index
        self.avatar = avatar
        self.name = name
        self.timestamp = timestamp
        self.sentences = sentences
        self.emphasis = emphasis
        self.picture = picture
        self.sticker = sticker
    }
}

/// The generator of CONTENT.md: SplitMix64 per item, seeded through its mix, draws in a fixed order.
public enum FeedContent {
    /// The feed's length.
    public static let itemCount = 10_000

    static let first = ["Ada", "Li", "Wei", "Mei", "Jonas", "Sofia", "Chen", "Yuki",
                        "Omar", "Lena", "Hao", "Nora", "Ravi", "Xin", "Emil", "Ana"]
    static let last = ["Lovelace", "Wang", "Zhang", "Fischer", "Liu", "Tanaka", "Haddad", "Novak",
                       "Zhao", "Berg", "Sun", "Costa", "Ito", "Huang", "Meyer", "Silva"]
    static let sentences = [
        "今天在 Wayland 上试了新的异步渲染，滚动非常流畅。",
        "The compositor only sees finished frames, never half-drawn cells.",
        "周末去了西湖，天气很好，拍了很多照片。",
        "Shipping the 2.0 release tonight — 感谢所有贡献者！",
        "文字排版在后台线程完成，主线程只负责提交。",
        "Does anyone have a good recipe for 红烧肉 that works in a pressure cooker?",
        "Reading about Texture's preload ranges and 预加载 strategies.",
        "咖啡喝多了，晚上睡不着。",
        "Pixman composites the glyphs straight into shared memory.",
        "新的键盘到了，打字手感很棒。",
        "Running sway headless at 120 Hz to measure frame pacing.",
        "这个周末的马拉松跑完了，用时 3 小时 42 分。",
        "Our cat learned to open the fridge. 我们需要新的锁。",
        "FreeType hinting makes small CJK text much crisper on low-DPI screens.",
        "北京今天下雪了，路上很滑，大家注意安全。",
        "Just finished a 1 000-piece puzzle of 长城 in the fog.",
        "The list reuses cells, so memory stays flat after 10 000 items.",
        "学习 Swift 并发：actor、Sendable 和结构化任务。",
        "Momentum scrolling should feel like iOS: velocity times deceleration.",
        "晚饭做了番茄炒蛋，简单又好吃。",
        "Anyone going to the meetup on Thursday? 我会带些点心。",
        "A frame callback is the compositor saying: now is a good time to draw.",
        "春天来了，公园里的樱花都开了。",
        "Benchmarks only count when the peer does the same work.",
        "مرحبا بالجميع! جربنا Strata 2.0 اليوم، والتمرير سلس جداً 👍🏽",
        "שלום לכולם, גרסה 1.5 של Wayland עובדת מצוין 🎉",
        "Family trip to Kyoto 👨‍👩‍👧 🇯🇵 — photos at https://strata.dev/kyoto",
        "Thanks @ana_silva for the review! #wayland #swift",
        "اجتماع يوم الخميس الساعة 18:30، سجلوا عبر www.example.org 🙏",
        "קראתי את המאמר של @hao על #TextLayout, ממליץ בחום!",
        "Our team 👩🏻‍💻👨🏾‍💻 shipped it! 🇺🇦🇧🇷🇰🇷 #release",
        "Poll: 1️⃣ yes, 2️⃣ no, #️⃣ maybe ❤️",
    ]

    /// Item `index` (0-based).
    public static func item(_ index: Int) -> FeedItem {
        func mix(_ value: UInt64) -> UInt64 {
            var z = value
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        // Mixed, so that one item's stream is not the previous item's shifted by one draw.
        var state = mix(UInt64(truncatingIfNeeded: index &+ 1) &* 0x9E37_79B9_7F4A_7C15)
        func pick(_ count: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            return Int(mix(state) % UInt64(count))
        }
        let avatar = pick(24)
        let name = first[pick(16)] + " " + last[pick(16)]
        let minutes = 1 + pick(1440)
        let timestamp = minutes < 60 ? "\(minutes) 分钟前" : "\(minutes / 60) 小时前"
        let count = 1 + pick(6)
        let chosen = (0..<count).map { _ in sentences[pick(sentences.count)] }
        let emphasis = pick(count)
        let picture = pick(4) == 0 ? pick(8) : nil
        let sticker = pick(6) == 0 ? pick(4) : nil
        return FeedItem(index: index, avatar: avatar, name: name, timestamp: timestamp, sentences: chosen,
                        emphasis: emphasis, picture: picture, sticker: sticker)
    }
}
