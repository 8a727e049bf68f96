"""Renders one chat template, run as its own process by cfglint.stops.template (never imported by cfglint).

Self-contained on purpose (jinja2 and the standard library only): the parent runs this file's text with
`python -E -c`, under a memory limit and a timeout, so a template that loops, recurses or builds a huge
string ends this process and not cfglint. The environment is the one transformers renders chat templates
in (`ImmutableSandboxedEnvironment` with trim_blocks, lstrip_blocks and loop controls, `raise_exception`,
`strftime_now`, a `tojson` that does not escape HTML, and `{% generation %}` blocks), so nothing but the
template's own sandboxed expressions runs. Input on stdin, one JSON object: {"template", "conversations",
"variables", "limit"}; output on stdout, one JSON object: {"text", "conversation"} or {"error"}.
"""

import json
import sys

MEMORY_LIMIT = 1 << 30  # address space, bytes


def main() -> None:
    try:
        import resource
    except ImportError:  # not on POSIX: the parent's timeout and the output limit still hold
        pass
    else:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    request = json.load(sys.stdin)
    try:
        environment = _environment()
        template = environment.from_string(request["template"])
    except Exception as err:  # noqa: BLE001 - any parse failure is the template's, reported as one line
        _reply({"error": f"does not parse: {_one_line(err)}"})
        return
    error = ""
    for index, messages in enumerate(request["conversations"]):
        try:
            text = _render(template, {**request["variables"], "messages": messages}, request["limit"])
        except _TooLong:
            _reply({"error": f"renders more than {request['limit']} characters for a two-message conversation"})
            return
        except MemoryError:
            _reply({"error": f"needs more than {MEMORY_LIMIT >> 30} GiB to render"})
            return
        except Exception as err:  # noqa: BLE001 - a template may raise anything; the next conversation may suit it
            error = f"does not render: {_one_line(err)}"
            continue
        _reply({"text": text, "conversation": index})
        return
    _reply({"error": error})


class _TooLong(Exception):
    pass


def _render(template, variables: dict, limit: int) -> str:
    parts, size = [], 0
    for chunk in template.generate(**variables):
        size += len(chunk)
        if size > limit:
            raise _TooLong
        parts.append(chunk)
    return "".join(parts)


def _environment():
    from datetime import datetime

    import jinja2
    from jinja2.ext import Extension
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class Generation(Extension):
        """transformers' AssistantTracker marks {% generation %} blocks; the text renders unchanged."""

        tags = {"generation"}

        def parse(self, parser):
            next(parser.stream)
            return parser.parse_statements(("name:endgeneration",), drop_needle=True)

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(format):
        return datetime.now().strftime(format)

    environment = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[Generation, jinja2.ext.loopcontrols]
    )
    environment.filters["tojson"] = tojson
    environment.globals["raise_exception"] = raise_exception
    environment.globals["strftime_now"] = strftime_now
    return environment


def _one_line(err: Exception) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text[:200]


def _reply(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj))


if __name__ == "__main__":
    try:
        main()
    except MemoryError:
        _reply({"error": f"needs more than {MEMORY_LIMIT >> 30} GiB to render"})
