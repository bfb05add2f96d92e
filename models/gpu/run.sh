#!/bin/bash
# On a GPU machine, from the repository root: trains the card and the index-corner detector
# side by side, from the published weights, on the renders packed by `python -m models.gpu.pack`
# (.gpu/data and .gpu/labels.txz), copying their weights to $OUT as they come (a run cut off
# keeps its last ones). Needs torch and ultralytics; a machine without ultralytics gets its
# wheels from .whl/. Then, here: `python -m models.train publish cards --run RUN` (RUN holding
# weights/best.pt and results.csv from $OUT), the same for corners, then
# `python -m models.train quantize --models cards corners` (the runtime reads them in 8 bits).
# HOURS bounds each run's training time; ultralytics fits the epochs to it.
set -u
export PYTHONUNBUFFERED=1
PY=${PY:-python3}
DEVICE=${DEVICE:-0}
HOURS=${HOURS:-0.125}
EPOCHS=${EPOCHS:-60}
WORKERS=${WORKERS:-8}
BATCH=${BATCH:-64}
SITE=${SITE:-/tmp/site}
D=${D:-/tmp/d}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" "$SITE/polars"
if ls .whl/*.whl >/dev/null 2>&1; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .whl/*.whl || exit 1
fi
cp models/gpu/polars_shim.py "$SITE/polars/__init__.py"
export PYTHONPATH=$SITE:$PWD
rm -rf "$D" /tmp/runs /tmp/labels
mkdir -p /tmp/labels && tar xJf .gpu/labels.txz -C /tmp/labels || exit 1
for kind in cards corners; do
  mkdir -p "$D/$kind"
  cp -r .gpu/data/images "$D/$kind/images"
  cp -r "/tmp/labels/$kind" "$D/$kind/labels"
done
head='kpt_shape: [4, 3]
flip_idx: [1, 0, 3, 2]
kpt_oks_sigmas: [0.04, 0.04, 0.04, 0.04]'
printf 'path: %s\ntrain: [images/train, images/edje]\nval: images/val\n%s\nnames:\n  0: card_face_up\n  1: card_face_down\n' "$D/cards" "$head" > "$D/cards/data.yaml"
printf 'path: %s\ntrain: images/train\nval: images/val\n%s\nnames:\n  0: index_corner\n' "$D/corners" "$head" > "$D/corners/data.yaml"
nvidia-smi -L 2>/dev/null
$PY -c "import torch, ultralytics; print('torch', torch.__version__, torch.cuda.is_available(), 'ultralytics', ultralytics.__version__)"
train() {  # kind, init weights
  $PY -m models.train "$1" --data "$D/$1/data.yaml" --init "$2" --epochs "$EPOCHS" --hours "$HOURS" \
    --batch "$BATCH" --device "$DEVICE" --workers "$WORKERS" --warmup-epochs 1 --runs /tmp/runs \
    --train-only > "$OUT/$1.log" 2>&1
  echo "$1 finished: $?" >> "$OUT/$1.log"
}
train cards models/cards.pt & cards_pid=$!
train corners models/index_corners.pt & corners_pid=$!
save() {
  for kind in cards corners; do
    w=/tmp/runs/$kind/weights
    cp "/tmp/runs/$kind/results.csv" "$OUT/${kind}_results.csv" 2>/dev/null
    for which in best last; do
      [ -f "$w/$which.pt" ] || continue
      $PY -c "import sys; from ultralytics.utils.torch_utils import strip_optimizer as s; s(sys.argv[1], sys.argv[2])" \
        "$w/$which.pt" "$OUT/${kind}_$which.pt.part" >/dev/null 2>&1 && mv "$OUT/${kind}_$which.pt.part" "$OUT/${kind}_$which.pt"
      rm -f "$OUT/${kind}_$which.pt.part"
    done
  done
}
running() { kill -0 $cards_pid 2>/dev/null || kill -0 $corners_pid 2>/dev/null; }
while running; do
  for _ in 1 2 3 4 5 6 7 8 9; do sleep 5; running || break; done
  echo "$(date +%T) gpu: $(nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader 2>/dev/null)" \
    "epochs: $(($(wc -l < /tmp/runs/cards/results.csv 2>/dev/null || echo 1) - 1)) / $(($(wc -l < /tmp/runs/corners/results.csv 2>/dev/null || echo 1) - 1))"
  save
done
save
ls -la "$OUT"
for f in "$OUT"/*_results.csv; do tail -n 3 "$f"; done
