"""The token a chat template writes to end an assistant turn, found by rendering it.

The template is rendered for a short conversation (a user message, then an assistant message holding a
marker) in a separate process (render_child.py): jinja2's sandbox, as transformers uses it, limits what a
template can reach, and the process limits what it can cost (TIMEOUT seconds, 1 GiB of address space,
OUTPUT_LIMIT characters). The end-of-turn token is the added token that starts the text right after the
marker, leading whitespace aside. jinja2 is imported by that process only, so a model without a chat
template never pays for it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

TIMEOUT = 5.0  # seconds for the whole render, process start included
OUTPUT_LIMIT = 64 * 1024  # characters; two short messages render to a few hundred
MARKER = "cfglint-assistant-marker-3f9c"
USER = {"role": "user", "content": "Hello"}
ASSISTANT = {"role": "assistant", "content": MARKER}
# Templates that insist on a system message, or reject one, get the other shape on a second try.
CONVERSATIONS = ([USER, ASSISTANT], [{"role": "system", "content": "Be brief."}, USER, ASSISTANT])
CHILD = Path(__file__).with_name("render_child.py")


@dataclass(frozen=True)
class TurnEnd:
    token: str | None  # the end-of-turn token's text; None when the template writes no token after a turn
    rendered: str = ""  # the text after the assistant's message, for messages
    error: str | None = None  # the template did not render (one line); token is None then


def turn_end(template: str, variables: dict[str, str], tokens: set[str]) -> TurnEnd:
    """`variables` are the special tokens the template may print (bos_token, eos_token, ...); `tokens` the
    texts of the added tokens, among which the end of turn is looked for."""
    rendered = _rendered(template, json.dumps(variables, sort_keys=True))
    return rendered if isinstance(rendered, TurnEnd) else after_marker(rendered, tokens)


@lru_cache(maxsize=256)  # a tree of fine-tunes shares a few templates: render each once per run
def _rendered(template: str, variables: str) -> TurnEnd | str:
    """The rendered conversation (`variables` as JSON), or why it could not be rendered."""
    request = {"template": template, "conversations": CONVERSATIONS, "variables": json.loads(variables), "limit": OUTPUT_LIMIT}
    try:
        proc = subprocess.run(
            [sys.executable, "-E", "-c", CHILD.read_text(encoding="utf-8")],
            input=json.dumps(request), capture_output=True, text=True, timeout=TIMEOUT, check=False,
        )
    except subprocess.TimeoutExpired:
        return TurnEnd(None, error=f"did not finish rendering in {TIMEOUT:g} s")
    except OSError as err:
        return TurnEnd(None, error=f"could not be rendered ({err.strerror or err})")
    try:
        reply = json.loads(proc.stdout)
    except ValueError:
        if "MemoryError" in proc.stderr:
            reason = "needs more than 1 GiB to render"
        elif "No module named 'jinja2'" in proc.stderr:
            reason = "could not be rendered: jinja2 is not installed"
        else:
            reason = f"could not be rendered (the renderer exited with status {proc.returncode})"
        return TurnEnd(None, error=reason)
    if "error" in reply:
        return TurnEnd(None, error=reply["error"] or "does not render")
    return str(reply["text"])


def after_marker(text: str, tokens: set[str]) -> TurnEnd:
    at = text.rfind(MARKER)
    if at < 0:
        return TurnEnd(None, error="does not print the assistant's message")
    rest = text[at + len(MARKER):]
    start = rest.lstrip(" \t\r\n")
    matches = [t for t in tokens if t and start.startswith(t)]
    return TurnEnd(max(matches, key=len) if matches else None, rest[:80])
