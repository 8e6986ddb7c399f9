// ICU's segmentation, bidi and script lookups behind a C interface of plain C types.
//
// Swift's Foundation carries an ICU module of its own (_FoundationICU) whose types clash with the
// system's ICU headers in any module that sees both. Only CStrataICU.c includes ICU; this header
// names none of its types, so a client of StrataRender that imports Foundation never meets
// them. ICU's status codes travel as int32_t, its objects as opaque pointers.
#pragma once
#include <stdbool.h>
#include <stdint.h>

/// A break iterator (ICU's UBreakIterator).
typedef struct StrataICUBreaker StrataICUBreaker;
/// A bidi paragraph or line (ICU's UBiDi).
typedef struct StrataICUBidi StrataICUBidi;

/// What a break iterator finds.
enum StrataICUBreakKind { STRATA_ICU_GRAPHEME = 0, STRATA_ICU_WORD = 1, STRATA_ICU_LINE = 2, STRATA_ICU_SENTENCE = 3 };

/// Whether an ICU status is a failure (U_FAILURE); warnings are not.
bool strata_icu_failed(int32_t status);
/// ICU's name for a status, such as "U_MEMORY_ALLOCATION_ERROR".
const char *strata_icu_error_name(int32_t status);
/// Whether an ICU status is U_BUFFER_OVERFLOW_ERROR: the output did not fit, and the length
/// returned with it is the room needed.
bool strata_icu_buffer_overflowed(int32_t status);

/// A break iterator of `kind` with the root locale's rules; NULL when ICU fails (status says why).
StrataICUBreaker *strata_icu_break_open(int kind, int32_t *status);
void strata_icu_break_close(StrataICUBreaker *breaker);
/// Points the iterator at `length` UTF-16 units, which must outlive its use (NULL, 0 detaches it).
void strata_icu_break_set_text(StrataICUBreaker *breaker, const uint16_t *text, int32_t length, int32_t *status);
int32_t strata_icu_break_first(StrataICUBreaker *breaker);
/// The next boundary, or -1 after the last.
int32_t strata_icu_break_next(StrataICUBreaker *breaker);
/// The rule status of the segment the last boundary ended.
int32_t strata_icu_break_rule_status(StrataICUBreaker *breaker);
/// A word segment's kind from its rule status: 0 not a word, 1 number, 2 letters, 3 kana,
/// 4 ideographs.
int strata_icu_word_kind(int32_t status);
/// Whether a line boundary's rule status is a hard (mandatory) break.
bool strata_icu_line_status_is_hard(int32_t status);
/// The rule status of a hard or a soft line break, for boundaries made without ICU.
int32_t strata_icu_line_status(bool hard);

/// A bidi object for text of up to `length` units; NULL when ICU fails.
StrataICUBidi *strata_icu_bidi_open(int32_t length, int32_t *status);
void strata_icu_bidi_close(StrataICUBidi *bidi);
/// The paragraph level that asks for each paragraph's first strong character (UBIDI_DEFAULT_LTR).
uint8_t strata_icu_bidi_default_level(void);
/// The highest level resolution can give (UBIDI_MAX_EXPLICIT_LEVEL + 1).
uint8_t strata_icu_bidi_highest_level(void);
/// Resolves `length` units of text at paragraph level `level`; the text must outlive the object.
void strata_icu_bidi_set_paragraph(StrataICUBidi *bidi, const uint16_t *text, int32_t length, uint8_t level, int32_t *status);
/// One level per unit of the paragraph or line (rule L1 applied); NULL when ICU fails.
const uint8_t *strata_icu_bidi_levels(StrataICUBidi *bidi, int32_t *status);
/// The level of the paragraph holding unit `index`.
uint8_t strata_icu_bidi_paragraph_level(const StrataICUBidi *bidi, int32_t index, int32_t *status);
/// The units of the paragraph holding unit `index`: its start, and its limit (returned).
int32_t strata_icu_bidi_paragraph_limit(const StrataICUBidi *bidi, int32_t index, int32_t *status);
/// Makes `line` the line `start..<limit` of `paragraph`, within one of its paragraphs.
void strata_icu_bidi_set_line(const StrataICUBidi *paragraph, int32_t start, int32_t limit, StrataICUBidi *line, int32_t *status);
/// The visual order of `length` items at `levels` (rule L2): map[visual] = logical.
void strata_icu_bidi_reorder_visual(const uint8_t *levels, int32_t length, int32_t *map);
/// The direction of the first strong character: 0 left to right, 1 right to left, -1 none.
int strata_icu_bidi_base_direction(const uint16_t *text, int32_t length);

/// ICU's script code of `codepoint` (USCRIPT_COMMON when ICU cannot say).
int32_t strata_icu_script(uint32_t codepoint);
/// One past the highest script code.
int32_t strata_icu_script_limit(void);
/// The ISO 15924 code of script `code`, or NULL.
const char *strata_icu_script_short_name(int32_t code);
/// USCRIPT_COMMON.
int32_t strata_icu_script_common(void);
/// Whether script `code` is Common or Inherited: used by many scripts, or by its base's.
bool strata_icu_script_is_neutral(int32_t code);

/// Whether `codepoint` ends a line whatever follows (UAX #14 classes BK, CR, LF and NL).
bool strata_icu_is_hard_break(uint32_t codepoint);
/// ICU's u_isWhitespace: spaces that may hang at a line's end (not the no-break ones).
bool strata_icu_is_whitespace(uint32_t codepoint);
/// UTS #51's Emoji_Presentation: shown as emoji unless a variation selector says otherwise.
bool strata_icu_is_emoji_presentation(uint32_t codepoint);
/// UTS #51's Emoji: may be shown as emoji (with U+FE0F, or in a sequence).
bool strata_icu_is_emoji(uint32_t codepoint);
/// UTS #51's Emoji_Modifier: the five skin tones.
bool strata_icu_is_emoji_modifier(uint32_t codepoint);
/// UTS #51's Emoji_Modifier_Base: takes a skin tone.
bool strata_icu_is_emoji_modifier_base(uint32_t codepoint);
/// Default_Ignorable_Code_Point: invisible unless a font has a glyph for it (ZWJ, selectors).
bool strata_icu_is_default_ignorable(uint32_t codepoint);

/// Unicode full case folding (u_strFoldCase, default mappings) of `length` code units into
/// `destination` of `capacity` units; returns the folded length, which may exceed `capacity`
/// (then `status` is U_BUFFER_OVERFLOW_ERROR and the caller retries with room for it).
int32_t strata_icu_fold_case(const uint16_t *text, int32_t length, uint16_t *destination, int32_t capacity, int32_t *status);
