// The LCD's score row: the scored seats' "seat:points", as many as fit its 16 columns a page.
// Plain C, no Arduino: the tests compile it on the host (tests/hardware/test_score_pages.py).
#ifndef NERTSBOX_SCORE_PAGES_H
#define NERTSBOX_SCORE_PAGES_H

#include <stdbool.h>
#include <stdint.h>

#define SCORE_ROW_COLUMNS 16

#ifdef __cplusplus
extern "C" {
#endif

// Writes page `page` (counted from 0, taken modulo the pages there are) of the scored seats
// into `text` (SCORE_ROW_COLUMNS + 1 bytes): whole entries, space-separated, a seat never cut
// across two pages. Returns the number of pages: 0 where no seat is scored (`text` empty).
uint8_t score_page_text(const int16_t *scores, const bool *scored, uint8_t seats, uint8_t page,
                        char *text);

#ifdef __cplusplus
}
#endif

#endif
