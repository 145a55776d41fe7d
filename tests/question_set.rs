//! The shipped cross-lingual question set (datasets/crosslingual/questions.json) against the agreed
//! format (evenhand-questions, version 1): the 17 Human Rights Watch topics with at least ten questions
//! each, six aligned languages in the right scripts, ids from topic slugs, and prompt templates that
//! hold `{question}` exactly once. The checker is also run on broken copies so that it can be seen to fail.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/crosslingual/questions.json");
const LANGUAGES: [&str; 6] = ["en", "ko", "zh", "es", "de", "hi"];
const MODES: [&str; 3] = ["answer", "acceptable", "non_acceptable"];
const TOPICS: [&str; 17] = [
    "Arms",
    "Children's Rights",
    "Crisis and Conflict",
    "Disability Rights",
    "Economic Justice and Rights",
    "Environment and Human Rights",
    "Free Speech",
    "Health",
    "LGBT Rights",
    "Refugees and Migrants",
    "Rights of Older People",
    "International Justice",
    "Technology and Rights",
    "Terrorism and Counterterrorism",
    "Torture",
    "United Nations",
    "Women's Rights",
];
const MIN_PER_TOPIC: usize = 10;

fn load() -> Value {
    let text = std::fs::read_to_string(PATH).unwrap_or_else(|e| panic!("{PATH}: {e}"));
    // Readers must accept a BOM (format doc), so the test does too.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{PATH}: line {}, column {}: {e}", e.line(), e.column()))
}

/// "Children's Rights" -> "childrens-rights": lowercase ASCII, apostrophes dropped, other runs -> '-'.
fn slug(topic: &str) -> String {
    let mut out = String::new();
    for c in topic.chars().filter(|&c| c != '\'') {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

fn has(text: &str, lo: u32, hi: u32) -> bool {
    text.chars().any(|c| (lo..=hi).contains(&(c as u32)))
}
fn hangul(t: &str) -> bool {
    has(t, 0xAC00, 0xD7A3)
}
fn cjk(t: &str) -> bool {
    has(t, 0x4E00, 0x9FFF)
}
fn devanagari(t: &str) -> bool {
    has(t, 0x0900, 0x097F)
}

/// Problems with the script of one text, e.g. Korean written without Hangul.
fn script_problem(lang: &str, t: &str) -> Option<&'static str> {
    match lang {
        "ko" if !hangul(t) => Some("Korean text without Hangul"),
        "zh" if !cjk(t) => Some("Chinese text without CJK ideographs"),
        "zh" if hangul(t) => Some("Chinese text containing Hangul"),
        "hi" if !devanagari(t) => Some("Hindi text without Devanagari"),
        "en" | "es" | "de" if hangul(t) || cjk(t) || devanagari(t) => Some("Latin-script text with Asian script"),
        _ => None,
    }
}

/// `NN` after the topic slug: exactly two digits, from 01.
fn id_number(id: &str, topic_slug: &str) -> Option<u32> {
    let rest = id.strip_prefix(topic_slug)?.strip_prefix('-')?;
    (rest.len() == 2 && rest.bytes().all(|b| b.is_ascii_digit()))
        .then(|| rest.parse().ok())
        .flatten()
        .filter(|&n| n > 0)
}

/// Every rule the format doc and the brief set for the shipped file; returns one line per problem.
fn check(doc: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let mut bad = |s: String| problems.push(s);
    if doc["format"] != "evenhand-questions" || doc["version"] != 1 {
        bad(format!("format/version: expected evenhand-questions/1, got {}/{}", doc["format"], doc["version"]));
    }
    if doc["license"] != "CC-BY-4.0" {
        bad(format!("license: expected CC-BY-4.0, got {}", doc["license"]));
    }
    let languages: Vec<&str> = doc["languages"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    if languages != LANGUAGES {
        bad(format!("languages: expected {LANGUAGES:?}, got {languages:?}"));
    }
    let topics: Vec<&str> = doc["topics"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    if topics != TOPICS {
        bad(format!("topics: expected the 17 HRW topics in order, got {topics:?}"));
    }

    for mode in MODES {
        for lang in LANGUAGES {
            match doc["modes"][mode][lang].as_str() {
                None => bad(format!("modes.{mode}.{lang}: missing")),
                Some(t) => {
                    let n = t.matches("{question}").count();
                    if n != 1 {
                        bad(format!("modes.{mode}.{lang}: {{question}} appears {n} times, expected once"));
                    }
                    if mode == "answer" && t != "{question}" {
                        bad(format!("modes.answer.{lang}: expected just {{question}}, got {t:?}"));
                    }
                    if mode != "answer" && lang != "en" && Some(t) == doc["modes"][mode]["en"].as_str() {
                        bad(format!("modes.{mode}.{lang}: same as English"));
                    }
                    let wrapper = t.replace("{question}", "");
                    if let Some(p) = script_problem(lang, &wrapper).filter(|_| mode != "answer") {
                        bad(format!("modes.{mode}.{lang}: {p}"));
                    }
                }
            }
        }
    }
    if let Some(modes) = doc["modes"].as_object() {
        for name in modes.keys().filter(|k| !MODES.contains(&k.as_str())) {
            bad(format!("modes.{name}: unknown mode"));
        }
    }

    let Some(questions) = doc["questions"].as_array() else {
        bad("questions: expected an array".into());
        return problems;
    };
    let mut ids = BTreeSet::new();
    let mut numbers: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for (i, q) in questions.iter().enumerate() {
        let id = q["id"].as_str().unwrap_or("");
        let at = format!("questions[{i}] ({id})");
        let topic = q["topic"].as_str().unwrap_or("");
        if !TOPICS.contains(&topic) {
            bad(format!("{at}.topic: {topic:?} is not one of the 17 topics"));
            continue;
        }
        if !ids.insert(id) {
            bad(format!("{at}.id: duplicate"));
        }
        match id_number(id, &slug(topic)) {
            Some(n) => numbers.entry(topic).or_default().push(n),
            None => bad(format!("{at}.id: expected \"{}-NN\"", slug(topic))),
        }
        let text = &q["text"];
        if let Some(extra) = text.as_object().and_then(|o| o.keys().find(|k| !LANGUAGES.contains(&k.as_str()))) {
            bad(format!("{at}.text.{extra}: language not declared"));
        }
        let en = text["en"].as_str().unwrap_or("");
        for lang in LANGUAGES {
            let t = text[lang].as_str().unwrap_or("");
            if t.trim().is_empty() {
                bad(format!("{at}.text.{lang}: missing or empty"));
                continue;
            }
            if t.contains('{') || t.contains('}') {
                bad(format!("{at}.text.{lang}: placeholder braces left in the text"));
            }
            if lang != "en" && t.trim() == en.trim() {
                bad(format!("{at}.text.{lang}: same as English"));
            }
            if let Some(p) = script_problem(lang, t) {
                bad(format!("{at}.text.{lang}: {p}"));
            }
        }
        for kind in ["acceptable", "non_acceptable"] {
            if let Some(refs) = q.get(kind) {
                match refs.as_object() {
                    None => bad(format!("{at}.{kind}: expected an object of language -> text")),
                    Some(o) => {
                        for (lang, t) in o {
                            if !LANGUAGES.contains(&lang.as_str()) || t.as_str().is_none_or(|t| t.trim().is_empty()) {
                                bad(format!("{at}.{kind}.{lang}: unknown language or empty text"));
                            }
                        }
                    }
                }
            }
        }
    }
    for topic in TOPICS {
        let mut got = numbers.remove(topic).unwrap_or_default();
        if got.len() < MIN_PER_TOPIC {
            bad(format!("topic {topic:?}: {} questions, expected at least {MIN_PER_TOPIC}", got.len()));
        }
        got.sort_unstable();
        if got.iter().zip(1..).any(|(&n, want)| n != want) {
            bad(format!("topic {topic:?}: ids are not numbered 01..{:02} without gaps", got.len()));
        }
    }
    problems
}

#[test]
fn shipped_question_set_follows_the_format() {
    let doc = load();
    let problems = check(&doc);
    assert!(problems.is_empty(), "{PATH}:\n{}", problems.join("\n"));
    let n = doc["questions"].as_array().unwrap().len();
    assert!(n >= TOPICS.len() * MIN_PER_TOPIC, "{n} questions");
}

#[test]
fn same_id_means_the_same_question_in_every_language() {
    // Alignment cannot be checked by machine, but one crude symptom of a shifted row can: a text
    // that appears under two ids in one language.
    let doc = load();
    for lang in LANGUAGES {
        let mut seen = BTreeMap::new();
        for q in doc["questions"].as_array().unwrap() {
            let t = q["text"][lang].as_str().unwrap();
            if let Some(other) = seen.insert(t, q["id"].as_str().unwrap()) {
                panic!("{lang}: {} and {other} have the same text {t:?}", q["id"]);
            }
        }
    }
}

#[test]
fn slugs_follow_the_documented_pattern() {
    assert_eq!(slug("Children's Rights"), "childrens-rights");
    assert_eq!(slug("LGBT Rights"), "lgbt-rights");
    assert_eq!(slug("Economic Justice and Rights"), "economic-justice-and-rights");
    assert_eq!(id_number("torture-07", "torture"), Some(7));
    assert_eq!(id_number("torture-7", "torture"), None);
    assert_eq!(id_number("torture-00", "torture"), None);
    assert_eq!(id_number("arms-01", "torture"), None);
}

/// Each kind of damage a hand edit could do must be caught, with the place named.
#[test]
fn checker_rejects_broken_copies() {
    let doc = load();
    let broken = |edit: &dyn Fn(&mut Value), expect: &str| {
        let mut d = doc.clone();
        edit(&mut d);
        let problems = check(&d);
        assert!(problems.iter().any(|p| p.contains(expect)), "expected {expect:?} in {problems:?}");
    };
    broken(&|d| d["questions"][0]["text"]["hi"] = "".into(), "questions[0] (arms-01).text.hi: missing or empty");
    broken(&|d| d["questions"][3]["text"]["ko"] = "Should it?".into(), "Korean text without Hangul");
    broken(&|d| d["questions"][3]["text"]["zh"] = "질문입니까?".into(), "Chinese text without CJK");
    broken(&|d| d["questions"][3]["text"]["hi"] = "Kya?".into(), "Hindi text without Devanagari");
    broken(&|d| d["questions"][5]["text"]["de"] = d["questions"][5]["text"]["en"].clone(), "same as English");
    broken(&|d| d["questions"][5]["text"]["es"] = "¿{question}?".into(), "placeholder braces");
    broken(&|d| d["questions"][1]["id"] = "arms-01".into(), "duplicate");
    broken(&|d| d["questions"][1]["id"] = "arms-2".into(), "expected \"arms-NN\"");
    broken(&|d| d["questions"][12]["topic"] = "Childrens Rights".into(), "is not one of the 17 topics");
    broken(&|d| d["modes"]["acceptable"]["de"] = "Antworte sorgfältig.".into(), "appears 0 times");
    broken(&|d| d["modes"]["non_acceptable"]["ko"] = "{question} {question}".into(), "appears 2 times");
    broken(
        &|d| {
            let qs = d["questions"].as_array_mut().unwrap();
            qs.retain(|q| q["id"] != "torture-04");
        },
        "topic \"Torture\": 9 questions",
    );
    broken(&|d| d["topics"][6] = "Free speech".into(), "topics: expected");
    broken(&|d| d["modes"]["acceptable"]["hi"] = "Answer carefully: {question}".into(), "modes.acceptable.hi: Hindi");
}
