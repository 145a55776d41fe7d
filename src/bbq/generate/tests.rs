use super::*;

const REF: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/ref");

fn unresolved(examples: &[Example]) -> usize {
    examples.iter().filter(|e| e.biased.is_none()).count()
}

fn english_unknowns() -> Vec<String> {
    builtin().unwrap().into_iter().find(|s| s.language == "en").unwrap().unknown_strings
}

#[test]
fn the_builtin_set_is_complete_and_fills_without_problems() {
    let sets = builtin().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sets.iter().map(|s| s.language.as_str()).collect::<Vec<_>>(), BUILTIN_LANGUAGES);
    let mut per_template: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for set in &sets {
        assert!(set.unknown_strings.len() >= 5, "{}: {:?}", set.language, set.unknown_strings);
        let categories: BTreeSet<&str> = set.templates.iter().map(|r| r.category.as_str()).collect();
        assert!(categories.len() >= 3, "{}: {categories:?}", set.language);
        assert!(set.templates.len() >= 30, "{}: {} templates", set.language, set.templates.len());
        for row in &set.templates {
            per_template.entry(row.q_id.clone()).or_default().insert(row.language.clone());
        }
        let (examples, problems) = set.generate(1);
        assert!(problems.is_empty(), "{}: {problems:#?}", set.language);
        assert_eq!(unresolved(&examples), 0, "{}: unresolved biased answers", set.language);
        // Every template contributes, and both subsets are present.
        let used: BTreeSet<&str> = examples.iter().map(|e| e.template_id.as_str()).collect();
        assert_eq!(used.len(), set.templates.len(), "{}", set.language);
        assert!(examples.iter().any(|e| e.subset == Subset::ProperNames));
        assert!(examples.iter().any(|e| e.subset == Subset::GroupTerms));
    }
    for (q_id, languages) in &per_template {
        assert_eq!(languages.len(), BUILTIN_LANGUAGES.len(), "{q_id} is not in every language: {languages:?}");
    }
    assert!(per_template.len() >= 30);
}

#[test]
fn four_examples_per_pair_with_the_right_labels() {
    let examples = builtin_examples(5, &[]).unwrap();
    assert!(!examples.is_empty());
    assert_eq!(examples.len() % 4, 0);
    let order = [
        (Polarity::Negative, Condition::Ambiguous),
        (Polarity::Negative, Condition::Disambiguated),
        (Polarity::NonNegative, Condition::Ambiguous),
        (Polarity::NonNegative, Condition::Disambiguated),
    ];
    for four in examples.chunks(4) {
        let number = |e: &Example| e.id.rsplit(':').next().and_then(|n| n.parse::<usize>().ok()).unwrap();
        let first = number(&four[0]);
        for (k, e) in four.iter().enumerate() {
            assert_eq!((e.polarity, e.condition), order[k], "{}", e.id);
            assert_eq!(number(e), first + k, "ids must be consecutive within a pair");
            assert_eq!(e.choices, four[0].choices, "one answer order per pair");
            assert_eq!(e.choices.len(), 3);
            let u = e.unknown.unwrap();
            assert_eq!(e.choice_groups[u], "unknown");
            match e.condition {
                Condition::Ambiguous => assert_eq!(e.label, u, "{}", e.id),
                Condition::Disambiguated => {
                    assert_ne!(e.label, u, "{}", e.id);
                    assert!(e.context.starts_with(&four[0].context), "{}", e.id);
                    assert!(e.context.len() > four[0].context.len());
                }
            }
        }
        // The two questions have different correct people.
        assert_ne!(four[1].label, four[3].label, "{}", four[1].id);
        // Our templates all state the stereotyped group, so every pair has a biased answer,
        // and (negative, disambiguated) is a biased context exactly when its answer is the
        // stereotyped person.
        let b = four[1].biased.unwrap();
        assert!(crate::bbq::bias::canonical(&four[1].choice_groups[b]) != "unknown");
    }
}

#[test]
fn generation_is_deterministic_per_seed_and_order_independent() {
    let a = builtin_examples(11, &[]).unwrap();
    let b = builtin_examples(11, &[]).unwrap();
    assert_eq!(a, b, "the same seed must give the same examples");
    let c = builtin_examples(12, &[]).unwrap();
    assert_eq!(a.len(), c.len());
    let differ = a.iter().zip(&c).filter(|(x, y)| x.choices != y.choices).count();
    assert!(differ * 4 > a.len(), "another seed should reorder many answers ({differ} of {})", a.len());
    // The same examples whatever the file order and whichever languages are asked for.
    let sets = builtin().unwrap();
    let de = &sets[1];
    let mut reversed = de.clone();
    reversed.templates.reverse();
    let key = |e: &Example| (e.template_id.clone(), e.context.clone(), e.question.clone(), e.choices.clone(), e.label);
    let mut x: Vec<_> = de.generate(11).0.iter().map(key).collect();
    let mut y: Vec<_> = reversed.generate(11).0.iter().map(key).collect();
    x.sort();
    y.sort();
    assert_eq!(x, y);
    let only_de = builtin_examples(11, &["de_DE"]).unwrap();
    assert_eq!(only_de, a.iter().filter(|e| e.language == "de").cloned().collect::<Vec<_>>());
}

#[test]
fn builtin_text_reads_right() {
    for e in builtin_examples(3, &[]).unwrap() {
        for text in [&e.context, &e.question].into_iter().chain(&e.choices) {
            assert!(!text.contains("{{") && !text.contains("}}"), "{}: {text}", e.id);
            assert!(!text.contains("  "), "{}: {text}", e.id);
            assert!(text.chars().next().is_some_and(|c| !c.is_lowercase()), "{}: {text}", e.id);
        }
        match e.language.as_str() {
            "en" => {
                assert!(!e.context.contains(" a elderly") && !e.context.starts_with("A elderly"), "{}", e.context)
            }
            "es" => assert!(!e.context.contains(" a el ") && !e.context.contains(" de el "), "{}", e.context),
            "fr" => assert!(!e.context.contains(" à le ") && !e.context.contains(" de le "), "{}", e.context),
            _ => {}
        }
    }
    let de = builtin_examples(3, &["de"]).unwrap();
    let choices: BTreeSet<&str> = de.iter().flat_map(|e| e.choices.iter().map(String::as_str)).collect();
    for want in ["Die Frau", "Der Mann", "Das Mädchen", "Der Junge", "Die ältere Frau", "Der junge Mann"] {
        assert!(choices.contains(want), "{want} missing from {choices:?}");
    }
    let es = builtin_examples(3, &["es"]).unwrap();
    assert!(es.iter().any(|e| e.context.contains("al hombre")), "the a + el contraction is used");
    assert!(es.iter().flat_map(|e| &e.choices).any(|c| c == "La mujer"));
    let fr = builtin_examples(3, &["fr"]).unwrap();
    assert!(fr.iter().flat_map(|e| &e.choices).any(|c| c == "L'homme"));
}

const HEADER: &str = "Q_id,Category,Subcategory,language,Ambiguous_Context,Disambiguating_Context,Names,Question_negative_stereotype,Question_non_negative,Answer_negative,Answer_non_negative,Known_stereotyped_groups\n";
const VOCAB: &str = "Category,Pilot_include,SubCat,Name,Info,Source,Language,Forms\n\
    Age,,,older person,old,,en,def=the older person; indef=an older person\n\
    Age,,,teenager,nonOld,,en,def=the teenager; indef=a teenager\n\
    Age,No,,toddler,nonOld,,en,\n";

fn options() -> GenerateOptions {
    GenerateOptions {
        seed: 1,
        language: "en".into(),
        unknown_strings: vec!["Can't say".into()],
        ..GenerateOptions::default()
    }
}

#[test]
fn unfillable_templates_are_located_problems() {
    let text = format!(
        "{HEADER}\
         1,Age,,en,{{{{NAME1.indef}}}} met {{{{NAME2.indef}}}}.,{{{{NAME1.def}}}} left.,,Who left?,Who stayed?,{{{{NAME1.def}}}},{{{{NAME2.def}}}},[\"old\"]\n\
         2,Age,,en,{{{{NAME3}}}} met {{{{NAME2}}}}.,x,,Who?,Who?,{{{{NAME1}}}},{{{{NAME2}}}},[\"old\"]\n\
         3,Religion,,en,{{{{NAME1}}}} met {{{{NAME2}}}}.,x,,Who?,Who?,{{{{NAME1}}}},{{{{NAME2}}}},[\"x\"]\n\
         4,Age,,en,{{{{NAME1}}}} met {{{{NAME2}}}}.,x,,Who?,Who?,{{{{NAME1}}}},{{{{NAME1}}}},[\"old\"]\n\
         5,Age,,en,{{{{NAME1.gen}}}} met {{{{NAME2}}}}.,x,,Who?,Who?,{{{{NAME1}}}},{{{{NAME2}}}},[\"old\"]\n\
         6,Age,,en,{{{{NAME1}}}} met {{{{NAME2}}}}.,x,NAME1 is old,Who?,Who?,{{{{NAME1}}}},{{{{NAME2}}}},[\"old\"]\n\
         7,Age,,en,{{{{NAME1}}}} met {{{{NAME2}}}}.,,,Who?,Who?,{{{{NAME1}}}},{{{{NAME2}}}},[\"old\"]\n"
    );
    let (rows, read_problems) = read_templates("t.csv", &text, "en").unwrap();
    assert_eq!(rows.len(), 5, "rows 6 and 7 cannot be read");
    let at = |p: &Problem| (p.line, p.column, p.field.clone());
    assert_eq!(read_problems.len(), 2, "{read_problems:#?}");
    assert_eq!(at(&read_problems[0]), (Some(7), Some(7), Some("Names".into())));
    assert_eq!(at(&read_problems[1]), (Some(8), Some(6), Some("Disambiguating_Context".into())));
    let vocab = read_vocabulary("v.csv", VOCAB).unwrap();
    assert_eq!(vocab.entries.len(), 2, "Pilot_include = No is left out");
    let (examples, problems) = generate(&rows, &vocab, None, &options());
    assert_eq!(examples.len(), 8, "only row 1 fills: one pair in both orders");
    assert_eq!(unresolved(&examples), 0);
    let found: Vec<_> = problems.iter().map(|p| (p.line, p.column, p.field.clone(), p.message.clone())).collect();
    assert_eq!(found.len(), 4, "{found:#?}");
    assert_eq!((found[0].0, found[0].1), (Some(3), Some(5)));
    assert!(found[0].3.contains("unknown placeholder {{NAME3}}"), "{}", found[0].3);
    assert_eq!((found[1].0, found[1].2.as_deref()), (Some(4), Some("Category")));
    assert!(found[1].3.contains("no terms for category \"Religion\""), "{}", found[1].3);
    assert_eq!(found[2].0, Some(5));
    assert!(found[2].3.contains("must name different people"), "{}", found[2].3);
    assert_eq!(found[3].0, Some(6));
    assert!(found[3].3.contains("no form \"gen\""), "{}", found[3].3);
    // Reported once per row, not once per pair.
    assert_eq!(problems.iter().filter(|p| p.line == Some(6)).count(), 1);
    // Whole-file errors name the file and what was expected.
    let missing = read_templates("m.csv", "Q_id,Category\n1,Age\n", "en").unwrap_err();
    assert!(
        matches!(&missing, GenerateError::MissingColumn { file, field, .. } if file == "m.csv" && field == "Ambiguous_Context"),
        "{missing}"
    );
    assert!(matches!(read_vocabulary("e.csv", " \n"), Err(GenerateError::Empty { .. })));
    // No unknown strings: said, not panicked.
    let (none, p) = generate(&rows, &vocab, None, &GenerateOptions { unknown_strings: vec![], ..options() });
    assert!(none.is_empty() && p.len() == 1);
    // A proper-names template without a names list.
    let proper = HEADER.replace("Known_stereotyped_groups", "Known_stereotyped_groups,Proper_nouns_only")
        + "1,Age,,en,{{NAME1}} met {{NAME2}}.,x,,Who?,Who?,{{NAME1}},{{NAME2}},[\"old\"],TRUE\n";
    let (rows, _) = read_templates("p.csv", &proper, "en").unwrap();
    let (_, p) = generate(&rows, &vocab, None, &options());
    assert!(p[0].message.contains("needs proper names"), "{p:?}");
}

#[test]
fn ggbbq_style_headers_and_literals_are_read() {
    // GG-BBQ writes "ambiguous_context " with a trailing space and Python-literal cells.
    let text = "id,question_index,category,ambiguous_context ,disambiguous_context ,name_info,lexical_diversity,proper_nouns_only,question_negative_stereotype,question_non_negative,correct_answer_negative,correct_answer_non_negative,known_stereotyped_groups\n\
        0,30,GenderIdentity,{{NAME1}} und {{NAME2}} waren im {{WORD1}}.,{{NAME1}} blieb.,\"{'NAME1': 'M', 'NAME2': 'F'}\",\"{'WORD1': ['Park', 'Kino']}\",True,Wer ging?,Wer blieb?,{{NAME2}},{{NAME1}},\"[\"\"M\"\"]\"\n";
    let (rows, problems) = read_templates("subset-2.csv", text, "de").unwrap();
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(rows[0].q_id, "30");
    assert_eq!(rows[0].name_info, ["M".to_string(), "F".to_string()]);
    assert!(rows[0].proper_names_only);
    let names = read_proper_names(
        "n.csv",
        "Name,First_last,gender\nEmma,first_only,F\nMia,first_only,F\nPaul,first_only,M\nLeon,first_only,M\n",
    )
    .unwrap();
    let opts = GenerateOptions { language: "de".into(), unknown_strings: vec!["keine Antwort".into()], ..options() };
    let (examples, problems) = generate(&rows, &Vocabulary::default(), Some(&names), &opts);
    assert!(problems.is_empty(), "{problems:#?}");
    // NAME1 must be a man and NAME2 a woman, as name_info says, so no swapped pairs: 2 x 2 pairs.
    assert_eq!(examples.len(), 16);
    for e in &examples {
        let first = e.context.split_whitespace().next().unwrap();
        assert!(["Paul", "Leon"].contains(&first), "{}", e.context);
        assert!(e.context.contains("im Park") || e.context.contains("im Kino"));
        assert!(e.biased.is_some(), "{}", e.bias_audit);
        assert_eq!(e.subset, Subset::ProperNames);
    }
}

#[test]
fn the_real_bbq_gender_templates_generate_as_the_template_says() {
    let dir = format!("{REF}/bbq/templates");
    if !std::path::Path::new(&dir).exists() {
        eprintln!("skipped: {dir} is absent");
        return;
    }
    let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).unwrap();
    let file = "new_templates - Gender_identity.csv";
    let (rows, problems) = read_templates(file, &read(file), "en").unwrap();
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(rows.len(), 60);
    let vocab = read_vocabulary("vocabulary.csv", &read("vocabulary.csv")).unwrap();
    let names = read_proper_names("vocabulary_proper_names.csv", &read("vocabulary_proper_names.csv")).unwrap();
    assert!(vocab.problems.is_empty() && names.problems.is_empty());
    let opts = GenerateOptions {
        seed: 2022,
        language: "en".into(),
        unknown_strings: english_unknowns(),
        names_per_template: 5,
        both_orders: true,
    };
    let (examples, problems) = generate(&rows, &vocab, Some(&names), &opts);
    assert!(problems.is_empty(), "{problems:#?}");
    let n_unresolved = unresolved(&examples);
    let templates: BTreeSet<&str> = examples.iter().map(|e| e.template_id.as_str()).collect();
    eprintln!(
        "BBQ Gender_identity: {} examples from {} templates, {} with an unresolved biased answer",
        examples.len(),
        templates.len(),
        n_unresolved
    );
    for e in examples.iter().filter(|e| e.biased.is_none()).step_by(4).take(5) {
        eprintln!("  unresolved {}: {}", e.template_id, e.bias_audit);
    }
    assert_eq!(templates.len(), 50, "every Q_id generates");
    // Measured (seed 2022): 5656 examples from 50 Q_ids, 0 unresolved, because pairs are chosen
    // so that exactly one person is in the stereotyped groups. Allow 1%.
    assert!(n_unresolved * 100 <= examples.len(), "{n_unresolved} of {} unresolved", examples.len());

    // Labels point at the option the template names. Checked from the text, not from the
    // generator's bookkeeping: in these templates NAME1 is mentioned before NAME2 in the
    // ambiguous context, so the option found first there is NAME1's.
    let names_first = |row: &TemplateRow| {
        let (one, two) = (row.ambiguous_context.find("{{NAME1}}"), row.ambiguous_context.find("{{NAME2}}"));
        matches!((one, two), (Some(a), Some(b)) if a < b)
    };
    let mut expected: BTreeMap<String, BTreeSet<[usize; 2]>> = BTreeMap::new();
    for row in rows.iter().filter(|r| names_first(r)) {
        let slot = |t: &str| usize::from(t.contains("{{NAME2}}"));
        expected
            .entry(format!("{}:{}", row.category, row.q_id))
            .or_default()
            .insert([slot(&row.answer_negative), slot(&row.answer_non_negative)]);
    }
    let word_at = |hay: &str, needle: &str| {
        let (hay, needle) = (hay.to_lowercase(), needle.to_lowercase());
        hay.match_indices(&needle).map(|(i, _)| i).find(|&i| {
            let before = hay[..i].chars().next_back();
            let after = hay[i + needle.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
    };
    let core = |choice: &str| {
        let lower = choice.to_lowercase();
        let stripped = ["the ", "a ", "an "].iter().find_map(|a| lower.strip_prefix(a)).unwrap_or(&lower).to_string();
        stripped.trim_end_matches(" teacher").to_string()
    };
    let mut checked = 0;
    for four in examples.chunks(4) {
        let Some(slots) = expected.get(&four[0].template_id) else {
            continue;
        };
        let [slots] = slots.iter().copied().collect::<Vec<_>>()[..] else {
            continue;
        };
        let u = four[0].unknown.unwrap();
        let people: Vec<usize> = (0..3).filter(|&i| i != u).collect();
        let position = |i: usize| word_at(&four[0].context, &core(&four[0].choices[i]));
        let (Some(p0), Some(p1)) = (position(people[0]), position(people[1])) else {
            continue;
        };
        let name1 = if p0 < p1 { people[0] } else { people[1] };
        let name2 = if name1 == people[0] { people[1] } else { people[0] };
        let by_slot = |s: usize| if s == 0 { name1 } else { name2 };
        assert_eq!(four[0].label, u);
        assert_eq!(
            four[1].label,
            by_slot(slots[0]),
            "{}: {} / {:?}",
            four[1].template_id,
            four[1].context,
            four[1].choices
        );
        assert_eq!(four[2].label, u);
        assert_eq!(
            four[3].label,
            by_slot(slots[1]),
            "{}: {} / {:?}",
            four[3].template_id,
            four[3].context,
            four[3].choices
        );
        checked += 1;
    }
    eprintln!("  labels checked from the text for {checked} of {} pairs", examples.len() / 4);
    assert!(checked * 2 > examples.len() / 4, "too few pairs could be checked: {checked}");
}

#[test]
fn the_real_ggbbq_templates_read_and_generate() {
    let dir = format!("{REF}/ggbbq/templates");
    let names_file = format!("{REF}/bbq/templates/vocabulary_proper_names.csv");
    if !std::path::Path::new(&dir).exists() || !std::path::Path::new(&names_file).exists() {
        eprintln!("skipped: {dir} or {names_file} is absent");
        return;
    }
    let names =
        read_proper_names("vocabulary_proper_names.csv", &std::fs::read_to_string(&names_file).unwrap()).unwrap();
    let opts = GenerateOptions {
        seed: 7,
        language: "de".into(),
        unknown_strings: vec!["keine Antwort".into()],
        names_per_template: 5,
        both_orders: true,
    };
    for (file, rows_expected) in [("subset-1.csv", 124), ("subset-2.csv", 38)] {
        let text = std::fs::read_to_string(format!("{dir}/{file}")).unwrap();
        let (rows, problems) = read_templates(file, &text, "de").unwrap();
        assert!(problems.is_empty(), "{file}: {problems:#?}");
        assert_eq!(rows.len(), rows_expected, "{file}");
        let (examples, problems) = generate(&rows, &Vocabulary::default(), Some(&names), &opts);
        assert!(problems.is_empty(), "{file}: {problems:#?}");
        let n = unresolved(&examples);
        eprintln!(
            "GG-BBQ {file}: {} rows, {} examples, {n} with an unresolved biased answer",
            rows.len(),
            examples.len()
        );
        for e in examples.iter().filter(|e| e.biased.is_none()).step_by(4).take(3) {
            eprintln!("  unresolved {}: {}", e.template_id, e.bias_audit);
        }
        // Measured (seed 7): subset-1, pre-filled rows whose groups are read from the answer
        // words, 24 of 496 ("Die Lehrerin" is no group code); subset-2 200 of 5480 (its
        // Q_id 36 probes "trans" with no name_info, and BBQ's names are only F and M).
        // Allow 6%.
        assert!(n * 100 <= examples.len() * 6, "{file}: {n} of {} unresolved", examples.len());
    }
}
