//! A static file server for the dataset tests: serves files at the catalogue's URL paths
//! (under the mirror base it returns), answers Range requests with 206, can cut a body short
//! once to play an interrupted download, and logs every request's path and Range header.

#![allow(dead_code)] // each test file uses what it needs

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct State {
    files: HashMap<String, Vec<u8>>,
    /// Path -> bytes to send before closing, used once.
    cut: HashMap<String, usize>,
    log: Vec<(String, Option<String>)>,
}

#[derive(Clone)]
pub struct Mirror {
    pub base: String,
    state: Arc<Mutex<State>>,
}

impl Mirror {
    pub fn start() -> Mirror {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}/raw", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = shared.clone();
                std::thread::spawn(move || serve(stream, &state));
            }
        });
        Mirror { base, state }
    }

    /// Serves `bytes` where the mirror rule puts `url` (a catalogue URL).
    pub fn put(&self, url: &str, bytes: Vec<u8>) {
        let path = url.strip_prefix("https://raw.githubusercontent.com").expect("a catalogue URL").to_string();
        self.state.lock().unwrap().files.insert(path, bytes);
    }

    /// The next answer for `url` sends the full Content-Length but only `after` bytes.
    pub fn cut_once(&self, url: &str, after: usize) {
        let path = url.strip_prefix("https://raw.githubusercontent.com").unwrap().to_string();
        self.state.lock().unwrap().cut.insert(path, after);
    }

    /// (path, Range header) of every request so far.
    pub fn log(&self) -> Vec<(String, Option<String>)> {
        self.state.lock().unwrap().log.clone()
    }
}

fn serve(stream: TcpStream, state: &Mutex<State>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut first = String::new();
    if reader.read_line(&mut first).is_err() {
        return;
    }
    let mut range = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("range")
        {
            range = Some(v.trim().to_string());
        }
    }
    let full = first.split(' ').nth(1).unwrap_or("").to_string();
    let path = full.strip_prefix("/raw").unwrap_or(&full).to_string();
    let (body, cut) = {
        let mut s = state.lock().unwrap();
        s.log.push((path.clone(), range.clone()));
        let cut = s.cut.remove(&path);
        (s.files.get(&path).cloned(), cut)
    };
    let mut out = stream;
    let Some(body) = body else {
        let _ = out.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found");
        return;
    };
    let from = range
        .as_deref()
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.strip_suffix('-'))
        .and_then(|n| n.parse::<usize>().ok());
    let head = match from {
        Some(n) if n >= body.len() => {
            let _ =
                out.write_all(b"HTTP/1.1 416 Range Not Satisfiable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            return;
        }
        Some(n) => format!(
            "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {n}-{}/{}\r\nContent-Length: {}\r\n",
            body.len() - 1,
            body.len(),
            body.len() - n
        ),
        None => format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n", body.len()),
    };
    let part = &body[from.unwrap_or(0)..];
    let _ = out.write_all(format!("{head}Accept-Ranges: bytes\r\nConnection: close\r\n\r\n").as_bytes());
    let _ = out.write_all(&part[..cut.unwrap_or(part.len()).min(part.len())]);
    let _ = out.flush();
}
