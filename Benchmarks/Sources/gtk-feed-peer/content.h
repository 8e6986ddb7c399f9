// The feed's content, generated as Examples/feed/CONTENT.md defines it. No GTK in here: the
// generator and its JSON dump work without a display.
#pragma once
#include <stdint.h>
#include <stdio.h>

enum {
    FEED_AVATARS = 24,
    FEED_PICTURES = 8,
    FEED_NAMES = 16,
    FEED_SENTENCES = 32,
    FEED_MAX_SENTENCES = 6,
    FEED_NO_PICTURE = -1,
    FEED_STICKERS = 4,
    FEED_NO_STICKER = -1,
};

/// One item, in the order CONTENT.md draws it.
typedef struct {
    int index;
    int avatar;                            // 0..23: avatar-NN.webp
    int first, last;                       // indices into the name tables
    int minutes;                           // 1..1440
    int count;                             // 1..6 sentences
    int sentences[FEED_MAX_SENTENCES];     // indices into the sentence table, in body order
    int emphasis;                          // 0..count-1: the bold sentence
    int picture;                           // 0..7 (picture-N.jpg), or FEED_NO_PICTURE
    int sticker;                           // 0..3 (sticker-N.webp), or FEED_NO_STICKER
} FeedContent;

extern const char *const feed_first_names[FEED_NAMES];
extern const char *const feed_last_names[FEED_NAMES];
extern const char *const feed_sentences[FEED_SENTENCES];

/// Item `index` (0-based), with its own SplitMix64 generator.
void feed_content_generate(int index, FeedContent *item);
/// "Ada Lovelace": writes at most `size` bytes, NUL-terminated.
void feed_content_name(const FeedContent *item, char *buffer, size_t size);
/// "37 分钟前" or "5 小时前".
void feed_content_timestamp(const FeedContent *item, char *buffer, size_t size);
/// The sentences joined by one space (at most 6 × 80 bytes: 1 KiB is plenty).
void feed_content_body(const FeedContent *item, char *buffer, size_t size);
/// One JSON object on one line (see README.md, "--dump-items"), with a newline.
void feed_content_write_json(const FeedContent *item, FILE *out);
/// `text` as a JSON string, quotes included.
void json_write_string(FILE *out, const char *text);

// M9's grid variant: the photos of FeedKit's GridContent (Examples/feed/FeedKit/PhotoGrid.swift).
enum { GRID_SHAPES = 5, GRID_CAPTIONS = 4 };

/// One photo: picture index % 8, shape grid_shapes[index % 5], caption "index + 1. " and
/// grid_captions[index % 4].
typedef struct {
    int index;
    int picture;                           // 0..7: picture-N.jpg
    double shape;                          // height over width
    const char *caption_text;              // the caption after its number
} GridContent;

extern const double grid_shapes[GRID_SHAPES];
extern const char *const grid_captions[GRID_CAPTIONS];

void grid_content_generate(int index, GridContent *photo);
/// "12. Sun": writes at most `size` bytes, NUL-terminated.
void grid_content_caption(const GridContent *photo, char *buffer, size_t size);
/// {"index":0,"picture":0,"shape":0.75,"caption":"1. Hills at noon"} and a newline.
void grid_content_write_json(const GridContent *photo, FILE *out);
