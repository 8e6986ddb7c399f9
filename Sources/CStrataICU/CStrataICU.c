// The ICU calls behind CStrataICU.h. ICU's C names carry its major version (ubrk_open is
// ubrk_open_72) through macros in its headers, which this file, compiled by Clang, expands.
#include "CStrataICU.h"
#include <unicode/ubidi.h>
#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/ustring.h>

bool strata_icu_failed(int32_t status) { return U_FAILURE((UErrorCode)status); }
const char *strata_icu_error_name(int32_t status) { return u_errorName((UErrorCode)status); }
bool strata_icu_buffer_overflowed(int32_t status) { return (UErrorCode)status == U_BUFFER_OVERFLOW_ERROR; }

static const UBreakIteratorType breakTypes[] = { UBRK_CHARACTER, UBRK_WORD, UBRK_LINE, UBRK_SENTENCE };

StrataICUBreaker *strata_icu_break_open(int kind, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    UBreakIterator *iterator = kind >= 0 && kind < 4 ? ubrk_open(breakTypes[kind], "", NULL, 0, &code) : NULL;
    if (kind < 0 || kind >= 4) code = U_ILLEGAL_ARGUMENT_ERROR;
    *status = code;
    return (StrataICUBreaker *)iterator;
}

void strata_icu_break_close(StrataICUBreaker *breaker) { ubrk_close((UBreakIterator *)breaker); }

void strata_icu_break_set_text(StrataICUBreaker *breaker, const uint16_t *text, int32_t length, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    ubrk_setText((UBreakIterator *)breaker, (const UChar *)text, length, &code);
    *status = code;
}

int32_t strata_icu_break_first(StrataICUBreaker *breaker) { return ubrk_first((UBreakIterator *)breaker); }

int32_t strata_icu_break_next(StrataICUBreaker *breaker) {
    int32_t next = ubrk_next((UBreakIterator *)breaker);
    return next == UBRK_DONE ? -1 : next;
}

int32_t strata_icu_break_rule_status(StrataICUBreaker *breaker) { return ubrk_getRuleStatus((UBreakIterator *)breaker); }

int strata_icu_word_kind(int32_t status) {
    if (status >= UBRK_WORD_NUMBER && status < UBRK_WORD_NUMBER_LIMIT) return 1;
    if (status >= UBRK_WORD_LETTER && status < UBRK_WORD_LETTER_LIMIT) return 2;
    if (status >= UBRK_WORD_KANA && status < UBRK_WORD_KANA_LIMIT) return 3;
    if (status >= UBRK_WORD_IDEO && status < UBRK_WORD_IDEO_LIMIT) return 4;
    return 0;
}

bool strata_icu_line_status_is_hard(int32_t status) { return status >= UBRK_LINE_HARD && status < UBRK_LINE_HARD_LIMIT; }
int32_t strata_icu_line_status(bool hard) { return hard ? UBRK_LINE_HARD : UBRK_LINE_SOFT; }

StrataICUBidi *strata_icu_bidi_open(int32_t length, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    UBiDi *bidi = ubidi_openSized(length, 0, &code);
    *status = code;
    return (StrataICUBidi *)bidi;
}

void strata_icu_bidi_close(StrataICUBidi *bidi) { ubidi_close((UBiDi *)bidi); }
uint8_t strata_icu_bidi_default_level(void) { return UBIDI_DEFAULT_LTR; }
uint8_t strata_icu_bidi_highest_level(void) { return UBIDI_MAX_EXPLICIT_LEVEL + 1; }

void strata_icu_bidi_set_paragraph(StrataICUBidi *bidi, const uint16_t *text, int32_t length, uint8_t level, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    ubidi_setPara((UBiDi *)bidi, (const UChar *)text, length, level, NULL, &code);
    *status = code;
}

const uint8_t *strata_icu_bidi_levels(StrataICUBidi *bidi, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    const UBiDiLevel *levels = ubidi_getLevels((UBiDi *)bidi, &code);
    *status = code;
    return levels;
}

uint8_t strata_icu_bidi_paragraph_level(const StrataICUBidi *bidi, int32_t index, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    int32_t start = 0, limit = 0;
    UBiDiLevel level = 0;
    ubidi_getParagraph((const UBiDi *)bidi, index, &start, &limit, &level, &code);
    *status = code;
    return level;
}

int32_t strata_icu_bidi_paragraph_limit(const StrataICUBidi *bidi, int32_t index, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    int32_t start = 0, limit = 0;
    ubidi_getParagraph((const UBiDi *)bidi, index, &start, &limit, NULL, &code);
    *status = code;
    return limit;
}

void strata_icu_bidi_set_line(const StrataICUBidi *paragraph, int32_t start, int32_t limit, StrataICUBidi *line, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    ubidi_setLine((const UBiDi *)paragraph, start, limit, (UBiDi *)line, &code);
    *status = code;
}

void strata_icu_bidi_reorder_visual(const uint8_t *levels, int32_t length, int32_t *map) {
    ubidi_reorderVisual(levels, length, map);
}

int strata_icu_bidi_base_direction(const uint16_t *text, int32_t length) {
    switch (ubidi_getBaseDirection((const UChar *)text, length)) {
    case UBIDI_LTR: return 0;
    case UBIDI_RTL: return 1;
    default: return -1;
    }
}

int32_t strata_icu_script(uint32_t codepoint) {
    UErrorCode code = U_ZERO_ERROR;
    UScriptCode script = uscript_getScript((UChar32)codepoint, &code);
    return U_FAILURE(code) ? USCRIPT_COMMON : script;
}

int32_t strata_icu_script_limit(void) { return USCRIPT_CODE_LIMIT; }
const char *strata_icu_script_short_name(int32_t code) { return uscript_getShortName((UScriptCode)code); }
int32_t strata_icu_script_common(void) { return USCRIPT_COMMON; }
bool strata_icu_script_is_neutral(int32_t code) { return code == USCRIPT_COMMON || code == USCRIPT_INHERITED; }

bool strata_icu_is_hard_break(uint32_t codepoint) {
    int32_t value = u_getIntPropertyValue((UChar32)codepoint, UCHAR_LINE_BREAK);
    return value == U_LB_MANDATORY_BREAK || value == U_LB_CARRIAGE_RETURN || value == U_LB_LINE_FEED || value == U_LB_NEXT_LINE;
}

bool strata_icu_is_whitespace(uint32_t codepoint) { return u_isWhitespace((UChar32)codepoint); }
bool strata_icu_is_emoji_presentation(uint32_t codepoint) {
    return u_hasBinaryProperty((UChar32)codepoint, UCHAR_EMOJI_PRESENTATION);
}
bool strata_icu_is_emoji(uint32_t codepoint) { return u_hasBinaryProperty((UChar32)codepoint, UCHAR_EMOJI); }
bool strata_icu_is_emoji_modifier(uint32_t codepoint) {
    return u_hasBinaryProperty((UChar32)codepoint, UCHAR_EMOJI_MODIFIER);
}
bool strata_icu_is_emoji_modifier_base(uint32_t codepoint) {
    return u_hasBinaryProperty((UChar32)codepoint, UCHAR_EMOJI_MODIFIER_BASE);
}
bool strata_icu_is_default_ignorable(uint32_t codepoint) {
    return u_hasBinaryProperty((UChar32)codepoint, UCHAR_DEFAULT_IGNORABLE_CODE_POINT);
}

int32_t strata_icu_fold_case(const uint16_t *text, int32_t length, uint16_t *destination, int32_t capacity, int32_t *status) {
    UErrorCode code = U_ZERO_ERROR;
    int32_t folded = u_strFoldCase((UChar *)destination, capacity, (const UChar *)text, length, U_FOLD_CASE_DEFAULT, &code);
    *status = code;
    return folded;
}
