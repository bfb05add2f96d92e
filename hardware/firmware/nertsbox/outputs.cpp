// Minimal drivers: bit-banged WS2812, 4-bit HD44780, tone() melodies run from the main loop.
#include <Arduino.h>
#include <string.h>

#include "config.h"
#include "outputs.h"

// ---- WS2812: 800 kHz, GRB order, timed for a 16 MHz clock with interrupts off. ----
static Light lights[SEATS];
static bool lights_dirty = true;
static unsigned long last_animation_ms = 0;

// Called with interrupts off; `high` and `low` are the port's value with the data pin set and
// cleared. At 16 MHz: a "0" is high for 4 cycles (0.25 us), a "1" for 12 (0.75 us); WS2812s read
// a pulse shorter than about 0.5 us as 0 and accept long low times.
static void ws2812_send_byte(volatile uint8_t *port, uint8_t high, uint8_t low, uint8_t value) {
  for (uint8_t bit = 0; bit < 8; bit++) {
    *port = high;
    __builtin_avr_delay_cycles(1);
    if (!(value & 0x80)) *port = low;
    __builtin_avr_delay_cycles(7);
    *port = low;
    value <<= 1;
  }
}

static uint8_t scale(uint8_t channel, uint8_t level) {
  return (uint16_t)channel * level / 255 * LED_BRIGHTNESS / 255;
}

static void lights_write(unsigned long now_ms) {
  volatile uint8_t *port = portOutputRegister(digitalPinToPort(PIN_WS2812));
  uint8_t mask = digitalPinToBitMask(PIN_WS2812);
  uint8_t levels[SEATS];
  for (uint8_t seat = 0; seat < SEATS; seat++) {
    const Light &light = lights[seat];
    uint8_t level = 255;
    if (light.mode == MODE_BLINK) {
      level = (now_ms / BLINK_HALF_PERIOD_MS) % 2 ? 0 : 255;
    } else if (light.mode == MODE_PULSE) {
      unsigned long phase = now_ms % PULSE_PERIOD_MS;
      unsigned long half = PULSE_PERIOD_MS / 2;
      level = (phase < half ? phase : PULSE_PERIOD_MS - phase) * 255 / half;
    }
    levels[seat] = level;
  }
  uint8_t grb[SEATS][3];
  for (uint8_t seat = 0; seat < SEATS; seat++) {
    grb[seat][0] = scale(lights[seat].green, levels[seat]);
    grb[seat][1] = scale(lights[seat].red, levels[seat]);
    grb[seat][2] = scale(lights[seat].blue, levels[seat]);
  }
  uint8_t saved = SREG;
  cli();
  uint8_t high = *port | mask, low = *port & ~mask;
  for (uint8_t seat = 0; seat < SEATS; seat++) {
    for (uint8_t colour = 0; colour < 3; colour++) {
      ws2812_send_byte(port, high, low, grb[seat][colour]);
    }
  }
  SREG = saved;  // the strip latches after 50 us of low
}

void lights_set(uint8_t seat, const Light &light) {
  lights[seat] = light;
  lights_dirty = true;
}

void lights_off() {
  memset(lights, 0, sizeof lights);
  lights_dirty = true;
}

const Light &lights_get(uint8_t seat) { return lights[seat]; }

// ---- HD44780 LCD, 4-bit, write only. ----
static const uint8_t lcd_data_pins[4] = {PIN_LCD_D4, PIN_LCD_D5, PIN_LCD_D6, PIN_LCD_D7};

static void lcd_nibble(uint8_t nibble) {
  for (uint8_t i = 0; i < 4; i++) digitalWrite(lcd_data_pins[i], (nibble >> i) & 1);
  digitalWrite(PIN_LCD_E, HIGH);
  delayMicroseconds(1);
  digitalWrite(PIN_LCD_E, LOW);
  delayMicroseconds(50);  // longer than any write command takes
}

static void lcd_byte(uint8_t value, bool is_data) {
  digitalWrite(PIN_LCD_RS, is_data ? HIGH : LOW);
  lcd_nibble(value >> 4);
  lcd_nibble(value & 0x0F);
}

static void lcd_begin() {
  pinMode(PIN_LCD_RS, OUTPUT);
  pinMode(PIN_LCD_E, OUTPUT);
  for (uint8_t i = 0; i < 4; i++) pinMode(lcd_data_pins[i], OUTPUT);
  delay(50);  // power-on time of the controller
  digitalWrite(PIN_LCD_RS, LOW);
  for (uint8_t i = 0; i < 3; i++) {  // the datasheet's reset-by-instruction sequence
    lcd_nibble(0x03);
    delay(5);
  }
  lcd_nibble(0x02);     // 4-bit interface
  lcd_byte(0x28, false);  // 2 lines, 5x8 font
  lcd_byte(0x0C, false);  // display on, no cursor
  lcd_byte(0x06, false);  // cursor moves right
  lcd_byte(0x01, false);  // clear
  delay(2);
}

void lcd_show(uint8_t row, const char *text) {
  lcd_byte(0x80 | (row ? 0x40 : 0x00), false);  // set the address to the row's start
  bool ended = false;
  for (uint8_t column = 0; column < 16; column++) {
    if (!text[column]) ended = true;
    lcd_byte(ended ? ' ' : text[column], true);
  }
}

// ---- Buzzer: each pattern is a list of (frequency Hz, duration ms); frequency 0 is a rest. ----
struct Note {
  uint16_t hz;
  uint16_t ms;
};
struct Pattern {
  const char *name;
  const Note *notes;
  uint8_t count;
};
static const Note NERTS_NOTES[] = {{523, 120}, {659, 120}, {784, 120}, {1047, 400}};
static const Note LATE_NOTES[] = {{392, 150}, {0, 60}, {330, 300}};
static const Note ILLEGAL_NOTES[] = {{196, 600}};
static const Note STUCK_NOTES[] = {{440, 100}, {0, 80}, {440, 100}, {0, 80}, {440, 100}};
static const Note ROUND_NOTES[] = {{659, 150}, {784, 150}, {988, 300}};
static const Note WIN_NOTES[] = {{523, 150}, {659, 150}, {784, 150}, {1047, 150}, {784, 150},
                                 {1047, 600}};
static const Note BEEP_NOTES[] = {{880, 150}};
#define PATTERN(name, notes) {name, notes, sizeof notes / sizeof notes[0]}
static const Pattern PATTERNS[] = {
    PATTERN("NERTS", NERTS_NOTES), PATTERN("LATE", LATE_NOTES),
    PATTERN("ILLEGAL", ILLEGAL_NOTES), PATTERN("STUCK", STUCK_NOTES),
    PATTERN("ROUND", ROUND_NOTES), PATTERN("WIN", WIN_NOTES), PATTERN("BEEP", BEEP_NOTES),
};

static const Pattern *playing = 0;
static uint8_t note_index = 0;
static unsigned long note_started_ms = 0;

static void play_note(unsigned long now_ms) {
  note_started_ms = now_ms;
  const Note &note = playing->notes[note_index];
  if (note.hz) {
    tone(PIN_BUZZER, note.hz);
  } else {
    noTone(PIN_BUZZER);
  }
}

bool buzzer_start(const char *pattern) {
  for (uint8_t i = 0; i < sizeof PATTERNS / sizeof PATTERNS[0]; i++) {
    if (strcmp(PATTERNS[i].name, pattern) == 0) {
      playing = &PATTERNS[i];
      note_index = 0;
      play_note(millis());
      return true;
    }
  }
  return false;
}

void buzzer_stop() {
  playing = 0;
  noTone(PIN_BUZZER);
}

void outputs_begin() {
  pinMode(PIN_WS2812, OUTPUT);
  pinMode(PIN_BUZZER, OUTPUT);
  lcd_begin();
  lights_off();
}

void outputs_update(unsigned long now_ms, bool serial_quiet) {
  if (playing && now_ms - note_started_ms >= playing->notes[note_index].ms) {
    if (++note_index < playing->count) {
      play_note(now_ms);
    } else {
      buzzer_stop();
    }
  }
  bool animating = false;
  for (uint8_t seat = 0; seat < SEATS; seat++) animating |= lights[seat].mode != MODE_SOLID;
  bool due = lights_dirty || (animating && now_ms - last_animation_ms >= ANIMATION_STEP_MS);
  if (due && serial_quiet) {
    lights_write(now_ms);
    lights_dirty = false;
    last_animation_ms = now_ms;
  }
}
