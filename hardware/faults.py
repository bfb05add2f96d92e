"""Seeded, deterministic fault injection around a `BoxDevice`, for tests and demos.

Faults: each byte in either direction replaced by another with probability `corrupt_rate`;
each reply line dropped with probability `lose_reply_rate`; a device reset (as at power-up, with
its HELLO line) after every `reset_every` executed commands, sent right after that command's reply.
Handshakes (`HELLO`) are not counted: a host follows some resets with one, and a box reset by
each would never run anything else.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from hardware.device import BoxDevice


@dataclass(frozen=True)
class FaultPlan:
    corrupt_rate: float = 0.0
    lose_reply_rate: float = 0.0
    reset_every: int = 0  # 0: never
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("corrupt_rate", "lose_reply_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1")
        if self.reset_every < 0:
            raise ValueError("reset_every must be 0 (never) or a positive count")


@dataclass
class FaultCounts:
    corrupted_bytes: int = 0
    lost_replies: int = 0
    resets: int = 0
    rejections: int = 0
    """Commands the device refused (`er`): where the host sends only valid ones, lines corrupted
    yet passing their CRC (a 16-bit CRC lets about one corrupted line in 65,536 through)."""


class FaultyDevice:
    """A `BoxDevice` behind a link that corrupts, loses replies and resets, as `plan` says."""

    def __init__(self, device: BoxDevice, plan: FaultPlan) -> None:
        self.device = device
        self.plan = plan
        self.counts = FaultCounts()
        self._random = random.Random(plan.seed)
        self._commands_at_reset = 0
        self._commands = self._seen = 0  # the count `_commands_run` keeps

    def _corrupt(self, data: bytes) -> bytes:
        if not self.plan.corrupt_rate:
            return data
        out = bytearray(data)
        for index in range(len(out)):
            if self._random.random() < self.plan.corrupt_rate:
                out[index] ^= self._random.randrange(1, 256)
                self.counts.corrupted_bytes += 1
        return bytes(out)

    def power_up(self) -> bytes:
        self._commands_at_reset = self._commands_run()
        return self._corrupt(self.device.power_up())

    def press_button(self, seat: int) -> bytes:
        return self._corrupt(self.device.press_button(seat))

    def feed(self, data: bytes) -> bytes:
        out = bytearray()
        for reply in self.device.replies(self._corrupt(data)):
            self.counts.rejections += reply.startswith(b"er ")
            if self._random.random() < self.plan.lose_reply_rate:
                self.counts.lost_replies += 1
            else:
                out += self._corrupt(reply)
            executed = self._commands_run() - self._commands_at_reset
            if self.plan.reset_every and executed >= self.plan.reset_every:
                self.counts.resets += 1
                out += self.power_up()
        return bytes(out)

    def _commands_run(self) -> int:
        """The commands the device ran, handshakes left out."""
        run = self.device.executed
        self._commands += sum(text != "HELLO" for text in run[self._seen :])
        self._seen = len(run)
        return self._commands
