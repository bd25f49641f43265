#!/usr/bin/env bash
# Issue 32's check on a machine with a GPU, as it is: no network (PyTorch, CuPy, NumPy, SciPy,
# scikit-learn and pandas are there; array-api-compat travels beside this script as a wheel).
# Under 8 minutes: CUDA and the NumPy engine on the same 20k data (same retained set up to
# rounding ties, the Jaccard printed), then the 100k and 1M timings with the GPU's peak memory.
#
#   bash benchmarks/gpu_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
python -m pip install -q --no-index --no-deps benchmarks/wheels/array_api_compat-*.whl 2>/dev/null \
  || python -c "import array_api_compat" || { echo "array-api-compat is missing and could not be installed"; exit 1; }
python -m pip install -q --no-build-isolation --no-deps -e . >/dev/null 2>&1 || true   # the project itself, offline
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
timeout 150 python benchmarks/backends_bench.py --sizes 20000 --backends numpy-all,cuda,torch-cpu
timeout 300 python benchmarks/backends_bench.py --sizes 100000,1000000 --backends cuda
