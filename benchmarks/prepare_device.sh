#!/usr/bin/env bash
# Prepares, on this machine (it has PyPI), what benchmarks/gpu_check.sh needs on a GPU machine
# that has no network and only PyTorch, CuPy, NumPy, SciPy, scikit-learn and pandas:
#   .devdata/  SNLI dev and MNLI dev matched (certify_bench.py's rows are recombined from them);
#   .whl/      wheels for that machine's Python (3.12 unless PYTHON_VERSION says otherwise) of what
#              `certify` imports beyond those: cleanlab (with tqdm and termcolor), jsonschema (with its
#              own), pyarrow.
# Both are ignored by git (under 64 MiB together, the device tool's carry limit). Then:
#   run(command="bash benchmarks/gpu_check.sh", carry=[".devdata", ".whl"], timeout_s=600)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA="${DATA:-../shared/data}"
mkdir -p .devdata .whl
cp "$DATA/snli_dev.jsonl" "$DATA/mnli_dev_matched.jsonl" .devdata/
python3 -m pip download -q --no-deps --only-binary=:all: --implementation cp --python-version "${PYTHON_VERSION:-3.12}" \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any \
  -d .whl cleanlab tqdm termcolor jsonschema jsonschema-specifications referencing rpds-py attrs typing-extensions pyarrow
du -sh .devdata .whl
