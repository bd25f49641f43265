"""State that round-trips in a real browser (issue 21): five reloads of the Filter page keep the
retained count and the URL's n, and opening a saved view sets the τ and n sliders."""
import re

from playwright.sync_api import expect

from steps import count, go, keys, press, wait_idle


def test_five_reloads_keep_the_retained_count_and_a_saved_view_sets_the_sliders(page):
    page.wait_for_selector("h1:has-text('Data')")
    wait_idle(page)
    go(page, "Review")                                   # save the demo run to the workspace: views attach to it
    save = page.locator(".st-key-rv_save_run").get_by_role("button")
    if save.count():
        press(page, save)
        expect(save).to_have_count(0)                    # saved: the offer is gone
    go(page, "Filter")
    n_slider = page.locator(".st-key-w_target").get_by_role("slider")
    n_slider.focus()
    keys(page, "ArrowRight", 7)                          # n: 50 % → 57 %
    expect(n_slider).to_have_attribute("aria-valuetext", "0.57")
    kept = count(page, "Retained")
    n = re.search(r"[?&]n=([0-9]+)(?:&|$)", page.url).group(1)
    for _ in range(5):                                   # F5, five times
        page.reload()
        page.wait_for_selector("h1:has-text('Filter')")
        wait_idle(page)
        assert count(page, "Retained") == kept
        assert re.search(r"[?&]n=([0-9]+)(?:&|$)", page.url).group(1) == n
        expect(page.locator(".st-key-w_target").get_by_role("slider")).to_have_attribute("aria-valuetext", "0.57")

    page.get_by_text("Saved views of this run").click()
    page.locator(".st-key-view_name input").fill("fifty-seven")
    press(page, page.locator(".st-key-view_save").get_by_role("button"))
    page.wait_for_selector("text=Saved 'fifty-seven'")
    tau_slider = page.locator(".st-key-w_tau").get_by_role("slider")
    tau_slider.focus()
    keys(page, "End")                                    # τ = 1.00: another retained set
    expect(tau_slider).to_have_attribute("aria-valuetext", "1.00")
    opener = page.locator(".st-key-view_open").get_by_role("button")
    if not opener.is_visible():                          # the expander closed on the rerun: open it again
        page.get_by_text("Saved views of this run").click()
    press(page, opener)
    # the sliders are drawn afresh under new keys (w_tau_1, w_target_1) at the view's values
    expect(page.locator(".st-key-w_tau_1").get_by_role("slider")).to_have_attribute("aria-valuetext", "0.75")
    expect(page.locator(".st-key-w_target_1").get_by_role("slider")).to_have_attribute("aria-valuetext", "0.57")
    assert count(page, "Retained") == kept
    assert "tau=0.75" in page.url and f"n={n}" in page.url
    nudge = page.locator(".st-key-w_target_1").get_by_role("slider")
    nudge.focus()
    keys(page, "ArrowRight")                             # the next nudge goes on from the view, not the old slider
    expect(nudge).to_have_attribute("aria-valuetext", "0.58")
    expect(page.locator(".st-key-w_tau_1").get_by_role("slider")).to_have_attribute("aria-valuetext", "0.75")
