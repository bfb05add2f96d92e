"""CRC, line encoding and parsing, and the line splitter of the box protocol."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.framing import (
    MAX_LINE_BYTES,
    OVERLONG_LINE,
    LineSplitter,
    check_command_text,
    crc16,
    encode_command,
    encode_device_line,
    next_sequence,
    parse_command_line,
    parse_device_line,
)

PRINTABLE = st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="*")
words = st.text(alphabet=PRINTABLE.filter(lambda char: char != " "), min_size=1, max_size=8)
command_texts = (
    st.lists(words, min_size=1, max_size=4).map(" ".join).filter(lambda text: len(text) <= 45)
)


def test_crc_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1


def test_crc_of_a_known_line() -> None:
    # Computed by hand from the protocol's definition: CRC over "N1 HELLO".
    assert encode_command(1, "HELLO") == b"N1 HELLO*%04X\n" % crc16(b"N1 HELLO")
    assert encode_device_line("ok 1") == b"ok 1*%04X\n" % crc16(b"ok 1")


def test_sequence_wraps_to_1() -> None:
    assert next_sequence(1) == 2
    assert next_sequence(65535) == 1


def test_sequence_reaches_65535_before_wrapping() -> None:
    """65535 is a number of its own: 0 is no sequence number (the box would not run it)."""
    assert next_sequence(65534) == 65535


@pytest.mark.parametrize("seq", [0, 65536])
def test_a_command_numbered_outside_1_to_65535_is_not_encoded(seq: int) -> None:
    with pytest.raises(ValueError) as raised:
        encode_command(seq, "PING")
    assert str(raised.value) == f"sequence number {seq} is outside 1..65535"


def test_a_command_line_numbered_0_is_not_parsed() -> None:
    """Its CRC is good, but the protocol numbers commands from 1: a box parsing `N0` would
    answer it as the duplicate of the number it remembers at power-up (0), unrun."""
    assert parse_command_line(b"N0 PING*%04X" % crc16(b"N0 PING")) is None
    assert parse_command_line(b"N1 PING*%04X" % crc16(b"N1 PING")) is not None


@settings(deadline=None)  # timing is not what is tested; CI machines are busy
@given(st.integers(1, 65535), command_texts)
def test_command_line_round_trip(seq: int, text: str) -> None:
    line = encode_command(seq, text)
    assert line.endswith(b"\n")
    parsed = parse_command_line(line[:-1])
    assert parsed is not None
    assert (parsed.seq, parsed.text, " ".join(parsed.words)) == (seq, text, text)


@settings(deadline=None)
@given(st.integers(1, 65535), command_texts, st.data())
def test_any_single_corrupted_byte_is_caught(seq: int, text: str, data: st.DataObject) -> None:
    line = bytearray(encode_command(seq, text)[:-1])
    index = data.draw(st.integers(0, len(line) - 1))
    line[index] ^= data.draw(st.integers(1, 255))
    assert parse_command_line(bytes(line)) is None


@settings(deadline=None)
@given(st.text(alphabet=PRINTABLE, min_size=1, max_size=50))
def test_device_line_round_trip(text: str) -> None:
    assert parse_device_line(encode_device_line(text)[:-1]) == text


def test_device_line_with_bad_crc_is_discarded() -> None:
    assert parse_device_line(b"ok 1*0000") is None
    assert parse_device_line(b"ok 1") is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("a*b", "holds '*', which marks a line's check"),
        ("SHOW a*b", "holds '*'"),
        (" PING", "must be words separated by single spaces"),
        ("PING ", "must be words separated by single spaces"),
        ("LIGHT  0", "must be words separated by single spaces"),
        ("SHOW \x01", "must be printable ASCII"),
        ("é", "must be printable ASCII"),
    ],
)
def test_bad_command_texts_are_refused_saying_why(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=re.escape(f"command {text!r} {why}")):
        check_command_text(text)


def test_an_empty_command_is_said_to_be_empty() -> None:
    with pytest.raises(ValueError, match=r"^a command is empty: give one, e\.g\. PING$"):
        check_command_text("")


def test_a_shows_text_is_the_rest_of_the_line_spaces_and_all() -> None:
    for text in ["SHOW a  b", "SHOW  centred  ", "SHOW "]:
        assert check_command_text(text) == text


def test_command_too_long_for_a_line_is_refused() -> None:
    check_command_text("SHOW " + "x" * 46)  # 64 bytes with N65535 and the CRC
    with pytest.raises(ValueError, match="64-byte"):
        check_command_text("SHOW " + "x" * 47)


@settings(deadline=None)
@given(st.lists(st.binary(max_size=80).map(lambda b: b.replace(b"\n", b"")), max_size=5),
       st.integers(1, 7))  # fmt: skip
def test_splitter_cuts_lines_whatever_the_chunks(lines: list[bytes], chunk: int) -> None:
    stream = b"".join(line + b"\n" for line in lines)
    splitter = LineSplitter()
    out = [line for start in range(0, len(stream), chunk)
           for line in splitter.feed(stream[start : start + chunk])]  # fmt: skip
    expected = [
        OVERLONG_LINE if len(line) + 1 > MAX_LINE_BYTES else line.removesuffix(b"\r")
        for line in lines
    ]
    assert out == expected
