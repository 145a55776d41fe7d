//! Our side of the local-model benchmarks (bench/models/run.sh drives it, one process per run so
//! each run's peak memory is its own and runs of the peer interleave with ours):
//!
//!   texts N MODEL_DIR OUT.json       N answers of about 100 tokens (by MODEL_DIR's tokenizer),
//!                                    from our own multilingual generator below, with a language each
//!   embed MODEL_DIR TEXTS.json OUT   sentence vectors of every text (raw little-endian f32 to OUT)
//!   write-nli xlmr|deberta DIR TOKENIZER_JSON
//!                                    a random-weight NLI classifier with the real base model's
//!                                    shapes (weights random: only speed means anything)
//!   nli MODEL_DIR TEXTS.json N [OUT.json]
//!                                    the zero-shot refusal detector on the first N answers (argmax;
//!                                    OUT.json: every answer's P(refuse) and verdict, for the page)
//!   pairs TEXTS.json N OUT.json      the (premise, hypothesis) pairs that detector scores, for the peer
//!
//! embed and nli print one JSON line: seconds (the work alone), load_seconds, peak_rss_mb (the
//! process's VmHWM), threads (candle's: RAYON_NUM_THREADS, else the machine's cores).

use evenhand_models::classify::Classifier;
use evenhand_models::nli::NliDetector;
use evenhand_models::zeroshot::{self, Rule};
use evenhand_models::{Embedder, ModelFiles};
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

type Fail = Box<dyn std::error::Error>;

fn main() -> Result<(), Fail> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let a = |i: usize| args.get(i).map(String::as_str).ok_or("missing argument (see bench/models/models.rs)");
    match a(0)? {
        "texts" => texts(a(1)?.parse()?, Path::new(a(2)?), Path::new(a(3)?)),
        "embed" => embed(Path::new(a(1)?), Path::new(a(2)?), Path::new(a(3)?)),
        "write-nli" => write_nli(a(1)?, Path::new(a(2)?), Path::new(a(3)?)),
        "nli" => nli(Path::new(a(1)?), Path::new(a(2)?), a(3)?.parse()?, args.get(4).map(Path::new)),
        "pairs" => pairs(Path::new(a(1)?), a(2)?.parse()?, Path::new(a(3)?)),
        other => Err(format!("unknown command {other:?}").into()),
    }
}

/// The process's peak resident set so far, in MB (Linux's VmHWM).
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok());
    kb.unwrap_or(0.0) / 1024.0
}

/// xorshift64*: the same numbers for a seed on every machine.
struct Draws(u64);

impl Draws {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn pick<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[(self.next() >> 33) as usize % words.len()]
    }
    /// Uniform in [-scale, scale).
    fn uniform(&mut self, scale: f32) -> f32 {
        scale * (2.0 * ((self.next() >> 40) as f32 / (1u64 << 24) as f32) - 1.0)
    }
}

/// Our own word lists (no corpus text): an answer to a question on a social topic, in nine of
/// the project's languages, from these words in random order, sentence by sentence.
const WORDS: [(&str, &str, &[&str]); 9] = [
    (
        "en",
        " ",
        &[
            "people",
            "often",
            "think",
            "that",
            "the",
            "city",
            "council",
            "should",
            "decide",
            "about",
            "housing",
            "and",
            "schools",
            "while",
            "others",
            "argue",
            "for",
            "more",
            "local",
            "voices",
            "in",
            "every",
            "debate",
            "on",
            "work",
            "family",
            "rights",
            "history",
            "is",
            "complicated",
            "because",
            "many",
            "groups",
            "see",
            "it",
            "differently",
        ],
    ),
    (
        "es",
        " ",
        &[
            "muchas",
            "personas",
            "creen",
            "que",
            "el",
            "gobierno",
            "debería",
            "escuchar",
            "a",
            "los",
            "vecinos",
            "sobre",
            "vivienda",
            "y",
            "educación",
            "mientras",
            "otros",
            "defienden",
            "más",
            "derechos",
            "para",
            "las",
            "familias",
            "trabajadoras",
            "en",
            "cada",
            "región",
            "del",
            "país",
        ],
    ),
    (
        "de",
        " ",
        &[
            "viele",
            "Menschen",
            "meinen",
            "dass",
            "die",
            "Stadt",
            "mehr",
            "Wohnungen",
            "bauen",
            "sollte",
            "während",
            "andere",
            "über",
            "Schulen",
            "Arbeit",
            "und",
            "Rechte",
            "der",
            "Familien",
            "streiten",
            "weil",
            "jede",
            "Gruppe",
            "ihre",
            "Geschichte",
            "anders",
            "erzählt",
        ],
    ),
    (
        "fr",
        " ",
        &[
            "beaucoup",
            "de",
            "gens",
            "pensent",
            "que",
            "la",
            "ville",
            "devrait",
            "écouter",
            "les",
            "habitants",
            "sur",
            "le",
            "logement",
            "et",
            "l'école",
            "tandis",
            "que",
            "d'autres",
            "défendent",
            "plus",
            "droits",
            "pour",
            "familles",
            "dans",
            "chaque",
            "région",
        ],
    ),
    (
        "pl",
        " ",
        &[
            "wielu",
            "ludzi",
            "uważa",
            "że",
            "miasto",
            "powinno",
            "słuchać",
            "mieszkańców",
            "w",
            "sprawie",
            "mieszkań",
            "i",
            "szkół",
            "podczas",
            "gdy",
            "inni",
            "bronią",
            "praw",
            "rodzin",
            "pracujących",
            "każdym",
            "regionie",
            "kraju",
        ],
    ),
    (
        "ca",
        " ",
        &[
            "moltes",
            "persones",
            "creuen",
            "que",
            "l'ajuntament",
            "hauria",
            "d'escoltar",
            "els",
            "veïns",
            "sobre",
            "l'habitatge",
            "i",
            "l'escola",
            "mentre",
            "altres",
            "defensen",
            "més",
            "drets",
            "per",
            "a",
            "les",
            "famílies",
            "de",
            "cada",
            "comarca",
        ],
    ),
    (
        "ko",
        " ",
        &[
            "많은",
            "사람들은",
            "정부가",
            "주택과",
            "교육",
            "문제에",
            "대해",
            "시민의",
            "목소리를",
            "더",
            "들어야",
            "한다고",
            "생각하지만",
            "다른",
            "사람들은",
            "가족의",
            "권리와",
            "노동",
            "역사를",
            "다르게",
            "봅니다",
        ],
    ),
    (
        "zh",
        "",
        &[
            "很多",
            "人",
            "认为",
            "政府",
            "应该",
            "听取",
            "居民",
            "关于",
            "住房",
            "和",
            "教育",
            "的",
            "意见",
            "而",
            "另一些",
            "人",
            "主张",
            "家庭",
            "权利",
            "劳动",
            "历史",
            "看法",
            "不同",
            "，",
        ],
    ),
    (
        "hi",
        " ",
        &[
            "बहुत",
            "से",
            "लोग",
            "मानते",
            "हैं",
            "कि",
            "सरकार",
            "को",
            "आवास",
            "और",
            "शिक्षा",
            "पर",
            "नागरिकों",
            "की",
            "बात",
            "सुननी",
            "चाहिए",
            "जबकि",
            "दूसरे",
            "परिवारों",
            "के",
            "अधिकारों",
            "काम",
            "इतिहास",
            "अलग",
            "देखते",
        ],
    ),
];

/// `n` answers, each grown word by word until `tokens` (the model's tokenizer) reaches 100.
fn texts(n: usize, model_dir: &Path, out: &Path) -> Result<(), Fail> {
    let embedder = Embedder::load(ModelFiles::read_dir(model_dir, None)?, true)?;
    let mut d = Draws(0x005e_ed0f_e7e4_4a4d);
    let mut rows = vec![];
    let mut total_tokens = 0;
    for i in 0..n {
        let (language, space, words) = WORDS[i % WORDS.len()];
        let mut text = String::new();
        let mut in_sentence = 0;
        loop {
            let mut word = d.pick(words).to_string();
            if in_sentence == 0 && !text.is_empty() {
                text.push_str(if space.is_empty() { "。" } else { ". " });
            }
            if in_sentence == 0 {
                word =
                    word.chars().next().map(|c| c.to_uppercase().chain(word.chars().skip(1)).collect()).unwrap_or(word);
            } else {
                text.push_str(space);
            }
            text.push_str(&word);
            in_sentence = (in_sentence + 1) % (6 + (d.next() % 6) as usize).max(1);
            let tokens = embedder.tokenize(&text)?.0.len();
            if tokens >= 100 {
                total_tokens += tokens;
                break;
            }
        }
        rows.push(serde_json::json!({"language": language, "text": text}));
    }
    std::fs::write(out, serde_json::to_string(&rows)?)?;
    eprintln!("{n} texts, {:.1} tokens each on average ({})", total_tokens as f64 / n as f64, model_dir.display());
    Ok(())
}

fn read_texts(path: &Path) -> Result<Vec<(String, String)>, Fail> {
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&std::fs::read(path)?)?;
    Ok(rows
        .iter()
        .map(|r| (r["text"].as_str().unwrap_or("").to_string(), r["language"].as_str().unwrap_or("").to_string()))
        .collect())
}

fn embed(model_dir: &Path, texts_file: &Path, out: &Path) -> Result<(), Fail> {
    let rows = read_texts(texts_file)?;
    let texts: Vec<&str> = rows.iter().map(|(t, _)| t.as_str()).collect();
    let t = Instant::now();
    let embedder = Embedder::load(ModelFiles::read_dir(model_dir, None)?, true)?;
    let load = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let vectors = embedder.embed(&texts, |_| {})?;
    let seconds = t.elapsed().as_secs_f64();
    let bytes: Vec<u8> = vectors.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(out, bytes)?;
    println!(
        "{}",
        serde_json::json!({
            "texts": texts.len(), "dimension": embedder.dimension(), "seconds": seconds,
            "load_seconds": load, "peak_rss_mb": peak_rss_mb(),
            "threads": candle_core::utils::get_num_threads(),
        })
    );
    Ok(())
}

fn nli(model_dir: &Path, texts_file: &Path, n: usize, out: Option<&Path>) -> Result<(), Fail> {
    let rows = read_texts(texts_file)?;
    let answers: Vec<(&str, &str)> = rows.iter().take(n).map(|(t, l)| (t.as_str(), l.as_str())).collect();
    let t = Instant::now();
    let detector = NliDetector::new(Classifier::load(ModelFiles::read_dir(model_dir, None)?)?, Rule::Argmax);
    let load = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let verdicts = detector.detect(&answers, |_| {})?;
    let seconds = t.elapsed().as_secs_f64();
    if let Some(out) = out {
        let p: Vec<f64> = verdicts.iter().map(|v| v.p_refuse).collect();
        let refusal: Vec<bool> = verdicts.iter().map(|v| v.refusal).collect();
        std::fs::write(out, serde_json::json!({"p_refuse": p, "refusal": refusal}).to_string())?;
    }
    // The entailment logits of the first few answers, for the peer to agree with.
    let sample: Vec<[f32; 2]> = verdicts.iter().take(8).map(|v| v.entailment_logits).collect();
    println!(
        "{}",
        serde_json::json!({
            "answers": answers.len(), "seconds": seconds, "answers_per_second": answers.len() as f64 / seconds,
            "load_seconds": load, "peak_rss_mb": peak_rss_mb(), "entailment_index": detector.entailment_index(),
            "threads": candle_core::utils::get_num_threads(), "sample": sample,
        })
    );
    Ok(())
}

/// Both hypotheses of each of the first `n` answers, in the order the detector scores them.
fn pairs(texts_file: &Path, n: usize, out: &Path) -> Result<(), Fail> {
    let mut pairs = vec![];
    for (text, language) in read_texts(texts_file)?.into_iter().take(n) {
        let (h, _) = zeroshot::hypotheses(&language).ok_or(format!("no hypotheses for {language}"))?;
        pairs.push([text.clone(), h[0].clone()]);
        pairs.push([text, h[1].clone()]);
    }
    std::fs::write(out, serde_json::to_string(&pairs)?)?;
    Ok(())
}

/// A random-weight NLI classifier with a real base model's shapes, over the real XLM-R
/// SentencePiece tokenizer.json given (both models read it: mDeBERTa-v3's own tokenizer is a
/// 250k SentencePiece vocabulary too, and only token counts matter for speed).
fn write_nli(kind: &str, dir: &Path, tokenizer: &Path) -> Result<(), Fail> {
    std::fs::create_dir_all(dir)?;
    std::fs::copy(tokenizer, dir.join("tokenizer.json"))?;
    let labels = serde_json::json!({
        "id2label": {"0": "entailment", "1": "neutral", "2": "contradiction"},
        "label2id": {"entailment": 0, "neutral": 1, "contradiction": 2},
    });
    match kind {
        // xlm-roberta-base's config.json shapes (the xnli fine-tunes of it keep them).
        "xlmr" => {
            let mut c = serde_json::json!({
                "architectures": ["XLMRobertaForSequenceClassification"], "model_type": "xlm-roberta",
                "vocab_size": 250002, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
                "intermediate_size": 3072, "hidden_act": "gelu", "max_position_embeddings": 514,
                "type_vocab_size": 1, "layer_norm_eps": 1e-5, "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2,
            });
            c.as_object_mut().ok_or("config")?.extend(labels.as_object().ok_or("labels")?.clone());
            std::fs::write(dir.join("config.json"), c.to_string())?;
            let w = xlmr_weights(&c)?;
            candle_core::safetensors::save(&w, dir.join("model.safetensors"))?;
        }
        // mDeBERTa-v3-base's config.json shapes (vocabulary 251,000; relative attention over 256
        // log buckets, shared keys, c2p and p2c); pad id 1 as in the tokenizer used here.
        "deberta" => {
            let mut o = serde_json::json!({
                "vocab_size": 251000, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
                "intermediate_size": 3072, "max_position_embeddings": 512, "max_relative_positions": -1,
                "position_buckets": 256, "pooler_hidden_size": 768, "pad_token_id": 1,
            });
            o.as_object_mut().ok_or("config")?.extend(labels.as_object().ok_or("labels")?.clone());
            let tokenizer = std::fs::read(dir.join("tokenizer.json"))?;
            evenhand_models::tiny::write_deberta(dir, 7, &o)?;
            std::fs::write(dir.join("tokenizer.json"), tokenizer)?;
            // The tiny writer's draws (dense weights up to 0.4) are far larger than a trained
            // model's at width 768: logits in the tens, and float32 results that depend on the
            // order of summation (PyTorch's own float32 and float64 differed by 17). A tenth of
            // them keeps activations where real models have them, so the two sides can agree.
            let path = dir.join("model.safetensors");
            let w = candle_core::safetensors::load(&path, &candle_core::Device::Cpu)?;
            let mut scaled = HashMap::new();
            for (name, t) in w {
                let t = if name.contains("LayerNorm") { t } else { (t * 0.1)? };
                scaled.insert(name, t);
            }
            candle_core::safetensors::save(&scaled, &path)?;
        }
        other => return Err(format!("unknown model kind {other:?} (xlmr or deberta)").into()),
    }
    Ok(())
}

/// XLMRobertaForSequenceClassification's tensors, as the hub's checkpoints name them, drawn
/// uniform and small (layer norms at 1 and 0) so activations stay finite.
fn xlmr_weights(c: &serde_json::Value) -> Result<HashMap<String, candle_core::Tensor>, Fail> {
    let n = |k: &str| c[k].as_u64().map(|v| v as usize).ok_or(format!("config {k}"));
    let (h, inter, vocab, pos, layers) = (
        n("hidden_size")?,
        n("intermediate_size")?,
        n("vocab_size")?,
        n("max_position_embeddings")?,
        n("num_hidden_layers")?,
    );
    let mut shapes: Vec<(String, Vec<usize>)> = vec![
        ("roberta.embeddings.word_embeddings.weight".into(), vec![vocab, h]),
        ("roberta.embeddings.position_embeddings.weight".into(), vec![pos, h]),
        ("roberta.embeddings.token_type_embeddings.weight".into(), vec![1, h]),
    ];
    let mut norms = vec!["roberta.embeddings.LayerNorm".to_string()];
    for i in 0..layers {
        let p = format!("roberta.encoder.layer.{i}");
        for m in ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"] {
            shapes.push((format!("{p}.{m}.weight"), vec![h, h]));
            shapes.push((format!("{p}.{m}.bias"), vec![h]));
        }
        shapes.push((format!("{p}.intermediate.dense.weight"), vec![inter, h]));
        shapes.push((format!("{p}.intermediate.dense.bias"), vec![inter]));
        shapes.push((format!("{p}.output.dense.weight"), vec![h, inter]));
        shapes.push((format!("{p}.output.dense.bias"), vec![h]));
        norms.push(format!("{p}.attention.output.LayerNorm"));
        norms.push(format!("{p}.output.LayerNorm"));
    }
    shapes.push(("classifier.dense.weight".into(), vec![h, h]));
    shapes.push(("classifier.dense.bias".into(), vec![h]));
    shapes.push(("classifier.out_proj.weight".into(), vec![3, h]));
    shapes.push(("classifier.out_proj.bias".into(), vec![3]));
    let mut d = Draws(0x0b5e_55ed);
    let mut w = HashMap::new();
    for (name, shape) in shapes {
        let v: Vec<f32> = (0..shape.iter().product::<usize>()).map(|_| d.uniform(0.05)).collect();
        w.insert(name, candle_core::Tensor::from_vec(v, shape, &candle_core::Device::Cpu)?);
    }
    for name in norms {
        w.insert(
            format!("{name}.weight"),
            candle_core::Tensor::ones(h, candle_core::DType::F32, &candle_core::Device::Cpu)?,
        );
        w.insert(
            format!("{name}.bias"),
            candle_core::Tensor::zeros(h, candle_core::DType::F32, &candle_core::Device::Cpu)?,
        );
    }
    Ok(w)
}
