//! The config.json of a DeBERTa-v2 checkpoint (Hugging Face's `DebertaV2Config`), with its
//! defaults, read into what our forward pass (src/deberta.rs) implements. A field asking for
//! something the forward pass does not do (a convolution layer, an embedding projection,
//! another head size, "p2p" attention) is refused naming that field, rather than computing a
//! different model in silence.

use crate::error::ModelError;
pub use crate::fused::Activation;
use std::collections::BTreeMap;

/// The fields as config.json spells them; absent ones take `DebertaV2Config`'s defaults.
#[derive(Debug, Clone, serde::Deserialize)]
struct Raw {
    #[serde(default = "d_vocab")]
    vocab_size: usize,
    #[serde(default = "d_hidden")]
    hidden_size: usize,
    #[serde(default = "d_layers")]
    num_hidden_layers: usize,
    #[serde(default = "d_heads")]
    num_attention_heads: usize,
    #[serde(default = "d_intermediate")]
    intermediate_size: usize,
    #[serde(default = "d_gelu")]
    hidden_act: String,
    #[serde(default = "d_positions")]
    max_position_embeddings: usize,
    #[serde(default)]
    type_vocab_size: usize,
    #[serde(default)]
    relative_attention: bool,
    #[serde(default = "d_minus_one")]
    max_relative_positions: i64,
    #[serde(default = "d_minus_one")]
    position_buckets: i64,
    #[serde(default)]
    norm_rel_ebd: Option<String>,
    #[serde(default)]
    share_att_key: bool,
    /// A list, or (older configs) one string such as "p2c|c2p".
    #[serde(default)]
    pos_att_type: Option<serde_json::Value>,
    #[serde(default = "d_true")]
    position_biased_input: bool,
    #[serde(default = "d_eps")]
    layer_norm_eps: f64,
    pooler_hidden_size: Option<usize>,
    #[serde(default = "d_gelu")]
    pooler_hidden_act: String,
    id2label: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pad_token_id: u32,
    // Present only to be refused when they ask for more than we implement.
    #[serde(default)]
    conv_kernel_size: usize,
    embedding_size: Option<usize>,
    attention_head_size: Option<usize>,
}

fn d_vocab() -> usize {
    128_100
}
fn d_hidden() -> usize {
    1536
}
fn d_layers() -> usize {
    24
}
fn d_heads() -> usize {
    24
}
fn d_intermediate() -> usize {
    6144
}
fn d_gelu() -> String {
    "gelu".into()
}
fn d_positions() -> usize {
    512
}
fn d_minus_one() -> i64 {
    -1
}
fn d_true() -> bool {
    true
}
fn d_eps() -> f64 {
    1e-7
}

/// The relative-position part of the attention, when `relative_attention` is on.
#[derive(Debug, Clone, PartialEq)]
pub struct Relative {
    /// `max_relative_positions`, or `max_position_embeddings` when it is below 1.
    pub max_relative_positions: usize,
    /// `position_buckets` when positive: distances are log-bucketed into that many per side.
    pub buckets: Option<usize>,
    /// The attention span k: rows of relative embeddings per side (2k rows in all).
    pub span: usize,
    /// `norm_rel_ebd` contains "layer_norm": the relative embeddings are layer-normed first.
    pub layer_norm: bool,
}

/// What the forward pass needs, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub hidden_act: Activation,
    pub max_position_embeddings: usize,
    pub type_vocab_size: usize,
    pub relative: Option<Relative>,
    pub share_att_key: bool,
    /// Content-to-position and position-to-content terms (`pos_att_type`).
    pub c2p: bool,
    pub p2c: bool,
    pub position_biased_input: bool,
    pub layer_norm_eps: f64,
    pub pooler_hidden_size: usize,
    pub pooler_hidden_act: Activation,
    /// The class names in id order (`id2label`; "LABEL_0", "LABEL_1" when absent).
    pub labels: Vec<String>,
    pub pad_token_id: u32,
}

impl Config {
    /// Parses config.json; `file` names it in errors.
    pub fn from_json(file: &str, bytes: &[u8]) -> Result<Config, ModelError> {
        let raw: Raw = serde_json::from_slice(bytes)
            .map_err(|e| ModelError::Config { file: file.into(), message: e.to_string() })?;
        Config::check(file, raw)
    }

    fn check(file: &str, r: Raw) -> Result<Config, ModelError> {
        let bad =
            |field: &str, message: String| ModelError::ConfigField { file: file.into(), field: field.into(), message };
        if r.num_attention_heads == 0 || !r.hidden_size.is_multiple_of(r.num_attention_heads) {
            let m = format!("hidden_size {} is not a multiple of it ({})", r.hidden_size, r.num_attention_heads);
            return Err(bad("num_attention_heads", m));
        }
        let head = r.hidden_size / r.num_attention_heads;
        if let Some(a) = r.attention_head_size.filter(|&a| a != head) {
            let m = format!("{a}; only hidden_size / num_attention_heads = {head} is implemented");
            return Err(bad("attention_head_size", m));
        }
        if let Some(e) = r.embedding_size.filter(|&e| e != r.hidden_size) {
            let m = format!("{e}; only embeddings of hidden_size {} (no embed_proj) are implemented", r.hidden_size);
            return Err(bad("embedding_size", m));
        }
        // The pooler's dense layer reads the first token's hidden state: square, as published.
        if let Some(p) = r.pooler_hidden_size.filter(|&p| p != r.hidden_size) {
            let m = format!("{p}; only hidden_size {} is implemented", r.hidden_size);
            return Err(bad("pooler_hidden_size", m));
        }
        if r.conv_kernel_size > 0 {
            let m = format!("{}; the convolution layer is not implemented (0 only)", r.conv_kernel_size);
            return Err(bad("conv_kernel_size", m));
        }
        let act = |field: &str, name: &str| Activation::of(name).map_err(|m| bad(field, m));
        let (hidden_act, pooler_hidden_act) =
            (act("hidden_act", &r.hidden_act)?, act("pooler_hidden_act", &r.pooler_hidden_act)?);
        let kinds: Vec<String> = match &r.pos_att_type {
            None | Some(serde_json::Value::Null) => vec![],
            Some(serde_json::Value::String(s)) => s.to_lowercase().split('|').map(|x| x.trim().to_string()).collect(),
            Some(serde_json::Value::Array(a)) => a
                .iter()
                .map(|v| v.as_str().map(|s| s.trim().to_lowercase()))
                .collect::<Option<_>>()
                .ok_or_else(|| bad("pos_att_type", "expected a list of strings".into()))?,
            Some(other) => return Err(bad("pos_att_type", format!("expected a list of strings, found {other}"))),
        };
        if let Some(k) = kinds.iter().find(|k| !matches!(k.as_str(), "c2p" | "p2c")) {
            return Err(bad("pos_att_type", format!("{k:?}; only subsets of [\"c2p\", \"p2c\"] are implemented")));
        }
        let relative = if r.relative_attention {
            let max_rel = if r.max_relative_positions < 1 {
                r.max_position_embeddings
            } else {
                r.max_relative_positions as usize
            };
            let buckets = (r.position_buckets > 0).then_some(r.position_buckets as usize);
            // The buckets grow with log(distance / mid) / log((max_relative_positions - 1) / mid).
            if let Some(b) = buckets.filter(|&b| b < 4 || max_rel <= b / 2 + 1) {
                let m = format!(
                    "{b}: log buckets need at least 4, and max_relative_positions ({max_rel}) above {}",
                    b / 2 + 1
                );
                return Err(bad("position_buckets", m));
            }
            let norms: Vec<String> = r
                .norm_rel_ebd
                .as_deref()
                .unwrap_or("none")
                .to_lowercase()
                .split('|')
                .map(|x| x.trim().to_string())
                .collect();
            if let Some(n) = norms.iter().find(|n| !matches!(n.as_str(), "none" | "layer_norm")) {
                return Err(bad("norm_rel_ebd", format!("{n:?}; only \"none\" and \"layer_norm\" are implemented")));
            }
            Some(Relative {
                max_relative_positions: max_rel,
                buckets,
                span: buckets.unwrap_or(max_rel),
                layer_norm: norms.iter().any(|n| n == "layer_norm"),
            })
        } else {
            None
        };
        let labels = match r.id2label {
            None => vec!["LABEL_0".into(), "LABEL_1".into()],
            Some(map) => {
                let n = map.len();
                let mut labels = vec![None; n];
                for (id, name) in map {
                    let slot = id.parse::<usize>().ok().and_then(|i| labels.get_mut(i));
                    let slot = slot.ok_or_else(|| bad("id2label", format!("key {id:?} is not an id below {n}")))?;
                    *slot = Some(name);
                }
                labels.into_iter().collect::<Option<Vec<_>>>().ok_or_else(|| bad("id2label", "ids repeat".into()))?
            }
        };
        if labels.is_empty() {
            return Err(bad("id2label", "no labels".into()));
        }
        Ok(Config {
            vocab_size: r.vocab_size,
            hidden_size: r.hidden_size,
            num_hidden_layers: r.num_hidden_layers,
            num_attention_heads: r.num_attention_heads,
            intermediate_size: r.intermediate_size,
            hidden_act,
            max_position_embeddings: r.max_position_embeddings,
            type_vocab_size: r.type_vocab_size,
            relative,
            share_att_key: r.share_att_key,
            c2p: kinds.iter().any(|k| k == "c2p"),
            p2c: kinds.iter().any(|k| k == "p2c"),
            position_biased_input: r.position_biased_input,
            layer_norm_eps: r.layer_norm_eps,
            pooler_hidden_size: r.pooler_hidden_size.unwrap_or(r.hidden_size),
            pooler_hidden_act,
            labels,
            pad_token_id: r.pad_token_id,
        })
    }

    pub fn head_size(&self) -> usize {
        self.hidden_size / self.num_attention_heads
    }

    /// 1 + the number of relative terms: the attention logits are divided by √(d · this).
    pub fn scale_factor(&self) -> usize {
        1 + usize::from(self.c2p) + usize::from(self.p2c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: serde_json::Value) -> Result<Config, ModelError> {
        Config::from_json("config.json", json.to_string().as_bytes())
    }

    fn base() -> serde_json::Value {
        serde_json::json!({"vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1,
            "num_attention_heads": 2, "intermediate_size": 16, "relative_attention": true,
            "position_buckets": 256, "max_relative_positions": -1, "pos_att_type": ["p2c", "c2p"],
            "norm_rel_ebd": "layer_norm", "share_att_key": true, "position_biased_input": false,
            "id2label": {"0": "entailment", "1": "neutral", "2": "contradiction"}})
    }

    #[test]
    fn mdeberta_v3_fields_are_read_with_their_defaults() {
        let c = parse(base()).unwrap();
        let rel = c.relative.clone().unwrap();
        assert_eq!((rel.max_relative_positions, rel.buckets, rel.span, rel.layer_norm), (512, Some(256), 256, true));
        assert!(c.c2p && c.p2c && c.share_att_key && !c.position_biased_input);
        assert_eq!((c.type_vocab_size, c.layer_norm_eps, c.pooler_hidden_size), (0, 1e-7, 8));
        assert_eq!(c.labels, ["entailment", "neutral", "contradiction"]);
        assert_eq!(c.scale_factor(), 3);
        // The older string form of pos_att_type.
        let mut j = base();
        j["pos_att_type"] = "c2p|p2c".into();
        assert_eq!(parse(j).unwrap().scale_factor(), 3);
    }

    #[test]
    fn configs_outside_the_implementation_are_refused_naming_the_field() {
        let cases: [(&str, serde_json::Value); 8] = [
            ("pooler_hidden_size", 16.into()),
            ("conv_kernel_size", 3.into()),
            ("attention_head_size", 3.into()),
            ("embedding_size", 16.into()),
            ("pos_att_type", serde_json::json!(["c2p", "p2p"])),
            ("norm_rel_ebd", "batch_norm".into()),
            ("hidden_act", "swish".into()),
            ("id2label", serde_json::json!({"0": "a", "2": "b"})),
        ];
        for (field, value) in cases {
            let mut j = base();
            j[field] = value;
            let e = parse(j).err().unwrap();
            assert!(matches!(&e, ModelError::ConfigField { field: f, .. } if f == field), "{field}: {e}");
            assert!(e.to_string().starts_with("config.json: config field"), "{e}");
        }
    }
}
