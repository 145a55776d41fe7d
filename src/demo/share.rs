//! Share links: the experiment and analysis settings, deflated and base64url-encoded into
//! the URL fragment (which browsers never send to a server). No keys and no data go in:
//! the receiver rebuilds the records from the seed, or loads a bundle by URL.

use crate::demo::Experiment;
use crate::demo::analysis::Settings;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

const PREFIX: &str = "v1.";
/// Far above any real link; stops a crafted fragment from inflating into a huge buffer.
const MAX_INFLATED: usize = 1 << 20;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShareState {
    pub experiment: Experiment,
    pub analysis: Settings,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
pub enum ShareError {
    #[error("share link: expected a fragment starting with \"{PREFIX}\" (a link from another version or tool?)")]
    Prefix,
    #[error("share link: the fragment is not valid base64url: {0}")]
    Base64(String),
    #[error("share link: the fragment does not inflate (truncated link?)")]
    Inflate,
    #[error("share link: the settings inside are invalid: {0}")]
    Json(String),
}

pub fn encode(state: &ShareState) -> String {
    let json = serde_json::to_vec(state).unwrap_or_default();
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(packed))
}

pub fn decode(fragment: &str) -> Result<ShareState, ShareError> {
    let body = fragment.trim_start_matches('#').strip_prefix(PREFIX).ok_or(ShareError::Prefix)?;
    let packed = URL_SAFE_NO_PAD.decode(body.trim()).map_err(|e| ShareError::Base64(e.to_string()))?;
    let json =
        miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_INFLATED).map_err(|_| ShareError::Inflate)?;
    serde_json::from_slice(&json).map_err(|e| ShareError::Json(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_round_trip_and_stay_short() {
        let state =
            ShareState { experiment: Experiment { seed: 99, ..Experiment::default() }, analysis: Settings::default() };
        let link = encode(&state);
        assert!(link.len() < 1200, "link is {} characters", link.len());
        assert!(link.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)));
        assert_eq!(decode(&format!("#{link}")).unwrap(), state);
    }

    #[test]
    fn broken_links_say_what_is_wrong() {
        assert_eq!(decode("#v2.abc"), Err(ShareError::Prefix));
        assert!(matches!(decode("#v1.***"), Err(ShareError::Base64(_))));
        assert_eq!(decode("#v1.AAAA"), Err(ShareError::Inflate));
        let not_state = URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(b"{\"x\":1}", 6));
        assert!(matches!(decode(&format!("v1.{not_state}")), Err(ShareError::Json(_))));
    }
}
