"""The dashboard as a user meets it, timed in a real headless Chromium; prints one JSON line.

Issue 5's walkthrough: open the scored demo, visit every page, load SNLI dev, score
it with a hypothesis-only warm-up representation, move τ, wait for UMAP, box-select
a cluster on the map, export the retained split as CSV. Then, on a 20k demo, the
time from an n key press to the new Retained count in the browser.

    python benchmarks/browser_bench.py [--data ../shared/data/snli_dev.jsonl] [--map umap|pca]

Needs Debian's chromium (/usr/bin/chromium) and the playwright package.
"""
import argparse
import csv
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from streamlit_browser import CHROMIUM_ARGS, Dashboard, free_port, wait_healthy

ROOT = Path(__file__).resolve().parents[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "snli_dev.jsonl"))
    ap.add_argument("--map", default="umap", choices=["umap", "pca"])
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    port = free_port()
    cache = tempfile.mkdtemp(prefix="artifact-lens-browser-bench-")
    env = dict(os.environ, HF_HUB_OFFLINE="1", ARTIFACT_LENS_CACHE=cache, ARTIFACT_LENS_MAP=args.map,
               ARTIFACT_LENS_DATA_DIRS=str(Path(args.data).resolve().parent))   # the Data page may read it
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = {"benchmark": "browser", "map": args.map}

    def tick(name, t0):
        out[name] = round(time.perf_counter() - t0, 2)

    try:
        t0 = time.perf_counter()
        wait_healthy(port)
        tick("server_up_s", t0)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True).new_page()
            page.set_default_timeout(900_000)
            dash = Dashboard(page, settle_ms=150, poll_ms=50)
            idle, metric, go = dash.idle, dash.metric, dash.go

            def key_latencies(slider, presses=12):
                page.get_by_role("slider").nth(slider).focus()
                lat = []
                for _ in range(presses):
                    prev = metric("Retained")
                    t = time.perf_counter()
                    page.keyboard.press("ArrowRight")
                    while metric("Retained") == prev and time.perf_counter() - t < 2:
                        page.wait_for_timeout(5)
                    if metric("Retained") != prev:
                        lat.append(round((time.perf_counter() - t) * 1000))
                    idle()
                return lat

            t0 = time.perf_counter()
            page.goto(f"http://127.0.0.1:{port}")
            page.wait_for_selector("[data-testid=stMetric]")
            idle()
            tick("scored_demo_shown_s", t0)
            out["page_s"] = {t: go(t) for t in ["Filter", "Predictability", "Map", "Features", "Examples", "Export", "Data"]}

            if Path(args.data).exists():
                page.get_by_text("Local path", exact=True).click()
                idle()
                page.get_by_role("textbox", name="File or folder").fill(str(Path(args.data).resolve()))
                t0 = time.perf_counter()
                page.get_by_role("button", name="Load", exact=True).click()
                page.wait_for_selector("text=Loaded dataset (not scored yet)")
                idle()
                tick("load_data_s", t0)
                n = metric("Examples")
                out["examples"] = n
                page.get_by_role("textbox", name="Or type a full spec (overrides the above)").fill(
                    "warmup:fields=hypothesis,fraction=0.1")
                t0 = time.perf_counter()
                page.get_by_role("button", name="Build Φ and score with AFLite").click()
                page.wait_for_selector(f'[data-testid="stSidebar"] >> text={n:,} examples')
                idle()
                tick("warmup_and_aflite_s", t0)
                go("Filter")
                out["warmup_excluded"] = metric("Warm-up (excluded)")
                out["retained_before_tau"] = metric("Retained")
                out["tau_key_to_count_ms"] = key_latencies(0, presses=5)
                out["retained_after_tau"] = metric("Retained")
                go("Map")
                t0 = time.perf_counter()
                page.wait_for_timeout(2000)
                while page.get_by_text("Showing the PCA projection until UMAP is ready.").count():
                    page.wait_for_timeout(500)
                idle()
                tick("map_ready_after_opening_s", t0)
                page.wait_for_timeout(1500)
                bb = page.locator(".js-plotly-plot .nsewdrag").first.bounding_box()
                t0 = time.perf_counter()
                page.mouse.move(bb["x"] + bb["width"] * 0.55, bb["y"] + bb["height"] * 0.3)
                page.mouse.down()
                page.mouse.move(bb["x"] + bb["width"] * 0.7, bb["y"] + bb["height"] * 0.45, steps=10)
                page.mouse.move(bb["x"] + bb["width"] * 0.8, bb["y"] + bb["height"] * 0.6, steps=10)
                page.mouse.up()
                page.wait_for_selector("h3:has-text('Selected examples')")
                while "Selected examples: 0" in " ".join(page.locator("h3").all_inner_texts()) \
                        and time.perf_counter() - t0 < 30:
                    page.wait_for_timeout(100)
                idle()
                tick("box_select_to_examples_s", t0)
                out["selected"] = [h for h in page.locator("h3").all_inner_texts() if h.startswith("Selected")]
                go("Export")
                t0 = time.perf_counter()
                page.get_by_role("button", name="Prepare the file").click()   # the file is built on request
                with page.expect_download() as info:
                    page.get_by_role("button", name=re.compile(r"Download .*retained\.csv")).click()
                rows = list(csv.DictReader(io.StringIO(open(info.value.path(), "rb").read().decode())))
                tick("download_retained_csv_s", t0)
                out["exported_rows"] = len(rows)

            # n latency at 20k examples
            go("Data")
            page.get_by_text("Demo", exact=True).click()
            idle()
            page.get_by_role("spinbutton").first.fill("20000")
            page.get_by_role("button", name="Load", exact=True).click()
            page.wait_for_selector("text=Loaded dataset (not scored yet)")
            page.get_by_role("textbox", name="Or type a full spec (overrides the above)").fill("")
            t0 = time.perf_counter()
            page.get_by_role("button", name="Build Φ and score with AFLite").click()
            page.wait_for_selector('[data-testid="stSidebar"] >> text=20,000 examples')
            tick("score_20k_s", t0)
            go("Filter")
            lat = key_latencies(1)
            out["n_key_to_count_ms_20k"] = lat
            out["n_key_to_count_ms_20k_median"] = statistics.median(lat) if lat else None
            browser.close()
    finally:
        proc.terminate()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
