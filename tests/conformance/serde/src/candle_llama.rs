//! candle's Llama config types, restated field for field.
//!
//! Source: huggingface/candle, candle-transformers/src/models/llama.rs, read at the
//! stored commit 02878f93b692ad7f2d3de0171a1b83359f8ae8bb. Tag 0.11.0
//! (31f35b147389700ed2a178ee66a91c3cc25cc80d) was not in the stored copies; the
//! project's consumer facts record llama.rs as byte-identical between 0.11.0 and
//! 2a13b0f3, and the types below match that record field for field.
//! The example binary reads the file with `serde_json::from_slice(&std::fs::read(..))`
//! (candle-examples/examples/llama/main.rs).
//!
//! Field order, types and serde attributes are what matter: serde reports the
//! first missing field in declaration order, and the expected-variant list of an
//! "unknown variant" error follows the enum's variant order. Derives that do not
//! change deserialization (Clone, Default) are left out.

use serde::Deserialize;

use crate::report::Out;

#[derive(Debug, Deserialize)]
pub enum Llama3RopeType {
    #[serde(rename = "llama3")]
    Llama3,
    #[serde(rename = "default")]
    Default,
}

/// No field has a serde default: all five keys are required once the object exists.
#[derive(Debug, Deserialize)]
pub struct Llama3RopeConfig {
    pub factor: f32,
    pub low_freq_factor: f32,
    pub high_freq_factor: f32,
    pub original_max_position_embeddings: usize,
    pub rope_type: Llama3RopeType,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum LlamaEosToks {
    Single(u32),
    Multiple(Vec<u32>),
}

// bos_token_id is parsed (so a bad value fails the load) but never used.
#[allow(dead_code)]
#[derive(Debug, Deserialize)]
pub struct LlamaConfig {
    pub hidden_size: usize,
    pub intermediate_size: usize,
    pub vocab_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub num_key_value_heads: Option<usize>,
    pub rms_norm_eps: f64,
    #[serde(default = "default_rope")]
    pub rope_theta: f32,
    pub bos_token_id: Option<u32>,
    pub eos_token_id: Option<LlamaEosToks>,
    pub rope_scaling: Option<Llama3RopeConfig>,
    pub max_position_embeddings: usize,
    pub tie_word_embeddings: Option<bool>,
}

fn default_rope() -> f32 {
    10_000.0
}

pub fn parse(bytes: &[u8]) -> Result<LlamaConfig, serde_json::Error> {
    serde_json::from_slice(bytes)
}

/// What the model is built with: `into_config` plus the derivations in `Cache::new`
/// and `CausalSelfAttention::load`. May panic exactly where candle would
/// (`hidden_size / num_attention_heads` with zero heads).
pub fn runtime_values(cfg: LlamaConfig) -> Vec<(&'static str, Out)> {
    let head_dim = cfg.hidden_size / cfg.num_attention_heads;
    vec![
        ("rope_theta", Out::Float(f64::from(cfg.rope_theta))),
        ("rope_scaling", rope_scaling(cfg.rope_scaling.as_ref())),
        ("head_dim", Out::Int(head_dim as u64)),
        (
            "num_key_value_heads",
            Out::Int(cfg.num_key_value_heads.unwrap_or(cfg.num_attention_heads) as u64),
        ),
        ("tie_word_embeddings", Out::Bool(cfg.tie_word_embeddings.unwrap_or(false))),
        // Not reported: Mlp::forward calls silu directly and every projection is built without bias, facts
        // of candle's model code that deserializing the struct cannot observe (the profile states them).
        ("max_position_embeddings", Out::Int(cfg.max_position_embeddings as u64)),
        ("rms_norm_eps", Out::Float(cfg.rms_norm_eps)),
        ("eos_token_id", eos(cfg.eos_token_id.as_ref())),
        ("hidden_size", Out::Int(cfg.hidden_size as u64)),
        ("intermediate_size", Out::Int(cfg.intermediate_size as u64)),
        ("vocab_size", Out::Int(cfg.vocab_size as u64)),
        ("num_hidden_layers", Out::Int(cfg.num_hidden_layers as u64)),
        ("num_attention_heads", Out::Int(cfg.num_attention_heads as u64)),
    ]
}

/// `Cache::new` treats an absent block and a `rope_type: "default"` block alike:
/// plain inverse frequencies, the other four numbers unused.
fn rope_scaling(scaling: Option<&Llama3RopeConfig>) -> Out {
    match scaling {
        None
        | Some(Llama3RopeConfig {
            rope_type: Llama3RopeType::Default,
            ..
        }) => Out::Null,
        Some(llama3) => Out::Obj(vec![
            ("rope_type", Out::Str("llama3".to_string())),
            ("factor", Out::Float(f64::from(llama3.factor))),
            ("low_freq_factor", Out::Float(f64::from(llama3.low_freq_factor))),
            ("high_freq_factor", Out::Float(f64::from(llama3.high_freq_factor))),
            (
                "original_max_position_embeddings",
                Out::Int(llama3.original_max_position_embeddings as u64),
            ),
        ]),
    }
}

fn eos(eos: Option<&LlamaEosToks>) -> Out {
    match eos {
        None => Out::Null,
        Some(LlamaEosToks::Single(id)) => Out::Int(u64::from(*id)),
        Some(LlamaEosToks::Multiple(ids)) => {
            Out::List(ids.iter().map(|id| Out::Int(u64::from(*id))).collect())
        }
    }
}
