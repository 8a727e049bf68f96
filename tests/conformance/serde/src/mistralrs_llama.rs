//! mistral.rs's Llama config types, restated field for field.
//!
//! Sources (EricLBuehler/mistral.rs; commit 9e922623f24b32d41f3892b74f0eed18707f4e6c
//! itself was not among the stored copies, so each type names the copy it was read from):
//! - `Config`: mistralrs-core/src/models/llama.rs @ 1249b6d38eaf3d73c82b5b72de045ea2796e0c93.
//! - `Llama3RopeConfig`, `Llama3RopeType`, `Activation`: mistralrs-core/src/layers.rs,
//!   a stored copy whose commit the index did not name (it has the `Linear` rope type and
//!   the optional llama3 factors that the consumer facts record for 9e922623).
//! - `QuantizedConfig`: mistralrs-quant/src/lib.rs @ 2be0efaf101332b3ddd73cc33beb9f43d8572098.
//!   Its real type lives in a crate that cannot be built here; only its deserializer is
//!   restated (a flat `RawConfig` read, then a match on `quant_method`). This part drifts
//!   between versions: newer copies add nvfp4/qtip, and the mistralrs 0.9.5 wheel parses
//!   compressed-tensors configs with a different reader and different error texts.
//! The loader reads the file with `std::fs::read_to_string` and parses it with
//! `serde_json::from_str` (pipeline/normal.rs, pipeline/loaders/normal_loaders.rs).
//!
//! Field order, types and serde attributes are what matter: serde reports the first
//! missing field in declaration order, and the expected-variant list of an "unknown
//! variant" error follows the enum's variant order.

use serde::{Deserialize, Deserializer};

use crate::report::Out;

// The Elu/LeakyRelu parameters are parsed but play no part in the report.
#[allow(dead_code)]
#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Activation {
    #[serde(alias = "gelu")]
    Gelu,
    #[serde(alias = "gelu_new")]
    NewGelu,
    Relu,
    Relu2,
    Relu6,
    Silu,
    Sigmoid,
    HardSigmoid,
    Swiglu,
    Swish,
    HardSwish,
    Elu(f64),
    LeakyRelu(f64),
    #[serde(alias = "gelu_pytorch_tanh")]
    GeluPytorchTanh,
    QuickGelu,
}

impl Activation {
    /// The name the runtime knows the activation by (its lowercase variant name).
    fn name(&self) -> &'static str {
        match self {
            Activation::Gelu => "gelu",
            Activation::NewGelu => "newgelu",
            Activation::Relu => "relu",
            Activation::Relu2 => "relu2",
            Activation::Relu6 => "relu6",
            Activation::Silu => "silu",
            Activation::Sigmoid => "sigmoid",
            Activation::HardSigmoid => "hardsigmoid",
            Activation::Swiglu => "swiglu",
            Activation::Swish => "swish",
            Activation::HardSwish => "hardswish",
            Activation::Elu(_) => "elu",
            Activation::LeakyRelu(_) => "leakyrelu",
            Activation::GeluPytorchTanh => "gelupytorchtanh",
            Activation::QuickGelu => "quickgelu",
        }
    }
}

#[derive(Debug, Deserialize)]
pub enum Llama3RopeType {
    #[serde(rename = "llama3")]
    Llama3,
    #[serde(rename = "linear")]
    Linear,
    #[serde(rename = "default")]
    Default,
}

/// `factor` and `rope_type` are required; the other three are checked only when the
/// llama3 rotary embedding is built.
#[derive(Debug, Deserialize)]
pub struct Llama3RopeConfig {
    pub factor: f32,
    pub low_freq_factor: Option<f32>,
    pub high_freq_factor: Option<f32>,
    pub original_max_position_embeddings: Option<usize>,
    pub rope_type: Llama3RopeType,
}

/// Only the deserialization of mistralrs-quant's `QuantizedConfig` matters here.
#[derive(Debug)]
pub enum QuantizedConfig {
    GptqAwq,
    Fp8,
    Bitsandbytes,
    Afq,
    Mxfp4,
}

#[derive(Deserialize)]
struct RawQuantizedConfig {
    quant_method: Option<String>,
    bits: Option<usize>,
    group_size: Option<usize>,
    #[allow(dead_code)]
    checkpoint_format: Option<String>,
    #[allow(dead_code)]
    weight_block_size: Option<Vec<usize>>,
    #[allow(dead_code)]
    bnb_4bit_quant_type: Option<String>,
}

impl<'de> Deserialize<'de> for QuantizedConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let raw = RawQuantizedConfig::deserialize(deserializer)?;
        let require_bits_and_group = |raw: &RawQuantizedConfig| -> Result<(), D::Error> {
            raw.bits.ok_or_else(|| D::Error::missing_field("bits"))?;
            raw.group_size.ok_or_else(|| D::Error::missing_field("group_size"))?;
            Ok(())
        };
        match raw.quant_method.as_deref() {
            Some("gptq") | Some("awq") => require_bits_and_group(&raw).map(|_| Self::GptqAwq),
            Some("fp8") => Ok(Self::Fp8),
            Some("bitsandbytes") => Ok(Self::Bitsandbytes),
            Some("afq") | None => require_bits_and_group(&raw).map(|_| Self::Afq),
            Some("mxfp4") => Ok(Self::Mxfp4),
            Some(unknown) => Err(D::Error::custom(format!(
                "Unknown quantization method: {unknown}. Expected one of: gptq, fp8, bitsandbytes, afq, or not specified"
            ))),
        }
    }
}

fn word_emb_default() -> bool {
    false
}

// quantization_config is parsed (so a bad block fails the load) but not reported.
#[allow(dead_code)]
#[derive(Debug, Deserialize)]
pub struct Config {
    pub hidden_act: Activation,
    pub hidden_size: usize,
    pub intermediate_size: usize,
    pub vocab_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub num_key_value_heads: usize,
    pub rms_norm_eps: f64,
    pub rope_theta: f32,
    pub max_position_embeddings: usize,
    pub rope_scaling: Option<Llama3RopeConfig>,
    pub quantization_config: Option<QuantizedConfig>,
    #[serde(default = "word_emb_default")]
    pub tie_word_embeddings: bool,
}

pub fn parse(text: &str) -> Result<Config, serde_json::Error> {
    serde_json::from_str(text)
}

/// What `Llama::new_inner` builds from the config. `Err` carries the load error the
/// rotary-embedding constructor raises; integer division panics where the runtime's does.
pub fn runtime_values(cfg: Config) -> Result<Vec<(&'static str, Out)>, String> {
    let head_dim = cfg.hidden_size / cfg.num_attention_heads;
    let rope_scaling = rope_scaling(cfg.rope_scaling.as_ref())?;
    Ok(vec![
        ("rope_theta", Out::Float(f64::from(cfg.rope_theta))),
        ("rope_scaling", rope_scaling),
        ("head_dim", Out::Int(head_dim as u64)),
        ("num_key_value_heads", Out::Int(cfg.num_key_value_heads as u64)),
        ("tie_word_embeddings", Out::Bool(cfg.tie_word_embeddings)),
        ("hidden_act", Out::Str(cfg.hidden_act.name().to_string())),
        // Every projection is built with bias = false.
        ("attention_bias", Out::Bool(false)),
        ("mlp_bias", Out::Bool(false)),
        ("max_position_embeddings", Out::Int(cfg.max_position_embeddings as u64)),
        ("rms_norm_eps", Out::Float(cfg.rms_norm_eps)),
        ("hidden_size", Out::Int(cfg.hidden_size as u64)),
        ("intermediate_size", Out::Int(cfg.intermediate_size as u64)),
        ("vocab_size", Out::Int(cfg.vocab_size as u64)),
        ("num_hidden_layers", Out::Int(cfg.num_hidden_layers as u64)),
        ("num_attention_heads", Out::Int(cfg.num_attention_heads as u64)),
    ])
}

/// Mirrors `Llama3RotaryEmbedding::new_llama3`: default means plain RoPE, linear divides
/// every frequency by `factor`, llama3 needs its three optional numbers.
fn rope_scaling(scaling: Option<&Llama3RopeConfig>) -> Result<Out, String> {
    let scaling = match scaling {
        None => return Ok(Out::Null),
        Some(scaling) => scaling,
    };
    match scaling.rope_type {
        Llama3RopeType::Default => Ok(Out::Null),
        Llama3RopeType::Linear => Ok(Out::Obj(vec![
            ("rope_type", Out::Str("linear".to_string())),
            ("factor", Out::Float(f64::from(scaling.factor))),
        ])),
        Llama3RopeType::Llama3 => {
            let low = scaling.low_freq_factor.ok_or("low_freq_factor is required")?;
            let high = scaling.high_freq_factor.ok_or("high_freq_factor is required")?;
            let original = scaling
                .original_max_position_embeddings
                .ok_or("original_max_position_embeddings is required")?;
            Ok(Out::Obj(vec![
                ("rope_type", Out::Str("llama3".to_string())),
                ("factor", Out::Float(f64::from(scaling.factor))),
                ("low_freq_factor", Out::Float(f64::from(low))),
                ("high_freq_factor", Out::Float(f64::from(high))),
                ("original_max_position_embeddings", Out::Int(original as u64)),
            ]))
        }
    }
}
