"""Creation with feedback through AppTest (paper 002 §3.2): a creator writes, sees lights and
suggestions, submits; a validator rejects with a note and accepts; the creator revises; the
accepted examples load as a new dataset."""
from apptest_helpers import wait_for_jobs, OWNER, app, metrics, no_exceptions, page

CREATOR = "writer@team.org"


def write(at, premise, hypothesis, label):
    at.text_area(key="cr_premise").input(premise)
    at.text_area(key="cr_hypothesis").input(hypothesis)
    at.selectbox(key="cr_label").set_value(label).run()
    no_exceptions(at)


def test_create_validate_revise_and_load_the_accepted_version(fresh_server):
    from artifact_lens.dashboard.process.shared import server

    owner = app(OWNER).run()
    owner.switch_page(page("8_review")).run()
    owner.button(key="rv_save_run").click().run()          # the demo run becomes a workspace dataset
    ws = server().team.workspaces_of(OWNER)[0][0]
    server().team.set_role(ws, CREATOR, "annotator", by=OWNER)

    creator = app(CREATOR).run()
    creator.switch_page(page("11_create")).run()
    no_exceptions(creator)
    # the feedback models are fitted in the background: the fields are there at once and keep what is
    # written meanwhile (they used to wait behind a blocking spinner, 21–31 s after a restart)
    assert "being fitted" in " ".join(c.value for c in creator.caption)
    assert not [b for b in creator.button if b.key == "cr_submit"]
    write(creator, "A man is sitting on a bench in a park.", "Nobody is sitting.", "contradiction")
    wait_for_jobs(creator)
    assert creator.text_area(key="cr_hypothesis").value == "Nobody is sitting."
    shown = " ".join(t.value for t in creator.text)
    assert "⟦Nobody: contradiction, z =" in shown                      # the giveaway word, marked as text
    assert "A model that reads only the hypothesis predicts contradiction" in shown
    assert any(t.value.startswith("→ ") and "nobody" in t.value.lower() for t in creator.text)   # a suggestion
    # every check in plain words, what to change when it is not green; the paper's name in the tooltip
    tied = [x for x in creator.text if "Giveaway words" in x.value][0]
    assert tied.value.startswith("🔴 Giveaway words") and "→ replace the marked words" in tied.value
    assert "C6 n-gram frequency per label (paper 002, DQI)" in tied.proto.help
    assert any(x.value.split(" ", 1)[1].startswith("Overall score") for x in creator.text if " " in x.value)
    assert not any(s in x.value for x in creator.text if "(paper 002" in (x.proto.help or "") for s in ("C6", "DQI"))
    creator.button(key="cr_submit").click().run()
    no_exceptions(creator)
    # the form clears and says so (issue 21)
    assert creator.text_area(key="cr_hypothesis").value == "" and creator.text_area(key="cr_premise").value == ""
    assert any(m.value.startswith("Submitted as example") for m in creator.success)
    # the same text again, or a one-character edit of it, is caught and names the earlier one
    write(creator, "A man is sitting on a bench in a park.", "Nobody is sitting!", "contradiction")
    creator.button(key="cr_submit").click().run()
    no_exceptions(creator)
    assert any("near-duplicate of submission" in e.value.replace("\\", "") for e in creator.error)
    assert len([d.value for d in creator.dataframe if "status" in d.value.columns][0]) == 1
    write(creator, "A man is sitting on a bench in a park.", "A man rests outside.", "entailment")
    creator.button(key="cr_submit").click().run()
    mine = [d.value for d in creator.dataframe if "status" in d.value.columns][0]
    assert mine["status"].tolist() == ["submitted", "submitted"]

    owner.switch_page(page("12_validate")).run()
    no_exceptions(owner)
    assert metrics(owner)["Waiting for you"] == "2"
    assert any("Nobody is sitting." in t.value for t in owner.text)      # the first one, with its feedback
    owner.radio(key="va_decision").set_value("reject")
    owner.button(key="va_submit").click().run()                           # no note: refused
    assert any("needs a note" in e.value for e in owner.error) and metrics(owner)["Waiting for you"] == "2"
    owner.radio(key="va_decision").set_value("reject")
    owner.text_input(key="va_note").input("'Nobody' gives the label away; say what the man does instead")
    owner.button(key="va_submit").click().run()
    owner.radio(key="va_decision").set_value("accept")
    owner.button(key="va_submit").click().run()
    no_exceptions(owner)
    assert metrics(owner)["Accepted"] == "1" and metrics(owner)["Rejected"] == "1"

    creator.run()
    mine = [d.value for d in creator.dataframe if "status" in d.value.columns][0].set_index("id")
    rejected_id = int(mine.index[mine["status"] == "rejected"][0])
    assert "gives the label away" in mine.loc[rejected_id, "note"]
    creator.button(key="cr_revise").click().run()
    assert creator.text_area(key="cr_hypothesis").value == "Nobody is sitting."
    creator.text_area(key="cr_hypothesis").input("The man is running along a beach.")
    creator.selectbox(key="cr_label").set_value("contradiction").run()
    creator.button(key="cr_submit").click().run()
    no_exceptions(creator)
    mine = [d.value for d in creator.dataframe if "status" in d.value.columns][0].set_index("id")
    assert mine.loc[rejected_id, "status"] == "revised" and (mine["status"] == "submitted").sum() == 1

    owner.run()
    owner.radio(key="va_decision").set_value("accept")
    owner.button(key="va_submit").click().run()
    owner.button(key="va_version").click().run()
    no_exceptions(owner)
    assert not owner.error, [e.value for e in owner.error]
    owner.switch_page(page("1_data")).run()
    # the new version: the dataset the examples were written for, plus the two accepted ones, which scores
    assert metrics(owner)["Examples"] == "3,002" and metrics(owner)["Labels"] == "3"
    owner.button(key="build").click().run()
    wait_for_jobs(owner)
    assert "3,002 examples" in " ".join(t.value for t in owner.sidebar.text)
    lights = server().team.creator_lights(ws, by=OWNER).set_index("creator")
    assert int(lights.loc[CREATOR, ["red", "yellow", "green"]].sum()) == 3


def _creator():
    """The owner saves the demo run to the workspace (it becomes a workspace dataset) and makes
    CREATOR an annotator; the creator's tab."""
    from artifact_lens.dashboard.process.shared import server

    owner = app(OWNER).run()
    owner.switch_page(page("8_review")).run()
    owner.button(key="rv_save_run").click().run()
    ws = server().team.workspaces_of(OWNER)[0][0]
    server().team.set_role(ws, CREATOR, "annotator", by=OWNER)
    creator = app(CREATOR).run()
    return creator


def test_an_annotator_does_not_validate(fresh_server):
    creator = _creator()
    creator.switch_page(page("12_validate")).run()
    no_exceptions(creator)
    assert "validation needs a curator or owner" in " ".join(i.value for i in creator.info)
    assert not [b for b in creator.button if b.key == "va_submit"]


def test_keys_typed_before_a_submissions_clear_arrived_start_the_next_example(fresh_server):
    """Issue 45, walk item 3: typing right after Submit on a busy server appended the new text to the
    previous premise (the browser had not yet drawn the cleared field). The first text after a
    submission that follows the old text is taken off it; the same premise written again is kept."""
    creator = _creator()
    creator.switch_page(page("11_create")).run()
    write(creator, "A man is sitting on a bench in a park.", "Nobody is sitting.", "contradiction")
    wait_for_jobs(creator)
    creator.button(key="cr_submit").click().run()
    assert creator.text_area(key="cr_premise").value == ""
    # the browser still showed the old text when the writer began: it sends the old text and the new keys
    creator.text_area(key="cr_premise").input("A man is sitting on a bench in a park. Two dogs run on a beach.").run()
    no_exceptions(creator)
    assert creator.text_area(key="cr_premise").value == "Two dogs run on a beach."
    creator.text_area(key="cr_premise").input("Two dogs run on a beach. They are wet.").run()   # only once
    assert creator.text_area(key="cr_premise").value == "Two dogs run on a beach. They are wet."
    write(creator, "Two dogs run on a beach. They are wet.", "The dogs sleep.", "contradiction")
    creator.button(key="cr_submit").click().run()
    creator.text_area(key="cr_premise").input("Two dogs run on a beach. They are wet.").run()  # the same premise again
    assert creator.text_area(key="cr_premise").value == "Two dogs run on a beach. They are wet."
