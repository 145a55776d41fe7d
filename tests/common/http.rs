//! A small synchronous driver for the run engine (the mock itself is started by
//! `common/mock.rs`): a one-request-per-connection HTTP/1.1 transport over `TcpStream`, and a loop that plays a
//! whole run on a virtual clock (a backoff costs no real time).

#![allow(dead_code)] // each test file uses what it needs

use evenhand::providers::response::RawResponse;
use evenhand::record::Record;
use evenhand::run::engine::{CallResult, Completion, Dispatch, Engine, TransportError};
use evenhand::run::progress::Progress;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Sends one request (method, url, headers, body) and reads the whole answer.
pub fn send(
    method: &str,
    url: &str,
    headers: &[(String, String)],
    body: &str,
    timeout: Duration,
) -> Result<RawResponse, TransportError> {
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let net = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => TransportError::Timeout,
        _ => TransportError::Network(e.to_string()),
    };
    let mut stream = TcpStream::connect(host).map_err(net)?;
    stream.set_read_timeout(Some(timeout)).map_err(net)?;
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body.as_bytes())).map_err(net)?;
    let mut raw = vec![];
    stream.read_to_end(&mut raw).map_err(net)?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| TransportError::Network(format!("connection closed after {} bytes", raw.len())))?;
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).unwrap_or(0);
    let headers =
        lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_string(), v.trim().to_string())).collect();
    Ok(RawResponse { status, headers, body: raw[split + 4..].to_vec() })
}

/// Sends a dispatch over HTTP.
pub fn http(d: &Dispatch) -> Result<RawResponse, TransportError> {
    let method = serde_json::to_value(d.method).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    send(&method, &d.url, &d.headers, d.body.as_deref().unwrap_or(""), Duration::from_millis(d.timeout_ms as u64))
}

/// Plays a run to its end: every dispatch goes through `transport`; time only moves when
/// nothing can be sent (to the engine's wake time). Returns every record the engine stored
/// (answered or failed, as `complete` handed them out) and the final progress.
pub fn drive(
    engine: &mut Engine,
    mut transport: impl FnMut(&Dispatch) -> Result<RawResponse, TransportError>,
) -> (Vec<Record>, Progress) {
    let mut now = 0.0;
    let mut stored = std::collections::BTreeMap::new();
    for _ in 0..1_000_000 {
        let batch = engine.next(now);
        if batch.is_empty() {
            if engine.is_done() {
                break;
            }
            let wake = engine.wake_at();
            assert!(wake.is_finite() && wake > now, "the run is stuck at {now} ms (wake {wake})");
            now = wake;
            continue;
        }
        for d in batch {
            let response = transport(&d);
            let result = CallResult { response, latency_ms: 2.0, unix_ms: 1_795_430_096_789 + now as i64 };
            match engine.complete(d.call, d.attempt, result, now) {
                Completion::Answered { record, .. } | Completion::Failed { record } => {
                    stored.insert(record.record_id.clone(), *record);
                }
                Completion::Retrying { .. } | Completion::Ignored => {}
            }
        }
        now += 1.0;
    }
    let progress = engine.progress(now);
    (stored.into_values().collect(), progress)
}
