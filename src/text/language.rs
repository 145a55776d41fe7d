//! Language codes. Records, question sets and benchmarks spell the same language as "en",
//! "en_US", "en-us" or " EN "; every method compares them through this one helper.

/// The primary language subtag in lower case: "en_US" -> "en", "zh-Hans" -> "zh", " DE " -> "de".
pub fn primary_language(code: &str) -> String {
    code.trim().split(['_', '-']).next().unwrap_or("").trim().to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::primary_language;

    #[test]
    fn keeps_only_the_primary_subtag() {
        assert_eq!(primary_language("en_US"), "en");
        assert_eq!(primary_language("zh-Hans-CN"), "zh");
        assert_eq!(primary_language(" DE "), "de");
        assert_eq!(primary_language(""), "");
    }
}
