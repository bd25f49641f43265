"""Validate Label Studio project folders (each: label_config.xml, tasks.json) with Label Studio's own
SDK (`label_studio_sdk.label_interface.LabelInterface`). Run by tests/unit/test_label_studio.py in the
environment `make install-test` builds for it (.venv-label-studio: the SDK pins NumPy and OpenCV
versions the tool's own environment does not share). Prints one JSON list, a dict per folder: the
config's error (None when it parses), its controls and objects, and each task's data check and
prediction errors (empty when valid)."""
import json
import sys
from pathlib import Path

from label_studio_sdk.label_interface import LabelInterface


def check(folder: Path) -> dict:
    out = {"folder": str(folder), "config_error": None, "tasks": []}
    try:
        interface = LabelInterface((folder / "label_config.xml").read_text(encoding="utf-8"))
        out["controls"] = sorted(c.name for c in interface.controls)
        out["objects"] = sorted(o.name for o in interface.objects)
    except Exception as exc:   # the config does not parse: say so, do not trace back
        out["config_error"] = f"{type(exc).__name__}: {exc}"
        return out
    for task in json.loads((folder / "tasks.json").read_text(encoding="utf-8")):
        found = {"data_ok": bool(interface.validate_task({"data": task["data"]})), "prediction_errors": []}
        for prediction in task.get("predictions", []):
            found["prediction_errors"] += interface.validate_prediction(prediction, return_errors=True)
        out["tasks"].append(found)
    return out


print(json.dumps([check(Path(f)) for f in sys.argv[1:]]))
