//! The CLI's native transport: sends one engine [`Dispatch`] with ureq and hands back what
//! came of it as a [`CallResult`]. One agent is shared by every worker thread, so its pool
//! keeps connections alive between calls (a new TCP or TLS handshake per call would cost more
//! than the engine's whole bookkeeping).
//!
//! ureq blocks, so [`Pool`] runs it on threads (one per slot of concurrency, at most 256) and
//! hands the run driver a future per call that a worker completes; the driver's loop itself
//! stays on one thread. Threads rather than an async HTTP client: ureq is the small, well-kept
//! blocking client we have, and a few threads waiting on sockets cost nothing next to a call.
//!
//! HTTP error statuses are answers, not errors, here: the core reads a 429's Retry-After or a
//! 401's message from the body. Only failures below HTTP become [`TransportError`]s, and their
//! messages have the dispatch's credentials removed, because some I/O errors quote what they
//! were sending.

use evenhand::providers::redact::{redact_headers, redact_response};
use evenhand::providers::request::Method;
use evenhand::providers::response::RawResponse;
use evenhand::run::driver;
use evenhand::run::{CallResult, Dispatch, TransportError};
use futures_channel::oneshot;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The largest response body read (an answer is kilobytes; a gateway's error page may be more).
pub const MAX_BODY_BYTES: u64 = 32 * 1024 * 1024;

/// A pooled HTTP client for up to `connections` calls at once.
#[derive(Clone)]
pub struct Transport {
    agent: ureq::Agent,
}

impl Transport {
    pub fn new(connections: usize) -> Transport {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_idle_connections(connections.max(1) * 2)
            .max_idle_connections_per_host(connections.max(1))
            .user_agent(format!("evenhand/{}", evenhand::VERSION))
            .build()
            .new_agent();
        Transport { agent }
    }

    /// Sends `d` and waits for the whole answer (or `d.timeout_ms`).
    pub fn send(&self, d: &Dispatch) -> CallResult {
        let started = Instant::now();
        let response = self.exchange(d).map_err(|e| classify(e, d));
        CallResult { response, latency_ms: started.elapsed().as_secs_f64() * 1000.0, unix_ms: unix_ms() }
    }

    fn exchange(&self, d: &Dispatch) -> Result<RawResponse, ureq::Error> {
        let timeout = Some(Duration::from_secs_f64((d.timeout_ms / 1000.0).clamp(0.001, 86_400.0)));
        let mut response = match d.method {
            Method::Get => {
                let mut req = self.agent.get(&d.url).config().timeout_global(timeout).build();
                for (name, value) in &d.headers {
                    req = req.header(name.as_str(), value.as_str());
                }
                req.call()?
            }
            Method::Post => {
                let mut req = self.agent.post(&d.url).config().timeout_global(timeout).build();
                for (name, value) in &d.headers {
                    req = req.header(name.as_str(), value.as_str());
                }
                req.send(d.body.as_deref().unwrap_or("").as_bytes())?
            }
        };
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect();
        let body = response.body_mut().with_config().limit(MAX_BODY_BYTES).read_to_vec()?;
        // Nothing downstream (records, journal, reports) ever sees a key the answer echoed.
        Ok(redact_response(RawResponse { status, headers, body }, &d.headers))
    }
}

/// A job for a worker: the dispatch, and where its result goes.
type Job = (Dispatch, oneshot::Sender<CallResult>);

/// Worker threads sending dispatches with one shared [`Transport`]; the driver's transport.
/// Dropping it ends the threads once the calls they hold are sent.
pub struct Pool {
    jobs: Option<mpsc::Sender<Job>>,
    handles: Vec<std::thread::JoinHandle<()>>,
}

impl Pool {
    pub fn new(workers: usize) -> Pool {
        let workers = workers.clamp(1, 256);
        let transport = Transport::new(workers);
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let handles = (0..workers)
            .map(|_| {
                let (rx, transport) = (Arc::clone(&rx), transport.clone());
                std::thread::spawn(move || {
                    loop {
                        // The lock is held only to take one job, never while sending it.
                        let job = match rx.lock() {
                            Ok(guard) => guard.recv(),
                            Err(_) => return,
                        };
                        let Ok((d, done)) = job else { return };
                        // A driver that went away no longer wants the answer.
                        let _ = done.send(transport.send(&d));
                    }
                })
            })
            .collect();
        Pool { jobs: Some(tx), handles }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.jobs = None;
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

/// A call on its way: resolves when a worker has its result.
pub struct Call(Option<oneshot::Receiver<CallResult>>);

impl std::future::Future for Call {
    type Output = CallResult;
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<CallResult> {
        let lost = || CallResult {
            response: Err(TransportError::Network("the sending thread stopped".into())),
            latency_ms: 0.0,
            unix_ms: unix_ms(),
        };
        match &mut self.0 {
            Some(rx) => std::pin::Pin::new(rx).poll(cx).map(|r| r.unwrap_or_else(|_| lost())),
            None => std::task::Poll::Ready(lost()),
        }
    }
}

impl driver::Transport for Pool {
    type Call = Call;
    fn send(&self, d: Dispatch) -> Call {
        let (tx, rx) = oneshot::channel();
        let sent = self.jobs.as_ref().is_some_and(|jobs| jobs.send((d, tx)).is_ok());
        // Not sent only if every worker died: the call fails as a network error, and is retried.
        Call(sent.then_some(rx))
    }
}

/// The CLI's clock: milliseconds since the run started, and sleeps on futures-timer's thread.
pub struct Clock(Instant);

impl Clock {
    pub fn start() -> Clock {
        Clock(Instant::now())
    }
}

impl driver::Clock for Clock {
    type Sleep = futures_timer::Delay;
    fn now(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1000.0
    }
    fn sleep(&self, ms: f64) -> futures_timer::Delay {
        futures_timer::Delay::new(Duration::from_secs_f64((ms / 1000.0).clamp(0.0, 86_400.0)))
    }
}

fn unix_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// A ureq failure as the engine's transport error, with the dispatch's keys removed.
fn classify(e: ureq::Error, d: &Dispatch) -> TransportError {
    let timed_out = match &e {
        ureq::Error::Timeout(_) => true,
        ureq::Error::Io(io) => matches!(io.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock),
        _ => false,
    };
    if timed_out {
        return TransportError::Timeout;
    }
    let message = match &e {
        ureq::Error::BodyExceedsLimit(n) => format!("the response is larger than {n} bytes"),
        other => other.to_string(),
    };
    TransportError::Network(scrub(&message, &d.headers))
}

/// Removes every credential header value (and a Bearer token inside one) from `text`.
pub fn scrub(text: &str, headers: &[(String, String)]) -> String {
    redact_headers(text, headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_scrubbed_from_messages() {
        let key = "sk-evenhand-FAKE-0123456789abcdef";
        let headers = vec![
            ("authorization".to_string(), format!("Bearer {key}")),
            ("content-type".to_string(), "application/json".to_string()),
        ];
        let out = scrub(&format!("io error sending Bearer {key} to host"), &headers);
        assert!(!out.contains(key), "{out}");
        assert_eq!(out, "io error sending Bearer [key removed] to host");
    }
}
