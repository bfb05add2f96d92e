"""`nerts count --left ... --sheet GAME`: the counted round's points, added to a score sheet."""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import nerts.commands.count as count_command
from nerts.cli import main
from nerts.commands.count import (
    BONUS_MAX,
    NERTS_PILE_MAX,
    _house_points,
)
from nerts.count_report import count_table, points_table
from nerts.sheets import load_sheet
from simulator.backs import back_from_spec
from simulator.scene import CardPose
from tests.vision.test_count_cli import count_spread
from tests.vision.test_user_errors import exit_status
from vision.count import count_backs
from vision.count_settings import DECK_CARDS_MAX


def _new_sheet(path: Path, *players: str) -> None:
    assert main(["scores", str(path), "new", "--players", *players]) == 0


def test_more_cards_left_than_a_nerts_pile_holds_are_warned_of(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "club.jsonl"
    _new_sheet(game, "Red", "Blue")
    capsys.readouterr()
    options = ("--left", "blue=14", "--sheet", str(game))
    assert count_spread(tmp_path, capsys, options=options) == {"red": 3, "blue": 3}
    assert (
        "warning: --left blue=14: more cards than a 13-card Nerts pile holds (a typo, or a house "
        "rule's larger pile?)" in capsys.readouterr().err
    )
    assert load_sheet(game).rounds == [{0: 3, 1: 3 - 2 * 14}]  # warned of, and added as given


def test_a_full_nerts_pile_left_is_not_warned_of_and_the_largest_is_taken(
    caplog: pytest.LogCaptureFixture,
) -> None:
    args = argparse.Namespace(left=["red=13", f"blue={NERTS_PILE_MAX}"], bonus=["red=0"])
    with caplog.at_level(logging.WARNING):
        left, bonus = _house_points(args, ["red", "blue"])
    assert left == {"red": 13, "blue": NERTS_PILE_MAX} and bonus == {"red": 0}
    assert [record.getMessage()[:14] for record in caplog.records] == [
        f"--left blue={NERTS_PILE_MAX}"
    ]


def test_the_counted_round_is_added_to_the_sheet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "club.jsonl"
    # Seats in another order than the backs; names matched ignoring case.
    assert main(["scores", str(game), "new", "--players", "Blue", "Red", "--target", "20"]) == 0
    capsys.readouterr()
    options = ("--left", "BLUE=2", "--bonus", "red=10", "--sheet", str(game))
    assert count_spread(tmp_path, capsys, options=options) == {"red": 3, "blue": 3}
    sheet = load_sheet(game)
    assert sheet.rounds == [{0: 3 - 2 * 2, 1: 3 + 10}]
    entry = json.loads(game.read_text().splitlines()[-1])
    photo = tmp_path / "spread.png"
    assert entry == {
        "type": "round",
        "scores": {"Blue": -1, "Red": 13},
        "source": str(photo),
        "fingerprint": hashlib.sha256(photo.read_bytes()).hexdigest()[:16],
    }
    # The same photo again, even under another name, is not scored twice.
    again = tmp_path / "again.png"
    shutil.copy(photo, again)
    before = game.read_text()
    references = [f"{name}={tmp_path / name}.png" for name in ("red", "blue")]
    arguments = ["count", str(again), "--backs", *references, "--sheet", str(game)]
    assert exit_status(arguments) == 2
    last_line = capsys.readouterr().err.splitlines()[-1]
    assert last_line.endswith(
        f"{game}: round 1 was scored from {photo} already, the same file as {again}; nothing "
        f"added. If this is another round, add its points by hand: nerts scores {game} add "
        "NAME=POINTS ..."
    )
    assert game.read_text() == before
    assert main(["scores", str(game), "undo"]) == 0
    assert exit_status([*arguments, "--json"]) == 0
    assert load_sheet(game).rounds == [{0: 3, 1: 3}]
    capsys.readouterr()
    assert exit_status([*arguments, "--json"]) == 2  # the same file, by the same name
    assert f"round 1 was scored from {again} already; nothing added." in capsys.readouterr().err
    # A round counted onto a game already won is added, and warned of.
    assert main(["scores", str(game), "add", "Blue=0", "Red=20"]) == 0
    other = tmp_path / "other.png"
    other.write_bytes(photo.read_bytes() + b"\0")  # another file, the same picture
    capsys.readouterr()
    assert exit_status(["count", str(other), "--backs", *references, "--sheet", str(game)]) == 0
    error = capsys.readouterr().err
    assert "the game was over before this round (Red had won with 23 in round 2)" in error
    assert len(load_sheet(game).rounds) == 3


def test_a_photo_without_cards_scores_no_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A lens cap, or the wrong file: warned of, and never a round of nothing on the sheet."""
    game = tmp_path / "club.jsonl"
    _new_sheet(game, "Red", "Blue")
    photo = tmp_path / "bare.png"
    cv2.imwrite(str(photo), np.full((720, 1280, 3), 110, np.uint8))
    references = []
    for spec in ("red:lattice", "blue:dots"):
        back = back_from_spec(spec)
        cv2.imwrite(str(tmp_path / f"{back.name}.png"), back.image)
        references.append(f"{back.name}={tmp_path / back.name}.png")
    before = game.read_text()
    capsys.readouterr()
    assert exit_status(["count", str(photo), "--backs", *references, "--sheet", str(game)]) == 3
    out, err = capsys.readouterr()
    assert err.splitlines()[-2:] == [
        f"warning: no card found in {photo}: a photo of the spread, from above, is asked for",
        f"error: nothing added to {game}, as no card was found. If no card was played this "
        f"round, add its points by hand: nerts scores {game} add red=0 blue=0 --photo {photo}",
    ]
    assert out == (
        "back   cards  left  points\nred        0     0      +0\nblue       0     0      +0\n"
        "total      0\n"
    )
    assert game.read_text() == before
    assert exit_status(["count", str(photo), "--backs", *references, "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == {"red": 0, "blue": 0}
    assert f"warning: no card found in {photo}" in err


def test_the_table_shows_points_and_bonus_columns_only_when_asked() -> None:
    counts = {"anna": 12, "ben": 10}
    assert count_table(counts) == "anna    12\nben     10\ntotal   22\n"
    assert points_table(counts, {"ben": 4}, {}, {"anna": 12, "ben": 2}) == (
        "back   cards  left  points\n"
        "anna      12     0     +12\n"
        "ben       10     4      +2\n"
        "total     22\n"
    )
    assert points_table(counts, {}, {"anna": 10}, {"anna": 22, "ben": 10}) == (
        "back   cards  left  bonus  points\n"
        "anna      12     0     10     +22\n"
        "ben       10     0      0     +10\n"
        "total     22\n"
    )
    # A player named Total: the sum's row is named otherwise.
    assert (
        count_table({"Total": 3, "ben": 2})
        == "Total          3\nben            2\n(all backs)    5\n"
    )


@pytest.fixture
def photo(tmp_path: Path) -> Path:
    """A photo path that must never be read: every case below fails before it is."""
    return tmp_path / "never-read.jpg"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--left", "cleo=1"], "--left 'cleo=1': no back is named 'cleo' (backs: anna, ben)"),
        (["--left", "ben=x"], f"--left takes NAME=N, N from 0 to {NERTS_PILE_MAX}; got 'ben=x'"),
        (["--bonus", "ben=+5"], f"--bonus takes NAME=N, N from 0 to {BONUS_MAX}; got 'ben=+5'"),
        (["--bonus", f"ben={BONUS_MAX + 1}"], f"got 'ben={BONUS_MAX + 1}'"),
        (["--left", "ben=-1"], "got 'ben=-1'"),
        (["--left", f"ben={NERTS_PILE_MAX + 1}"], f"got 'ben={NERTS_PILE_MAX + 1}'"),
        (["--left", "ben=1", "ben=2"], "--left gives 'ben' twice"),
        (
            ["--left", "ben=1", "second.jpg"],
            "--left takes NAME=N ...; got 'second.jpg' (the photo goes before --backs: nerts "
            "count IMAGE --backs ...)",
        ),
        (["--sheet", ""], "argument --sheet: the path is empty"),
        (["--bonus", "ben"], "--bonus takes NAME=N ...; got 'ben' (give its number, e.g. ben=3)"),
        (["--bonus", " "], "--bonus takes NAME=N ...; got ' ' (give its number, e.g. anna=3)"),
        (["--sheet", "{game}"], "missing: Cleo; give each player on the sheet a back, named as"),
        (["--sheet", "{folder}/none.jsonl"], "cannot read {folder}/none.jsonl"),
    ],
)
def test_points_and_sheet_mistakes_are_named_before_the_photo_is_read(
    arguments: list[str],
    message: str,
    photo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    game = tmp_path / "game.jsonl"
    _new_sheet(game, "Anna", "Ben", "Cleo")
    before = game.read_text()
    references = [f"{name}={reference}" for name, reference in _two_backs(tmp_path)]
    values = {"game": game, "folder": tmp_path}
    filled = [argument.format(**values) for argument in arguments]
    status = exit_status(["count", str(photo), "--backs", *references, *filled])
    assert status == 2
    assert message.format(**values) in capsys.readouterr().err.splitlines()[-1]
    assert game.read_text() == before


def test_a_sheet_that_cannot_be_written_is_named_before_the_photo_is_read(
    photo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    game = tmp_path / "game.jsonl"
    _new_sheet(game, "Anna", "Ben")

    def read_only(path: object, mode: int) -> bool:
        return mode & os.W_OK == 0

    monkeypatch.setattr(os, "access", read_only)
    references = [f"{name}={reference}" for name, reference in _two_backs(tmp_path)]
    assert exit_status(["count", str(photo), "--backs", *references, "--sheet", str(game)]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"nerts count: error: cannot write {game}: the round could not be added to it"
    )


def _two_backs(folder: Path) -> list[tuple[str, Path]]:
    """Two reference files, empty: these cases fail before any picture is read."""
    paths = []
    for name in ("anna", "ben"):
        path = folder / f"{name}.png"
        path.write_bytes(b"")
        paths.append((name, path))
    return paths


def test_the_sheet_is_read_again_for_rounds_added_while_the_photo_is_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    game = tmp_path / "club.jsonl"
    _new_sheet(game, "Red", "Blue")
    meanwhile: list[str] = ['{"type": "round", "scores": {"Red": 5, "Blue": -2}}']

    def counted_while_another_command_adds(*args: Any) -> Any:
        with game.open("a") as sheet:
            sheet.writelines(line + "\n" for line in meanwhile)
        return count_backs(*args)

    monkeypatch.setattr(count_command, "count_backs", counted_while_another_command_adds)
    capsys.readouterr()
    assert count_spread(tmp_path, capsys, options=("--sheet", str(game))) == {"red": 3, "blue": 3}
    assert load_sheet(game).rounds == [{0: 5, 1: -2}, {0: 3, 1: 3}]
    # Another count of the same photo, finished first: the round is not scored twice.
    photo, scored = tmp_path / "spread.png", game.read_text().splitlines()[-1]
    assert main(["scores", str(game), "undo"]) == 0
    meanwhile[0] = scored.replace(str(photo), "copy.png")
    before = game.read_text()
    references = [f"{name}={tmp_path / name}.png" for name in ("red", "blue")]
    capsys.readouterr()
    assert exit_status(["count", str(photo), "--backs", *references, "--sheet", str(game)]) == 2
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith(
            f"{game}: round 2 was scored from copy.png already, the same file as {photo}; nothing "
            f"added. If this is another round, add its points by hand: nerts scores {game} add "
            "NAME=POINTS ..."
        )
    )
    assert game.read_text() == before + meanwhile[0] + "\n"


def test_a_count_that_asks_for_a_new_photo_adds_no_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A card left face up: the warning asks to count again, which would score it twice."""
    poses = [
        CardPose(
            "7H" if i == 2 else "AS", i % 2, 100 + 90 * i, 180 + 10 * (i % 3), 8.0 * i - 20, i == 2
        )
        for i in range(6)
    ]
    count_spread(tmp_path, capsys, poses=poses)
    game = tmp_path / "club.jsonl"
    _new_sheet(game, "Red", "Blue")
    before = game.read_text()
    references = [f"{name}={tmp_path / name}.png" for name in ("red", "blue")]
    photo = str(tmp_path / "spread.png")
    capsys.readouterr()
    assert exit_status(["count", photo, "--backs", *references, "--sheet", str(game)]) == 3
    out, err = capsys.readouterr()
    assert "1 counted card lies face up (7H)" in err
    assert err.splitlines()[-1] == (
        f"error: nothing added to {game}, as the count is likely wrong (warned "
        f"above): count again; or, if the count is right, add it by hand: nerts scores {game} "
        f"add red=3 blue=3 --photo {photo}"
    )
    assert "red" in out and game.read_text() == before
    # Added by hand as told, the round is known by its photo: counted again, it is not added.
    assert exit_status(["scores", str(game), "add", "red=3", "blue=3", "--photo", photo]) == 0
    capsys.readouterr()
    assert exit_status(["count", photo, "--backs", *references, "--sheet", str(game)]) == 2
    assert f"round 1 was scored from {photo} already" in capsys.readouterr().err
    assert len(load_sheet(game).rounds) == 1


def test_more_cards_of_a_back_than_a_deck_holds_adds_no_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The only warning is the count over a deck (a second deck of that back on the table)."""
    count_spread(tmp_path, capsys)
    game = tmp_path / "club.jsonl"
    _new_sheet(game, "Red", "Blue")
    before = game.read_text()

    def over_a_deck(*args: Any) -> Any:
        return count_backs(*args)._replace(counts={"red": DECK_CARDS_MAX + 1, "blue": 3})

    monkeypatch.setattr(count_command, "count_backs", over_a_deck)
    references = [f"{name}={tmp_path / name}.png" for name in ("red", "blue")]
    capsys.readouterr()
    photo = str(tmp_path / "spread.png")
    assert exit_status(["count", photo, "--backs", *references, "--sheet", str(game)]) == 3
    err = capsys.readouterr().err
    assert [line.split(":")[0] for line in err.splitlines()] == ["warning", "error"]
    assert f"{DECK_CARDS_MAX + 1} cards counted for red" in err
    assert game.read_text() == before


def test_a_back_counting_no_card_adds_no_round_only_where_its_reference_was_warned_of(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A black-and-white copy of blue's back: blue's cards went to red. A back counting no card
    from a reference not warned of is a player who played none: the round is added."""
    count_spread(tmp_path, capsys)
    grey = tmp_path / "grey.png"
    blue_back = cv2.imread(str(tmp_path / "blue.png"), cv2.IMREAD_GRAYSCALE)
    assert blue_back is not None
    cv2.imwrite(str(grey), blue_back)

    def blue_takes_none(*args: Any) -> Any:
        return count_backs(*args)._replace(counts={"red": 6, "blue": 0})

    monkeypatch.setattr(count_command, "count_backs", blue_takes_none)
    photo = str(tmp_path / "spread.png")
    for blue, status, rounds in ((grey, 3, []), (tmp_path / "blue.png", 0, [{0: 6, 1: 0}])):
        game = tmp_path / f"club-{status}.jsonl"
        _new_sheet(game, "Red", "Blue")
        capsys.readouterr()
        references = [f"red={tmp_path / 'red.png'}", f"blue={blue}"]
        assert exit_status(["count", photo, "--backs", *references, "--sheet", str(game)]) == status
        assert "no card counted for 'blue'" in capsys.readouterr().err
        assert load_sheet(game).rounds == rounds


def test_the_photo_counted_is_refused_as_a_back_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    count_spread(tmp_path, capsys)
    photo = tmp_path / "spread.png"
    again = tmp_path / "again.png"
    again.symlink_to(photo)
    arguments = ["count", str(photo), "--backs", f"red={tmp_path / 'red.png'}", f"blue={again}"]
    assert exit_status(arguments) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"nerts count: error: back 'blue': {again} is the photo being counted, not one card's "
        "back: give a photo of one card of that back, or its design file"
    )


@pytest.mark.parametrize(
    ("specs", "added"),
    [(("red:lattice", "blue:dots"), False), (("red:lattice", "grey:dots"), True)],
)
def test_black_and_white_references_add_no_round_where_their_cards_are_in_colour(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], specs: tuple[str, str], added: bool
) -> None:
    """Black-and-white copies of red's and blue's design files (one channel, three of one
    grey): colour could not tell their cards apart. A grey back's black-and-white design file
    stands for grey cards, also in warm light: its round is added (red's reference in
    colour)."""
    count_spread(tmp_path, capsys, specs=specs)
    names = [spec.split(":")[0] for spec in specs]
    references = []
    for name in names:
        if name == "red" and added:
            references.append(f"red={tmp_path / 'red.png'}")
            continue
        grey = tmp_path / f"bw-{name}.png"
        design = cv2.imread(str(tmp_path / f"{name}.png"), cv2.IMREAD_GRAYSCALE)
        assert design is not None
        # Blue's in three channels of one grey, as a phone's mono filter saves it.
        cv2.imwrite(
            str(grey), cv2.cvtColor(design, cv2.COLOR_GRAY2BGR) if name == "blue" else design
        )
        references.append(f"{name}={grey}")
    if added:  # in warm light, as a tungsten bulb leaves it after white balance
        photo = cv2.imread(str(tmp_path / "spread.png"))
        assert photo is not None
        warm = np.clip(photo * np.array([0.8, 1.0, 1.15]), 0, 255).astype(np.uint8)
        cv2.imwrite(str(tmp_path / "spread.png"), warm)
    game = tmp_path / "club.jsonl"
    _new_sheet(game, *names)
    capsys.readouterr()
    arguments = ["count", str(tmp_path / "spread.png"), "--backs", *references]
    assert exit_status([*arguments, "--sheet", str(game)]) == (0 if added else 3)
    err = capsys.readouterr().err
    said = [f"back {name!r}: its reference is black and white, but the 3 cards counted for it "
            "are in colour" for name in names]  # fmt: skip
    assert [line in err for line in said] == ([False, False] if added else [True, True])
    assert load_sheet(game).rounds == ([{0: 3, 1: 3}] if added else [])


def test_a_black_and_white_photo_adds_no_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Backs are told apart by colour too: a grey copy of a spread was scored as one player's."""
    count_spread(tmp_path, capsys)
    colour = cv2.imread(str(tmp_path / "spread.png"))
    assert colour is not None
    grey = tmp_path / "grey.png"
    cv2.imwrite(
        str(grey), cv2.cvtColor(cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    )
    game = tmp_path / "club.jsonl"
    _new_sheet(game, "Red", "Blue")
    before = game.read_text()
    references = [f"{name}={tmp_path / name}.png" for name in ("red", "blue")]
    capsys.readouterr()
    assert exit_status(["count", str(grey), "--backs", *references, "--sheet", str(game)]) == 3
    err = capsys.readouterr().err
    assert f"{grey} is black and white" in err
    assert f"nothing added to {game}, as the count is likely wrong (warned above)" in err
    assert game.read_text() == before


@pytest.mark.parametrize("mistake", ["backs alike", "a back not given"])
def test_a_count_warned_to_mix_up_backs_adds_no_round(
    mistake: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Either warning asks for another reference or another back given: the new count would
    score the round again."""
    specs = ("red:lattice", "blue:dots", "green:checks")
    assert count_spread(tmp_path, capsys, specs=specs) == {"red": 2, "blue": 2, "green": 2}
    game = tmp_path / "game.jsonl"
    _new_sheet(game, "red", "blue")
    capsys.readouterr()
    if mistake == "backs alike":  # blue's reference given as red's too
        twin = tmp_path / "twin.png"
        shutil.copy(tmp_path / "blue.png", twin)
        references = [f"red={twin}", f"blue={tmp_path / 'blue.png'}"]
    else:  # green's cards are counted for red or blue
        references = [f"{name}={tmp_path / name}.png" for name in ("red", "blue")]
    before = game.read_text()
    photo = str(tmp_path / "spread.png")
    assert exit_status(["count", photo, "--backs", *references, "--sheet", str(game)]) == 3
    err = capsys.readouterr().err
    assert "look the same" in err if mistake == "backs alike" else "back not given" in err
    assert f"nothing added to {game}, as the count is likely wrong (warned above)" in err
    assert game.read_text() == before
