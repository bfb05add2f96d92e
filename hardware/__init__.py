"""The referee box: its wire protocol, a host driver, a software emulator and the firmware.

Modules, each small enough to read whole:

- `framing`: CRC-16/CCITT-FALSE, line framing and parsing of both directions.
- `host_protocol`: the host side of the protocol as a pure state machine (no I/O, no clock).
- `driver`: `BoxDriver`, the threaded serial driver built on `host_protocol`.
- `ports`: opening pyserial URLs and finding a box by its `ID` reply.
- `device`: the device side as a pure state machine (bytes in, bytes out).
- `faults`: seeded fault injection (corrupt bytes, lost replies, resets) around a device.
- `emulator`: the pty and TCP front ends of the emulated box.
- `terminal`: the emulator's terminal display.
- `announce`: `BoxAnnouncer`, turning table events into box commands.
- `lifecycle`: `Service`, the start/close context-manager base of the classes above.
- `simavr`: building the firmware (`firmware/`) and running it in simavr with its UART on a pty.

The protocol itself is `docs/contracts/box-protocol.md`.
"""
