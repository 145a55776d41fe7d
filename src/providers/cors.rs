//! What to tell the user when the browser refuses a call. `fetch` reports a CORS refusal, a
//! refused connection and a local-network permission denial all as the same bare
//! "Failed to fetch", so the advice is built from what we know instead: the provider's CORS
//! status, whether the base URL is a local server, and the page's origin.

use super::request::Endpoint;
use super::spec::{CorsStatus, ProviderKind};

/// True for loopback and private-network hosts, where a local server (Ollama, LM Studio,
/// vLLM, llama.cpp) is running and its own CORS setting decides.
pub fn is_local(url: &str) -> bool {
    let rest = url.split("://").nth(1).unwrap_or(url);
    let authority = rest.split('/').next().unwrap_or("");
    let host = if authority.starts_with('[') {
        authority.split(']').next().unwrap_or("").trim_start_matches('[')
    } else {
        authority.rsplit_once(':').map_or(authority, |(h, _)| h)
    };
    let octets: Vec<u8> = host.split('.').filter_map(|p| p.parse().ok()).collect();
    let private_v4 = octets.len() == 4
        && (octets[0] == 10
            || octets[0] == 127
            || (octets[0] == 192 && octets[1] == 168)
            || (octets[0] == 172 && (16..=31).contains(&octets[1])));
    host == "localhost" || host.ends_with(".localhost") || host == "::1" || host == "0.0.0.0" || private_v4
}

/// Advice for a call from a page at `page_origin` (e.g. `https://example.github.io`) that failed
/// before any HTTP answer arrived.
pub fn fetch_failure_advice(endpoint: &Endpoint, page_origin: &str) -> String {
    let spec = endpoint.kind.spec();
    if let CorsStatus::Blocked(advice) = &spec.cors {
        return advice.clone();
    }
    let base = endpoint.base().unwrap_or_default();
    if is_local(&base) {
        let mut out = format!(
            "No answer from the local server at {base}. Check that it is running, then that it allows this page's origin ({page_origin}): "
        );
        out.push_str(match endpoint.kind {
            ProviderKind::Ollama => "start Ollama with OLLAMA_ORIGINS set to that origin (it allows only localhost pages by default).",
            _ => "LM Studio: switch CORS on (lms server start --cors); llama.cpp server: --cors-origins; vLLM: --allowed-origins.",
        });
        if page_origin.starts_with("https://") && !is_local(page_origin) {
            out.push_str(" A public page calling a local server also needs the browser's local-network permission: click Allow when asked, or serve the page from http://localhost.");
        }
        return out;
    }
    let mut out = format!(
        "The browser got no usable answer from {base}: the network is down, the address is wrong, or the provider refused this page's request (CORS)."
    );
    if let CorsStatus::OptIn(advice) | CorsStatus::Unverified(advice) = &spec.cors {
        out.push(' ');
        out.push_str(advice);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_hosts_are_recognised() {
        for url in [
            "http://localhost:11434",
            "http://127.0.0.1:8080/v1",
            "http://192.168.1.20:1234/v1",
            "http://[::1]:80",
            "http://172.20.0.2",
        ] {
            assert!(is_local(url), "{url}");
        }
        for url in ["https://api.openai.com/v1", "https://172.32.0.1", "https://example.github.io", "http://11.0.0.1"] {
            assert!(!is_local(url), "{url}");
        }
    }

    #[test]
    fn advice_fits_the_situation() {
        let ollama = fetch_failure_advice(&Endpoint::new(ProviderKind::Ollama), "https://example.github.io");
        assert!(ollama.contains("OLLAMA_ORIGINS") && ollama.contains("local-network permission"), "{ollama}");
        let from_localhost = fetch_failure_advice(&Endpoint::new(ProviderKind::Ollama), "http://localhost:8080");
        assert!(!from_localhost.contains("local-network permission"), "{from_localhost}");
        let lm = Endpoint::with_base(ProviderKind::OpenAiCompatible, "http://localhost:1234/v1");
        assert!(fetch_failure_advice(&lm, "http://localhost:8080").contains("--cors"));
        let replicate = fetch_failure_advice(&Endpoint::new(ProviderKind::Replicate), "https://x.io");
        assert!(replicate.contains("file route"), "{replicate}");
        let anthropic = fetch_failure_advice(&Endpoint::new(ProviderKind::Anthropic), "https://x.io");
        assert!(anthropic.contains("api.anthropic.com") && anthropic.contains("admin"), "{anthropic}");
    }
}
