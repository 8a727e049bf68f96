//! The probe's one-line JSON report.
//!
//! Rendered by hand rather than through `serde_json::Value` because a value can be
//! non-finite (an f32 field given 1e39 holds +inf), and serde_json would silently
//! print that as `null`. Non-finite floats are written as `NaN` / `Infinity`,
//! which Python's `json.loads` reads back as floats.

/// A JSON value whose object keys keep their insertion order.
#[derive(Clone)]
pub enum Out {
    Null,
    Bool(bool),
    Int(u64),
    Float(f64),
    Str(String),
    List(Vec<Out>),
    Obj(Vec<(&'static str, Out)>),
}

impl Out {
    pub fn render(&self, buf: &mut String) {
        match self {
            Out::Null => buf.push_str("null"),
            Out::Bool(b) => buf.push_str(if *b { "true" } else { "false" }),
            Out::Int(i) => buf.push_str(&i.to_string()),
            Out::Float(f) => buf.push_str(&render_float(*f)),
            Out::Str(s) => buf.push_str(&serde_json::to_string(s).expect("a str always serializes")),
            Out::List(items) => {
                buf.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        buf.push_str(", ");
                    }
                    item.render(buf);
                }
                buf.push(']');
            }
            Out::Obj(fields) => {
                buf.push('{');
                for (i, (key, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        buf.push_str(", ");
                    }
                    Out::Str((*key).to_string()).render(buf);
                    buf.push_str(": ");
                    value.render(buf);
                }
                buf.push('}');
            }
        }
    }
}

fn render_float(f: f64) -> String {
    if f.is_nan() {
        "NaN".to_string()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
    } else {
        // serde_json prints the shortest string that round-trips (100000.0, 1e-5).
        serde_json::to_string(&f).expect("a finite f64 always serializes")
    }
}

/// How the runtime's load ended.
pub enum Outcome {
    Loads(Vec<(&'static str, Out)>),
    Error(String),
    Panic(String),
}

pub struct Report {
    pub runtime: &'static str,
    pub version: &'static str,
    pub outcome: Outcome,
}

impl Report {
    pub fn into_json(self) -> String {
        let (outcome, message, values) = match self.outcome {
            Outcome::Loads(values) => ("loads", Out::Null, Out::Obj(values)),
            Outcome::Error(msg) => ("error", Out::Str(msg), Out::Obj(Vec::new())),
            Outcome::Panic(msg) => ("panic", Out::Str(msg), Out::Obj(Vec::new())),
        };
        let doc = Out::Obj(vec![
            ("runtime", Out::Str(self.runtime.to_string())),
            ("version", Out::Str(self.version.to_string())),
            ("outcome", Out::Str(outcome.to_string())),
            ("message", message),
            ("values", values),
        ]);
        let mut buf = String::new();
        doc.render(&mut buf);
        buf
    }
}
