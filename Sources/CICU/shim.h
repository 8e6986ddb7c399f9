// Umbrella header for the CICU system library target: ICU's C API for segmentation (ubrk),
// bidi (ubidi) and scripts (uscript), from ICU's common library.
//
// ICU renames every C entry point with its major version (ubrk_open is ubrk_open_72), through
// macros Swift does not import. These inline wrappers are compiled by Clang, which expands the
// macros, so Swift code names the functions without a version and builds against any ICU.
#pragma once
#include <unicode/ubrk.h>
#include <unicode/ubidi.h>
#include <unicode/uscript.h>
#include <unicode/uchar.h>
#include <unicode/utypes.h>

static inline const char *strata_u_errorName(UErrorCode code) { return u_errorName(code); }

static inline UBreakIterator *strata_ubrk_open(UBreakIteratorType type, const char *locale, UErrorCode *status) {
    return ubrk_open(type, locale, NULL, 0, status);
}
static inline UBreakIterator *strata_ubrk_clone(const UBreakIterator *iterator, UErrorCode *status) {
    return ubrk_clone(iterator, status);
}
static inline void strata_ubrk_close(UBreakIterator *iterator) { ubrk_close(iterator); }
static inline void strata_ubrk_setText(UBreakIterator *iterator, const UChar *text, int32_t length, UErrorCode *status) {
    ubrk_setText(iterator, text, length, status);
}
static inline int32_t strata_ubrk_first(UBreakIterator *iterator) { return ubrk_first(iterator); }
static inline int32_t strata_ubrk_next(UBreakIterator *iterator) { return ubrk_next(iterator); }
static inline int32_t strata_ubrk_getRuleStatus(UBreakIterator *iterator) { return ubrk_getRuleStatus(iterator); }

static inline UBiDi *strata_ubidi_openSized(int32_t length, int32_t runs, UErrorCode *status) {
    return ubidi_openSized(length, runs, status);
}
static inline void strata_ubidi_close(UBiDi *bidi) { ubidi_close(bidi); }
static inline void strata_ubidi_setPara(UBiDi *bidi, const UChar *text, int32_t length, UBiDiLevel level, UErrorCode *status) {
    ubidi_setPara(bidi, text, length, level, NULL, status);
}
static inline UBiDiLevel strata_ubidi_getParaLevel(const UBiDi *bidi) { return ubidi_getParaLevel(bidi); }
static inline const UBiDiLevel *strata_ubidi_getLevels(UBiDi *bidi, UErrorCode *status) { return ubidi_getLevels(bidi, status); }
static inline UBiDiDirection strata_ubidi_getBaseDirection(const UChar *text, int32_t length) {
    return ubidi_getBaseDirection(text, length);
}
static inline void strata_ubidi_setLine(const UBiDi *paragraph, int32_t start, int32_t limit, UBiDi *line, UErrorCode *status) {
    ubidi_setLine(paragraph, start, limit, line, status);
}
static inline int32_t strata_ubidi_getParagraph(const UBiDi *bidi, int32_t index, int32_t *start, int32_t *limit,
                                                UBiDiLevel *level, UErrorCode *status) {
    return ubidi_getParagraph(bidi, index, start, limit, level, status);
}
static inline UBiDiLevel strata_ubidi_getLevelAt(const UBiDi *bidi, int32_t index) { return ubidi_getLevelAt(bidi, index); }
static inline int32_t strata_ubidi_countRuns(UBiDi *bidi, UErrorCode *status) { return ubidi_countRuns(bidi, status); }
static inline UBiDiDirection strata_ubidi_getVisualRun(UBiDi *bidi, int32_t index, int32_t *start, int32_t *length) {
    return ubidi_getVisualRun(bidi, index, start, length);
}
static inline void strata_ubidi_reorderVisual(const UBiDiLevel *levels, int32_t length, int32_t *indexMap) {
    ubidi_reorderVisual(levels, length, indexMap);
}

static inline UScriptCode strata_uscript_getScript(UChar32 codepoint, UErrorCode *status) {
    return uscript_getScript(codepoint, status);
}
static inline const char *strata_uscript_getShortName(UScriptCode script) { return uscript_getShortName(script); }
static inline UBool strata_u_hasBinaryProperty(UChar32 codepoint, UProperty property) {
    return u_hasBinaryProperty(codepoint, property);
}
static inline UBool strata_u_isWhitespace(UChar32 codepoint) { return u_isWhitespace(codepoint); }
static inline int32_t strata_u_getIntPropertyValue(UChar32 codepoint, UProperty property) {
    return u_getIntPropertyValue(codepoint, property);
}
