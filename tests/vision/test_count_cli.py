"""`nerts count` (and `identify --backs`) on rendered spreads: counts, warnings, references."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.dataset import read_image
from nerts.cli import main
from nerts.commands.count import DOUBTFUL_COUNT_STATUS
from nerts.photos import without_colour
from simulator.backs import back_from_spec
from simulator.faces import builtin_design
from simulator.render import RenderSettings, TableRenderer
from simulator.scene import CardPose, Scene
from simulator.table import MARKER_DICTIONARY
from tests.vision.renders import photo_of_one_card
from vision.annotate import UNCOUNTED_BGR
from vision.count import CountResult, count_backs
from vision.count_settings import UNCOUNTED_CARDS_MAX
from vision.markers import TABLE_MARKER_DICTIONARY, table_markers

CountFunction = Callable[..., CountResult]


def count_spread(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    *,
    photographed: bool = False,
    options: tuple[str, ...] = (),
    markers: bool = False,
    specs: tuple[str, ...] = ("red:lattice", "blue:dots"),
    poses: list[CardPose] | None = None,
) -> dict[str, int]:
    """`nerts count --json` on six face-down cards of the backs of `specs` in turn, side by
    side (or `poses`), on a table with the referee's `markers` or without; each back
    registered by its design file or, `photographed`, a photo of one card on the table."""
    backs = [back_from_spec(spec) for spec in specs]
    poses = poses or [
        CardPose("AS", i % len(backs), 100 + 90 * i, 180 + 10 * (i % 3), 8.0 * i - 20, False)
        for i in range(6)
    ]
    renderer = TableRenderer(
        RenderSettings(
            size=(1280, 720), table="wood", table_mm=(640.0, 360.0), seed=2, markers=markers
        ),
        [builtin_design()],
        backs,
    )
    photo = tmp_path / "spread.png"
    cv2.imwrite(str(photo), renderer.render(Scene(tuple(poses), ()), 0))
    references = []
    for back in backs:
        path = tmp_path / f"{back.name}.png"
        reference = photo_of_one_card(back.name, 40.0)[0] if photographed else back.image
        cv2.imwrite(str(path), reference)
        references.append(f"{back.name}={path}")
    assert main(["count", str(photo), "--json", *options, "--backs", *references]) == 0
    out, err = capsys.readouterr()
    sys.stderr.write(err)  # left for the test to read
    counts: dict[str, int] = json.loads(out)
    return counts


def test_count_cli_counts_each_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert count_spread(tmp_path, capsys) == {"red": 3, "blue": 3}
    error = capsys.readouterr().err
    assert "mostly under others" not in error and "look like cards" not in error
    assert "face up" not in error
    # As a table, saying where the counted cards are drawn.
    references = [f"{name}={tmp_path / name}.png" for name in ("red", "blue")]
    drawn = tmp_path / "counted.png"
    photo = str(tmp_path / "spread.png")
    assert main(["count", photo, "--backs", *references, "--annotate", str(drawn)]) == 0
    table = "red      3\nblue     3\ntotal    6\n"
    assert capsys.readouterr().out == table + f"drawn in {drawn}\n" and drawn.is_file()


def test_a_reference_showing_a_cards_face_is_warned_of_and_makes_the_count_doubtful(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    count_spread(tmp_path, capsys)  # the spread, and the backs' references beside it
    face = tmp_path / "face.png"  # a photo of a card the wrong way up, cut to the card
    cv2.imwrite(str(face), builtin_design().faces["KC"])
    arguments = ["count", str(tmp_path / "spread.png"), "--json", "--strict", "--backs"]
    blue = f"blue={tmp_path / 'blue.png'}"
    assert main([*arguments, f"red={face}", blue]) == DOUBTFUL_COUNT_STATUS
    assert (
        f"warning: back 'red': {face} shows the face of a card (KC), not a back: its cards "
        "cannot be counted; photograph one of that player's cards face down"
    ) in capsys.readouterr().err.splitlines()
    assert main([*arguments, f"red={tmp_path / 'red.png'}", blue]) == 0


def test_count_cli_warns_of_a_black_and_white_photo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reference may be grey (a grey back's design file), a photo of a table is not."""
    count_spread(tmp_path, capsys, specs=("grey:dots", "#b4b4b4:stripes"))
    assert "black and white" not in capsys.readouterr().err
    photo = tmp_path / "spread.png"
    colour = read_image(photo)
    grey = cv2.cvtColor(cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    # Black and white, its channels a step or two apart (as a camera's or JPEG's rounding).
    steps = np.random.default_rng(0).integers(0, 3, grey.shape, np.uint8)
    black_and_white = tmp_path / "black-and-white.png"
    cv2.imwrite(str(black_and_white), np.minimum(grey, 252) + steps)
    references = [f"{name}={tmp_path / name}.png" for name in ("grey", "#b4b4b4")]
    assert main(["count", str(black_and_white), "--backs", *references]) == 0
    error = capsys.readouterr().err
    assert f"{black_and_white} is black and white: backs are told apart by colour" in error
    # A script asking for a sure count is told by the exit status, the counts printed still.
    strict = ["--backs", *references, "--json", "--strict"]
    assert main(["count", str(black_and_white), *strict]) == DOUBTFUL_COUNT_STATUS
    assert set(json.loads(capsys.readouterr().out)) == {"grey", "#b4b4b4"}
    assert main(["count", str(photo), *strict]) == 0
    assert json.loads(capsys.readouterr().out) == {"grey": 3, "#b4b4b4": 3}
    assert without_colour(read_image(black_and_white)) and not without_colour(colour)
    faded = cv2.addWeighted(grey, 0.85, colour, 0.15, 0.0)  # a photo of faint colour
    assert not without_colour(faded)
    # Nearly black is too dark to tell, not black and white; dim grey is black and white.
    assert not without_colour(np.full((72, 128, 3), 12, np.uint8))
    assert without_colour(np.full((72, 128, 3), 40, np.uint8))


def test_count_cli_warns_when_cards_lie_mostly_under_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Eight cards in a row, each laid 25 mm right of the last: each shows 40% of its width.
    row = [
        CardPose("AS", i % 2, 100 + 25 * i, 180 + 3 * (i % 3), 2.0 * (i % 3) - 2, False)
        for i in range(8)
    ]
    count_spread(tmp_path, capsys, poses=row)
    error = capsys.readouterr().err
    assert "lie mostly under others, so cards are likely missed" in error
    assert "back not given" not in error  # slivers of cards say nothing of a missing back


def test_count_cli_names_the_cards_left_face_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The fixture's six cards, the third and sixth left face up: 7H and QS.
    left_up = {2: "7H", 5: "QS"}
    poses = [
        CardPose(
            left_up.get(i, "AS"),
            i % 2,
            100 + 90 * i,
            180 + 10 * (i % 3),
            8.0 * i - 20,
            i in left_up,
        )
        for i in range(6)
    ]
    count_spread(tmp_path, capsys, poses=poses)
    error = capsys.readouterr().err
    assert "2 counted cards lie face up (7H QS): every card is counted for a back" in error


def test_count_cli_warns_when_parts_looking_like_cards_are_left_uncounted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the count measures is tested in `tests/vision/test_count.py` and the benchmark
    (a heap the detector half misses is too chaotic a fixture); here, what the command does
    with it: a warning, and the parts tinted red where --annotate draws the cards."""
    part = np.array([[[40, 40]], [[90, 40]], [[90, 80]], [[40, 80]]], np.int32)

    def with_a_part_uncounted(*args: object, **kwargs: object) -> CountResult:
        counted = count_backs(*args, **kwargs)  # type: ignore[arg-type]
        return counted._replace(uncounted=2 * UNCOUNTED_CARDS_MAX, uncounted_outlines=(part,))

    monkeypatch.setattr("nerts.commands.count.count_backs", with_a_part_uncounted)
    annotated = tmp_path / "counted.png"
    counts = count_spread(tmp_path, capsys, options=("--annotate", str(annotated)))
    error = capsys.readouterr().err
    assert counts == {"red": 3, "blue": 3}
    assert "look like cards lie outside every card counted (0.2 cards' worth" in error
    assert "tinted red with --annotate" in error and "mostly under others" not in error
    drawn = read_image(annotated)
    assert drawn[60, 65].tolist() != read_image(tmp_path / "spread.png")[60, 65].tolist()
    assert drawn[40, 65].tolist() == list(UNCOUNTED_BGR)  # its outline


def test_count_cli_warns_of_cards_of_a_back_not_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = ("red:lattice", "blue:dots", "green:checks")
    assert count_spread(tmp_path, capsys, specs=specs) == {"red": 2, "blue": 2, "green": 2}
    assert "back not given" not in capsys.readouterr().err
    # Without the green back, its cards are counted for the nearest given, and said unlike.
    references = [f"{name}={tmp_path / name}.png" for name in ("red", "blue")]
    assert main(["count", str(tmp_path / "spread.png"), "--json", "--backs", *references]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == {"red": 2, "blue": 4}
    assert "2 counted cards look like a back not given" in err
    # identify --backs names their backs as the count does, and says so too.
    photo = str(tmp_path / "spread.png")
    assert main(["identify", photo, "--json", "--backs", *references]) == 0
    out, err = capsys.readouterr()
    backs = sorted(card["back"] for card in json.loads(out)[photo])
    assert backs == ["blue", "blue", "blue", "blue", "red", "red"]
    assert err == (
        f"warning: {photo}: 2 face-down cards look like a back not given (marked '?' with "
        "--annotate): if a player's back is missing from --backs, their cards were named for "
        "another\n"
    )


def test_count_cli_warns_of_a_back_no_card_was_counted_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert count_spread(tmp_path, capsys) == {"red": 3, "blue": 3}
    assert "no card counted" not in capsys.readouterr().err
    # A reference of a back not in the spread: another deck's, or a wrong file.
    green = tmp_path / "green.png"
    cv2.imwrite(str(green), back_from_spec("green:checks").image)
    references = [f"{name}={tmp_path / name}.png" for name in ("red", "blue", "green")]
    assert main(["count", str(tmp_path / "spread.png"), "--json", "--backs", *references]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == {"red": 3, "blue": 3, "green": 0}
    assert (
        f"no card counted for 'green': if 'green' played cards to the foundations this round, "
        f"check the reference ({green}): a colour photo or design file of that back"
    ) in err


def test_count_and_identify_say_when_a_photo_is_too_small_to_find_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photo, back = tmp_path / "preview.jpg", tmp_path / "red.png"
    cv2.imwrite(str(photo), np.full((90, 160, 3), (60, 120, 40), np.uint8))  # green felt
    cv2.imwrite(str(back), back_from_spec("red:lattice").image)
    said = (
        f"no card found in {photo}: it is only 160 x 90 pixels, too small for cards to be "
        "found: give the photo itself, not a preview (1280 pixels wide or more)"
    )
    assert main(["count", str(photo), "--json", "--backs", f"red={back}"]) == 0
    assert said in capsys.readouterr().err
    # A script asking for a sure count learns that none was found (a lens cap, a preview).
    strict = ["count", str(photo), "--json", "--strict", "--backs", f"red={back}"]
    assert main(strict) == DOUBTFUL_COUNT_STATUS
    assert json.loads(capsys.readouterr().out) == {"red": 0}
    assert main(["identify", str(photo)]) == 0
    assert said in capsys.readouterr().err


def _marked(doubts: dict[int, str], unlike: set[int], crowded: float = 0.0) -> CountFunction:
    """`count_backs` with the fixture's cards (left to right) marked: `doubts`, a back the
    photo's own cards name instead; `unlike`, like a back not given; `crowded` as given."""

    def count(*args: object, **kwargs: object) -> CountResult:
        counted = count_backs(*args, **kwargs)  # type: ignore[arg-type]
        cards = sorted(counted.cards, key=lambda card: float(card.quad[:, 0].mean()))
        cards = [
            replace(card, back_also=doubts.get(n), back_unlike=n in unlike)
            for n, card in enumerate(cards)
        ]
        return counted._replace(cards=cards, crowded=crowded)

    return count


def test_count_cli_warns_of_cards_whose_back_is_in_doubt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the decision is made is tested in `tests/vision/test_back_doubts.py` (a rendered
    spread that raises it is too fragile a fixture); here, what the command says of it: each
    pair of backs with its number of cards, and nothing in a spread it asks to lay wider."""
    doubts = {0: "blue", 2: "blue", 1: "red"}  # the fixture's backs alternate red, blue
    monkeypatch.setattr("nerts.commands.count.count_backs", _marked(doubts, set()))
    assert count_spread(tmp_path, capsys) == {"red": 3, "blue": 3}
    error = capsys.readouterr().err
    assert (
        "1 card counted for blue looks more like red's cards in this photo; 2 cards counted "
        "for red look more like blue's cards in this photo (marked '?' with --annotate)"
    ) in error
    monkeypatch.setattr("nerts.commands.count.count_backs", _marked(doubts, set(), 1.0))
    count_spread(tmp_path, capsys)
    error = capsys.readouterr().err
    assert "mostly under others" in error and "look more like" not in error


def test_count_cli_says_one_card_looks_like_a_back_not_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("nerts.commands.count.count_backs", _marked({}, {4}))
    count_spread(tmp_path, capsys)
    assert "1 counted card looks like a back not given" in capsys.readouterr().err


def test_count_cli_marks_no_card_in_a_spread_it_asks_to_lay_wider(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Too close, it warns of that alone: the drawing marks no card '?' either."""
    drawings = {}
    for name, marks, crowded in (
        ("plain", ({}, set()), 0.0),
        ("marked", ({0: "blue"}, {3}), 0.0),
        ("plain, too close", ({}, set()), 1.0),
        ("marked, too close", ({0: "blue"}, {3}), 1.0),
    ):
        monkeypatch.setattr("nerts.commands.count.count_backs", _marked(*marks, crowded))
        annotated = tmp_path / f"{name}.png"
        count_spread(tmp_path, capsys, options=("--annotate", str(annotated)))
        drawings[name] = read_image(annotated)
    assert not np.array_equal(drawings["plain"], drawings["marked"])
    assert np.array_equal(drawings["plain, too close"], drawings["marked, too close"])


def test_count_cli_does_not_count_the_tables_markers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert count_spread(tmp_path, capsys, markers=True) == {"red": 3, "blue": 3}
    assert len(table_markers(read_image(tmp_path / "spread.png"))) == 4
    assert TABLE_MARKER_DICTIONARY == MARKER_DICTIONARY  # the markers the simulator draws


def test_identify_cli_names_the_backs_of_face_down_cards_given_backs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    count_spread(tmp_path, capsys)  # writes the spread and the two backs' files
    photo = tmp_path / "spread.png"
    references = [f"{name}={tmp_path / name}.png" for name in ("red", "blue")]
    assert main(["identify", str(photo), "--json", "--backs", *references]) == 0
    cards = json.loads(capsys.readouterr().out)[str(photo)]
    backs = [c["back"] for c in cards if not c["face_up"]]
    assert sorted(backs) == ["blue"] * 3 + ["red"] * 3
    assert main(["identify", str(photo), "--backs", *references]) == 0
    assert "backs: " in capsys.readouterr().out


def test_count_cli_cuts_a_photographed_reference_to_its_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    annotated = tmp_path / "counted.png"
    options = ("--annotate", str(annotated))
    counts = count_spread(tmp_path, capsys, photographed=True, options=options)
    assert counts == {"red": 3, "blue": 3}
    # Beside the photo, the legend shows each back as it was matched.
    assert read_image(annotated).shape[1] > 1280


def test_count_cli_warns_of_backs_it_cannot_tell_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    back = back_from_spec("blue:dots").image
    photo, twin, other = (tmp_path / f"{name}.png" for name in ("photo", "twin", "other"))
    for path in (twin, other):
        cv2.imwrite(str(path), back)
    cv2.imwrite(str(photo), np.full((360, 640, 3), 90, np.uint8))
    assert main(["count", str(photo), "--backs", f"a={twin}", f"b={other}"]) == 0
    assert "backs 'a' and 'b' look the same" in capsys.readouterr().err
    cv2.imwrite(str(other), back_from_spec("red:lattice").image)
    assert main(["count", str(photo), "--backs", f"a={twin}", f"b={other}"]) == 0
    assert "look the same" not in capsys.readouterr().err


def test_count_cli_warns_of_a_reference_washed_out_to_white(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photo, blown, fine = (tmp_path / f"{name}.png" for name in ("photo", "blown", "fine"))
    cv2.imwrite(str(photo), np.full((360, 640, 3), 90, np.uint8))
    back = back_from_spec("blue:dots").image
    cv2.imwrite(str(fine), back)
    washed = back.copy()
    height, width = washed.shape[:2]
    washed[height // 10 : -height // 10, width // 10 : -width // 10] = 255  # all but the rim
    cv2.imwrite(str(blown), washed)
    assert main(["count", str(photo), "--backs", f"a={blown}", f"b={fine}"]) == 0
    warnings = capsys.readouterr().err
    assert f"back 'a': 100% of the back in {blown} is pure white" in warnings
    assert "back 'b'" not in warnings


def test_count_cli_says_which_reference_it_uses_as_given_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    noise = np.random.default_rng(0).integers(0, 255, (300, 400, 3), dtype=np.uint8)
    photo, reference = tmp_path / "photo.png", tmp_path / "noise.png"
    cv2.imwrite(str(photo), np.full((360, 640, 3), 90, np.uint8))
    cv2.imwrite(str(reference), noise)
    assert main(["count", str(photo), "--backs", f"a={reference}"]) == 0
    warning = capsys.readouterr().err
    assert f"back 'a': {reference} is used as given (no card found clearly in it)" in warning
