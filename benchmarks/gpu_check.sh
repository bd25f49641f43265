#!/usr/bin/env bash
# The checks that need a machine with a GPU and 16 cores, offline, in one bounded run (each step
# has its own limit, so a slow one cannot eat the next; every step's JSON line goes to stdout and
# to $OUT/gpu_check.jsonl, or ./gpu_check.jsonl). CHECK picks which:
#
# CHECK=scale (the default; issue 57, 565 s of bounded steps):
#   1. AFLite 1M × 768 on CUDA (m = 64, k = 1 %, to 50 %): seconds and GPU memory (target ≤ 5 s);
#   2. AFLite 10M × 768 float16, memory-mapped and streamed to CUDA: seconds, GPU and host memory
#      (target ≤ 90 s); then, a step of its own, a random 1M of those rows on the CPU engine (16
#      threads) and on CUDA: the first phase's p̃ side by side, the planted rows each removed, the
#      retained sets' Jaccard;
#   3. the CPU engine at 100k on 1 thread and on 16, where each part's time goes (target ≥ 8×);
#   4. `certify` at 1M rows on CUDA (target ≤ 60 s), with its steps' seconds; it needs .devdata/
#      and .whl/ (made here by `bash benchmarks/prepare_device.sh`), carried:
#        run(command="bash benchmarks/gpu_check.sh", carry=[".devdata", ".whl"], timeout_s=600)
# CHECK=devices (issue 32's check, 2026-11-27, about 570 s): CUDA, CuPy and PyTorch's CPU against the
#   engine at 20k, 100k with the engine on 1 and every thread, 1M on CUDA, the engine's sections, the
#   straightforward algorithm on the 20k run, the cartography and the evaluation's linear families.
set -uo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
LOG="${OUT:-.}/gpu_check.jsonl"
SITE=/tmp/site
wheels=(benchmarks/wheels/array_api_compat-*.whl)
[ -d .whl ] && wheels+=(.whl/*.whl)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" "${wheels[@]}" \
  || { echo "could not install the carried wheels"; exit 1; }
# the project itself, as it installs (the benchmarks import artifact_lens, which a checkout is only once installed)
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-cache-dir --target "$SITE" . \
  || { echo "could not install the project (setuptools is needed)"; exit 1; }
# the machine's own packages first (its NumPy, PyTorch…), the carried ones after
export PYTHONPATH="$PWD:$(python3 -c 'import site; print(":".join(site.getsitepackages()))'):$SITE"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
echo "cpus: $(nproc)"
python3 -c "import numpy, scipy, sklearn; print('numpy', numpy.__version__, 'scipy', scipy.__version__, 'sklearn', sklearn.__version__)"
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" || true
python3 -c "import cupy; print('cupy', cupy.__version__)" || true

step() {   # step SECONDS ARGS...: one benchmark, bounded, its JSON appended to the log
  local limit=$1; shift
  timeout "$limit" python3 "$@" | tee -a "$LOG" || echo "{\"step\": \"$*\", \"failed_or_timed_out_after_s\": $limit}" | tee -a "$LOG"
}

case "${CHECK:-scale}" in
  scale)
    step 45 benchmarks/backends_bench.py --sizes 1000000 --backends cuda
    big=(benchmarks/scale_bench.py --rows 10000000 --dtype float16 --mode engine --device cuda --dir /tmp/artifact-lens-scale)
    step 200 "${big[@]}"
    step 130 "${big[@]}" --compare 1000000 --compare-only
    step 70 benchmarks/engine_sections.py --rows 100000 --jobs "1,$(nproc)"
    if [ -d .devdata ]; then
      step 120 benchmarks/certify_bench.py --data-dir .devdata --rows 1000000 --devices cuda
    else
      echo '{"step": "certify_bench", "skipped": "no .devdata/: run benchmarks/prepare_device.sh and carry it"}' | tee -a "$LOG"
    fi
    ;;
  devices)
    step 100 benchmarks/backends_bench.py --sizes 20000 --backends numpy-1,numpy-all,cuda,cupy,torch-cpu
    step 140 benchmarks/backends_bench.py --sizes 100000 --backends numpy-all,numpy-1,cuda,cupy
    step 120 benchmarks/backends_bench.py --sizes 1000000 --backends cuda
    step 60 benchmarks/engine_sections.py --rows 100000 --jobs "$(nproc)"
    step 60 benchmarks/aflite_bench.py --only whole20k
    step 90 benchmarks/devices_bench.py --rows 100000 --devices numpy,cuda
    ;;
  *) echo "CHECK=${CHECK} is not a check: scale or devices"; exit 2 ;;
esac
