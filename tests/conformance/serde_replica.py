"""Build and run `serde-replica`, a Rust program that deserializes a config.json with the
same serde types as candle-transformers 0.11.0 and mistral.rs (tests/conformance/serde/).

The real runtimes cannot be built here (crates.io is unreachable), but serde's behaviour is the
whole story of how they read a config: missing keys, wrong types, unknown enum variants. Debian
ships serde and serde_json as Rust source packages; the crate builds offline against them.

Debian 13 (trixie) packages are used, not the machine's own Debian 12 ones: serde 1.0.152 (Debian
12) words some errors differently from the serde the runtimes ship with (`576` vs `576.0` for a
float, no aliases in "expected one of" lists), while serde 1.0.217 matches the mistralrs 0.9.5
wheel's messages exactly. The .debs are fetched with a private apt state under target/ and only
unpacked there, so the machine's package set is left alone.

    binary = ensure_built()
    result = run("candle", Path("config.json"))   # the probe-contract dict

Plain Python on purpose (no pytest import), so scripts and fixtures can share it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from cfglint.knowledge.entry import inner_type

CRATE_DIR = Path(__file__).resolve().parent / "serde"
TARGET_DIR = CRATE_DIR / "target"
BINARY = TARGET_DIR / "release" / "serde-replica"
CONSUMERS = ("candle", "mistralrs")
# `candle:<family>`: a cfglint candle entry's struct, generated into GENERATED (never committed).
FAMILY_PREFIX = "candle:"
GENERATED = CRATE_DIR / "src" / "generated_families.rs"

DEBIAN_SUITE = "trixie"
# The serde trio decides every error text, so it is pinned; the rest only has to compile.
DEBIAN_PACKAGES = (
    "librust-serde-dev=1.0.217-1",
    "librust-serde-derive-dev=1.0.217-1",
    "librust-serde-json-dev=1.0.139-1",
    "librust-itoa-dev",
    "librust-ryu-dev",
    "librust-memchr-dev",
    "librust-proc-macro2-dev",
    "librust-quote-dev",
    "librust-syn-dev",
    "librust-unicode-ident-dev",
)
# Unpacked .debs; .cargo/config.toml points cargo at REGISTRY_DIR as a vendored crates.io.
VENDOR_ROOT = TARGET_DIR / "debian-root"
REGISTRY_DIR = VENDOR_ROOT / "usr" / "share" / "cargo" / "registry"
_VENDOR_MARKER = VENDOR_ROOT / ".packages"

_BUILD_INPUTS = ("Cargo.toml", ".cargo/config.toml", "src")
# Hash of the inputs the current binary was built from; a mismatch means rebuild.
_STAMP = BINARY.with_name("serde-replica.inputs-sha256")
_LOCK = TARGET_DIR / ".serde-replica.lock"
_APT_TIMEOUT_S = 600
_BUILD_TIMEOUT_S = 900
_RUN_TIMEOUT_S = 60
_OUTPUT_TAIL_LINES = 60


def ensure_built() -> Path:
    """Return the path of an up-to-date `serde-replica` binary, fetching and building as needed.

    Fetches and unpacks the Debian source packages when they are missing, then runs
    `cargo build --release --offline`. Rebuilds only when the crate's sources or the package
    set changed. Raises RuntimeError with the failing command's output.
    """
    TARGET_DIR.mkdir(parents=True, exist_ok=True)
    with _exclusive_lock(_LOCK):
        _ensure_vendored_registry()
        _write_generated()  # before hashing: GENERATED lives under src/, so its content is in the digest
        digest = _inputs_digest()
        if BINARY.is_file() and _STAMP.is_file() and _STAMP.read_text().strip() == digest:
            return BINARY
        cargo = _find_cargo()
        _run_checked(
            [cargo, "build", "--release", "--offline", "--quiet"],
            cwd=CRATE_DIR,
            timeout=_BUILD_TIMEOUT_S,
            what="building serde-replica",
        )
        _STAMP.write_text(digest + "\n")
        return BINARY


def run(consumer: str, config_path: Path) -> dict:
    """Deserialize `config_path` as `consumer` ("candle" or "mistralrs") would; return the report.

    The report follows the probe contract: runtime, version, outcome ("loads" | "error" |
    "panic"), message (the runtime's error text, verbatim) and values.
    """
    if consumer not in CONSUMERS and not (
        consumer.startswith(FAMILY_PREFIX) and consumer[len(FAMILY_PREFIX):] in generated_family_names()
    ):
        raise ValueError(f"unknown consumer {consumer!r}; expected one of {CONSUMERS} or candle:<family>")
    binary = ensure_built()
    proc = subprocess.run(
        [str(binary), consumer, str(config_path)],
        capture_output=True,
        text=True,
        timeout=_RUN_TIMEOUT_S,
    )
    if proc.returncode != 0:
        raise RuntimeError(
            f"serde-replica {consumer} {config_path} exited {proc.returncode}:\n{proc.stderr}"
        )
    # json.loads also accepts the NaN/Infinity tokens the replica writes for non-finite floats.
    return json.loads(proc.stdout)


def _generated_entries() -> list:
    from cfglint.knowledge import (
        candle,  # imported late: only the generator needs cfglint
    )

    return [e for e in candle.ENTRIES if not e.rope.startswith("TODO")]


def generated_family_names() -> list[str]:
    return [e.family for e in _generated_entries()]


def _write_generated() -> None:
    text = generate_families()
    if not GENERATED.is_file() or GENERATED.read_text() != text:
        GENERATED.write_text(text)


def _rust_ident(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_") if part)


def _rust_string(text: str) -> str:
    return json.dumps(text)  # a JSON string literal is a valid Rust string literal for these names


def _rust_type(type_name: str) -> str:
    for wrapper, rust in (("option", "Option"), ("list", "Vec")):
        inner = inner_type(type_name, wrapper)
        if inner is not None:
            return f"{rust}<{_rust_type(inner)}>"
    scalars = {"usize": "usize", "u32": "u32", "f32": "f32", "f64": "f64", "bool": "bool", "string": "String",
               "json": "serde_json::Value", "eos": "EosToks", "activation": "Activation"}
    if type_name not in scalars:
        raise ValueError(f"no Rust type for serde field type {type_name!r}")
    return scalars[type_name]


def _rust_value(type_name: str, value: object, variants: dict[str, str]) -> str:
    """A Rust expression of `type_name` holding `value` (a `#[serde(default = ...)]` body)."""
    inner = inner_type(type_name, "option")
    if inner is not None:
        return "None" if value is None else f"Some({_rust_value(inner, value, variants)})"
    inner = inner_type(type_name, "list")
    if inner is not None:
        return "vec![" + ", ".join(_rust_value(inner, v, variants) for v in value) + "]"  # type: ignore[union-attr]
    if type_name in ("usize", "u32"):
        return f"{int(value)}{type_name}"  # type: ignore[call-overload]
    if type_name in ("f32", "f64"):
        return f"{float(value)!r}{type_name}"  # type: ignore[arg-type]
    if type_name == "bool":
        return "true" if value else "false"
    if type_name == "string":
        return f"{_rust_string(str(value))}.to_string()"
    if type_name == "activation":
        return f"super::Activation::{variants[str(value)]}"
    if type_name in ("json", "eos"):
        return f"serde_json::from_str::<{_rust_type(type_name)}>(r#\"{json.dumps(value)}\"#).unwrap()".replace(
            "EosToks", "super::EosToks"
        )
    raise ValueError(f"no Rust default for {type_name!r}")


def _rust_out(type_name: str, expr: str) -> str:
    """A `report::Out` expression for the field value `expr` (an owned value of `type_name`)."""
    if type_name.startswith("option<"):
        inner = _rust_out(type_name[7:-1], "v")
        return f"match {expr} {{ Some(v) => {inner}, None => Out::Null }}"
    if type_name.startswith("list<"):
        inner = _rust_out(type_name[5:-1], "v")
        return f"Out::List({expr}.into_iter().map(|v| {inner}).collect())"
    return {
        "usize": f"Out::Int({expr} as u64)",
        "u32": f"Out::Int({expr} as u64)",
        "f32": f"Out::Float({expr} as f64)",
        "f64": f"Out::Float({expr})",
        "bool": f"Out::Bool({expr})",
        "string": f"Out::Str({expr})",
        "json": f"json_out({expr})",
        "eos": f"eos_out({expr})",
        "activation": f"{expr}.out()",
    }[type_name]


def generate_families() -> str:
    """Rust source of one serde struct per candle entry (cfglint's own field tables), and `run`."""
    from cfglint.knowledge import candle

    entries = _generated_entries()
    newtype = tuple(getattr(candle, "NEWTYPE_ACTIVATIONS", ()))
    variants: dict[str, str] = {}
    for name in candle.ACTIVATIONS:
        ident = _rust_ident(name)
        while ident in variants.values():
            ident += "_"
        variants[name] = ident
    lines = [
        "//! GENERATED by tests/conformance/serde_replica.py from cfglint.knowledge.candle.ENTRIES; do not edit,",
        "//! never committed (see .gitignore). One module per candle family, each with its serde `Config`.",
        "#![allow(dead_code, non_camel_case_types, clippy::all)]",
        "",
        "use crate::report::{Out, Outcome, Report};",
        "",
        "/// candle_nn::Activation as cfglint lists it: one variant per accepted string, in ACTIVATIONS' order,",
        "/// so serde's `unknown variant` list is that order; newtype variants carry an f64.",
        "#[derive(Debug, serde::Deserialize)]",
        "pub enum Activation {",
    ]
    for name, ident in variants.items():
        payload = "(f64)" if name in newtype else ""
        lines.append(f"    #[serde(rename = {_rust_string(name)})]")
        lines.append(f"    {ident}{payload},")
    lines += ["}", "", "impl Activation {", "    pub fn out(self) -> Out {", "        match self {"]
    for name, ident in variants.items():
        if name in newtype:
            lines.append(f"            Activation::{ident}(v) => Out::Obj(vec![({_rust_string(name)}, Out::Float(v))]),")
        else:
            lines.append(f"            Activation::{ident} => Out::Str({_rust_string(name)}.to_string()),")
    lines += [
        "        }", "    }", "}", "",
        "#[derive(Debug, serde::Deserialize)]",
        "#[serde(untagged)]",
        "pub enum EosToks {",
        "    Single(u32),",
        "    Multiple(Vec<u32>),",
        "}", "",
        "fn eos_out(v: EosToks) -> Out {",
        "    match v {",
        "        EosToks::Single(i) => Out::Int(i as u64),",
        "        EosToks::Multiple(l) => Out::List(l.into_iter().map(|i| Out::Int(i as u64)).collect()),",
        "    }",
        "}", "",
        "fn json_out(v: serde_json::Value) -> Out {",
        "    use serde_json::Value;",
        "    match v {",
        "        Value::Null => Out::Null,",
        "        Value::Bool(b) => Out::Bool(b),",
        "        Value::Number(n) => match n.as_u64() { Some(i) => Out::Int(i), None => Out::Float(n.as_f64().unwrap_or(f64::NAN)) },",
        "        Value::String(s) => Out::Str(s),",
        "        Value::Array(a) => Out::List(a.into_iter().map(json_out).collect()),",
        "        // Keys are leaked to fit Out's &'static str: the program prints one report and exits.",
        "        Value::Object(m) => Out::Obj(m.into_iter().map(|(k, v)| (&*Box::leak(k.into_boxed_str()), json_out(v))).collect()),",
        "    }",
        "}", "",
    ]
    for entry in entries:
        module = entry.family.replace("-", "_")
        lines += [f"pub mod {module} {{", "    use super::*;", "", "    #[derive(Debug, serde::Deserialize)]",
                  f"    pub struct {entry.struct} {{"]
        defaults = []
        for name, spec in entry.fields.items():
            if _is_default(spec):
                fn = f"default_{name}"
                defaults.append(f"    fn {fn}() -> {_rust_type(spec.type)} {{ {_rust_value(spec.type, spec.default, variants)} }}")
                lines.append(f"        #[serde(default = \"{fn}\")]")
            lines.append(f"        pub {name}: {_rust_type(spec.type)},")
        lines += ["    }", ""] + defaults + [""]
        lines += [f"    pub fn values(cfg: {entry.struct}) -> Vec<(&'static str, Out)> {{", "        vec!["]
        for name, spec in entry.fields.items():
            lines.append(f"            ({_rust_string(name)}, {_rust_out(spec.type, 'cfg.' + name)}),")
        lines += ["        ]", "    }", "", "    pub fn outcome(bytes: &[u8]) -> Outcome {",
                  f"        match serde_json::from_slice::<{entry.struct}>(bytes) {{",
                  "            Ok(cfg) => Outcome::Loads(values(cfg)),",
                  "            Err(e) => Outcome::Error(e.to_string()),",
                  "        }", "    }", "}", ""]
    lines += [
        "/// candle's examples: `serde_json::from_slice(&std::fs::read(path)?)` into the family's Config.",
        "pub fn run(family: &str, bytes: &[u8]) -> Result<Report, String> {",
        "    let outcome = match family {",
    ]
    for entry in entries:
        lines.append(f"        {_rust_string(entry.family)} => {entry.family.replace('-', '_')}::outcome(bytes),")
    lines += [
        "        _ => return Err(format!(\"no generated candle family {family:?}\")),",
        "    };",
        "    Ok(Report { runtime: \"candle\", version: crate::CANDLE_VERSION, outcome })",
        "}",
        "",
    ]
    return "\n".join(lines)


def _is_default(spec) -> bool:
    from cfglint.knowledge.entry import REQUIRED

    return spec.default is not REQUIRED


def _ensure_vendored_registry() -> None:
    wanted = "\n".join(DEBIAN_PACKAGES) + "\n"
    if _VENDOR_MARKER.is_file() and _VENDOR_MARKER.read_text() == wanted:
        return
    with tempfile.TemporaryDirectory(dir=TARGET_DIR, prefix="debian-fetch-") as scratch:
        scratch_dir = Path(scratch)
        debs = _download_debs(scratch_dir)
        unpacked = scratch_dir / "root"
        for deb in debs:
            _run_checked(
                ["dpkg-deb", "-x", str(deb), str(unpacked)],
                timeout=_APT_TIMEOUT_S,
                what=f"unpacking {deb.name}",
            )
        (unpacked / _VENDOR_MARKER.name).write_text(wanted)
        shutil.rmtree(VENDOR_ROOT, ignore_errors=True)
        unpacked.rename(VENDOR_ROOT)
    # A lock file resolved against another package set would pin versions that are gone.
    (CRATE_DIR / "Cargo.lock").unlink(missing_ok=True)


def _download_debs(scratch_dir: Path) -> list[Path]:
    """`apt-get download` from DEBIAN_SUITE through a private apt state (lists, cache, sources)."""
    mirror, keyring = _system_debian_mirror()
    apt_dir = scratch_dir / "apt"
    (apt_dir / "lists" / "partial").mkdir(parents=True)
    (apt_dir / "cache" / "archives" / "partial").mkdir(parents=True)
    sources = apt_dir / "sources.list"
    options = f"[signed-by={keyring}] " if keyring else ""
    sources.write_text(f"deb {options}{mirror} {DEBIAN_SUITE} main\n")
    apt_options = [
        f"-oDir::Etc::SourceList={sources}",
        "-oDir::Etc::SourceParts=/nonexistent",
        f"-oDir::State::Lists={apt_dir / 'lists'}",
        f"-oDir::Cache={apt_dir / 'cache'}",
        "-oDir::Cache::pkgcache=",
        "-oDir::Cache::srcpkgcache=",
        "-oDir::State::status=/dev/null",
        "-oAPT::Sandbox::User=root",
    ]
    _run_checked(
        ["apt-get", *apt_options, "update"],
        timeout=_APT_TIMEOUT_S,
        what=f"apt-get update for Debian {DEBIAN_SUITE}",
    )
    debs_dir = scratch_dir / "debs"
    debs_dir.mkdir()
    _run_checked(
        ["apt-get", *apt_options, "download", *DEBIAN_PACKAGES],
        cwd=debs_dir,
        timeout=_APT_TIMEOUT_S,
        what=f"downloading {len(DEBIAN_PACKAGES)} Debian {DEBIAN_SUITE} packages",
    )
    debs = sorted(debs_dir.glob("*.deb"))
    if len(debs) != len(DEBIAN_PACKAGES):
        raise RuntimeError(f"expected {len(DEBIAN_PACKAGES)} .deb files, got {[d.name for d in debs]}")
    return debs


def _system_debian_mirror() -> tuple[str, str | None]:
    """The Debian archive URI this machine's apt already uses for its own release, and the
    keyring that signs it (None when the entry names none and apt's default keys apply)."""
    codename = _os_release().get("VERSION_CODENAME", "")
    apt_dir = Path("/etc/apt")
    for path in sorted((apt_dir / "sources.list.d").glob("*.sources")):
        for stanza in path.read_text().split("\n\n"):
            fields = _deb822_fields(stanza)
            if (
                "deb" in fields.get("Types", "").split()
                and codename in fields.get("Suites", "").split()
                and "main" in fields.get("Components", "").split()
                and fields.get("URIs")
            ):
                keyring = fields.get("Signed-By", "")
                return fields["URIs"].split()[0], keyring if keyring.startswith("/") else None
    list_files = [apt_dir / "sources.list", *sorted((apt_dir / "sources.list.d").glob("*.list"))]
    for path in list_files:
        if path.is_file():
            for line in path.read_text().splitlines():
                entry = _one_line_entry(line)
                if entry and entry[2] == codename:
                    return entry[1], entry[0]
    raise RuntimeError(f"no apt source for Debian {codename!r} main found under {apt_dir}")


def _deb822_fields(stanza: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for line in stanza.splitlines():
        if line and not line.startswith(("#", " ", "\t")) and ":" in line:
            key, value = line.split(":", 1)
            fields[key.strip()] = value.strip()
    return fields


def _one_line_entry(line: str) -> tuple[str | None, str, str] | None:
    """(keyring, uri, suite) of a `deb [options] uri suite components...` line with main."""
    words = line.split("#", 1)[0].split()
    if not words or words[0] != "deb":
        return None
    keyring = None
    rest = words[1:]
    if rest and rest[0].startswith("["):
        options = []
        while rest:
            options.append(rest.pop(0))
            if options[-1].endswith("]"):
                break
        for option in " ".join(options).strip("[]").split():
            if option.startswith("signed-by="):
                keyring = option.split("=", 1)[1]
    if len(rest) < 3 or "main" not in rest[2:]:
        return None
    return keyring, rest[0], rest[1]


def _os_release() -> dict[str, str]:
    values = {}
    for line in Path("/etc/os-release").read_text().splitlines():
        if "=" in line:
            key, value = line.split("=", 1)
            values[key] = value.strip().strip('"')
    return values


def _inputs_digest() -> str:
    digest = hashlib.sha256()
    digest.update(_VENDOR_MARKER.read_bytes())
    for name in _BUILD_INPUTS:
        root = CRATE_DIR / name
        files = sorted(root.rglob("*")) if root.is_dir() else [root]
        for path in files:
            if path.is_file():
                digest.update(path.relative_to(CRATE_DIR).as_posix().encode())
                digest.update(b"\0")
                digest.update(path.read_bytes())
                digest.update(b"\0")
    return digest.hexdigest()


def _find_cargo() -> str:
    found = shutil.which("cargo")
    if found:
        return found
    rustup_cargo = Path.home() / ".cargo" / "bin" / "cargo"
    if rustup_cargo.is_file():
        return str(rustup_cargo)
    raise RuntimeError("cargo not found on PATH or in ~/.cargo/bin; serde-replica needs a Rust toolchain")


def _run_checked(cmd: Sequence[str], *, what: str, timeout: int, cwd: Path | None = None) -> None:
    proc = subprocess.run(
        list(cmd), cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )
    if proc.returncode != 0:
        output = (proc.stdout + proc.stderr).splitlines()[-_OUTPUT_TAIL_LINES:]
        raise RuntimeError(
            f"{what} failed: `{' '.join(cmd)}` exited {proc.returncode}\n" + "\n".join(output)
        )


@contextlib.contextmanager
def _exclusive_lock(path: Path) -> Iterator[None]:
    # Parallel test workers must not fetch packages or rebuild the binary at the same time.
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
