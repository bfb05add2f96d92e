"""Writes the golden scenario inputs (run from the repository root); expected outputs are reviewed
by hand, then regenerated with `nerts referee IN --out EXPECTED --target 20`."""

import json
from typing import Any

FPS = 30.0


Event = dict[str, Any]


def ev(frame: int, type_: str, **kw: Any) -> Event:
    return {"frame": frame, "t": round(frame / FPS, 4), "type": type_, **kw}


def start(
    frame: int, rnd: int, n: int = 3, backs: tuple[str, ...] = ("red", "blue", "green", "purple")
) -> Event:
    return ev(
        frame,
        "round_start",
        round=rnd,
        seats=[{"seat": s, "back": backs[s]} for s in range(n)],
        nerts_pile=13,
    )


def play(frame: int, seat: int, card: str, pile: str) -> Event:
    return ev(frame, "play", seat=seat, card=card, pile=pile)


def nc(frame: int, seat: int, rem: int) -> Event:
    return ev(frame, "nerts_count", seat=seat, remaining=rem)


def tb(frame: int, seat: int, card: str, pile: str) -> Event:
    return ev(frame, "take_back", seat=seat, card=card, pile=pile)


def dump(path: str, events: list[Event]) -> None:
    with open(path, "w") as f:
        for e in events:
            f.write(json.dumps(e) + "\n")


# races: a late play and a same-frame tie
races = [
    start(0, 1),
    play(30, 0, "AH", "F0"),
    nc(31, 0, 12),
    play(60, 1, "2H", "F0"),
    play(62, 2, "2H", "F0"),
    tb(80, 2, "2H", "F0"),
    play(90, 0, "3H", "F0"),
    play(90, 2, "3H", "F0"),
    play(120, 1, "4H", "F0"),
    play(121, 2, "AS", "F1"),
    play(121, 0, "AS", "F2"),
    play(150, 0, "2S", "F1"),
    play(151, 1, "2S", "F1"),
    play(153, 2, "2S", "F1"),
    tb(170, 1, "2S", "F1"),
    tb(171, 2, "2S", "F1"),
]
dump("tests/golden/races.input.jsonl", races)

illegal = [
    start(0, 1, n=2),
    play(10, 0, "5D", "F0"),
    tb(30, 0, "5D", "F0"),
    play(40, 1, "AD", "F0"),
    play(50, 0, "3D", "F0"),
    play(52, 1, "2C", "F0"),
    tb(70, 0, "3D", "F0"),
    tb(72, 1, "2C", "F0"),
    play(80, 0, "2D", "F0"),
    nc(90, 1, 3),
    ev(95, "nerts_call", seat=1),
    nc(100, 1, 0),
    ev(110, "nerts_call", seat=1),
    play(115, 0, "3D", "F0"),
    play(200, 0, "4D", "F0"),
]
dump("tests/golden/illegal_and_false_call.input.jsonl", illegal)

suit = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
king = (
    [start(0, 1, n=2)]
    + [play(10 + 10 * i, i % 2, r + "C", "F0") for i, r in enumerate(suit)]
    + [
        play(200, 1, "KC", "F0"),
        # The complete pile is set aside: its place takes only a new pile's Ace.
        play(210, 0, "2C", "F0"),
        play(220, 1, "AC", "F0"),
        ev(300, "stuck"),
        play(320, 1, "AS", "F1"),
        ev(400, "stuck"),
        ev(500, "stuck"),
    ]
)
dump("tests/golden/king_and_stuck.input.jsonl", king)

# a game over several rounds with target 20: caller seat scores
game = []
f = 0
for rnd, (caller, plays_by_seat) in enumerate(
    [(0, [8, 5, 3]), (1, [4, 9, 6]), (0, [10, 2, 7]), (2, [7, 3, 12])], start=1
):
    game.append(start(f, rnd))
    f += 10
    piles = 0
    for seat, count in enumerate(plays_by_seat):
        s = "SHDC"[seat]
        for i in range(count):
            game.append(play(f, seat, suit[i] + s, f"R{rnd}S{seat}"))
            f += 7
        left = 0 if seat == caller else 2
        game.append(nc(f, seat, left))
        f += 3
    game.append(ev(f, "nerts_call", seat=caller))
    f += 60
dump("tests/golden/game_to_target.input.jsonl", game)
