"""The dashboard at 100k × 768 in a real headless Chromium; prints one JSON line (issue 13, item 2).

A `streamlit run app.py` server subprocess is driven with Playwright the way a curator
uses it: load a 100k-row dataset with 768-d embeddings from the Data page (a Parquet
file with a float32 list column ``embedding``, spec ``embedding``; or ``--source npy``:
a CSV plus an aligned ``emb.npy``, spec ``file:path=emb.npy``), build Φ and score it
with the session's default AFLite parameters (full dimension), then time:

- ``page_s``: each page's switch, first visit (``cold``) and again (``warm``): from the
  click in the sidebar to the page's title drawn and the script finished;
- ``tau_redraw_ms`` / ``n_redraw_ms``: a τ or n key press on the Filter page to the new
  Retained count in the browser; ``map_tau_redraw_ms``: the same on the Map page, to the
  selection's new retained count (the 100k-point figure is rebuilt and sent meanwhile);
- ``map``: from the click to the plotly figure drawn, on the first visit (which computes
  the PCA projection of Φ first) and again (``warm_shown_after_click_s``), the trace type,
  the points the browser holds in it (``gd._fullData``), whether a WebGL canvas draws it,
  and the size of ``gd.data`` as JSON in the browser (``json_mb``: plotly decodes the typed
  arrays, so this is larger than what was sent; ``websocket.received_mb`` is what was sent);
- ``select_to_browser_s``: a box selection on the map, from the mouse's release to the list
  of selected examples (``select_drag_s``: the drag before it, 10 mouse moves, each of which
  plotly answers by redrawing the selection in WebGL); ``small_select_to_browser_s`` and
  ``map_tau_redraw_small_selection_ms``: the same for a box of a few hundred points;
  ``select_websocket``, ``map_tau_websocket`` and ``map.websocket``: the bytes each step
  received and sent over the websocket, and when the server's last frame came (the rest of
  the step is the browser's);
- ``rss_mb``: the server process's resident memory (``VmRSS``) at start, after loading,
  after scoring, after the first visit of every page, and the maximum and last value
  of a scripted session (``--session-seconds``, default 600: rounds of page switches,
  τ/n key presses, map colour changes and selections), sampled every round.

    python benchmarks/dashboard_100k_bench.py [--rows 100000] [--dim 768] [--source parquet|npy]
        [--session-seconds 600] [--map pca|umap] [--data-dir DIR] [--trace-memory DIR]

``--map pca`` (default) shows the PCA map at once; ``--map umap`` also starts the UMAP
child process (its memory is the child's, not the server's). The data files are written
to ``--data-dir`` (a temporary folder by default) and reused when present. Needs Debian's
chromium (/usr/bin/chromium) and the playwright package.

``--trace-memory DIR`` starts `tracemalloc` in the server after scoring (slower from then
on; timings are not comparable) and writes, after the first page visits, the timings and
every session round, the Python allocations that grew most since the previous step (by
traceback) to ``DIR/step-*.txt``: how the causes of the server's memory were found.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from streamlit_browser import CHROMIUM_ARGS, Dashboard, free_port, wait_healthy  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TAU, N = "τ: early-stopping", "n: target size"
PAGES = ["Filter", "Predictability", "Map", "Features", "Examples", "Export", "Review", "Data"]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        return round(next(int(line.split()[1]) for line in fh if line.startswith("VmRSS")) / 1024, 1)


TRACER = r"""
import gc, signal, sys, threading, tracemalloc
from pathlib import Path

out, state = Path(sys.argv.pop(1)), {"n": 0, "prev": None}

def dump(signum, frame):
    if not tracemalloc.is_tracing():   # the first signal starts tracing (loading is slow under it)
        tracemalloc.start(8)
        return

    def work():
        gc.collect()
        snap = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
        lines = [f"traced {sum(s.size for s in snap.statistics('filename')) / 2**20:.1f} MB"]
        if state["prev"] is not None:
            lines += [str(s) for s in snap.compare_to(state["prev"], "traceback")[:12]]
        lines += ["", "largest now:"] + [str(s) for s in snap.statistics("lineno")[:15]]
        state["n"] += 1
        (out / f"step-{state['n']:02d}.txt").write_text("\n".join(lines))
        state["prev"] = snap
    threading.Thread(target=work, daemon=True).start()

signal.signal(signal.SIGUSR1, dump)
from streamlit.web.cli import main
sys.argv[0] = "streamlit"
main()
"""


def make_data(folder: Path, rows: int, dim: int, source: str) -> tuple:
    """(file to load, representation spec, seconds): the synthetic NLI text and labels of
    `core.data.demos.make_nli` with 768-d vectors that carry the label in a few directions for a
    share of the rows (an artifact AFLite can find) and noise elsewhere."""
    import pandas as pd

    from artifact_lens.data.demos import make_nli

    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (f"lens_{rows}x{dim}.parquet" if source == "parquet" else f"lens_{rows}.csv")
    npy = folder / f"lens_{rows}x{dim}.npy"
    t0 = time.perf_counter()
    if not target.exists() or (source == "npy" and not npy.exists()):
        ds = make_nli(n=rows, random_state=0)
        table = ds.table.reset_index()[["id", "premise", "hypothesis", "label"]]
        rng = np.random.default_rng(0)
        X = rng.standard_normal((rows, dim), dtype=np.float32)
        codes = pd.Categorical(table["label"]).codes
        biased = rng.random(rows) < 0.4
        X[biased, codes[biased]] += 2.0
        if source == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            emb = pa.FixedSizeListArray.from_arrays(pa.array(X.reshape(-1)), dim).cast(pa.list_(pa.float32()))
            tab = pa.Table.from_pandas(table, preserve_index=False).append_column("embedding", emb)
            pq.write_table(tab, target)
        else:
            table.to_csv(target, index=False)
            np.save(npy, X)
    spec = "embedding" if source == "parquet" else f"file:path={npy}"
    return target, spec, round(time.perf_counter() - t0, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--source", choices=["parquet", "npy"], default="parquet")
    ap.add_argument("--session-seconds", type=float, default=600)
    ap.add_argument("--map", choices=["pca", "umap"], default="pca")
    ap.add_argument("--data-dir", default=None, help="where the data files are written (and reused)")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--presses", type=int, default=8, help="τ and n key presses timed")
    ap.add_argument("--trace-memory", default=None, help="folder for tracemalloc reports per step (see above)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="lens-100k-data-"))
    out = {"benchmark": "dashboard_100k", "rows": args.rows, "dim": args.dim, "source": args.source, "map": args.map}
    path, spec, out["data_generation_s"] = make_data(data_dir, args.rows, args.dim, args.source)
    out["data_file_mb"] = round(path.stat().st_size / 2**20, 1)

    port = free_port()
    cache = tempfile.mkdtemp(prefix="lens-100k-cache-")
    env = dict(os.environ, HF_HUB_OFFLINE="1", ARTIFACT_LENS_CACHE=cache, ARTIFACT_LENS_MAP=args.map,
               ARTIFACT_LENS_DATA_DIRS=str(data_dir.resolve()))
    log = open(Path(cache) / "streamlit.log", "w")
    launch = [sys.executable, "-m", "streamlit"]
    if args.trace_memory:
        Path(args.trace_memory).mkdir(parents=True, exist_ok=True)
        launch = [sys.executable, "-c", TRACER, str(Path(args.trace_memory).resolve())]
        out["trace_memory"] = args.trace_memory
    proc = subprocess.Popen([*launch, "run", "app.py", "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1",
                             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    rss = out["rss_mb"] = {}

    def tick(name, t0):
        out[name] = round(time.perf_counter() - t0, 2)

    def trace_step():
        if args.trace_memory:
            proc.send_signal(signal.SIGUSR1)
            time.sleep(20)   # the snapshot is taken in a thread of the server

    try:
        t0 = time.perf_counter()
        wait_healthy(port, proc, log.name)
        tick("server_up_s", t0)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            page.set_default_timeout(900_000)
            frames = []   # (time, "in" | "out", bytes) of every websocket frame: what each step sends

            def on_socket(ws):
                ws.on("framereceived", lambda p: frames.append((time.perf_counter(), "in", len(p))))
                ws.on("framesent", lambda p: frames.append((time.perf_counter(), "out", len(p))))

            page.on("websocket", on_socket)

            def traffic(t0, t1=None):
                """Websocket bytes between t0 and t1 (now): received (server to browser) and sent, and
                when the last frame from the server arrived (s after t0): the rest is the browser's."""
                t1 = t1 or time.perf_counter()
                got = [(t, b) for t, d, b in frames if t0 <= t <= t1 and d == "in"]
                return {"received_mb": round(sum(b for _, b in got) / 2**20, 2),
                        "sent_kb": round(sum(b for t, d, b in frames if t0 <= t <= t1 and d == "out") / 1024, 1),
                        "last_received_s": round(max(t for t, _ in got) - t0, 2) if got else None}

            dash = Dashboard(page, settle_ms=100, poll_ms=25)
            idle, metric, go = dash.idle, dash.metric, dash.go

            def slider(name):
                return page.locator('[data-testid="stSlider"]').filter(has_text=name).get_by_role("slider")

            def presses(name, label, count, key="ArrowRight"):
                """ms from a key press on the slider labelled ``name`` to a new value of metric ``label``."""
                slider(name).focus()
                lat = []
                for _ in range(count):
                    prev = metric(label)
                    t = time.perf_counter()
                    page.keyboard.press(key)
                    while metric(label) == prev and time.perf_counter() - t < 5:
                        page.wait_for_timeout(5)
                    if metric(label) != prev:
                        lat.append(round((time.perf_counter() - t) * 1000))
                    idle()
                return lat

            def plot_state():
                return page.evaluate("""() => {
                    const gd = document.querySelector('.js-plotly-plot');
                    if (!gd || !gd._fullData) return null;
                    const t = gd._fullData[0];
                    const canvases = [...gd.querySelectorAll('canvas')];
                    const gl = canvases.some(c => { try { return !!(c.getContext('webgl') || c.getContext('experimental-webgl')); } catch (e) { return false; } });
                    return {type: t.type, points: t._length === undefined ? (t.x || []).length : t._length,
                            webgl_canvas: gl && !!(gd._fullLayout && gd._fullLayout._glcanvas),
                            json_mb: Math.round(JSON.stringify(gd.data).length / 1048576 * 10) / 10};
                }""")

            def select_box(x0=0.45, y0=0.45, x1=0.55, y1=0.55):
                page.wait_for_timeout(300)
                before = [h for h in page.locator("h3").all_inner_texts() if h.startswith("Selected")]
                bb = page.locator(".js-plotly-plot .nsewdrag").first.bounding_box()
                t = time.perf_counter()
                page.mouse.move(bb["x"] + bb["width"] * x0, bb["y"] + bb["height"] * y0)
                page.mouse.down()
                page.mouse.move(bb["x"] + bb["width"] * (x0 + x1) / 2, bb["y"] + bb["height"] * (y0 + y1) / 2, steps=5)
                page.mouse.move(bb["x"] + bb["width"] * x1, bb["y"] + bb["height"] * y1, steps=5)
                released = time.perf_counter()
                page.mouse.up()
                page.wait_for_function("""(before) => [...document.querySelectorAll('h3')].some(
                    h => /Selected examples: [1-9]/.test(h.innerText) && !before.includes(h.innerText))""",
                                       arg=before, timeout=60_000)
                page.wait_for_selector('[data-testid="stDataFrame"]')
                done = time.perf_counter()
                idle()
                return round(done - released, 2), round(released - t, 2)

            rss["start"] = rss_mb(proc.pid)
            t0 = time.perf_counter()
            page.goto(f"http://127.0.0.1:{port}")
            page.wait_for_selector("[data-testid=stMetric]")
            idle()
            tick("demo_shown_s", t0)
            go("Data")
            page.get_by_text("Local path", exact=True).click()
            idle()
            page.get_by_role("textbox", name="File or folder").fill(str(path.resolve()))
            t0 = time.perf_counter()
            page.get_by_role("button", name="Load", exact=True).click()
            page.wait_for_selector("text=Loaded dataset (not scored yet)")
            idle()
            tick("load_s", t0)
            out["examples"] = metric("Examples")
            rss["after_load"] = rss_mb(proc.pid)
            page.get_by_role("textbox", name="Or type a full spec (overrides the above)").fill(spec)
            page.keyboard.press("Enter")
            idle()
            t0 = time.perf_counter()
            page.get_by_role("button", name="Build Φ and score with AFLite").click()
            page.wait_for_selector(f'[data-testid="stSidebar"] >> text={out["examples"]:,} examples', timeout=1_800_000)
            page.wait_for_selector("text=Current dataset")
            idle()
            tick("build_and_score_s", t0)
            rss["after_scoring"] = rss_mb(proc.pid)
            trace_step()

            cold = {}
            for title in PAGES:
                cold[title] = go(title)
                if title == "Map":
                    t = time.perf_counter()
                    page.wait_for_function("""() => { const gd = document.querySelector('.js-plotly-plot');
                        return gd && gd._fullData && gd._fullData.length && gd._fullLayout._glcanvas; }""")
                    t1 = time.perf_counter()
                    out["map"] = dict(plot_state(), shown_after_click_s=round(cold[title] + t1 - t, 2),
                                      websocket=traffic(t - cold[title], t1))
            rss["after_first_visits"] = rss_mb(proc.pid)
            trace_step()
            warm = {}
            for title in PAGES:
                warm[title] = go(title)
                if title == "Map":   # the projection is cached now: the figure's own cost
                    t = time.perf_counter()
                    page.wait_for_function("""() => { const gd = document.querySelector('.js-plotly-plot');
                        return gd && gd._fullData && gd._fullData.length && gd._fullLayout._glcanvas; }""")
                    t1 = time.perf_counter()
                    out["map"].update(warm_shown_after_click_s=round(warm[title] + t1 - t, 2),
                                      warm_websocket=traffic(t - warm[title], t1))
            out["page_s"] = {"cold": cold, "warm": warm}

            go("Filter")
            out["tau_redraw_ms"] = presses(TAU, "Retained", args.presses)
            # n binds only where τ does not stop the run first: τ at its lowest, then n down
            slider(TAU).focus()
            page.keyboard.press("Home")
            idle()
            out["n_redraw_ms"] = presses(N, "Retained", args.presses, key="ArrowLeft")
            go("Map")
            t0 = time.perf_counter()
            out["select_to_browser_s"], out["select_drag_s"] = select_box()
            out["select_websocket"] = traffic(t0)
            out["selected"] = [h for h in page.locator("h3").all_inner_texts() if h.startswith("Selected")]
            t0 = time.perf_counter()
            out["map_tau_redraw_ms"] = presses(N, "Retained at this τ, n", max(3, args.presses // 2))
            out["map_tau_websocket"] = dict(traffic(t0), presses=len(out["map_tau_redraw_ms"]))
            # the same with a small selection: Streamlit deep-copies the chart's selection event (every
            # selected point's x, y, text, ...) on every rerun, so the redraw grows with the selection
            out["small_select_to_browser_s"], _ = select_box(0.30, 0.30, 0.32, 0.32)   # outside the first box (a drag inside it moves it)
            out["small_selected"] = [h for h in page.locator("h3").all_inner_texts() if h.startswith("Selected")]
            out["map_tau_redraw_small_selection_ms"] = presses(N, "Retained at this τ, n", max(3, args.presses // 2),
                                                               key="ArrowLeft")
            rss["after_timings"] = rss_mb(proc.pid)
            trace_step()

            # a scripted session: rounds of what a curator does, the server's memory after each round
            samples, rounds, t0 = [], 0, time.perf_counter()
            colours = ["predictability", "retained", "label", "removal phase"]
            while time.perf_counter() - t0 < args.session_seconds:
                for title in ["Filter", "Predictability", "Examples", "Features", "Export", "Map"]:
                    go(title)
                    samples.append(rss_mb(proc.pid))
                go("Filter")
                presses(TAU, "Retained", 1, key="End")    # τ = 1: nothing removed
                presses(TAU, "Retained", 1, key="Home")   # τ lowest: n decides
                presses(N, "Retained", 2, key="ArrowRight" if rounds % 2 == 0 else "ArrowLeft")
                go("Map")
                box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Colour by")
                box.click()
                page.get_by_role("option", name=colours[rounds % len(colours)], exact=True).click()
                idle()
                select_box(0.42 + 0.02 * (rounds % 3), 0.45, 0.55, 0.57)
                samples.append(rss_mb(proc.pid))
                trace_step()
                rounds += 1
            rss["session_max"] = max(samples) if samples else None
            rss["session_last"] = samples[-1] if samples else None
            rss["session_median"] = statistics.median(samples) if samples else None
            out["session"] = {"seconds": round(time.perf_counter() - t0), "rounds": rounds,
                              "rss_first_round_mb": samples[:7], "rss_last_round_mb": samples[-7:]}
            for name in ("tau_redraw_ms", "n_redraw_ms", "map_tau_redraw_ms", "map_tau_redraw_small_selection_ms"):
                if out.get(name):
                    out[name.replace("_ms", "_median_ms")] = statistics.median(out[name])
            browser.close()
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        shutil.rmtree(cache, ignore_errors=True)
        if not args.data_dir:
            shutil.rmtree(data_dir, ignore_errors=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
