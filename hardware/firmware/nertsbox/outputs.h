// The box's outputs: WS2812 seat lights, HD44780 16x2 LCD, buzzer patterns.
#ifndef NERTSBOX_OUTPUTS_H
#define NERTSBOX_OUTPUTS_H

#include <stdint.h>

enum LightMode { MODE_SOLID, MODE_BLINK, MODE_PULSE };

struct Light {
  uint8_t red, green, blue;
  uint8_t mode;
};

void outputs_begin();
// Call often: advances buzzer patterns and light animations.
// `serial_quiet`: no byte has arrived for SERIAL_QUIET_US, and no command is begun, so the
// strip may be written.
void outputs_update(unsigned long now_ms, bool serial_quiet);
void lights_set(uint8_t seat, const Light &light);
void lights_off();
const Light &lights_get(uint8_t seat);
// Line 0 or 1 of the LCD; the text is cut or padded to 16 characters.
void lcd_show(uint8_t row, const char *text);
// Pattern names as in the protocol; returns false for an unknown one.
bool buzzer_start(const char *pattern);
void buzzer_stop();

#endif
