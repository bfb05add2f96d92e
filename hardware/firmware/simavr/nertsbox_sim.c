/* Runs the nertsbox firmware (an atmega328p ELF) in simavr with UART0 on a pseudo-terminal.
   Prints "nertsbox-sim pty: <path>" on standard output (after simavr's own notes), then runs
   until killed or its standard input ends (its parent gone: a killed test run left one spinning
   at full speed). Lines on standard input act on the board:
     reset        reset the MCU (as at power-up: the firmware prints HELLO)
     press N      hold seat N's button down (seats 0-5 are pins A0-A5, to ground)
     release N    let it go
     tap N MS     press it for MS milliseconds of simulated time, then let go
   Usage: nertsbox-sim FIRMWARE.elf */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "avr_ioport.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "uart_pty.h"

#define MCU "atmega328p"
#define CLOCK_HZ 16000000
#define BUTTON_SEATS 6

static uart_pty_t uart;
/* Requests from the input thread, carried out between two simulation steps. */
static volatile int reset_requested;
static volatile int pin_requested[BUTTON_SEATS] = {-1, -1, -1, -1, -1, -1};
static volatile int tap_requested_ms[BUTTON_SEATS] = {-1, -1, -1, -1, -1, -1};

static void *read_input(void *unused) {
  char line[64];
  int seat, ms;
  while (fgets(line, sizeof line, stdin)) {
    if (strncmp(line, "reset", 5) == 0) reset_requested = 1;
    if (sscanf(line, "tap %d %d", &seat, &ms) == 2 && seat >= 0 && seat < BUTTON_SEATS && ms >= 0)
      tap_requested_ms[seat] = ms;
    if ((sscanf(line, "press %d", &seat) == 1 || sscanf(line, "release %d", &seat) == 1) &&
        seat >= 0 && seat < BUTTON_SEATS)
      pin_requested[seat] = line[0] == 'r';  /* released: the pull-up reads high */
  }
  _exit(0); /* end of input: whoever drove the board is gone */
  return unused;
}

static avr_cycle_count_t release_button(avr_t *avr, avr_cycle_count_t when, void *pin) {
  avr_raise_irq((avr_irq_t *)pin, 1);
  return 0;  /* once */
}

/* Each request is taken and cleared in one atomic step: reading it, acting, then clearing it
   lost a request the input thread wrote in between (a 100 ms tap right after a 2 ms one was
   dropped, and a test waiting for its press failed about once in a dozen runs). */
static int take(volatile int *request) {
  return __atomic_exchange_n(request, -1, __ATOMIC_SEQ_CST);
}

static void carry_out_requests(avr_t *avr) {
  if (__atomic_exchange_n(&reset_requested, 0, __ATOMIC_SEQ_CST)) avr_reset(avr);
  for (int seat = 0; seat < BUTTON_SEATS; seat++) {
    int level = take(&pin_requested[seat]);
    if (level < 0) continue;
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('C'), seat), level);
  }
  for (int seat = 0; seat < BUTTON_SEATS; seat++) {
    int ms = take(&tap_requested_ms[seat]);
    if (ms < 0) continue;
    avr_irq_t *pin = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('C'), seat);
    avr_raise_irq(pin, 0);
    avr_cycle_timer_register_usec(avr, ms * 1000, release_button, pin);
  }
}

int main(int argc, char **argv) {
  elf_firmware_t firmware;
  memset(&firmware, 0, sizeof firmware);
  if (argc != 2 || elf_read_firmware(argv[1], &firmware) != 0) {
    fprintf(stderr, "usage: %s FIRMWARE.elf (a readable atmega328p ELF)\n", argv[0]);
    return 2;
  }
  avr_t *avr = avr_make_mcu_by_name(MCU);
  if (!avr) return 2;
  avr_init(avr);
  if (!firmware.frequency) firmware.frequency = CLOCK_HZ;
  avr_load_firmware(avr, &firmware);
  uart_pty_init(avr, &uart);
  uart_pty_connect(&uart, '0');
  printf("nertsbox-sim pty: %s\n", uart.pty.slavename);
  fflush(stdout);
  pthread_t input_thread;
  pthread_create(&input_thread, NULL, read_input, NULL);
  int state = cpu_Running;
  while (state != cpu_Done && state != cpu_Crashed) {
    state = avr_run(avr);
    carry_out_requests(avr);
  }
  uart_pty_stop(&uart);
  return state == cpu_Crashed;
}
