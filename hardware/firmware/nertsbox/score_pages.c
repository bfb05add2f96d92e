#include "score_pages.h"

#include <stdio.h>
#include <string.h>

uint8_t score_page_text(const int16_t *scores, const bool *scored, uint8_t seats, uint8_t page,
                        char *text) {
  // Two passes over the seats: the first counts the pages, the second fills the one asked for.
  uint8_t pages = 0;
  for (uint8_t pass = 0; pass < 2; pass++) {
    uint8_t current = 0, used = 0;
    bool any = false;
    text[0] = '\0';
    for (uint8_t seat = 0; seat < seats; seat++) {
      if (!scored[seat]) continue;
      char entry[SCORE_ROW_COLUMNS + 1];  // "7:-32768" at most
      uint8_t length = snprintf(entry, sizeof entry, "%u:%d", seat, (int)scores[seat]);
      if (any && used + 1 + length > SCORE_ROW_COLUMNS) {
        current++;
        used = 0;
        any = false;
      }
      if (pass == 1 && current == page) {
        if (any) text[used++] = ' ';
        memcpy(text + used, entry, length + 1);
      } else if (any) {
        used++;
      }
      used += length;
      any = true;
    }
    if (pass == 0) {
      pages = any ? current + 1 : 0;
      if (pages == 0) return 0;
      page %= pages;
    }
  }
  return pages;
}
