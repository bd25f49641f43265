#!/usr/bin/env bash
# Issue 32's check on a machine with a GPU, as it is: no network (PyTorch, CuPy, NumPy, SciPy,
# scikit-learn and pandas are there; array-api-compat travels beside this script as a wheel).
# Under 10 minutes (570 s of bounded steps), each bounded so a slow one cannot eat the next:
#   1. 20k × 768: the CPU engine (1 thread, every core), PyTorch on CUDA, CuPy and PyTorch on the
#      CPU on the same data and seed: the retained sets' Jaccard with the engine's, the seconds;
#   2. 100k × 768 (m = 64, k = 1 %): the same, bar PyTorch on the CPU: the GPU, and the engine's
#      scaling from 1 thread to every core;
#   3. 1M × 768 on CUDA: seconds and the GPU's peak memory;
#   4. where a 100k run of the CPU engine on every core spends its time (engine_sections.py);
#   5. the straightforward algorithm (one scikit-learn model per partition, one BLAS thread) on
#      the 20k run, the baseline of the issue's "≥ 100× on one H100";
#   6. the cartography's training (linear and MLP, 3 epochs, 2 folds) and the evaluation's linear
#      families at 100k × 768 on the CPU and on CUDA: seconds, and how far the GPU's answers are.
# Every step's JSON line goes to stdout and to $OUT/gpu_check.jsonl (or ./gpu_check.jsonl).
#
#   bash benchmarks/gpu_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
LOG="${OUT:-.}/gpu_check.jsonl"
python3 -m pip install -q --no-index --no-deps benchmarks/wheels/array_api_compat-*.whl 2>/dev/null \
  || python3 -c "import array_api_compat" || { echo "array-api-compat is missing and could not be installed"; exit 1; }
# the project itself, as it installs (the benchmarks import artifact_lens, which a checkout is only once installed)
python3 -m pip install -q --no-index --no-deps --no-build-isolation . \
  || { echo "could not install the project (setuptools is needed)"; exit 1; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
echo "cpus: $(nproc)"
python3 -c "import numpy, scipy, sklearn; print('numpy', numpy.__version__, 'scipy', scipy.__version__, 'sklearn', sklearn.__version__)"
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" || true
python3 -c "import cupy; print('cupy', cupy.__version__)" || true

step() {   # step SECONDS ARGS...: one benchmark, bounded, its JSON appended to the log
  local limit=$1; shift
  timeout "$limit" python3 "$@" | tee -a "$LOG" || echo "{\"step\": \"$*\", \"failed_or_timed_out_after_s\": $limit}" | tee -a "$LOG"
}
step 100 benchmarks/backends_bench.py --sizes 20000 --backends numpy-1,numpy-all,cuda,cupy,torch-cpu
step 140 benchmarks/backends_bench.py --sizes 100000 --backends numpy-all,numpy-1,cuda,cupy
step 120 benchmarks/backends_bench.py --sizes 1000000 --backends cuda
step 60 benchmarks/engine_sections.py --rows 100000 --jobs "$(nproc)"
step 60 benchmarks/aflite_bench.py --only whole20k
step 90 benchmarks/devices_bench.py --rows 100000 --devices numpy,cuda
