#include "content.h"
#include <string.h>

const char *const feed_first_names[FEED_NAMES] = {
    "Ada", "Li", "Wei", "Mei", "Jonas", "Sofia", "Chen", "Yuki",
    "Omar", "Lena", "Hao", "Nora", "Ravi", "Xin", "Emil", "Ana",
};

const char *const feed_last_names[FEED_NAMES] = {
    "Lovelace", "Wang", "Zhang", "Fischer", "Liu", "Tanaka", "Haddad", "Novak",
    "Zhao", "Berg", "Sun", "Costa", "Ito", "Huang", "Meyer", "Silva",
};

const char *const feed_sentences[FEED_SENTENCES] = {
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
};

#define GOLDEN_GAMMA UINT64_C(0x9E3779B97F4A7C15)

typedef struct { uint64_t state; } SplitMix64;

static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t draw(SplitMix64 *rng) {
    rng->state += GOLDEN_GAMMA;
    return mix(rng->state);
}

static int pick(SplitMix64 *rng, int n) { return (int)(draw(rng) % (uint64_t)n); }

void feed_content_generate(int index, FeedContent *item) {
    // Mixed, so that neighbouring items' streams do not overlap (CONTENT.md).
    SplitMix64 rng = { mix((uint64_t)(index + 1) * GOLDEN_GAMMA) };
    memset(item, 0, sizeof *item);
    item->index = index;
    item->avatar = pick(&rng, FEED_AVATARS);
    item->first = pick(&rng, FEED_NAMES);
    item->last = pick(&rng, FEED_NAMES);
    item->minutes = 1 + pick(&rng, 1440);
    item->count = 1 + pick(&rng, FEED_MAX_SENTENCES);
    for (int i = 0; i < item->count; i++) item->sentences[i] = pick(&rng, FEED_SENTENCES);
    item->emphasis = pick(&rng, item->count);
    item->picture = pick(&rng, 4) == 0 ? pick(&rng, FEED_PICTURES) : FEED_NO_PICTURE;
    // Step 7, after the first version's six: every item's text and picture stay as they were.
    item->sticker = pick(&rng, 6) == 0 ? pick(&rng, FEED_STICKERS) : FEED_NO_STICKER;
}

void feed_content_name(const FeedContent *item, char *buffer, size_t size) {
    snprintf(buffer, size, "%s %s", feed_first_names[item->first], feed_last_names[item->last]);
}

void feed_content_timestamp(const FeedContent *item, char *buffer, size_t size) {
    if (item->minutes < 60) snprintf(buffer, size, "%d 分钟前", item->minutes);
    else snprintf(buffer, size, "%d 小时前", item->minutes / 60);
}

void feed_content_body(const FeedContent *item, char *buffer, size_t size) {
    size_t used = 0;
    buffer[0] = 0;
    for (int i = 0; i < item->count && used < size; i++) {
        int written = snprintf(buffer + used, size - used, "%s%s", i ? " " : "", feed_sentences[item->sentences[i]]);
        if (written < 0) break;
        used += (size_t)written;
    }
}

void json_write_string(FILE *out, const char *text) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20) fprintf(out, "\\u%04x", *p);
            else fputc(*p, out);  // UTF-8 passes through unchanged
        }
    }
    fputc('"', out);
}

void feed_content_write_json(const FeedContent *item, FILE *out) {
    char name[64], timestamp[32];
    feed_content_name(item, name, sizeof name);
    feed_content_timestamp(item, timestamp, sizeof timestamp);
    fprintf(out, "{\"index\":%d,\"avatar\":%d,\"name\":", item->index, item->avatar);
    json_write_string(out, name);
    fprintf(out, ",\"minutes\":%d,\"timestamp\":", item->minutes);
    json_write_string(out, timestamp);
    fputs(",\"sentences\":[", out);
    for (int i = 0; i < item->count; i++) fprintf(out, "%s%d", i ? "," : "", item->sentences[i]);
    fprintf(out, "],\"emphasis\":%d,\"picture\":", item->emphasis);
    if (item->picture == FEED_NO_PICTURE) fputs("null", out);
    else fprintf(out, "%d", item->picture);
    fputs(",\"sticker\":", out);
    if (item->sticker == FEED_NO_STICKER) fputs("null", out);
    else fprintf(out, "%d", item->sticker);
    char body[1024];
    feed_content_body(item, body, sizeof body);
    fputs(",\"body\":", out);
    json_write_string(out, body);
    fputs("}\n", out);
}

// MARK: The grid's photos

const double grid_shapes[GRID_SHAPES] = { 0.75, 1.0, 1.33, 0.56, 1.5 };
const char *const grid_captions[GRID_CAPTIONS] = {
    "Hills at noon", "The long way round, past the lake and the two farms", "Sun", "Evening light over the valley",
};

void grid_content_generate(int index, GridContent *photo) {
    photo->index = index;
    photo->picture = index % FEED_PICTURES;
    photo->shape = grid_shapes[index % GRID_SHAPES];
    photo->caption_text = grid_captions[index % GRID_CAPTIONS];
}

void grid_content_caption(const GridContent *photo, char *buffer, size_t size) {
    snprintf(buffer, size, "%d. %s", photo->index + 1, photo->caption_text);
}

void grid_content_write_json(const GridContent *photo, FILE *out) {
    char caption[128];
    grid_content_caption(photo, caption, sizeof caption);
    fprintf(out, "{\"index\":%d,\"picture\":%d,\"shape\":%g,\"caption\":", photo->index, photo->picture, photo->shape);
    json_write_string(out, caption);
    fputs("}\n", out);
}
