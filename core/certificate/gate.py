"""The gate: two certificates compared measure by measure under rules, for a dataset's CI.

Default rule: a measure of artifact strength (``artifact`` true) may not move in its worse
direction by more than its uncertainty, z × √(se_before² + se_after²) (a measure without a
standard error: not at all), and no cue may be new or stronger beyond its uncertainty
(`core.certificate.cues.cue_changes`). The z is Bonferroni's over every test the default rule
makes (each gated measure, and the cues as one family), so that when nothing changed the chance
that any of them fails is at most ``FAMILY_ALPHA`` (5 %); `benchmarks/gate_calibration.py`
measures it on real data. Other measures (the data's quality: possibly mislabelled examples,
reviewers' α, the label balance) are shown, and gated only when a rule names them: a filtered
split keeps its harder, more ambiguous examples, so they may move for good reasons. A rules file (TOML or YAML) sets, per measure name (``zstats.z_max``,
``partial_input.accuracy``, ``zstats.over_line[neutral]`` …) or for every measure (``"*"``):

- ``max_rise``: how far the measure may move in its worse direction (absolute, replaces the default);
- ``max`` / ``min``: bounds the candidate's value must keep;
- ``ignore = true``: shown, not gated.

A measure only the candidate has is listed and not gated (a new measure is no regression); a gated
measure, or the cue table, that the baseline has and the candidate lacks (or leaves null) fails,
naming it, unless a rule ignores it: a candidate passes nothing by leaving a measure out.

What a measure is (which direction is worse, whether it measures artifact strength) is read from
the registry (`core.certificate.registry`), never from the certificate under test, and the
candidate's standard error counts only up to the baseline's: a candidate file cannot widen its
own gate. Two certificates are compared only when they were made the same way
(`COMPARED_SETTINGS` and the label set); otherwise `compare` refuses, naming what differs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import math
from functools import lru_cache
from pathlib import Path

import pandas as pd

from ..base.errors import InputError
from ..base.settings import printable
from .cues import cue_changes
from ..zstats.statistics import bonferroni_threshold

__all__ = ["read_rules", "check_rules", "compare", "verdict", "Verdict", "mismatches", "RULE_KEYS", "COMPARED_SETTINGS", "FAMILY_ALPHA", "CUES"]

#: the settings a certificate's values depend on: certificates that differ in one are not compared
COMPARED_SETTINGS = ("representation", "partial", "family", "folds", "seed", "min_count", "alpha", "tau", "m", "epochs",
                     "model_train")

RULE_KEYS = {"max_rise", "max", "min", "ignore"}

#: the most characters a rules file may have
RULES_MAX = 1 << 20

#: the chance that the default rule fails a change that changed nothing, over all its tests
FAMILY_ALPHA = 0.05

#: the gate's row for the cue-by-cue comparison (a rule may ignore it under this name)
CUES = "cues.new_or_stronger"


def read_rules(path) -> dict:
    """Rules by measure name from a TOML (``.toml``) or YAML (``.yaml``/``.yml``) file: a table
    (mapping) of measure name → its rule. InputError naming the file, the measure and the key."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"--rules {path}: no such file; give a TOML or YAML file of rules (docs/certificate.md).") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"--rules {path.name} cannot be read ({exc}).") from None
    if len(text) > RULES_MAX:
        raise InputError(f"--rules {path.name} takes {len(text):,} characters; a rules file has at most {RULES_MAX:,}.")
    try:
        if path.suffix.lower() == ".toml":
            import tomllib

            found = tomllib.loads(text)
        elif path.suffix.lower() in (".yaml", ".yml"):
            found = _plain_yaml(text, path.name)
        else:
            raise InputError(f"--rules {path.name}: give a .toml or .yaml file.")
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001  (tomllib and yaml raise their own parse errors)
        raise InputError(f"--rules {path.name} is not valid {path.suffix.lstrip('.').upper()} ({str(exc)[:200]}).") from None
    if isinstance(found, dict) and "measures" in found:
        others = [k for k in found if k != "measures"]
        if others:   # they would be shadowed: say so rather than drop them
            raise InputError(f"--rules {path.name}: rules both inside [measures] and outside it "
                             f"({', '.join(repr(str(k)[:40]) for k in others[:3])}); put them all in one place.")
        found = found["measures"]
    rules = found
    if not isinstance(rules, dict):
        raise InputError(f"--rules {path.name}: give a table of measure name → rule (e.g. [\"near_duplicates.within\"] "
                         "max_rise = 0.01).")
    if not rules:
        raise InputError(f"--rules {path.name} names no measure: an empty file or table gates nothing by "
                         "itself; delete it to use the default rules, or name the measures.")
    from .registry import spec_of

    unknown = [str(n) for n in rules if n != "*" and n != CUES and spec_of(str(n)) is None
               and spec_of(f"{n}[x]") is None]
    if unknown:
        raise InputError(f"--rules {path.name}: no measure is named {printable(unknown[0])[:80]!r}"
                         + (f" (nor {len(unknown) - 1} other name(s))" if len(unknown) > 1 else "")
                         + "; the names are those `check` prints (docs/certificate.md), or \"*\" for all.")
    checked = {}
    for name, rule in rules.items():
        keys = {"ignore"} if name == CUES else RULE_KEYS
        if not isinstance(rule, dict) or not set(rule) <= keys or not rule:
            raise InputError(f"--rules {path.name}: the rule of {printable(name)[:80]!r} should set some of "
                             f"{', '.join(sorted(keys))}, not {printable(rule)[:80]}"
                             + (" (the cues are gated cue by cue, on their uncertainty: a rule may only ignore "
                                "them)." if name == CUES else "."))
        checked[name] = {key: _rule_value(path.name, name, key, value) for key, value in rule.items()}
    return checked


def _rule_value(file: str, name: str, key: str, value):
    """A rule's value as the gate uses it (a bool, or a finite float), or InputError naming it."""
    if key == "ignore":
        if isinstance(value, bool):
            return value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)   # a 400-digit integer overflows here: refused below, not a traceback
        except OverflowError:
            number = math.inf
        if math.isfinite(number) and not (key == "max_rise" and number < 0):
            return number
    shown = printable(value)
    raise InputError(f"--rules {file}: {printable(name)[:80]}.{key} = {shown[:40]}{'…' if len(shown) > 40 else ''} "
                     "should be " + ("true or false." if key == "ignore" else "a finite number"
                                     + (" ≥ 0." if key == "max_rise" else ".")))


def check_rules(rules: dict, baseline: dict, candidate: dict) -> None:
    """InputError for a rule that names no measure of either certificate (a misspelt label such as
    ``zstats.z_max[nuetral]``, ``[*]``, a measure these data do not have): it would gate nothing."""
    names = set(baseline.get("measures", {})) | set(candidate.get("measures", {}))
    bases = {n.partition("[")[0] for n in names}
    for name in rules:
        name = str(name)
        if name in ("*", CUES) or name in names or ("[" not in name and name in bases):
            continue
        base = name.partition("[")[0]
        labels = sorted(n.partition("[")[2][:-1] for n in names if n.startswith(base + "["))
        hint = (f"its labels here are {', '.join(repr(lab) for lab in labels[:8])}; a rule for every label is "
                f"named {base!r}" if labels else "neither certificate has it")
        raise InputError(f"the rule for {printable(name)[:80]!r} matches no measure of these certificates "
                         f"({hint}); correct the name, or remove the rule.")


@lru_cache(maxsize=1)
def _unique_key_loader():
    """yaml's SafeLoader, refusing a key repeated in one mapping (read last-wins, it would drop a
    rule without a word)."""
    import yaml

    class Loader(yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if key in seen:
                    raise InputError(f"the key {printable(key)[:80]!r} is given twice in one table (line "
                                     f"{key_node.start_mark.line + 1}); keep one.")
                seen.add(key)
            return super().construct_mapping(node, deep)

    return Loader


#: the deepest nesting a YAML rules file may have (a rule is two levels deep); deeper is refused
#: before it is built: nested flow sequences make the parser's work grow without bound
YAML_DEPTH = 8


def _plain_yaml(text: str, name: str):
    """YAML without aliases or tags: an alias can expand a small file without bound (a 'billion
    laughs'), and a tag can name any type; a rules file needs neither."""
    import yaml

    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent):
            raise InputError(f"--rules {name} uses a YAML alias (*{str(event.anchor)[:40]}); write each rule out.")
        if getattr(event, "tag", None) is not None:   # the parser sets a tag only where one is written
            raise InputError(f"--rules {name} uses a YAML tag ({str(event.tag)[:40]}); write plain values.")
        depth += isinstance(event, yaml.CollectionStartEvent) - isinstance(event, yaml.CollectionEndEvent)
        if depth > YAML_DEPTH:
            raise InputError(f"--rules {name} nests more than {YAML_DEPTH} levels deep (line "
                             f"{event.start_mark.line + 1}); a rules file is a table of measure → rule.")
    try:
        found = yaml.load(text, Loader=_unique_key_loader())
    except InputError as exc:
        raise InputError(f"--rules {name}: {exc}") from None
    return found or {}


_MISSING = ("the baseline has {what} and the candidate does not: certify the candidate again with this tool, "
            "or allow the omission with a rule ([\"{name}\"] ignore = true)")


def _rule_for(name: str, rules: dict) -> dict:
    base = name.split("[", 1)[0]
    for key in (name, base, "*"):
        if key in rules:
            return rules[key]
    return {}


def mismatches(baseline: dict, candidate: dict) -> list:
    """What differs between how the two certificates were made (settings, label set), in words."""
    out = []
    for key in COMPARED_SETTINGS:
        b, a = (c.get("settings", {}).get(key) for c in (baseline, candidate))
        if b != a:
            out.append(f"{key} ({b!r} in the baseline, {a!r} in the candidate)")
    labels = [sorted(map(str, c["dataset"].get("labels", {}))) for c in (baseline, candidate)]
    # the "labels" of multiple-choice items are the gold's letters: positions, compared per position
    # against the chance each item's k gives (a letter a half lacks is a count of zero, not another task)
    if labels[0] != labels[1] and not (_items(baseline) and _items(candidate)):
        out.append(f"the labels ({', '.join(labels[0][:5])} in the baseline; {', '.join(labels[1][:5])} in the "
                   "candidate)")
    return out


def _items(cert: dict) -> bool:
    """Whether a certificate is of multiple-choice items (it has the items' measures)."""
    return any(str(name).startswith("mc.") for name in cert.get("measures", {}))


def compare(baseline: dict, candidate: dict, rules=None) -> pd.DataFrame:
    """One row per measure: ``measure``, ``before``, ``after``, ``change``, ``allowed`` (the rise in
    the worse direction the rule allows, or the bound), ``ok`` (None: not gated), ``status`` (pass,
    fail, warn, not gated) and ``why``; the last row is the cue-by-cue comparison (`CUES`), whose
    cues are in ``attrs["cues"]``, ``attrs["z"]`` is the family's line and ``attrs["verdict"]`` its
    `verdict`.
    InputError when the two were made with different settings or labels (`mismatches`)."""
    differ = mismatches(baseline, candidate)
    if differ:
        raise InputError("the two certificates were made differently, so their measures cannot be compared: "
                         + "; ".join(differ) + ". Certify the candidate with the baseline's settings (they are in its "
                         "\"settings\"), or certify both again.")
    rules = rules or {}
    check_rules(rules, baseline, candidate)
    before, after = baseline["measures"], candidate["measures"]
    rows = [_measure_row(name, before.get(name), after.get(name), _rule_for(name, rules))
            for name in sorted(set(before) | set(after))]
    cue_rule = _rule_for(CUES, rules)
    has_cues = bool(baseline.get("cues") and candidate.get("cues")) and not cue_rule.get("ignore")
    lacks_cues = bool(baseline.get("cues")) and not candidate.get("cues") and not cue_rule.get("ignore")
    tests = sum("_spread" in r and not r["_warns"] for r in rows) + has_cues
    z = bonferroni_threshold(FAMILY_ALPHA, tests)
    # a warning measure is held to the line it would have if every default test were gated
    z_warn = bonferroni_threshold(FAMILY_ALPHA, tests + sum("_spread" in r and r.get("_warns") for r in rows))
    for row in rows:
        _apply_line(row, z, z_warn)
    changes = cue_changes(baseline, candidate, FAMILY_ALPHA / max(tests, 1)) if has_cues else None
    rows.append(_cue_row(changes, lacks_cues, cue_rule, z))
    table = pd.DataFrame(rows, columns=["measure", "before", "after", "change", "allowed", "ok", "status", "why"])
    table.attrs["cues"] = changes
    table.attrs["z"], table.attrs["tests"] = z, tests
    table.attrs["verdict"] = verdict(table)   # for readers that may not import the gate (the report)
    return table


def _measure_row(name: str, b: Optional[dict], a: Optional[dict], rule: dict) -> dict:
    """The row of one measure (``b`` and ``a`` its records in the baseline and the candidate): its
    change, and what is wrong with it before the family's line is known (``_problems``; ``_spread``,
    the standard error the line multiplies; ``_rise``, the change in the worse direction)."""
    from .registry import spec_of

    row = {"measure": name, "before": b and b["value"], "after": a and a["value"], "change": None,
           "allowed": None, "ok": None, "why": ""}
    spec = spec_of(name)   # what the measure is comes from this tool, not from the file under test
    artifact = spec.artifact if spec is not None else False
    named = bool(set(rule) & {"max_rise", "max", "min"})
    if b is None or a is None:
        if b is None:
            row["why"] = "new measure"
        elif (artifact or named) and not rule.get("ignore"):
            # a candidate passes nothing by leaving a measure out: an omission fails, by name
            row.update(ok=False, status="fail", why=_MISSING.format(what="this measure", name=name))
        else:
            row["why"] = "not in the candidate"
        return row
    worse = spec.worse if spec is not None else b["worse"]
    warns = spec is not None and spec.warns
    if b["value"] is not None and a["value"] is not None:
        row["change"] = a["value"] - b["value"]
    if rule.get("ignore") or not (artifact or named):
        row["why"] = ("ignored by the rules" if rule.get("ignore") else "not an artifact measure (a rule may gate it)"
                      if spec is not None else "a measure this tool does not know (a rule may gate it)")
        return row
    warning = warns and not named   # `Measure.warns`: shown against its line, failing nothing
    if a["value"] is None:
        # a value the baseline vouched for and the candidate lacks fails, warning measure or not:
        # a null is as much an omission as a missing name
        row.update(ok=b["value"] is None, why="could not be computed on the candidate"
                   + ("" if b["value"] is None else " (the baseline has a value): certify the candidate again"))
        return row
    if b["value"] is None and "max" not in rule and "min" not in rule:
        row.update(ok=None if warning else False, status="warn" if warning else None,
                   why="the baseline has no value for it, so it cannot vouch for the candidate; certify the "
                       "baseline again")
        return row
    problems = []
    if "max" in rule and a["value"] > rule["max"]:
        problems.append(f"above max {rule['max']:g}")
    if "min" in rule and a["value"] < rule["min"]:
        problems.append(f"below min {rule['min']:g}")
    if row["change"] is not None and worse != "neither" and (artifact or "max_rise" in rule):
        rise = row["change"] if worse == "higher" else -row["change"]
        if "max_rise" in rule:
            allowed = float(rule["max_rise"])
        elif b["stderr"] is None or a["stderr"] is None:
            allowed = 0.0
        else:   # the candidate's standard error counts up to the baseline's: a file cannot widen its gate
            allowed = max(math.sqrt(b["stderr"] ** 2 + min(a["stderr"], b["stderr"]) ** 2), _pooled(b, a))
            row["_spread"] = allowed   # times the family's z, once the tests are counted
        row["allowed"], row["_rise"] = allowed, rise
    row["_problems"], row["_warns"] = problems, warning
    return row


def _pooled(b: dict, a: dict) -> float:
    """Two shares' binomial standard error of their difference, pooled under no change (the
    two-proportion test: both counts, one share, with one hit and one miss added so a share of 0 is
    not certain), from their values and denominators ``n`` (0 where either lacks one). A rare count
    measured on the lower of two halves (CommonsenseQA's 24 repeated options: 7 in one half, 17 in
    the other) understates the spread the difference has; the pooled error does not, and a
    candidate moves it by its value, not by a standard error it states; its size counts only up to
    the baseline's, as its standard error does, so a file cannot widen its gate by a small ``n``."""
    if not (isinstance(b.get("n"), int) and isinstance(a.get("n"), int) and b["n"] > 0 and a["n"] > 0):
        return 0.0
    n_b, n_a = b["n"], max(a["n"], b["n"])
    p = (b["value"] * n_b + a["value"] * n_a + 1) / (n_b + n_a + 2)
    return math.sqrt(max(p * (1 - p), 0.0) * (1 / n_b + 1 / n_a))


def _apply_line(row: dict, z: float, z_warn: float) -> None:
    """A measure's status once the family's line ``z`` is known (``z_warn`` for a measure that warns)."""
    if "_problems" not in row:
        row["status"] = row.get("status") or ("not gated" if row["ok"] is None else "pass" if row["ok"] else "fail")
        return
    problems, warns = row.pop("_problems"), row.pop("_warns")
    if "_spread" in row:
        row["allowed"] = (z_warn if warns else z) * row.pop("_spread")
    if "_rise" in row and row.pop("_rise") > row["allowed"]:
        worse = "rose" if (row["after"] or 0) > (row["before"] or 0) else "fell"
        problems.append(f"{worse} by {abs(row['change']):.4g}, more than {row['allowed']:.4g}")
    if warns:   # shown against the same line, failing nothing (`core.certificate.registry.Measure.warns`)
        row["status"] = "warn" if problems else "pass"
        row["why"] = ("warns: " + "; ".join(problems) if problems else "within the line") + \
            " (warns only: a rule may gate it)"
        return
    row["ok"] = not problems
    row["status"] = "pass" if row["ok"] else "fail"
    row["why"] = "; ".join(problems) or "within the rule"


def _cue_row(changes, lacks_cues: bool, cue_rule: dict, z: float) -> dict:
    """The row of the cue-by-cue comparison (`CUES`): ``changes`` its new or stronger cues (None when
    not compared), ``lacks_cues`` the candidate leaving out a table the baseline has."""
    row = {"measure": CUES, "before": None, "after": None, "change": None, "allowed": 0, "ok": None, "why": "",
           "status": "not gated"}
    if lacks_cues:
        row.update(ok=False, status="fail", why=_MISSING.format(what="the cue table", name=CUES))
    elif changes is None:
        row["why"] = ("ignored by the rules" if cue_rule.get("ignore") else
                      "a certificate has no cue table (format 1): certify it again to compare cue by cue")
    else:
        listed = ", ".join(f"{c.feature!r} → {c.label}" for c in changes.head(3).itertuples())
        row.update(after=float(len(changes)), ok=not len(changes), status="fail" if len(changes) else "pass",
                   why=f"{len(changes)} new or stronger cue(s): {listed}" + (" …" if len(changes) > 3 else "")
                   if len(changes) else f"no cue new or stronger (z line {changes.attrs.get('line', z):.2f})")
    return row


@dataclass(frozen=True)
class Verdict:
    """What a `compare` table says, read one way by every front end (``check``'s exit status and
    JSON, the Evaluate page, the evaluation report): the measures that fail (the cue table as
    `CUES`) and those that only warn."""

    failed: tuple
    warned: tuple

    @property
    def passed(self) -> bool:
        return not self.failed

    @property
    def exit_status(self) -> int:
        return int(bool(self.failed))

    def exit_status_on(self, fail_on: str = "fail") -> int:
        """1 when the check fails (``fail_on="warn"``: or warns), else 0 (2 is for a check that
        could not run: `core.cli`)."""
        return int(bool(self.failed or (fail_on == "warn" and self.warned)))


def verdict(table: pd.DataFrame) -> Verdict:
    """The `Verdict` of a `compare` table: its rows by ``status``."""
    def named(status):
        return tuple(table.loc[table["status"] == status, "measure"])

    return Verdict(failed=named("fail"), warned=named("warn"))
