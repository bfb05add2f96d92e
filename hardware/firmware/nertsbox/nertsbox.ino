// nertsbox: the referee box of nerts-referee. Speaks contracts/box-protocol.md (version 1) on
// the USB serial port at 115200 baud: CRC-checked numbered commands in, one reply per line out.
#include <avr/sleep.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "outputs.h"
#include "score_pages.h"

static const uint16_t MAX_SEQUENCE = 65535;
static const uint8_t MAX_WORDS = 4;  // the most any command but SHOW has

static char line[MAX_LINE_BYTES];
static uint8_t line_length = 0;
static bool line_overlong = false;
static uint16_t last_executed = 0;  // 0: none since power-up
static int16_t scores[SEATS];
static bool scored[SEATS];
static const uint8_t button_pins[8] = BUTTON_PINS;
static bool button_stable[SEATS];
static bool button_raw[SEATS];
static unsigned long button_changed_ms[SEATS];

enum Result { RESULT_OK, ERR_UNKNOWN, ERR_ARG, ERR_SEAT };

static uint16_t crc16(const char *data, uint8_t length) {
  uint16_t crc = 0xFFFF;  // CRC-16/CCITT-FALSE
  for (uint8_t i = 0; i < length; i++) {
    crc ^= (uint16_t)(uint8_t)data[i] << 8;
    for (uint8_t bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
  }
  return crc;
}

static void send_line(const char *text) {
  char trailer[7];
  snprintf(trailer, sizeof trailer, "*%04X\n", crc16(text, strlen(text)));
  Serial.write(text);
  Serial.write(trailer);
}

static void send_number_reply(const char *kind, uint16_t number, const char *code = 0) {
  char text[24];
  if (code) {
    snprintf(text, sizeof text, "%s %u %s", kind, number, code);
  } else {
    snprintf(text, sizeof text, "%s %u", kind, number);
  }
  send_line(text);
}

static void send_identity(const char *kind) {
  char text[40];
  snprintf(text, sizeof text, "%s nertsbox %s seats=%u", kind, FIRMWARE_VERSION, SEATS);
  send_line(text);
}

static uint16_t expected() { return last_executed == MAX_SEQUENCE ? 1 : last_executed + 1; }

static bool is_hex(char c, bool upper_only) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (!upper_only && c >= 'a' && c <= 'f');
}

static uint8_t hex_value(char c) {
  return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static bool all_digits(const char *text, uint8_t min_length, uint8_t max_length) {
  uint8_t length = strlen(text);
  if (length < min_length || length > max_length) return false;
  for (uint8_t i = 0; i < length; i++) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  return true;
}

// A seat number: 1-3 digits (else ARG), below SEATS (else SEAT).
static Result parse_seat(const char *word, uint8_t *seat) {
  if (!all_digits(word, 1, 3)) return ERR_ARG;
  int value = atoi(word);
  if (value >= SEATS) return ERR_SEAT;
  *seat = value;
  return RESULT_OK;
}

// The score row's page shown, and since when: where the scores outgrow the row's 16 columns
// (four seats past two-digit totals), its pages take turns (`SCORE_PAGE_MS`).
static uint8_t score_page = 0;
static uint8_t score_pages = 0;
static unsigned long score_page_since_ms = 0;

static void show_scores() {
  char text[SCORE_ROW_COLUMNS + 1];
  uint8_t pages_before = score_pages;
  score_pages = score_page_text(scores, scored, SEATS, score_page, text);
  // The first page is shown its full time once the scores outgrow the row.
  if (pages_before < 2 && score_pages >= 2) score_page_since_ms = millis();
  lcd_show(1, text);
}

static void turn_score_page(unsigned long now_ms) {
  if (score_pages < 2 || now_ms - score_page_since_ms < SCORE_PAGE_MS) return;
  score_page = (score_page + 1) % score_pages;
  score_page_since_ms = now_ms;
  show_scores();
}

static void clear_box() {
  lights_off();
  buzzer_stop();
  lcd_show(0, "");
  memset(scored, 0, sizeof scored);
  score_page = 0;
  show_scores();
}

static Result light_command(char **words, uint8_t count) {
  uint8_t seat;
  Result result = parse_seat(words[1], &seat);
  if (result != RESULT_OK) return result;
  Light light = {0, 0, 0, MODE_SOLID};
  const char *colour = words[2];
  if (strcmp(colour, "OFF") != 0) {
    if (strlen(colour) != 6) return ERR_ARG;
    for (uint8_t i = 0; i < 6; i++) {
      if (!is_hex(colour[i], false)) return ERR_ARG;
    }
    light.red = hex_value(colour[0]) << 4 | hex_value(colour[1]);
    light.green = hex_value(colour[2]) << 4 | hex_value(colour[3]);
    light.blue = hex_value(colour[4]) << 4 | hex_value(colour[5]);
  }
  if (count == 4) {
    if (strcmp(words[3], "BLINK") == 0) {
      light.mode = MODE_BLINK;
    } else if (strcmp(words[3], "PULSE") == 0) {
      light.mode = MODE_PULSE;
    } else if (strcmp(words[3], "SOLID") != 0) {
      return ERR_ARG;
    }
  }
  lights_set(seat, light);
  return RESULT_OK;
}

static Result score_command(char **words) {
  uint8_t seat;
  Result result = parse_seat(words[1], &seat);
  if (result != RESULT_OK) return result;
  const char *points = words[2];
  bool negative = points[0] == '-';
  if (points[0] == '-' || points[0] == '+') points++;
  if (!all_digits(points, 1, 6)) return ERR_ARG;
  long value = atol(points) * (negative ? -1 : 1);
  if (value < -32768L || value > 32767L) return ERR_ARG;
  scores[seat] = value;
  scored[seat] = true;
  show_scores();
  return RESULT_OK;
}

static Result nerts_command(char **words) {
  uint8_t seat;
  Result result = parse_seat(words[1], &seat);
  if (result != RESULT_OK) return result;
  Light light = lights_get(seat);
  if (!light.red && !light.green && !light.blue) light.red = light.green = light.blue = 255;
  light.mode = MODE_BLINK;
  lights_set(seat, light);
  buzzer_start("NERTS");
  return RESULT_OK;
}

// Execute a command whose number was the expected one. `text` is everything between the number
// and the '*'.
static Result execute(char *text) {
  if (strncmp(text, "SHOW", 4) == 0 && (text[4] == ' ' || text[4] == '\0')) {
    const char *shown = text[4] ? text + 5 : "";
    for (const char *c = shown; *c; c++) {
      if (*c < ' ' || *c > '~') return ERR_ARG;
    }
    lcd_show(0, shown);
    return RESULT_OK;
  }
  char *words[MAX_WORDS];
  uint8_t count = 1;
  words[0] = text;
  for (char *c = text; *c; c++) {
    if (*c != ' ') continue;
    *c = '\0';
    if (count < MAX_WORDS) words[count] = c + 1;
    count++;
  }
  const char *name = words[0];
  if (strcmp(name, "PING") == 0 && count == 1) return RESULT_OK;
  if (strcmp(name, "RESET") == 0 && count == 1) {
    clear_box();
    return RESULT_OK;
  }
  if (strcmp(name, "LIGHT") == 0 && (count == 3 || count == 4)) return light_command(words, count);
  if (strcmp(name, "BUZZ") == 0 && count == 2) return buzzer_start(words[1]) ? RESULT_OK : ERR_ARG;
  if (strcmp(name, "SCORE") == 0 && count == 3) return score_command(words);
  if (strcmp(name, "NERTS") == 0 && count == 2) return nerts_command(words);
  static const char *const known[] = {"PING", "RESET", "LIGHT", "BUZZ", "SCORE", "NERTS", "HELLO"};
  for (uint8_t i = 0; i < sizeof known / sizeof known[0]; i++) {
    if (strcmp(name, known[i]) == 0) return ERR_ARG;
  }
  return ERR_UNKNOWN;
}

// Answer one complete line (newline and any '\r' before it removed).
static void handle_line(char *text, uint8_t length, bool overlong) {
  // The frame: N<1-5 digits> <text without '*'>*<4 uppercase hex digits>
  char *star = overlong ? 0 : (char *)memchr(text, '*', length);
  uint8_t digits = 0;
  while (star && 1 + digits < length && text[1 + digits] >= '0' && text[1 + digits] <= '9') {
    digits++;
  }
  bool framed = star && text[0] == 'N' && digits >= 1 && digits <= 5 && text[1 + digits] == ' ' &&
                star - text > 1 + digits && length == (star - text) + 5;
  for (uint8_t i = 1; framed && i <= 4; i++) framed = is_hex(star[i], true);
  uint32_t seq = 0;
  if (framed) {
    uint16_t crc = 0;
    for (uint8_t i = 1; i <= 4; i++) crc = crc << 4 | hex_value(star[i]);
    framed = crc == crc16(text, star - text);
    // Read as a C string from here on: a NUL inside the command would end it early ("PING\0x"
    // run as PING), so it becomes a byte every later check refuses, as the emulator's do.
    for (char *c = text; c < star; c++) {
      if (*c == '\0') *c = 0x7F;
    }
    *star = '\0';
    seq = strtoul(text + 1, 0, 10);
  }
  char *command = text + 2 + digits;
  if (!framed || seq < 1 || seq > MAX_SEQUENCE || command[0] == ' ' || command[0] == '\0') {
    send_number_reply("rs", expected());
    return;
  }
  if (strcmp(command, "HELLO") == 0) {
    last_executed = seq;
    send_number_reply("ok", seq);
    send_identity("ID");
    return;
  }
  if (seq == last_executed) {
    send_number_reply("ok", seq);
    return;
  }
  if (seq != expected()) {
    send_number_reply("rs", expected());
    return;
  }
  last_executed = seq;
  static const char *const codes[] = {0, "UNKNOWN", "ARG", "SEAT"};
  Result result = execute(command);
  if (result == RESULT_OK) {
    send_number_reply("ok", seq);
  } else {
    send_number_reply("er", seq, codes[result]);
  }
}

static void receive_byte(char c) {
  if (c == '\n') {
    uint8_t length = line_length;
    if (!line_overlong && length && line[length - 1] == '\r') length--;
    line[length] = '\0';
    handle_line(line, length, line_overlong);
    line_length = 0;
    line_overlong = false;
  } else if (!line_overlong) {
    if (line_length >= MAX_LINE_BYTES - 1) {  // room must remain for the newline
      line_overlong = true;
    } else {
      line[line_length++] = c;
    }
  }
}

static void buttons_update(unsigned long now_ms) {
  for (uint8_t seat = 0; seat < SEATS; seat++) {
    bool raw = digitalRead(button_pins[seat]) == LOW;  // pressed pulls the pin to ground
    if (raw != button_raw[seat]) {
      button_raw[seat] = raw;
      button_changed_ms[seat] = now_ms;
    } else if (raw != button_stable[seat] && now_ms - button_changed_ms[seat] >= DEBOUNCE_MS) {
      button_stable[seat] = raw;
      if (raw) {
        char text[8];
        snprintf(text, sizeof text, "BTN %u", seat);
        send_line(text);
      }
    }
  }
}

void setup() {
  Serial.begin(BAUD_RATE);
  outputs_begin();
  for (uint8_t seat = 0; seat < SEATS; seat++) {
    pinMode(button_pins[seat], INPUT_PULLUP);
    // A button held at power-up counts only once released and pressed again.
    button_stable[seat] = button_raw[seat] = digitalRead(button_pins[seat]) == LOW;
  }
  clear_box();
  send_identity("HELLO");
}

void loop() {
  static unsigned long last_received_us = 0;
  bool received = false;
  while (Serial.available()) {
    receive_byte(Serial.read());
    received = true;
  }
  if (received) last_received_us = micros();
  unsigned long now_ms = millis();
  buttons_update(now_ms);
  turn_score_page(now_ms);
  // In micros: millis() steps by 1.024 ms, and by 2 now and then, so "2 ms" of it could be
  // almost none. A line begun is never quiet, however long its sender pauses.
  bool mid_line = line_length > 0 || line_overlong;
  outputs_update(now_ms, !mid_line && micros() - last_received_us >= SERIAL_QUIET_US);
  // Sleep until the next interrupt (a received byte or the 1 ms timer tick).
  set_sleep_mode(SLEEP_MODE_IDLE);
  cli();
  if (!Serial.available()) {
    sleep_enable();
    sei();
    sleep_cpu();
    sleep_disable();
  }
  sei();
}
