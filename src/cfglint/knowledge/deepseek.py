"""DeepSeek knowledge that more than one runtime's entries read, kept here so none imports another's.

- `DeepSeekV2Config` as candle-transformers 0.11 `models/deepseek2.rs` declares it; mistral.rs 0.9.5's
  `models/deepseek2.rs` is that file with a `quantization_config` field added.
- The attention scale transformers 5 computes for multi-head latent attention, which llama.cpp's
  converter entry takes over (the converter writes the keys it is computed from).
"""

from __future__ import annotations

from cfglint.knowledge.entry import Check, fields

# DeepSeekV2Config in declaration order.
DEEPSEEK_V2_FIELDS = fields(
    vocab_size="usize", hidden_size="usize", intermediate_size="usize", moe_intermediate_size="usize",
    num_hidden_layers="usize", num_attention_heads="usize", n_shared_experts="option<usize>",
    n_routed_experts="option<usize>", routed_scaling_factor=("f64", 1.0),
    topk_method=("json", "greedy"),  # enum {"greedy", "group_limited_greedy"}
    num_experts_per_tok="option<usize>", moe_layer_freq=("usize", 1), first_k_dense_replace=("usize", 0),
    norm_topk_prob=("bool", False),
    scoring_func=("json", "softmax"),  # enum {"softmax"}
    hidden_act=("activation", "silu"), max_position_embeddings="usize", rms_norm_eps="f64",
    tie_word_embeddings=("bool", False), rope_theta="f32",
    # untagged enum DeepSeekV2RopeScaling: Yarn{original_max_position_embeddings, beta_fast, beta_slow,
    # mscale, mscale_all_dim, factor, "type"} | LinearOrDynamic{"type", factor}; "type" is
    # ScaledRopeType: su | longrope | yarn | dynamic | linear.
    rope_scaling="option<json>",
    attention_bias="bool", q_lora_rank="option<usize>", qk_rope_head_dim="usize", kv_lora_rank="usize",
    v_head_dim="usize", qk_nope_head_dim="usize", n_group="usize", topk_group="usize",
)
DEEPSEEK_V2_DERIVE = {
    # q and k heads are qk_nope_head_dim + qk_rope_head_dim wide, v heads v_head_dim; every head has
    # its own k and v (MLA), so num_key_value_heads is num_attention_heads.
    "qk_head_dim": "qk_nope_head_dim + qk_rope_head_dim",
    "num_key_value_heads": "num_attention_heads",
    "sliding_window": "None",
    "layer_types": 'layers(num_hidden_layers, "full_attention")',
    # softmax_scale: q_head_dim**-0.5, times yarn_get_mscale(factor, mscale_all_dim)**2 with the Yarn variant
    "query_pre_attn_scalar": "mla_scalar(qk_nope_head_dim + qk_rope_head_dim, get(rope_scaling, 'factor'), get(rope_scaling, 'mscale_all_dim'))",
    # DecoderLayer::new: Moe when n_routed_experts is Some, i >= first_k_dense_replace, i % moe_layer_freq == 0
    "mlp_layers": "moe_layers(num_hidden_layers, n_routed_experts is not None, first_k_dense_replace, moe_layer_freq)",
}
DEEPSEEK_V2_CHECKS = (
    Check("rope_scaling is not None and (get(rope_scaling, 'type') not in"
          " ['su', 'longrope', 'yarn', 'dynamic', 'linear'] or get(rope_scaling, 'factor') is None)",
          "data did not match any variant of untagged enum DeepSeekV2RopeScaling", "/rope_scaling",
          kind="variant"),
    Check("topk_method not in ['greedy', 'group_limited_greedy']",
          "unknown variant `{topk_method}`, expected `greedy` or `group_limited_greedy`", "/topk_method",
          kind="variant"),
    Check("scoring_func != 'softmax'", "unknown variant `{scoring_func}`, expected `softmax`",
          "/scoring_func", kind="variant"),
    # DeepSeekV2RotaryEmbedding::new, in Model::new before any layer (deepseek2.rs:454-459).
    Check("rope_scaling is not None and (get(rope_scaling, 'original_max_position_embeddings') is None"
          " or get(rope_scaling, 'beta_fast') is None or get(rope_scaling, 'beta_slow') is None"
          " or get(rope_scaling, 'mscale') is None or get(rope_scaling, 'mscale_all_dim') is None)",
          "linear and dynamic rope are not implemented yet!", "/rope_scaling"),
    # MoeGate::new: `top_k: cfg.num_experts_per_tok.unwrap()` (deepseek2.rs:746), for the first layer
    # i >= first_k_dense_replace with i.is_multiple_of(moe_layer_freq).
    Check("n_routed_experts is not None and num_experts_per_tok is None and ("
          "first_k_dense_replace == 0 and num_hidden_layers > 0 if moe_layer_freq == 0 else"
          " (first_k_dense_replace + moe_layer_freq - 1) // moe_layer_freq * moe_layer_freq"
          " < num_hidden_layers)",
          "called `Option::unwrap()` on a `None` value", "/num_experts_per_tok", outcome="panic"),
)

# yarn_apply_mscale: qk_head_dim**-0.5 * yarn_get_mscale(factor, mscale_all_dim)**2 unless the RoPE type is default
MLA_SCALAR = (
    "mla_scalar(qk_nope_head_dim + qk_rope_head_dim, get(rope_scaling or rope_parameters, 'factor'),"
    " get(rope_scaling or rope_parameters, 'mscale_all_dim')"
    " if (get(rope_scaling or rope_parameters, 'rope_type') or get(rope_scaling or rope_parameters, 'type') or 'default')"
    " != 'default' else 0)"
)
