"""The header of a GGUF file on the Hub, read with HTTP range requests through huggingface_hub.

A GGUF's metadata and tensor infos sit at the start of a file of gigabytes: the first FIRST_READ bytes
are fetched, and when the header runs past them (a large vocabulary), the prefix grows to what the parse
says it needs (at least double), up to MAX_READ. Each response is read as a stream and cut at the bytes
asked for, so a server that ignores the Range header still sends no more than that.
Authentication, endpoint and timeouts are huggingface_hub's (HF_TOKEN, HF_ENDPOINT, HF_HUB_DOWNLOAD_TIMEOUT).
"""

from __future__ import annotations

import re

from huggingface_hub import constants, hf_hub_url
from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

FIRST_READ = 2 << 20  # vocabularies of up to ~150k tokens with their merges fit
MAX_READ = 64 << 20  # the largest real headers (262k tokens with merges) are about 30 MiB
_CONTENT_RANGE = re.compile(r"bytes \d+-\d+/(\d+)")


class HeaderTooLarge(Exception):
    """The header needs more than MAX_READ bytes: it is reported, not fetched."""


def read_header(repo_id: str, filename: str, revision: str, *, first_read: int = FIRST_READ, max_read: int = MAX_READ):
    """(the parsed GgufHeader, bytes fetched in all). Raises GgufError for a malformed header, HeaderTooLarge,
    and huggingface_hub's errors for what the Hub answers."""
    from cfglint.gguf.header import HeaderIncomplete, parse_header

    url = hf_hub_url(repo_id, filename, revision=revision)
    want, fetched = first_read, 0
    while True:
        data, file_size = _prefix(url, want)
        fetched += len(data)
        try:
            return parse_header(data, file_size=file_size), fetched
        except HeaderIncomplete as short:
            if len(data) >= file_size or short.needed_bytes <= len(data):
                raise  # the whole file is here, or the parse asks for what it has: not a prefix problem
            if short.needed_bytes > max_read:
                raise HeaderTooLarge(
                    f"its header needs {short.needed_bytes:,} bytes, more than the {max_read:,} cfglint reads"
                ) from None
            want = min(file_size, max_read, max(short.needed_bytes, 2 * want))


def _prefix(url: str, size: int) -> tuple[bytes, int]:
    """The first `size` bytes of the file at url (fewer when it is shorter) and the file's total size."""
    headers = {**build_hf_headers(), "range": f"bytes=0-{size - 1}"}
    with get_session().stream("GET", url, headers=headers, timeout=constants.HF_HUB_DOWNLOAD_TIMEOUT) as response:
        hf_raise_for_status(response)
        chunks, received = [], 0
        for chunk in response.iter_bytes():
            chunks.append(chunk[: size - received])
            received += len(chunks[-1])
            if received >= size:
                break
        total = _total_size(response.headers, received)
    return b"".join(chunks), total


def _total_size(headers, received: int) -> int:
    match = _CONTENT_RANGE.fullmatch(headers.get("content-range", ""))
    if match:
        return int(match.group(1))
    length = headers.get("content-length", "")
    return int(length) if length.isdigit() else received  # a 200 to a range request: the whole file's length
