import random
from pathlib import Path

import pytest

from cfglint import document
from cfglint.document import MAX_DEPTH, load, parse


def doc_of(text: str | bytes):
    return parse(Path("config.json"), text.encode() if isinstance(text, str) else text)


def test_positions_of_keys_and_nested_members():
    doc = doc_of('{\n  "a": 1,\n  "b": {"c": [10, 20]}\n}\n')
    assert doc.locate("/a") == (2, 3)
    assert doc.locate("/b") == (3, 3)
    assert doc.locate("/b/c") == (3, 9)
    assert doc.locate("/b/c/1") == (3, 19)
    assert doc.locate("/b/missing") == (3, 3)  # falls back to the nearest parent


def test_columns_count_characters_not_bytes():
    doc = doc_of('{"é": 1, "x": 2}')
    assert doc.locate("/x") == (1, 10)


def test_crlf_lines():
    doc = doc_of('{\r\n  "a": 1,\r\n  "b": 2\r\n}')
    assert doc.locate("/b") == (3, 3)
    assert doc.line_text(3) == '  "b": 2'


def test_duplicates_keep_last_value_and_record_earlier():
    doc = doc_of('{"k": 1, "k": 2, "k": 3}')
    assert doc.data == {"k": 3}
    [dup] = doc.duplicates
    assert dup.pointer == "/k" and len(dup.earlier) == 2


def test_pointer_escaping():
    doc = doc_of('{"a/b": {"c~d": 1}}')
    assert "/a~1b/c~0d" in doc.spans


@pytest.mark.parametrize(
    "text, message, position",
    [
        ('{"a": 1,}', "trailing comma", (1, 9)),
        ('{"a" 1}', "expected ':'", (1, 6)),
        ('{"a": tru}', "expected a value", (1, 7)),
        ('{"a": 1} extra', "extra data", (1, 10)),
        ("", "unexpected end of file", (1, 1)),
        ('{"a": "unterminated}', "unterminated string", (1, 7)),
        ("{\n  'a': 1\n}", "property name in double quotes", (2, 3)),
    ],
)
def test_syntax_errors_have_positions(text, message, position):
    doc = doc_of(text)
    assert not doc.ok and message in doc.syntax.message
    assert doc.position(doc.syntax.offset) == position


def test_nonstandard_literals_are_read_and_recorded():
    doc = doc_of('{"x": NaN, "y": [Infinity, -Infinity]}')
    assert doc.ok
    assert [(lit.pointer, lit.text) for lit in doc.literals] == [("/x", "NaN"), ("/y/0", "Infinity"), ("/y/1", "-Infinity")]


def test_bom_is_recorded_and_skipped():
    doc = doc_of(b'\xef\xbb\xbf{"a": 1}')
    assert doc.ok and doc.bom and doc.data == {"a": 1}


def test_invalid_utf8_points_at_the_byte():
    doc = doc_of(b'{\n  "a": "\xff"\n}')
    assert not doc.ok and "0xff" in doc.syntax.message
    assert doc.position(doc.syntax.offset) == (2, 9)


def test_deep_nesting_is_an_error_not_a_crash():
    doc = doc_of("[" * 100_000 + "]" * 100_000)
    assert not doc.ok and str(MAX_DEPTH) in doc.syntax.message


def test_nesting_just_under_the_limit_parses():
    depth = MAX_DEPTH
    doc = doc_of("[" * depth + "]" * depth)
    assert doc.ok


def test_huge_file_is_refused_without_reading(tmp_path):
    path = tmp_path / "config.json"
    with open(path, "wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    doc = load(path)
    assert not doc.ok and "50.0 MiB" in doc.syntax.message


def _full_parse(raw: bytes):
    """The full parser alone, as it runs for a file the fast path hands over."""
    from cfglint.document import Document, _Parser

    text = raw.decode("utf-8")
    doc = Document(path=Path("config.json"), text=text)
    doc.data = _Parser(doc, 1 if text.startswith("\ufeff") else 0).parse()
    return doc


EDGE_CASES = [
    '{}', '[]', '{"a": []}', '{"a": {}}', '{"a": [{}, [], [1, [2, {"b": null}]], "x"]}',
    '{"a~b/c": {"d\\"e": [true, false, null, -1.5e3]}}', '\ufeff{"a": 1}', '{"\\u00e9": "\\n", "k": "v"}',
    '  {\r\n  "a" : 1 ,\r\n  "b":[ 1 , 2 ]\r\n}  ', '[{"a": 1}, {"a": 2}]',
]


SAMPLES = Path(__file__).resolve().parents[1] / "samples"


@pytest.mark.parametrize("text", EDGE_CASES + [p.read_text() for p in sorted(SAMPLES.glob("*/config.json"))])
def test_the_fast_path_finds_the_same_spans_as_the_full_parser(text):
    raw = text.encode("utf-8")
    fast, full = document.parse(Path("config.json"), raw), _full_parse(raw)
    assert fast.data == full.data and fast.spans == full.spans


def test_the_fast_path_hands_over_what_only_the_full_parser_reports():
    for text in ('{"a": 1, "a": 2}', '{"a": NaN}', '{"a": 1,}', "[" * 600 + "]" * 600, '"just a string"'):
        doc = document.parse(Path("config.json"), text.encode())
        assert doc.duplicates or doc.literals or doc.syntax or not isinstance(doc.data, dict)


def _full_locate(doc, pointer):
    """locate() over the full spans, as it was before the outline."""
    while True:
        span = doc.spans.get(pointer)
        if span is not None:
            return doc.position(span.key_start if span.key_start is not None else span.start)
        if pointer == "":
            return 1, 1
        pointer = pointer.rsplit("/", 1)[0]


def test_key_index_locates_every_pointer_as_the_full_spans_do():
    """locate() reads an index of the keys alone; every pointer lands where the full spans put it."""
    configs = sorted(Path(__file__).resolve().parents[1].glob("samples/*/config.json"))
    texts = [c.read_text(encoding="utf-8") for c in configs] + [
        '{"a": [1, "x]", {"b": [2, []]}], "c": {"d": ["\\"[", 3]}, "e": []}',
        '[{"a": [1, 2]}, [3, [4]], "s"]',
        '\ufeff{"k": ["v", null, true], "o": {}}',
        '{"a~b/c": {"\\u0041": 1, "x\\"y": [{"k": {"z": "\\":"}}, 2]}, "\\\\": {"q": 1}}',
        ' \n [ ] ',
        # without a backslash, keys are searched for by name: names repeated as values, nested keys and in arrays
        '{"x": "a", "a" : {"a": ["a", {"a": "a"}]}, "b": {"c": {"a": 1}, "a": 2}, "a:": "a :", "u": ["a", ":", "a"], "e~/": {"a": "}"}}',
        '{\n "a"\n :\n 1, "k": {"a" :{"a":{}}}, "a a": "a", "": {"": ""}}',
        '\ufeff{"b": "a", "a": {"a": 1}}',
        '{"x":"y",":":1,",":2, "k": [":"], "]":{",":3}}',  # a closing quote and what follows can spell a key's token
    ]
    assert sum("\\" not in text for text in texts) > len(texts) // 2  # both ways of finding a key are covered
    checked = 0
    for text in texts:
        reference = parse(Path("config.json"), text.encode())
        pointers = list(reference.spans)
        pointers += [p + "/missing" for p in pointers] + [p + "/0" for p in pointers] + [p + "/7/x" for p in pointers]
        pointers += [p + suffix for p in pointers[:30] for suffix in ("/01", "/-1", "/\u00b2", "/", "/~1")]
        for pointer in pointers:
            doc = parse(Path("config.json"), text.encode())  # fresh: the key index, not the full spans
            assert doc.locate(pointer) == _full_locate(reference, pointer), (text[:40], pointer)
            assert doc.has(pointer) == (pointer in reference.spans), (text[:40], pointer)
            checked += 1
        shared = parse(Path("config.json"), text.encode())  # one index asked for all, in any order: it resumes its scan
        for pointer in random.Random(len(text)).sample(pointers, len(pointers)):
            assert shared.locate(pointer) == _full_locate(reference, pointer), (text[:40], pointer)
    assert checked > 1000
    indexed = parse(Path("config.json"), texts[0].encode())
    indexed.locate("/model_type")
    assert indexed._spans is None  # found without the full spans


def _line_and_column(text: str, offset: int) -> tuple[int, int]:
    """What an editor shows: lines end at \\r\\n, \\r or \\n; columns count characters."""
    line, start = 1, 0
    for i, char in enumerate(text[:offset]):
        if char == "\n" and i > 0 and text[i - 1] == "\r":
            start = i + 1
        elif char in "\r\n":
            line, start = line + 1, i + 1
    return line, offset - start + 1


@pytest.mark.parametrize("text", ['{\n  "a": 1,\n\n  "é": [\n    2\n  ]\n}\n', '{\r\n  "a": 1,\r\n  "b": 2\r\n}', '{\r"a": 1,\n"b":\r\n2}', "", "\n\n"])
def test_positions_are_the_same_counted_or_from_the_line_table(text):
    """The first positions a document is asked for are counted; later ones come from a table of line starts."""
    doc = doc_of(text)
    offsets = [i for i in range(len(text) + 1) if text[i - 1 : i + 1] != "\r\n"] * (document._COUNTED_POSITIONS + 1)  # none points inside a line break
    assert len(offsets) > document._COUNTED_POSITIONS
    assert [doc.position(offset) for offset in offsets] == [_line_and_column(text, offset) for offset in offsets]


def test_line_text_needs_no_position_asked_first():
    assert doc_of('{\n  "a": 1\n}').line_text(2) == '  "a": 1'


def test_pointer_tokens_unescape_in_rfc_6901_order():
    assert document.tokens("/a~1b/~0c/0") == ["a/b", "~c", "0"]
    assert document.tokens("/~01") == ["~1"]  # ~0 then 1, not ~01 read as / then ~
    assert document.tokens("") == [] and document.tokens("/") == [""]
    assert all(document.unescape(document.escape(k)) == k for k in ("a/b", "~", "~1", "/~0", "plain"))
