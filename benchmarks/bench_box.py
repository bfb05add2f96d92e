"""Benchmark of the referee box link: latency from a referee verdict to the box's `ok`, and the
delivery guarantees under faults, resets and an unplug, all with the protocol's real timings.

Run: .venv/bin/python benchmarks/bench_box.py [--samples N] [--commands N]

Latency: the median time from `BoxAnnouncer.announce(verdict)` to the device's `ok` for the last
of its commands, on the emulator over TCP; baseline: a raw socket round trip of one command line
to the same emulator (no driver, no thread), measured in the same run. Where the Debian packages
are installed, the same is measured against the firmware in simavr.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's code first

from hardware.announce import BoxAnnouncer
from hardware.device import BoxDevice
from hardware.driver import BoxDriver
from hardware.emulator import TcpEmulator
from hardware.faults import FaultPlan, FaultyDevice
from hardware.framing import encode_command
from hardware.simavr import (
    SimulatedBox,
    build_firmware,
    build_harness,
    missing_tools,
)
from simulator.training import whole_number

LATE_PLAY = {"type": "play", "seat": 1, "card": "5H", "pile": "p2", "verdict": "late"}
PAUSE_BETWEEN_SAMPLES_S = 0.005
TARGET_MEDIAN_MS = 20.0
RESETTING = FaultPlan(reset_every=20)
REPLUG_COMMANDS = 300
NO_FAULTS = FaultPlan()


def emulator(plan: FaultPlan = NO_FAULTS, port: int = 0) -> TcpEmulator:
    return TcpEmulator(FaultyDevice(BoxDevice(), plan), port).start()


def executed(box: TcpEmulator) -> list[str]:
    return [text for text in box.device.device.executed if text != "HELLO"]


def commands(count: int) -> list[str]:
    return [f"SCORE {index % 4} {index}" for index in range(count)]


def verdict_latencies(url: str, samples: int) -> tuple[list[float], list[float]]:
    """Seconds from announce(late play) until the box acknowledged all its commands, and
    seconds the announce() call itself took (what the referee's loop pays)."""
    latencies, calls = [], []
    with BoxAnnouncer(url) as announcer:
        announcer.driver.send("PING").result(timeout=10)
        for _ in range(samples):
            started = time.perf_counter()
            announcer.announce(LATE_PLAY)
            calls.append(time.perf_counter() - started)
            if not announcer.driver.wait_delivered(5):
                raise RuntimeError("the box did not acknowledge within 5 s")
            latencies.append(time.perf_counter() - started)
            time.sleep(PAUSE_BETWEEN_SAMPLES_S)
    return latencies, calls


def _read_lines(raw: socket.socket, count: int) -> None:
    received = b""
    while received.count(b"\n") < count:
        chunk = raw.recv(64)
        if not chunk:
            raise ConnectionError("the emulator closed the connection")
        received += chunk


def raw_round_trips(url: str, samples: int) -> list[float]:
    """Seconds for one command line out and its reply back on a plain socket (no driver)."""
    host, port = url.removeprefix("socket://").rsplit(":", 1)
    latencies = []
    with socket.create_connection((host, int(port))) as raw:
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        raw.sendall(encode_command(1, "HELLO"))
        _read_lines(raw, 2)  # ok 1, ID
        for seq in range(2, samples + 2):
            started = time.perf_counter()
            raw.sendall(encode_command(seq, "BUZZ LATE"))
            _read_lines(raw, 1)
            latencies.append(time.perf_counter() - started)
            time.sleep(PAUSE_BETWEEN_SAMPLES_S)
    return latencies


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


@contextmanager
def emulator_process() -> Iterator[str]:
    """`nerts box-emulator --tcp` in its own process, as a real box is; yields its URL."""
    with tempfile.TemporaryFile("w+") as screen:
        process = subprocess.Popen(
            [sys.executable, "-m", "nerts", "box-emulator", "--tcp", "0", "--no-colour"],
            stdin=subprocess.DEVNULL,
            stdout=screen,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                screen.seek(0)
                found = re.search(r"on (socket://\S+)", screen.read())
                if found:
                    yield found[1]
                    return
                time.sleep(0.05)
            raise RuntimeError("the emulator did not start")
        finally:
            process.terminate()
            process.wait()


def latency(samples: int) -> None:
    with emulator_process() as url:
        ours, calls = verdict_latencies(url, samples)
    with emulator_process() as url:
        raw = raw_round_trips(url, samples)
    median, baseline = statistics.median(ours), statistics.median(raw)
    p95 = statistics.quantiles(ours, n=20)[-1]
    verdict = "met" if median * 1000 <= TARGET_MEDIAN_MS else "NOT met"
    print(f"latency, verdict (late play: BUZZ LATE + LIGHT) to the last ok, emulator process, TCP, "
          f"{samples} samples: median {ms(median)}, p95 {ms(p95)} "
          f"(target <= {TARGET_MEDIAN_MS:g} ms: {verdict})")  # fmt: skip
    print(f"baseline, raw socket round trip of one command line: median {ms(baseline)}; "
          f"ratio {median / baseline:.1f}x for 2 commands through the driver")  # fmt: skip
    print(f"the referee's cost: announce() returns in {statistics.median(calls) * 1e6:.0f} us "
          f"(median; max {max(calls) * 1e6:.0f} us)")  # fmt: skip


def latency_firmware(samples: int) -> None:
    missing = missing_tools()
    if missing:
        print(f"firmware in simavr: skipped, missing {', '.join(missing)}")
        return
    with tempfile.TemporaryDirectory() as build:
        harness, elf = build_harness(Path(build)), build_firmware(Path(build))
        with SimulatedBox(harness, elf) as box:
            time.sleep(0.3)
            ours, _ = verdict_latencies(box.url, samples)
    print(f"latency, the same against the firmware in simavr (115200 baud simulated), {samples} "
          f"samples: median {ms(statistics.median(ours))}")  # fmt: skip


def timed_run(title: str, plan: FaultPlan, count: int) -> None:
    sent = commands(count)
    with emulator(plan) as box:
        started = time.monotonic()
        with BoxDriver(box.url) as driver:
            deliveries = [driver.send(text) for text in sent]
            delivered = driver.wait_delivered(600)
            connections = driver.connections
        elapsed = time.monotonic() - started
        got = executed(box)
        counts = box.device.counts
    acknowledged = sum(1 for d in deliveries if d.done() and d.exception() is None)
    print(f"{title}: {acknowledged}/{count} acknowledged in {elapsed:.1f} s; device executed "
          f"{len(got)}: exactly once in order: {got == sent}; "
          f"in order without loss: {_without_repeats(got) == sent}; "
          f"faults: {counts.corrupted_bytes} corrupted bytes, {counts.lost_replies} lost replies, "
          f"{counts.resets} resets; connections {connections}; drained {delivered}")  # fmt: skip


def _without_repeats(texts: list[str]) -> list[str]:
    return [text for index, text in enumerate(texts) if index == 0 or texts[index - 1] != text]


def replug(count: int) -> None:
    sent = commands(count)
    box = emulator()
    port = int(box.url.rsplit(":", 1)[1])
    with BoxDriver(box.url) as driver:
        for text in sent:
            driver.send(text)
        while len(executed(box)) < count // 3:
            time.sleep(0.001)
        box.close()
        unplugged_at = time.monotonic()
        time.sleep(1.0)
        pending = len(driver.pending)
        replugged = emulator(port=port)
        delivered = driver.wait_delivered(60)
        elapsed = time.monotonic() - unplugged_at
        connections = driver.connections
    replugged.close()
    both = executed(box) + executed(replugged)
    print(f"unplug after {len(executed(box))} of {count}, replug 1 s later ({pending} queued): "
          f"all delivered {delivered} in {elapsed:.2f} s after the unplug; "
          f"in order without loss: {_without_repeats(both) == sent}; "
          f"repeats {len(both) - count}; connections {connections}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--samples",
        type=whole_number(2),  # quantiles need two
        default=300,
        help="latency samples (default %(default)s; at most 100 against the firmware)",
    )
    parser.add_argument(
        "--commands",
        type=whole_number(1),
        default=1000,
        help="commands in each of the two fault runs, corrupted bytes and device resets "
        f"(default %(default)s); the unplug run always sends {REPLUG_COMMANDS}",
    )
    args = parser.parse_args(argv)
    latency(args.samples)
    latency_firmware(min(args.samples, 100))
    noisy = FaultPlan(corrupt_rate=0.02, lose_reply_rate=0.02, seed=1)
    title = f"{args.commands} commands, 2% corrupted bytes each way + 2% lost replies"
    timed_run(title + ", 250 ms resend timeout", noisy, args.commands)
    timed_run(f"{args.commands} commands, device reset every 20", RESETTING, args.commands)
    replug(REPLUG_COMMANDS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
