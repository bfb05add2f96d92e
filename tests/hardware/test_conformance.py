"""The protocol conformance suite: exact replies of a box, run against the Python emulator and
against the firmware in simavr (see conftest.py). Every case follows contracts/box-protocol.md."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from hardware.device import BoxDevice
from hardware.framing import crc16, encode_command, parse_device_line
from hardware.simavr import SimulatedBox

if TYPE_CHECKING:  # only names for annotations: tests/hardware/conftest.py defines them
    from tests.hardware.conftest import BoxUnderTest, RawLink

IDENTITY = re.compile(r"nertsbox \S+ seats=4")
# What the ID and HELLO lines say; the version differs between emulator and firmware.
ID_LINE, HELLO_LINE = "ID <identity>", "HELLO <identity>"
SETTLE_S = 0.3


def command(seq: int, text: str) -> bytes:
    return encode_command(seq, text)


def framed(body: bytes, crc: str | None = None) -> bytes:
    """A host line with the given body and a CRC (the right one unless given)."""
    return body + b"*" + (crc or f"{crc16(body):04X}").encode() + b"\n"


def normalised(line: str | None) -> str | None:
    if line is not None:
        for kind in ("ID", "HELLO"):
            if line.startswith(kind + " ") and IDENTITY.fullmatch(line[len(kind) + 1 :]):
                return f"{kind} <identity>"
    return line


def handshake(link: RawLink, seq: int = 1) -> None:
    """Open the exchange with `N<seq> HELLO`, skipping any power-up HELLO still on its way."""
    link.send(command(seq, "HELLO"))
    seen = []
    for _ in range(4):
        seen += [normalised(line) for line in link.lines(1)]
        if seen[-2:] == [f"ok {seq}", ID_LINE]:
            return
    pytest.fail(f"no handshake reply, got {seen}")


def run(link: RawLink, steps: list[tuple[bytes, list[str]]]) -> None:
    for sent, expected in steps:
        link.send(sent)
        got = [normalised(line) for line in link.lines(len(expected))]
        assert got == expected, f"after sending {sent!r}"
    assert link.quiet() == [], "no line without a command"


VALID = [
    "RESET", "LIGHT 0 FF0000", "LIGHT 1 00ff00 BLINK", "LIGHT 2 0000FF PULSE",
    "LIGHT 3 OFF SOLID", "BUZZ NERTS", "BUZZ LATE", "BUZZ ILLEGAL", "BUZZ STUCK", "BUZZ ROUND",
    "BUZZ WIN", "BUZZ BEEP", "SHOW Seat 2 leads: 37", "SHOW", "SHOW  two  spaces ",
    "SCORE 0 -32768", "SCORE 3 32767",
    "SCORE 1 +5", "NERTS 2", "PING",
]  # fmt: skip
INVALID = [
    ("FOO", "UNKNOWN"), ("ping", "UNKNOWN"), ("LIGHT 0 GG0000", "ARG"), ("LIGHT 4 FF0000", "SEAT"),
    ("LIGHT 0 FF0000 FLASH", "ARG"), ("LIGHT 0 off", "ARG"), ("LIGHT 0", "ARG"),
    ("LIGHT x FF0000", "ARG"), ("BUZZ HONK", "ARG"), ("BUZZ", "ARG"), ("SCORE 0 12a", "ARG"),
    ("SCORE 0 32768", "ARG"), ("SCORE 5 1", "SEAT"), ("NERTS 9", "SEAT"), ("NERTS x", "ARG"),
    ("PING now", "ARG"), ("RESET all", "ARG"), ("HELLO there", "ARG"), ("SHOW tab\there", "ARG"),
]  # fmt: skip


def with_numbers(texts: list[str], first: int) -> list[bytes]:
    return [command(first + index, text) for index, text in enumerate(texts)]


CASES: dict[str, list[tuple[bytes, list[str]]]] = {
    "every command valid": [
        (line, [f"ok {seq}"]) for seq, line in enumerate(with_numbers(VALID, 2), start=2)
    ],
    "invalid commands consume their numbers": [
        (command(seq, text), [f"er {seq} {code}"])
        for seq, (text, code) in enumerate(INVALID, start=2)
    ]
    + [(command(len(INVALID) + 2, "PING"), [f"ok {len(INVALID) + 2}"])],
    "a repeated number is answered ok and not run again": [
        (command(2, "LIGHT 0 FF0000"), ["ok 2"]),
        (command(2, "LIGHT 0 FF0000"), ["ok 2"]),
        (command(2, "SHOW other text"), ["ok 2"]),
        (command(3, "FOO"), ["er 3 UNKNOWN"]),
        (command(3, "FOO"), ["ok 3"]),
        (command(4, "PING"), ["ok 4"]),
    ],
    "a wrong number asks for the expected one": [
        (command(3, "PING"), ["rs 2"]),
        (command(65535, "PING"), ["rs 2"]),
        (command(1, "PING"), ["ok 1"]),  # the handshake's number: a duplicate
        (command(2, "PING"), ["ok 2"]),
        (command(2, "PING") + command(4, "PING"), ["ok 2", "rs 3"]),
    ],
    "corrupt or unparsable lines ask for a resend": [
        (framed(b"N2 PING", "0000"), ["rs 2"]),
        (framed(b"N2 BUZZ BEEP", "0f2c"), ["rs 2"]),  # lower-case hex
        (b"N2 PING\n", ["rs 2"]),
        (b"\n", ["rs 2"]),
        (b"garbage\n", ["rs 2"]),
        (framed(b"N2 "), ["rs 2"]),
        (framed(b"N2  PING"), ["rs 2"]),
        (framed(b"N0 PING"), ["rs 2"]),
        (framed(b"N65536 PING"), ["rs 2"]),
        (framed(b"N123456 PING"), ["rs 2"]),
        (framed(b"2 PING"), ["rs 2"]),
        (framed(b"N2 PING")[:-1] + b"x\n", ["rs 2"]),  # something after the CRC
        (command(2, "PING"), ["ok 2"]),
    ],
    "a NUL byte inside a command is part of it, not its end": [
        (framed(b"N2 PING\x00junk"), ["er 2 UNKNOWN"]),
        (framed(b"N3 SHOW ab\x00\x01"), ["er 3 ARG"]),
        (framed(b"N7 HELLO\x00x"), ["rs 4"]),  # no HELLO: its number is not taken
        (command(4, "PING"), ["ok 4"]),
    ],
    "a carriage return before the newline is ignored": [
        (command(2, "PING")[:-1] + b"\r\n", ["ok 2"]),
    ],
    "lines of 64 bytes pass, longer ones are resent": [
        (command(2, "SHOW " + "x" * 50), ["ok 2"]),
        (command(3, "SHOW " + "x" * 51), ["rs 3"]),
        (b"N3 " + b"y" * 200 + b"\n", ["rs 3"]),
        (command(3, "PING"), ["ok 3"]),
    ],
    "HELLO is accepted with any number and sets the next": [
        (command(7, "HELLO"), ["ok 7", ID_LINE]),
        (command(8, "PING"), ["ok 8"]),
        (command(40000, "HELLO"), ["ok 40000", ID_LINE]),
        (command(40001, "PING"), ["ok 40001"]),
    ],
    "after 65535 comes 1": [
        (command(65535, "HELLO"), ["ok 65535", ID_LINE]),
        (command(1, "PING"), ["ok 1"]),
        (command(2, "PING"), ["ok 2"]),
    ],
    "lines may arrive in pieces or together": [
        (command(2, "PING")[:5], []),
        (command(2, "PING")[5:], ["ok 2"]),
        (command(3, "PING") + command(4, "BUZZ BEEP"), ["ok 3", "ok 4"]),
    ],
}  # fmt: skip
assert len(command(2, "SHOW " + "x" * 50)) == 64
assert f"{crc16(b'N2 BUZZ BEEP'):04X}" == "0F2C"


@pytest.mark.parametrize("case", list(CASES))
def test_conformance(raw_link: Callable[[], RawLink], case: str) -> None:
    link = raw_link()
    handshake(link)
    run(link, CASES[case])


def test_power_up_says_hello_and_expects_1(
    conformance_box: BoxUnderTest, raw_link: Callable[[], RawLink]
) -> None:
    link = raw_link()
    # Past the power-up HELLO first, whenever it comes: a slow simulation sent it after a fixed
    # wait, and half of it (the port's opening flushes the rest) read as a garbled line.
    handshake(link)
    conformance_box.reset()
    assert [normalised(line) for line in link.lines(1)] == [HELLO_LINE]
    run(link, [(command(2, "PING"), ["rs 1"]), (command(1, "PING"), ["ok 1"])])


def test_reset_forgets_the_last_number(
    conformance_box: BoxUnderTest, raw_link: Callable[[], RawLink]
) -> None:
    link = raw_link()
    handshake(link, 9)
    run(link, [(command(10, "PING"), ["ok 10"])])
    conformance_box.reset()
    assert [normalised(line) for line in link.lines(1)] == [HELLO_LINE]
    run(link, [(command(10, "PING"), ["rs 1"]), (command(11, "PING"), ["rs 1"])])


def test_button_press_is_reported_once(
    conformance_box: BoxUnderTest, raw_link: Callable[[], RawLink]
) -> None:
    link = raw_link()
    handshake(link)
    conformance_box.release(1)
    time.sleep(SETTLE_S)  # longer than the debounce time
    conformance_box.press(1)
    assert link.lines(1) == ["BTN 1"]
    conformance_box.release(1)
    assert link.quiet() == []


VOCABULARY = {
    "name": ["PING", "RESET", "LIGHT", "BUZZ", "SHOW", "SCORE", "NERTS", "HELLO", "FOO", "light"],
    "arg": ["0", "3", "4", "9", "007", "x", "", "FF0000", "00ff00", "OFF", "off", "GG0000",
            "BLINK", "PULSE", "SOLID", "LATE", "WIN", "HONK", "-5", "+12", "32768", "-32768",
            "1234567", "Seat 2 leads"],
}  # fmt: skip


def random_line(rng: random.Random, expected: int) -> bytes:
    """A host line: mostly well framed with a plausible number, sometimes damaged."""
    words = [rng.choice(VOCABULARY["name"])]
    words += [rng.choice(VOCABULARY["arg"]) for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4]))]
    seq = rng.choice([expected, expected, expected, expected - 1, expected + 1, 1, 65535])
    body = f"N{max(seq, 1)} {' '.join(words)}".encode()[:70]
    line = framed(body)
    damage = rng.random()
    if damage < 0.1:
        index = rng.randrange(len(line) - 1)
        line = line[:index] + bytes([line[index] ^ 0x20]) + line[index + 1 :]
    elif damage < 0.15:
        line = line[:-1] + b"\r\n"
    return line


def test_firmware_answers_every_line_as_the_emulator_does(
    simulator_build: tuple[Path, Path], open_raw_link: Callable[[str], RawLink]
) -> None:
    """Differential conformance: 300 random lines, the same replies from both devices."""
    harness, elf = simulator_build
    rng = random.Random(20)
    emulated = BoxDevice()
    with SimulatedBox(harness, elf) as simulated:
        link = open_raw_link(simulated.url)
        handshake(link)
        emulated.feed(command(1, "HELLO"))
        for _ in range(300):
            line = random_line(rng, emulated.expected)
            want = [normalised(parse_device_line(reply))
                    for reply in emulated.feed(line).splitlines()]  # fmt: skip
            link.send(line)
            got = [normalised(text) for text in link.lines(len(want))]
            assert got == want, f"after sending {line!r}"
        assert link.quiet() == []


def test_firmware_debounces_its_buttons(
    simulator_build: tuple[Path, Path], open_raw_link: Callable[[str], RawLink]
) -> None:
    """Presses shorter than the debounce time (30 ms) are glitches; a press held longer, after
    bouncing, is one press. Durations are in simulated time, so host load cannot change them."""
    harness, elf = simulator_build
    with SimulatedBox(harness, elf) as simulated:
        link = open_raw_link(simulated.url)
        handshake(link)
        simulated.release(2)
        time.sleep(SETTLE_S)
        simulated.tap(2, 20)
        assert link.quiet() == []
        for _ in range(3):  # contact bounce
            simulated.tap(2, 2)
        simulated.tap(2, 100)
        assert link.lines(1) == ["BTN 2"]
        assert link.quiet() == []
