#!/usr/bin/env bash
# Issue 44's figures on a machine with a GPU and 16 cores, offline, under 9 minutes:
#   1. benchmarks/gate_calibration.py on SNLI dev and MNLI dev matched: 40 pairs of random halves,
#      10 grown versions, 10 planted pairs at 1, 3 and 10 % (the CPU cores, one certificate each);
#   2. benchmarks/certify_bench.py at 100k rows with --device cuda and on the CPU.
# The machine has neither ../shared nor some of the packages: copy the two data files into
# .devdata/ and the wheels (cleanlab, datasets, jsonschema… for Python 3.12) into .whl/, both
# ignored by git, and carry them:
#   run(command="bash benchmarks/certificate_gpu_check.sh", carry=[".devdata", ".whl"])
# JSON lines go to stdout and to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
OUTDIR="${OUT:-.}"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  benchmarks/wheels/array_api_compat-*.whl || { echo "could not install the carried wheels"; exit 1; }
# the project itself, as it installs (the benchmarks import artifact_lens, which a checkout is only once installed)
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-cache-dir --target /tmp/site . \
  || { echo "could not install the project (setuptools is needed)"; exit 1; }
export PYTHONPATH="/tmp/site:$PWD"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
echo "cpus: $(nproc)"
timeout 330 python3 benchmarks/gate_calibration.py --data-dir .devdata --pairs 40 --grown 10 --planted 10 \
  --jobs "$(( $(nproc) - 1 ))" | tee "$OUTDIR/gate_calibration.json" \
  || echo '{"bench": "gate_calibration", "failed_or_timed_out_after_s": 330}'
# CERTIFY_ROWS=1000000 for issue 57's million rows (then give the run its own call: about 5 min on 2 cores)
timeout 190 python3 benchmarks/certify_bench.py --data-dir .devdata --rows "${CERTIFY_ROWS:-100000}" --devices cuda,cpu \
  | tee "$OUTDIR/certify_bench.json" || echo '{"bench": "certify", "failed_or_timed_out_after_s": 190}'
