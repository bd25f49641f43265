"""The steps every browser walk takes: wait for the app's run to end, open a page, find a widget
or a metric, save a screenshot. One place, so every walk waits the same way (on the app's own
run state, not on a fixed sleep)."""
import re

from scale import patience

#: how long the app must stay settled before a step counts as done: an action's rerun starts a
#: moment after the click (the browser sends it, the server answers "running")
QUIET_MS = 400

# Settled: streamlit's script-run state on the app's root reads "notRunning" and no job's progress
# bar is on the page, for QUIET_MS in a row. (A running job's panel reruns twice a second and,
# when the job ends, reruns the whole page: a dropdown opened in between would close.)
_IDLE = """([quiet, timeout]) => new Promise((resolve, reject) => {
    const started = Date.now();
    let idleSince = null;
    const tick = () => {
        const app = document.querySelector('[data-testid="stApp"]');
        const idle = app !== null && app.getAttribute('data-test-script-state') === 'notRunning'
            && document.querySelector('[data-testid="stProgress"]') === null;
        const now = Date.now();
        idleSince = idle ? (idleSince ?? now) : null;
        if (idleSince !== null && now - idleSince >= quiet) return resolve(true);
        if (now - started > timeout) return reject(new Error('the app (or a job on the page) was still running after ' + timeout + ' ms'));
        setTimeout(tick, 50);
    };
    tick();
})"""


def wait_idle(page, timeout: float = 180) -> None:
    """Until the app has finished the run the last action started and any job it shows (and
    stayed so QUIET_MS)."""
    page.evaluate(_IDLE, [QUIET_MS, patience(timeout) * 1000])   # the bound grows with the load


# Counts the app's run-state changes from now on (each record: one change, however quickly the next
# one follows), so a step knows that the run its click asked for has begun.
_WATCH = """() => {
    if (window.__runWatch) window.__runWatch.disconnect();
    window.__runChanges = 0;
    window.__runWatch = new MutationObserver(records => { window.__runChanges += records.length; });
    // the whole document, not the root found now: a rerun that draws the app's root anew (a page
    // finishing its navigation) changes the new root's state, which a watch on the old one never sees
    window.__runWatch.observe(document.body, {attributes: true, subtree: true, attributeFilter: ['data-test-script-state']});
}"""


def settle(page, action, timeout: float = 180) -> None:
    """Do ``action`` (a click or keys that rerun the app) and wait until that rerun has begun and
    ended. ``wait_idle`` alone can return before the rerun begins on a busy machine (the server
    answers after its quiet spell), and a step taken then reads stale values or interrupts it.
    It first waits for the app to settle, a job on the page included: click a job's Cancel directly."""
    wait_idle(page, timeout)   # a run still in flight would count as this action's
    page.evaluate(_WATCH)
    action()
    page.wait_for_function("() => window.__runChanges > 0", timeout=patience(timeout) * 1000)
    wait_idle(page, timeout)


def press(page, widget, timeout: float = 180) -> None:
    """Click ``widget`` (a button) and wait for the rerun it asks for (`settle`)."""
    settle(page, widget.click, timeout)


# The focused widget's container key (``st-key-…``) and role, to find it again after a rerun.
_FOCUSED = """() => {
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    const box = el.closest('[class*="st-key-"]');
    const key = box && [...box.classList].find(c => c.startsWith('st-key-'));
    return key ? [key, el.getAttribute('role')] : null;
}"""


def keys(page, key: str, times: int = 1, timeout: float = 180) -> None:
    """Press ``key`` ``times`` times on the focused widget (a slider) and wait for its rerun (`settle`).
    A rerun that ends while the step waits for the app to settle can draw the widget anew and drop
    its focus (then the keys would go to the page and no rerun would come): it is focused again."""
    focused = page.evaluate(_FOCUSED)

    def press_keys():
        if focused and page.evaluate(_FOCUSED) is None:
            widget = page.locator(f".{focused[0]}")
            (widget.get_by_role(focused[1]) if focused[1] else widget).first.focus()
        for _ in range(times):
            page.keyboard.press(key)

    settle(page, press_keys, timeout)


def go(page, title: str) -> None:
    """Open the page ``title`` from the sidebar and wait for its run to end."""
    page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
    page.wait_for_selector(f"h1:has-text('{title}')")
    wait_idle(page)


def open_path(page, path) -> None:
    """On the Data page: ask for ``path`` as a local path (what the page says next is the caller's)."""
    page.wait_for_selector("h1:has-text('Data')")
    wait_idle(page)
    page.get_by_text("Local path", exact=True).click()
    wait_idle(page)
    page.get_by_role("textbox", name="File or folder").fill(str(path))
    page.get_by_role("button", name="Load", exact=True).click()


def load_path(page, path) -> None:
    """On the Data page: load ``path`` as a local path (not scored yet)."""
    open_path(page, path)
    page.wait_for_selector("text=Loaded dataset (not scored yet)")
    wait_idle(page)


def load_path_and_score(page, path, examples: int):
    """On the Data page: load ``path`` as a local path, then build Φ and score with the defaults."""
    load_path(page, path)
    page.get_by_role("button", name="Build Φ and score with AFLite").click()
    # the sidebar counts rows by what they are: "300 examples", "300 pairs", "300 items"
    page.wait_for_selector(f'[data-testid="stSidebar"] >> text=/\\b{examples} (examples|pairs|items)\\b/',
                           timeout=120_000)
    wait_idle(page)


def wait_for_map(page, selected=None) -> None:
    """Until the first plotly chart is drawn and ready for a box selection (and, given
    ``selected``, marks that many points as selected)."""
    page.wait_for_function("""(n) => {
        const gd = document.querySelector('.js-plotly-plot');
        if (!gd || !gd._fullLayout || gd._fullLayout.dragmode !== 'select' || !gd.querySelector('.nsewdrag')) return false;
        return n === null || (gd.data[0].selectedpoints || []).length === n;
    }""", arg=selected)


def key(page, name: str):
    """The element of the widget with key ``name`` (streamlit gives it the class st-key-NAME)."""
    return page.locator(f".st-key-{name}")


def metric(page, label: str):
    """The value element of the first metric whose label reads ``label``."""
    return page.locator('[data-testid="stMetric"]').filter(has_text=label).first.locator(
        '[data-testid="stMetricValue"]')


def count(page, label: str) -> int:
    """The metric ``label``'s first number ("1,500 of 3,000" → 1500)."""
    text = metric(page, label).inner_text()
    found = re.search(r"[0-9][0-9,]*", text)
    assert found, f"the metric {label!r} shows no number: {text!r}"
    return int(found.group().replace(",", ""))


def shot(page, folder, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def pick_example(page, pattern: str = r"[0-9]+") -> str:
    """On the Examples page: take the first example of the list in the picker (its id matching
    ``pattern``) and return its id, once the page shows it."""
    import re
    import time

    from scale import patience

    box = page.locator(".st-key-ex_pick [role='combobox']").first
    deadline = time.time() + patience(120)
    while not re.fullmatch(pattern, box.input_value()):
        assert time.time() < deadline, f"no example taken from the list: {box.input_value()!r}"
        box.evaluate("el => el.scrollIntoView({block: 'center'})")
        box.click()
        box.press("ArrowDown")
        if box.get_attribute("aria-expanded") == "true" and box.get_attribute("aria-activedescendant"):
            box.press("Enter")
        wait_idle(page)
    return box.input_value()
