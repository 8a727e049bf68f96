"""The stop tokens in `cfglint view`: each runtime's set and where each id comes from, and the template's
end of turn."""

from __future__ import annotations


def as_json(ctx) -> dict | None:
    stops = ctx.stops
    if stops is None:
        return None
    turn = stops.turn
    return {
        "turn_end": None if turn is None else {
            "token": turn.token, "id": stops.turn_end_id, "template": stops.files.template_origin, "error": turn.error,
        },
        "runtimes": {name: s.to_json() for name, s in stops.sets.items()},
    }


def lines(ctx) -> list[str]:
    stops = ctx.stops
    if stops is None or not stops.sets:
        return []
    out = ["stop tokens:"]
    turn = stops.turn
    if turn is not None:
        end = turn.error or (f"{turn.token!r} ({stops.turn_end_id})" if turn.token else "no token")
        out.append(f"  chat template ({stops.files.template_origin}) ends a turn with {end}")
    end_id = stops.turn_end_id
    width = max(len(n) for n in stops.sets)
    for name, s in stops.sets.items():
        if s.failure is not None:
            out.append(f"  {name.ljust(width)}  fails: {s.failure}")
            continue
        ids = ", ".join(map(str, s.ids)) or "none"
        marks = (" !" if end_id is not None and s.complete and end_id not in s.ids else "") + ("" if s.complete else " (incomplete)")
        grouped: dict[str, list[str]] = {}
        for stop in s.stops:
            grouped.setdefault(stop.origin, []).append(str(stop.id))
        origins = "; ".join(f"{origin}: {', '.join(dict.fromkeys(ids))}" for origin, ids in grouped.items())
        out.append(f"  {name.ljust(width)}  [{ids}]{marks}" + (f"  <- {origins}" if origins else ""))
    return out
