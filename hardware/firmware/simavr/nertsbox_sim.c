/* Runs the nertsbox firmware (an atmega328p ELF) in simavr with UART0 on a pseudo-terminal.
   Prints "nertsbox-sim pty: <path>" on standard output (after simavr's own notes), then runs
   until killed.
   Usage: nertsbox-sim FIRMWARE.elf */
#include <stdio.h>
#include <string.h>

#include "sim_avr.h"
#include "sim_elf.h"
#include "uart_pty.h"

#define MCU "atmega328p"
#define CLOCK_HZ 16000000

static uart_pty_t uart;

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
  int state = cpu_Running;
  while (state != cpu_Done && state != cpu_Crashed) state = avr_run(avr);
  uart_pty_stop(&uart);
  return state == cpu_Done ? 0 : 1;
}
