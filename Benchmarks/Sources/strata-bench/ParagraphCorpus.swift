/// M12's text: paragraphs in six kinds of writing, generated from a seed, so a run can be
/// repeated and no two paragraphs are alike (no cache keyed by text can answer for one).
///
/// Each kind mixes what real text of that kind holds: Chinese with Latin words and numbers,
/// Arabic and Hebrew with Latin words and numbers (so bidi has runs to resolve and reorder),
/// Thai with no spaces between words (so line breaking needs ICU's, or libthai's, dictionary),
/// and Latin sentences with emoji between words: ZWJ families, flags, skin tones.
enum ParagraphCorpus {
    enum Script: String, CaseIterable, Sendable {
        case latin, cjk, arabic, hebrew, thai, emoji
    }

    /// `count` distinct paragraphs of `script`, their UTF-8 sizes spread evenly from `smallest`
    /// to `largest` bytes (each a sentence or so past its target).
    static func paragraphs(_ script: Script, count: Int, smallest: Int = 1024, largest: Int = 10 * 1024) -> [String] {
        (0..<count).map { index in
            let target = count > 1 ? smallest + (largest - smallest) * index / (count - 1) : smallest
            return paragraph(script, index: index, bytes: target)
        }
    }

    /// Paragraph `index` of `script`: sentences appended until it holds at least `bytes` of UTF-8.
    /// The same arguments give the same text; the seed differs for every script, index and size.
    static func paragraph(_ script: Script, index: Int, bytes: Int) -> String {
        let scriptNumber = UInt64(Script.allCases.firstIndex(of: script) ?? 0)
        var random = SplitMix(seed: scriptNumber << 56 ^ UInt64(bytes) << 24 ^ UInt64(index))
        var text = ""
        while text.utf8.count < bytes {
            if !text.isEmpty { text += " " }
            text += sentence(script, &random)
        }
        return text
    }

    static func sentence(_ script: Script, _ random: inout SplitMix) -> String {
        switch script {
        case .latin: return latinSentence(&random, emoji: false)
        case .emoji: return latinSentence(&random, emoji: true)
        case .cjk: return chineseSentence(&random)
        case .arabic: return rightToLeftSentence(&random, words: arabicWords, comma: "،", stops: [".", "؟", "!"])
        case .hebrew: return rightToLeftSentence(&random, words: hebrewWords, comma: ",", stops: [".", "?", "!"])
        case .thai: return thaiSentence(&random)
        }
    }

    // MARK: Latin, and Latin with emoji

    static let latinWords = [
        "the", "a", "of", "and", "to", "in", "is", "it", "on", "for", "with", "as", "at", "by", "from", "that",
        "layer", "frame", "glyph", "queue", "worker", "window", "surface", "buffer", "pixel", "render", "shape",
        "paragraph", "compositor", "transaction", "animation", "typography", "measurement", "throughput",
        "internationalization", "bidirectional", "segmentation", "fallback", "kerning", "ligature", "baseline",
        "display", "screen", "scroll", "button", "label", "cursor", "selection", "keyboard", "pointer", "toolkit",
        "quickly", "slowly", "never", "always", "between", "without", "before", "after", "every", "other",
        "Wayland", "Strata", "pixman", "HarfBuzz", "FreeType", "Linux", "Debian", "Swift",
    ]

    /// Emoji as apps show them: ZWJ sequences (families, professions, the rainbow flag), regional
    /// indicator flags, skin-tone modifiers, presentation selectors, and plain pictographs.
    static let emoji = [
        "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}",   // family: man, woman, girl, boy
        "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}",                    // family: woman, woman, girl
        "\u{1F469}\u{1F3FD}\u{200D}\u{1F4BB}",                            // woman technologist, medium skin tone
        "\u{1F9D1}\u{1F3FB}\u{200D}\u{1F680}",                            // astronaut, light skin tone
        "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",                             // rainbow flag
        "\u{1F1EB}\u{1F1F7}", "\u{1F1EF}\u{1F1F5}", "\u{1F1E7}\u{1F1F7}", "\u{1F1F9}\u{1F1ED}",   // FR, JP, BR, TH
        "\u{1F44D}\u{1F3FD}", "\u{1F44B}\u{1F3FF}", "\u{1F91D}\u{1F3FC}", "\u{270C}\u{1F3FE}",   // gestures with skin tones
        "\u{2764}\u{FE0F}", "\u{1F600}", "\u{1F389}", "\u{1F680}", "\u{2728}", "\u{1F642}", "\u{1F525}",
    ]

    static func latinSentence(_ random: inout SplitMix, emoji withEmoji: Bool) -> String {
        let count = 6 + random.next(11)
        var words: [String] = []
        for position in 0..<count {
            var word: String
            switch random.next(20) {
            case 0: word = String(random.next(100_000))
            case 1: word = "\(random.next(100)).\(random.next(10))%"
            default: word = latinWords[random.next(latinWords.count)]
            }
            if position == 0, let first = word.first { word = first.uppercased() + word.dropFirst() }
            if position < count - 1, random.next(9) == 0 { word += "," }
            words.append(word)
            // About one word in three is followed by an emoji in the emoji kind: text that is
            // heavy with them, as chat is.
            if withEmoji, random.next(3) == 0 { words.append(emoji[random.next(emoji.count)]) }
        }
        return words.joined(separator: " ") + [".", ".", ".", "?", "!"][random.next(5)]
    }

    // MARK: Chinese with Latin

    static func chineseSentence(_ random: inout SplitMix) -> String {
        let count = 8 + random.next(23)
        var text = ""
        for position in 0..<count {
            switch random.next(16) {
            case 0:
                // A Latin word or a number between spaces, as Chinese text quotes them.
                text += " " + (random.next(2) == 0 ? latinWords[random.next(latinWords.count)] : String(random.next(10_000))) + " "
            case 1, 2:
                // A rarer character: anywhere in the CJK Unified Ideographs block, which the
                // fallback face (WenQuanYi Micro Hei) covers.
                text.unicodeScalars.append(Unicode.Scalar(0x4E00 + UInt32(random.next(0x51A6)))!)
            default:
                text.append(LabelThroughput.hanzi[random.next(LabelThroughput.hanzi.count)])
            }
            if position > 3, position < count - 2, random.next(10) == 0 { text += "，" }
        }
        return text + ["。", "。", "？", "！"][random.next(4)]
    }

    // MARK: Arabic and Hebrew, with Latin words and numbers

    static let arabicWords = [
        "في", "من", "على", "إلى", "عن", "مع", "هذا", "هذه", "التي", "الذي", "كان", "كل", "بين", "بعد", "قبل",
        "الكتاب", "المدينة", "الشمس", "القمر", "البيت", "المدرسة", "السيارة", "الطريق", "جميل", "كبير", "صغير",
        "الوقت", "اليوم", "غدا", "العمل", "اللغة", "العربية", "النص", "السطر", "الصفحة", "البرنامج", "الحاسوب",
        "الشاشة", "النافذة", "الخط", "الحروف", "الكلمات", "سريع", "بطيء", "دائما", "أبدا", "مستخدم", "التطبيق",
    ]

    static let hebrewWords = [
        "של", "את", "על", "עם", "אל", "זה", "זאת", "כל", "בין", "אחרי", "לפני", "היה", "אשר", "גם", "לא",
        "הספר", "העיר", "השמש", "הירח", "הבית", "בית", "המכונית", "הדרך", "יפה", "גדול", "קטן", "הזמן",
        "היום", "מחר", "העבודה", "השפה", "העברית", "הטקסט", "השורה", "העמוד", "התוכנה", "המחשב", "המסך",
        "החלון", "הגופן", "האותיות", "המילים", "מהר", "לאט", "תמיד", "לעולם", "משתמש", "היישום",
    ]

    static func rightToLeftSentence(_ random: inout SplitMix, words: [String], comma: String, stops: [String]) -> String {
        let count = 5 + random.next(12)
        var parts: [String] = []
        for position in 0..<count {
            var word: String
            switch random.next(12) {
            case 0:
                // A Latin word (a name, a product), sometimes two: a left-to-right run inside.
                word = latinWords[random.next(latinWords.count)]
                if random.next(3) == 0 { word += " " + latinWords[random.next(latinWords.count)] }
            case 1: word = String(random.next(100_000))
            case 2: word = "\(random.next(1000)).\(random.next(100))"
            case 3: word = "\(random.next(100))%"
            default: word = words[random.next(words.count)]
            }
            if position < count - 1, random.next(8) == 0 { word += comma }
            parts.append(word)
        }
        return parts.joined(separator: " ") + stops[random.next(stops.count)]
    }

    // MARK: Thai

    static let thaiWords = [
        "สวัสดี", "ภาษา", "ไทย", "คอมพิวเตอร์", "หนังสือ", "เมือง", "ประเทศ", "โรงเรียน", "นักเรียน", "ครู", "อาหาร",
        "น้ำ", "บ้าน", "รถ", "ถนน", "วันนี้", "พรุ่งนี้", "ทำงาน", "เขียน", "อ่าน", "ข้อความ", "บรรทัด", "หน้า",
        "โปรแกรม", "หน้าจอ", "สวย", "ใหญ่", "เล็ก", "เวลา", "และ", "ของ", "ที่", "ใน", "มี", "เป็น", "ไม่", "ได้",
        "จะ", "กับ", "แต่", "ผู้ใช้", "ตัวอักษร", "แบบอักษร", "หน้าต่าง", "เร็ว", "ช้า", "เสมอ", "ทุกวัน",
    ]

    /// Words run together with no space, as Thai is written; a space ends a phrase.
    static func thaiSentence(_ random: inout SplitMix) -> String {
        let phrases = 1 + random.next(3)
        return (0..<phrases).map { _ in
            var phrase = ""
            for _ in 0..<(3 + random.next(8)) {
                phrase += random.next(20) == 0 ? String(random.next(1000)) : thaiWords[random.next(thaiWords.count)]
            }
            return phrase
        }.joined(separator: " ")
    }
}
