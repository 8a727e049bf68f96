"""Settings applied to a run's rules: which rules run, at what severity, and what is suppressed in which file.

Suppressions and severity overrides are applied by wrapping each rule's `check`, so `check` and `fix` see the
same findings: a suppressed finding is neither reported nor fixed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Iterable

from cfglint.diagnostics import Severity
from cfglint.errors import UsageError
from cfglint.rule import CONFIG, Rule
from cfglint.settings import ALL, Settings, Suppression, is_selector

UNUSED_SUPPRESSION = "C001"
PLUGIN_GROUP = "cfglint.rules"


@dataclass
class Applied:
    """A suppression as applied to one file: whether it has silenced a finding there."""

    suppression: Suppression
    used: bool = False


class Policy:
    def __init__(self, settings: Settings, rules: list[Rule], known_consumers: list[str], chosen: list[str] | None = None):
        self.settings = settings
        _check_selectors(settings, [r.code for r in rules])
        from cfglint.consumers import canonical

        chosen_in_settings = [canonical(n) for n in settings.consumers] if settings.consumers else None
        unknown = [n for n in chosen_in_settings or () if n not in known_consumers]
        if unknown:
            raise UsageError(f"{settings.source}: unknown consumer{_s(unknown)} {_quoted(unknown)} (known: {', '.join(known_consumers)})")
        # --runtime on the command line wins over the configuration.
        self.consumer_names = list(chosen or chosen_in_settings or known_consumers)
        self.rules = [r for r in rules if self.enabled(r.code)]
        self._unsuppressed: dict[str, list[Rule]] = {}  # rules_for's answers for a file no suppression covers

    def enabled(self, code: str) -> bool:
        """ruff's rule: the most specific matching entry of select/extend-select or ignore wins; ignore wins ties."""
        select = self.settings.select if self.settings.select is not None else (ALL,)
        return _specificity(code, select + self.settings.extend_select) > _specificity(code, self.settings.ignore)

    def severity(self, code: str) -> Severity | None:
        matching = [(_length(k), v) for k, v in self.settings.severity.items() if k == ALL or code.startswith(k)]
        return Severity(max(matching)[1]) if matching else None

    def rules_for(self, config_path, kind: str = CONFIG) -> list[Rule]:
        """The rules that check this kind of target (their TARGETS), for one file, with its suppressions bound;
        C001 runs last, after every other rule."""
        applied = [
            Applied(s) for s in self.settings.suppress
            if s.matches_file(config_path) and any(s.names(r.code) for r in self.rules if r.code != UNUSED_SUPPRESSION)
        ]
        if not applied and kind in self._unsuppressed:
            return self._unsuppressed[kind]  # most files: no suppression applies, the same rules serve them all
        out, unused_rule = [], None
        for rule in self.rules:
            if kind not in rule.targets:
                continue
            if rule.code == UNUSED_SUPPRESSION:
                # C001's check also takes the suppressions; Rule.check declares the signature every rule shares.
                unused_rule = rule._replace(check=partial(rule.check, suppressions=tuple(applied)))  # type: ignore[call-arg]
            else:
                out.append(_wrapped(rule, applied, self.severity(rule.code)))
        if unused_rule is not None:
            out.append(_wrapped(unused_rule, [], self.severity(unused_rule.code)))
        if not applied:
            self._unsuppressed[kind] = out
        return out


def _wrapped(rule: Rule, applied: list[Applied], severity: Severity | None) -> Rule:
    if not applied and severity is None:
        return rule
    inner = rule.check

    def check(ctx):
        for finding in inner(ctx):
            hits = [a for a in applied if a.suppression.covers(rule.code, finding.pointer)]
            for a in hits:
                a.used = True
            if not hits:
                yield finding if severity is None else finding._replace(severity=severity)

    return rule._replace(check=check, config_keys=None)  # it marks suppressions used: run it for every file


def plugin_rules(settings: Settings, builtin: list[Rule]) -> list[Rule]:
    """The third-party rules the settings enable (none unless they say `plugins = true` or name some)."""
    if not settings.plugins:
        return []
    from importlib.metadata import entry_points

    from cfglint.rule import load_plugins

    available = sorted({ep.name for ep in entry_points(group=PLUGIN_GROUP)})
    wanted = list(settings.plugins) if isinstance(settings.plugins, tuple) else None
    unknown = [n for n in wanted or () if n not in available]
    if unknown:
        raise UsageError(f"{settings.source}: unknown plugin{_s(unknown)} {_quoted(unknown)} (installed: {', '.join(available) or 'none'})")
    try:
        loaded = load_plugins(wanted)
    except Exception as err:  # a broken third-party package must not crash the run with a traceback
        raise UsageError(f"a {PLUGIN_GROUP} plugin failed to load: {type(err).__name__}: {err}") from None
    taken = {r.code: r.origin for r in builtin}
    for rule in loaded:
        if rule.code in taken:
            raise UsageError(f"plugin rule {rule.code} ({rule.origin}) reuses the code of {taken[rule.code]}'s rule")
        taken[rule.code] = rule.origin
    return loaded


def _check_selectors(settings: Settings, codes: list[str]) -> None:
    bad = []
    for key, selectors in settings.selectors().items():
        for selector in selectors:
            if not is_selector(selector) or (selector != ALL and not any(c.startswith(selector) for c in codes)):
                bad.append(f"{selector!r} in {key}")
    if bad:
        raise UsageError(f"{settings.source}: unknown rule code{_s(bad)} {', '.join(bad)} (see `cfglint rules`)")


def _specificity(code: str, selectors: Iterable[str]) -> int:
    return max((_length(s) for s in selectors if s == ALL or code.startswith(s)), default=-1)


def _length(selector: str) -> int:
    return 0 if selector == ALL else len(selector)


def _quoted(names) -> str:
    return ", ".join(repr(n) for n in names)


def _s(items) -> str:
    return "s" if len(items) != 1 else ""
