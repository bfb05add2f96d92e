r"""Train and export the recognition models: `all` makes every one, one step at a time.

    python -m models.train all                  # everything, published to models/; resumable
    python -m models.train all --images 8 --card-epochs 1 --classifier-epochs 1 \
        --work build/smoke --models-dir build/smoke/models      # a smoke test, published apart

Or one documented command per step:

    python -m models.train data --out build/renders --count 1500        # labelled renders
    python -m models.train crops --renders build/renders --out build/crops \
        --detector models/cards.onnx         # also cut where the detector puts corners
    python -m models.train cards --data build/renders/data.yaml --epochs 30
    python -m models.train classifier --data build/crops --epochs 10
    python -m models.train mix-crops --out build/mix --train build/crops build/old:4  # shares
    python -m models.train cards ... --init models/cards.pt   # more epochs on top of the last
    python -m models.train edje --out build/edje   # real photos, boxes only, for the detector
    python -m models.train mix --out build/mix.yaml --renders build/r1 build/r2 --real build/edje
    python -m models.train mix --out build/corners/data.yaml --renders build/r1 --index-corners
    python -m models.train corners --data build/corners/data.yaml --epochs 30  # index corners
    python -m models.train face-crops --renders build/renders --out build/faces \
        --detector models/cards.onnx                        # whole cards, for the face classifier
    python -m models.train faces --data build/faces --epochs 10
    python -m models.train quantize    # classifier and detectors in 8 bits, as the runtime reads

Each training run keeps its checkpoints under --runs (default build/runs); run the same command
with --resume added to continue an interrupted run (without it, it stops rather than start over).
The best weights are copied to models/ with their ONNX export and a metrics file, which the model
cards quote. Needs the `train` extra (torch, ultralytics); nothing is downloaded: models are built
from their yaml.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from models import MODELS_DIR, steps
from models.dataset import MIN_CARD_LENGTH_PX
from models.inputs import check_inputs
from models.quantize import CALIBRATION_RENDERS
from models.runs import CARDS_IMGSZ, DEFAULT_RUNS, DEFAULT_WARMUP_EPOCHS, PUBLISHED, REPO
from models.train_all import RENDER_SIZE, command_all
from simulator.training import fraction, frame_size, positive, share, weight, whole_number
from simulator.training_scenes import SceneMix
from vision.geometry import FACE_CROP_PX, INDEX_CROP_PX, INDEX_WINDOW_MM

DEFAULT_SHARED = REPO.parent / "shared"
SHARED_PARTS = ("decks", "real")
"""What the shared/ folder holds: one of them tells it from a folder given in its place."""


def _add_data(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    data = sub.add_parser("data", help="render labelled training images from decks/train")
    data.add_argument(
        "--out", required=True, help="folder for the renders (images/, labels/, data.yaml)"
    )
    data.add_argument(
        "--count",
        type=int,
        default=1500,
        help="renders to make, every few a validation one (default: %(default)s; 2 or more)",
    )
    data.add_argument(
        "--size",
        type=frame_size,
        default=RENDER_SIZE,
        metavar="WxH",
        help="frame size in pixels (default: %(default)s)",
    )
    data.add_argument(
        "--shared", default=str(DEFAULT_SHARED), help="the shared/ folder with decks/"
    )
    data.add_argument(
        "--procedural",
        type=whole_number(0),
        default=0,
        metavar="N",
        help="also draw N seeded designs (simulator/procedural.py) for typeface variety",
    )
    data.add_argument(
        "--truetype",
        type=whole_number(0),
        default=0,
        metavar="N",
        help="also draw N seeded designs in real typefaces (simulator/typefaces.py; needs the "
        "train extra's matplotlib fonts)",
    )
    data.add_argument(
        "--count-spreads",
        type=share,
        default=SceneMix().count_spread_probability,
        metavar="SHARE",
        help="share of scenes that are end-of-round count spreads of face-down cards "
        "(default %(default)s)",
    )
    data.add_argument(
        "--hand-fans",
        type=weight,
        default=SceneMix().hand_fan_weight,
        metavar="WEIGHT",
        help="weight of face-up hands fanned sideways among the piles (default %(default)s; "
        "0 gives the scenes of renders made before them)",
    )
    data.add_argument(
        "--tight-fans",
        type=share,
        default=SceneMix().tight_fan_share,
        metavar="SHARE",
        help="share of those hands fanned 5-9 mm apart and stepped down the card, as bridge "
        "hands are photographed (default %(default)s, the scenes of renders made before)",
    )
    data.add_argument(
        "--cast-shadows",
        type=share,
        default=0.0,
        metavar="SHARE",
        help="share of frames half in the shadow of someone leaning over the table (default "
        "%(default)s, as renders made before it)",
    )
    data.set_defaults(handler=steps.command_data)


def _add_publish(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    publish = sub.add_parser("publish", help="publish the best weights of a run to models/")
    publish.add_argument("model", choices=sorted(PUBLISHED))
    publish.add_argument("--run", required=True, help="the run folder, e.g. build/runs/cards")
    publish.add_argument(
        "--models-dir", default=str(MODELS_DIR), help="where to publish (default %(default)s)"
    )
    publish.set_defaults(handler=steps.command_publish)


def _add_quantize(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    quantize = sub.add_parser(
        "quantize",
        help="the published index classifier and detectors in 8 bits (*.int8.onnx), what the "
        "runtime reads; calibrated on renders of decks/train",
    )
    quantize.add_argument(
        "--models",
        nargs="+",
        choices=list(steps.QUANTIZABLE),
        default=list(steps.QUANTIZABLE),
        help="which to make (default: all three); a model whose 8-bit file is not made again "
        "keeps the one it has",
    )
    quantize.add_argument(
        "--models-dir",
        default=str(MODELS_DIR),
        help="the folder of the exports, where the 8-bit files go (default %(default)s)",
    )
    quantize.add_argument("--shared", default=str(DEFAULT_SHARED), help="the shared/ folder")
    quantize.add_argument(
        "--renders",
        type=whole_number(1),
        default=CALIBRATION_RENDERS,
        help="renders of decks/train to calibrate with: the classifier on their index crops, "
        "the detectors on the photos (default %(default)s)",
    )
    quantize.set_defaults(handler=steps.command_quantize)


def _add_all(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    every = sub.add_parser(
        "all",
        help="renders, crops, every model, published: one resumable command",
        description="Makes every model from nothing: renders of decks/train, the edje photos, "
        "the detectors' data, the classifiers' crops, the four trainings, their exports and "
        "8-bit files, published to --models-dir (models/ by default: the committed files are "
        "replaced). Each finished step leaves a .done file in --work; run the same command "
        "again after a stop and it skips those and resumes a training from its last epoch "
        "(with other settings it stops and says which). A smoke run in minutes: --images 8 "
        "--card-epochs 1 --classifier-epochs 1 --work build/smoke --models-dir "
        "build/smoke/models.",
    )
    every.add_argument(
        "--work",
        default=str(REPO / "build" / "all"),
        help="working folder: renders, crops, runs and a .done file per finished step "
        "(default %(default)s)",
    )
    every.add_argument(
        "--images",
        type=whole_number(2),
        default=4000,
        help="renders to make, 2 or more: some go to the val split (default %(default)s)",
    )
    every.add_argument(
        "--procedural",
        type=whole_number(0),
        default=40,
        help="seeded extra designs (simulator/procedural.py; default %(default)s)",
    )
    every.add_argument(
        "--truetype",
        type=whole_number(0),
        default=40,
        help="seeded extra designs in real typefaces (simulator/typefaces.py; default %(default)s)",
    )
    every.add_argument(
        "--cast-shadows",
        type=share,
        default=0.5,
        metavar="SHARE",
        help="share of renders half in someone's shadow (default %(default)s)",
    )
    every.add_argument(
        "--card-epochs",
        type=int,
        default=60,
        help="epochs of the card and the index-corner detector (default %(default)s)",
    )
    every.add_argument(
        "--classifier-epochs",
        type=int,
        default=20,
        help="epochs of the index and the face classifier (default %(default)s)",
    )
    every.add_argument(
        "--calibration-renders",
        type=whole_number(1),
        default=CALIBRATION_RENDERS,
        help="renders of decks/train that calibrate the 8-bit models: their index crops the "
        "classifier's, their photos the detectors' (default %(default)s)",
    )
    every.add_argument(
        "--device", default="cpu", help="cpu, or a CUDA device such as 0 (default %(default)s)"
    )
    every.add_argument(
        "--models-dir", default=str(MODELS_DIR), help="where to publish (default %(default)s)"
    )
    every.add_argument(
        "--shared", default=str(DEFAULT_SHARED), help="the shared/ folder (default %(default)s)"
    )
    every.set_defaults(handler=command_all)


def _add_edje(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    edje = sub.add_parser(
        "edje", help="real photos (edje_tf_cards/images/train) as detector data: boxes only"
    )
    edje.add_argument("--out", required=True, help="the data folder to write (for 'mix --real')")
    edje.add_argument("--shared", default=str(DEFAULT_SHARED), help="the shared/ folder")
    edje.set_defaults(handler=steps.command_edje)


def _add_mix(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mix = sub.add_parser("mix", help="one detector data.yaml over several data folders")
    mix.add_argument(
        "--out", required=True, metavar="DATA.yaml", help="the data.yaml to write (for --data)"
    )
    mix.add_argument("--renders", required=True, nargs="+", help="render folders ('data')")
    mix.add_argument("--real", nargs="*", default=[], help="real-photo folders ('edje')")
    mix.add_argument(
        "--index-corners",
        action="store_true",
        help="data for the index-corner detector ('corners'): every readable index window, "
        "labelled from each render's meta/ "
        "(copies each render folder beside DATA.yaml; not with --real)",
    )
    mix.set_defaults(handler=steps.command_mix)


def _add_mix_crops(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    blend = sub.add_parser(
        "mix-crops",
        help="one classifier dataset from shares of several crop folders (hard links)",
        description="Example: mix-crops --out build/crops_mix --train build/crops_new "
        "build/crops_old:4 --val build/crops_new:2 (every 4th crop of crops_old).",
    )
    blend.add_argument("--out", required=True, help="the dataset folder (replaced)")
    blend.add_argument(
        "--train", required=True, nargs="+", metavar="FOLDER[:N]", help="every Nth train crop"
    )
    blend.add_argument(
        "--val", nargs="+", metavar="FOLDER[:N]", help="every Nth val crop (default: the first)"
    )
    blend.set_defaults(handler=steps.command_mix_crops)


def _add_crops(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    crops = sub.add_parser("crops", help="cut index-corner crops from renders for the classifier")
    crops.add_argument("--renders", required=True, nargs="+", help="render folders")
    crops.add_argument(
        "--out", required=True, help="the crop folder to write (for 'classifier --data')"
    )
    crops.add_argument(
        "--detector",
        metavar="CARDS.onnx",
        help="also cut each card where this detector puts its corners, "
        "so that the classifier learns the detector's own corner errors",
    )
    crops.add_argument(
        "--corners",
        metavar="INDEX_CORNERS.onnx",
        help="also cut each card where this index-corner detector's windows imply it lies",
    )
    crops.add_argument(
        "--window-mm",
        nargs=2,
        type=positive,
        default=INDEX_WINDOW_MM,
        metavar=("WIDTH", "HEIGHT"),
        help="size of the corner cut that holds the index; the classifier trained on these "
        "crops records it and the runtime cuts the same (default: %(default)s)",
    )
    crops.add_argument(
        "--min-card-length",
        type=float,
        default=MIN_CARD_LENGTH_PX,
        metavar="PX",
        help="cut no crops of cards shorter than this in the render (default: %(default)s)",
    )
    crops.set_defaults(handler=steps.command_crops)


def _add_face_crops(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    faces = sub.add_parser(
        "face-crops", help="cut whole-card crops from renders for the face classifier"
    )
    faces.add_argument("--renders", required=True, nargs="+", help="render folders")
    faces.add_argument("--out", required=True, help="the crop folder to write (for 'faces --data')")
    faces.add_argument(
        "--detector",
        metavar="CARDS.onnx",
        help="also cut each card where this detector puts its corners",
    )
    faces.set_defaults(handler=steps.command_face_crops)


def _add_training_steps(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The four training steps: alike but for their data, input size and batch."""
    for name, handler, imgsz, batch, data_help in (
        ("cards", steps.command_cards, CARDS_IMGSZ, 16, "a data.yaml from 'data' or 'mix'"),
        ("corners", steps.command_corners, CARDS_IMGSZ, 16, "data.yaml from 'mix --index-corners'"),
        ("classifier", steps.command_classifier, INDEX_CROP_PX, 128, "a crop folder from 'crops'"),
        ("faces", steps.command_faces, FACE_CROP_PX, 128, "a crop folder from 'face-crops'"),
    ):
        step = sub.add_parser(name, help=f"train and export the {name} model")
        step.add_argument("--data", required=True, help=data_help)
        step.add_argument("--epochs", type=int, default=30, help="default: %(default)s")
        step.add_argument(
            "--imgsz", type=int, default=imgsz, help="input side in pixels (default: %(default)s)"
        )
        step.add_argument("--batch", type=int, default=batch, help="default: %(default)s")
        step.add_argument(
            "--fraction",
            type=fraction,
            default=1.0,
            help="share of the data to use (above 0, at most 1)",
        )
        step.add_argument(
            "--runs", default=str(DEFAULT_RUNS), help="where runs keep their epochs and logs"
        )
        step.add_argument("--resume", action="store_true", help="continue the last run")
        step.add_argument("--init", metavar="WEIGHTS.pt", help="start from these weights")
        step.add_argument(
            "--warmup-epochs",
            type=weight,
            default=DEFAULT_WARMUP_EPOCHS,
            help="epochs over which the learning rate rises to its full value (default: "
            "%(default)s); short runs continuing trained weights spend most of 3 warming up",
        )
        step.add_argument(
            "--lr0",
            type=positive,
            help="AdamW's learning rate (default: ultralytics chooses; for a few epochs on top "
            "of well-trained weights a tenth of its choice keeps what they learnt)",
        )
        step.add_argument("--models-dir", default=str(MODELS_DIR), help="where to publish")
        step.add_argument(
            "--train-only",
            action="store_true",
            help="keep the run's weights without exporting or publishing them (a machine "
            "without the export's tools); publish them later with 'publish'",
        )
        step.add_argument(
            "--hours",
            type=positive,
            metavar="H",
            help="stop after this much training time, fitting the epochs to it "
            "(default: the epochs alone decide)",
        )
        step.add_argument("--device", default="cpu", help="cpu, or a CUDA device such as 0")
        step.add_argument(
            "--workers",
            type=whole_number(0),
            help="data loading processes, 0 loading in the training's own (default: 2 on cpu, "
            "every core on a GPU; give each of two runs sharing a machine half)",
        )
        step.set_defaults(handler=handler)


def build_parser() -> argparse.ArgumentParser:
    """The command line: one subcommand per step, each added by its own `_add_*`."""
    parser = argparse.ArgumentParser(
        prog="python -m models.train",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="step", required=True)
    _add_data(sub)
    _add_publish(sub)
    _add_quantize(sub)
    _add_all(sub)
    _add_edje(sub)
    _add_mix(sub)
    _add_mix_crops(sub)
    _add_crops(sub)
    _add_face_crops(sub)
    _add_training_steps(sub)
    for step_parser in sub.choices.values():
        step_parser.add_argument(
            "--seed",
            type=whole_number(0),
            default=0,
            help="same seed, same result (default: %(default)s)",
        )
        step_parser.set_defaults(step_parser=step_parser)  # a step's mistakes, with its usage
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    parser: argparse.ArgumentParser = args.step_parser
    check_inputs(parser, args)
    shared = getattr(args, "shared", None)
    if shared is not None and not Path(shared).is_dir():
        parser.error(
            f"--shared {shared}: no such folder (the shared/ folder with decks/ and real/)"
        )
    if shared is not None and not any((Path(shared) / part).is_dir() for part in SHARED_PARTS):
        parser.error(
            f"--shared {shared}: no decks/ or real/ in it (give the shared/ folder itself)"
        )
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    with steps.train_extra_needed(args.step):  # torch, ultralytics, onnx: one line, no traceback
        try:
            args.handler(args)
        except KeyboardInterrupt:
            parser.exit(INTERRUPTED_STATUS, f"{parser.prog}: interrupted: {RESUME_SAID}\n")
        except OSError as error:
            if error.filename is None:  # not about a path the user gave: a fault to show whole
                raise
            parser.exit(1, f"{parser.prog}: error: {error.filename}: {error.strerror}\n")


INTERRUPTED_STATUS = 130
"""The exit status of a run stopped by Ctrl-C, as a shell gives one killed by SIGINT."""
RESUME_SAID = (
    "run the same command again to go on: `all` skips the steps done and resumes a training "
    "from its last epoch; a training step run alone does so with --resume added; other steps "
    "start over"
)


if __name__ == "__main__":
    main()
