// Build-time settings of the nerts referee box: pins, seats, timings.
#ifndef NERTSBOX_CONFIG_H
#define NERTSBOX_CONFIG_H

#define FIRMWARE_VERSION "1.0"
#ifndef SEATS
#define SEATS 4                // lights and buttons fitted, 1 to 8
#endif
#if SEATS < 1 || SEATS > 8
#error "SEATS must be 1 to 8: the protocol's seats, and the button pins wired"
#endif
#define BAUD_RATE 115200
#define MAX_LINE_BYTES 64      // protocol: at most 64 bytes a line, newline included

// Wiring (see README.md).
#define PIN_WS2812 6           // data in of the WS2812 strip, one LED per seat
#define PIN_BUZZER 8           // passive piezo buzzer, driven by tone()
#define PIN_LCD_RS 12          // HD44780 16x2 LCD in 4-bit mode
#define PIN_LCD_E 11
#define PIN_LCD_D4 5
#define PIN_LCD_D5 4
#define PIN_LCD_D6 3
#define PIN_LCD_D7 2
// Seat buttons, to ground, internal pull-ups: seats 0-5 on A0-A5, 6 on D7, 7 on D9.
#define BUTTON_PINS {A0, A1, A2, A3, A4, A5, 7, 9}

#define DEBOUNCE_MS 30         // a button must read the same for this long to count
#define SCORE_PAGE_MS 2000     // each page of scores shown this long where they outgrow a row
#define BLINK_HALF_PERIOD_MS 250
#define PULSE_PERIOD_MS 1000
#define ANIMATION_STEP_MS 20   // strip refresh interval while a light blinks or pulses
// The strip is written with interrupts off, about 33 us a seat (21 cycles a bit at 16 MHz,
// counted in the built code): with 6 or more seats that outlasts the three bytes the UART
// holds at 115200 baud (a byte each 87 us), and a command arriving meanwhile lost a byte
// (answered rs, sent again). So the strip waits for the serial line to be this quiet, with
// no command begun: a command's bytes come back to back, so such a gap lies between commands.
// (A command begun just as the strip is written still fits in the UART with up to 7 seats;
// with 8, the 266 us of a write outlast three byte times by a few us.)
#define SERIAL_QUIET_US 2000
#define LED_BRIGHTNESS 64      // 0-255 scale applied to every colour (WS2812s are bright)

#endif
