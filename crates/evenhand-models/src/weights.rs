//! Weights streamed into tensors: a safetensors file is fed in consecutive chunks of any size
//! (16 MB from a file natively, from Cache Storage or a picked File in the page) and each
//! tensor's `Vec<f32>` is allocated once and filled straight from the chunks, while every byte
//! is hashed. So the peak is the tensors plus one chunk, not the file and the tensors (a 1.1 GB
//! model used to need ~2.2 GB).
//!
//! The sha256 pin is decided in [`Weights::finish`], after the last byte: a file that fails it
//! is refused naming both hashes ([`crate::pin`]'s message) and the tensors built from it are
//! dropped unused. The header is read from unverified bytes, so every size and offset in it is
//! checked (checked arithmetic, fallible allocation): hostile input is an error, never a panic.

use crate::error::ModelError;
use crate::pin::{self, Verdict};
use candle_core::{Device, Tensor};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// The chunk the native reader and the page's worker feed.
pub const CHUNK: usize = 16 << 20;

/// A header larger than this is refused before it is buffered (the safetensors crate's limit).
const MAX_HEADER: u64 = 100_000_000;

/// A finished file: its tensors (all F32, on the CPU) and how its bytes were accepted.
pub struct LoadedWeights {
    /// The name errors and reports use (a path, or the catalogue's file name).
    pub name: String,
    pub tensors: HashMap<String, Tensor>,
    pub verdict: Verdict,
}

/// One tensor the header announces, its byte range relative to the data's start.
struct Entry {
    name: String,
    dtype: Dtype,
    shape: Vec<usize>,
    start: u64,
    end: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Dtype {
    F32,
    F16,
    Bf16,
    /// An integer tensor of this width: checkpoints carry buffers such as BERT's I64
    /// `embeddings.position_ids`, which no forward pass here reads. Its bytes are hashed and
    /// passed over, not kept (a model that did ask for it would be told it is missing).
    Skipped(u64),
}

impl Dtype {
    fn of(name: &str) -> Option<Dtype> {
        Some(match name {
            "F32" => Dtype::F32,
            "F16" => Dtype::F16,
            "BF16" => Dtype::Bf16,
            "I64" | "U64" => Dtype::Skipped(8),
            "I32" | "U32" => Dtype::Skipped(4),
            "I16" | "U16" => Dtype::Skipped(2),
            "I8" | "U8" | "BOOL" => Dtype::Skipped(1),
            _ => return None,
        })
    }

    fn width(self) -> u64 {
        match self {
            Dtype::F32 => 4,
            Dtype::F16 | Dtype::Bf16 => 2,
            Dtype::Skipped(w) => w,
        }
    }

    fn decode(self, b: &[u8]) -> f32 {
        match self {
            Dtype::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            Dtype::F16 => half::f16::from_le_bytes([b[0], b[1]]).to_f32(),
            Dtype::Bf16 => half::bf16::from_le_bytes([b[0], b[1]]).to_f32(),
            Dtype::Skipped(_) => 0.0,
        }
    }
}

#[derive(serde::Deserialize)]
struct RawEntry {
    dtype: String,
    shape: Vec<u64>,
    data_offsets: [u64; 2],
}

/// Where the stream is.
enum Stage {
    /// Reading the 8-byte little-endian header length.
    Length,
    /// Reading the JSON header of this many bytes.
    Header(usize),
    /// Reading tensor data: `entries` sorted by start, contiguous from 0 to `total`.
    Data { entries: Vec<Entry>, next: usize, filling: Option<Vec<f32>>, total: u64 },
}

/// The sequential feeder: [`Weights::feed`] consecutive chunks, then [`Weights::finish`].
pub struct Weights {
    file: String,
    expected: Option<String>,
    hasher: Sha256,
    stage: Stage,
    /// Bytes of the length or header read so far, or of a tensor element split across chunks.
    pending: Vec<u8>,
    /// Bytes of tensor data consumed (relative to the data's start).
    at: u64,
    tensors: HashMap<String, Tensor>,
    /// A pinned file's first structural error, kept until [`Weights::finish`] has hashed every
    /// byte: a tampered file is then refused as tampered (both hashes named), not as malformed.
    failed: Option<ModelError>,
}

impl Weights {
    /// `file` names the file in errors; `expected` is its pinned sha256 (None: trust on first use).
    pub fn new(file: &str, expected_sha256: Option<&str>) -> Weights {
        Weights {
            file: file.into(),
            expected: expected_sha256.map(String::from),
            hasher: Sha256::new(),
            stage: Stage::Length,
            pending: vec![],
            at: 0,
            tensors: HashMap::new(),
            failed: None,
        }
    }

    fn err(&self, message: impl std::fmt::Display) -> ModelError {
        ModelError::weights(&self.file, message)
    }

    /// The next bytes of the file, in order.
    /// An unpinned file's structural error is returned at once; a pinned file's waits for
    /// [`Weights::finish`] (see `failed`), its tensors dropped meanwhile.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), ModelError> {
        // A MiB at a time: a WebAssembly call that began in V8's baseline tier ends there, so
        // hashing and decoding a whole 16 MB chunk per call ran its first chunk at about a
        // quarter of the speed (MiniLM's 90 MB in node: 0.84 s the first time against 0.32 s
        // once optimised; 0.45 s the first time in pieces).
        for piece in chunk.chunks(1 << 20) {
            self.feed_piece(piece)?;
        }
        Ok(())
    }

    fn feed_piece(&mut self, chunk: &[u8]) -> Result<(), ModelError> {
        self.hasher.update(chunk);
        if self.failed.is_some() {
            return Ok(());
        }
        match self.parse(chunk) {
            Err(e) if self.expected.is_some() => {
                self.failed = Some(e);
                self.tensors = HashMap::new();
                self.stage = Stage::Length;
                self.pending = vec![];
                Ok(())
            }
            other => other,
        }
    }

    fn parse(&mut self, chunk: &[u8]) -> Result<(), ModelError> {
        let mut rest = chunk;
        while !rest.is_empty() {
            rest = match self.stage {
                Stage::Length => self.take_length(rest)?,
                Stage::Header(n) => self.take_header(n, rest)?,
                Stage::Data { .. } => self.take_data(rest)?,
            };
        }
        Ok(())
    }

    fn take_length<'a>(&mut self, rest: &'a [u8]) -> Result<&'a [u8], ModelError> {
        let (head, rest) = rest.split_at(rest.len().min(8 - self.pending.len()));
        self.pending.extend_from_slice(head);
        if self.pending.len() == 8 {
            let n = u64::from_le_bytes(self.pending[..8].try_into().expect("eight bytes"));
            if n > MAX_HEADER {
                return Err(self.err(format!("a header of {n} bytes is larger than the {MAX_HEADER} allowed")));
            }
            self.pending.clear();
            self.stage = Stage::Header(n as usize);
            self.after_header_bytes()?;
        }
        Ok(rest)
    }

    fn take_header<'a>(&mut self, n: usize, rest: &'a [u8]) -> Result<&'a [u8], ModelError> {
        let (head, rest) = rest.split_at(rest.len().min(n - self.pending.len()));
        self.pending.extend_from_slice(head);
        self.after_header_bytes()?;
        Ok(rest)
    }

    /// Once the header is whole: parse and check it, and move on to the data.
    fn after_header_bytes(&mut self) -> Result<(), ModelError> {
        let Stage::Header(n) = self.stage else { return Ok(()) };
        if self.pending.len() < n {
            return Ok(());
        }
        let header = std::mem::take(&mut self.pending);
        let (entries, total) = self.parse_header(&header)?;
        self.stage = Stage::Data { entries, next: 0, filling: None, total };
        // Tensors with no bytes are whole already.
        self.complete_empty()
    }

    fn parse_header(&self, header: &[u8]) -> Result<(Vec<Entry>, u64), ModelError> {
        let raw: HashMap<String, serde_json::Value> =
            serde_json::from_slice(header).map_err(|e| self.err(format!("header is not safetensors JSON: {e}")))?;
        let mut entries = vec![];
        for (name, value) in raw {
            if name == "__metadata__" {
                continue;
            }
            let bad = |m: String| self.err(format!("tensor {name:?}: {m}"));
            let r: RawEntry = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
            let Some(dtype) = Dtype::of(&r.dtype) else {
                let known = "F32, F16, BF16 (integer buffers are passed over)";
                return Err(bad(format!("dtype {} is not one of {known}", r.dtype)));
            };
            let [start, end] = r.data_offsets;
            let elements = r.shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
            let bytes = elements.and_then(|e| e.checked_mul(dtype.width()));
            let Some(bytes) = bytes.filter(|&b| usize::try_from(b / dtype.width()).is_ok()) else {
                return Err(bad(format!("shape {:?} is too large", r.shape)));
            };
            if end < start || end - start != bytes {
                return Err(bad(format!(
                    "data_offsets [{start}, {end}] hold {} bytes, but shape {:?} of {} needs {bytes}",
                    end.saturating_sub(start),
                    r.shape,
                    r.dtype
                )));
            }
            let shape = r.shape.iter().map(|&d| d as usize).collect();
            entries.push(Entry { name, dtype, shape, start, end });
        }
        entries.sort_by_key(|e| (e.start, e.end));
        // Contiguous from 0, no overlap and no holes, as the format requires.
        let mut end = 0u64;
        for e in &entries {
            if e.start != end {
                let what = if e.start < end { "overlaps the tensor before it" } else { "leaves a hole before it" };
                return Err(self.err(format!(
                    "tensor {:?}: data_offsets start at {} and {what} (ending at {end})",
                    e.name, e.start
                )));
            }
            end = e.end;
        }
        Ok((entries, end))
    }

    /// Consumes tensor data from `rest`, completing tensors as their last byte arrives.
    fn take_data<'a>(&mut self, rest: &'a [u8]) -> Result<&'a [u8], ModelError> {
        let Stage::Data { entries, next, filling, total } = &mut self.stage else { return Ok(&[]) };
        let Some(e) = entries.get(*next) else {
            return Err(ModelError::weights(
                &self.file,
                format!("bytes after the last tensor's end ({total} bytes of data)"),
            ));
        };
        let width = e.dtype.width() as usize;
        // The bytes of this tensor in `rest`.
        let n = usize::try_from(e.end - self.at).unwrap_or(usize::MAX).min(rest.len());
        let (mine, rest) = rest.split_at(n);
        if let Dtype::Skipped(_) = e.dtype {
            self.at += n as u64;
            if self.at == e.end {
                *next += 1;
                self.complete_empty()?;
            }
            return Ok(rest);
        }
        let values = match filling {
            Some(v) => v,
            None => {
                let count = ((e.end - e.start) / e.dtype.width()) as usize;
                let mut v = Vec::new();
                v.try_reserve_exact(count).map_err(|_| {
                    ModelError::weights(&self.file, format!("tensor {:?}: cannot allocate {count} values", e.name))
                })?;
                filling.insert(v)
            }
        };
        let mut mine = mine;
        // An element split across chunks: complete it first.
        if !self.pending.is_empty() {
            let k = (width - self.pending.len()).min(mine.len());
            self.pending.extend_from_slice(&mine[..k]);
            mine = &mine[k..];
            if self.pending.len() == width {
                values.push(e.dtype.decode(&self.pending));
                self.pending.clear();
            }
        }
        let whole = mine.chunks_exact(width);
        self.pending.extend_from_slice(whole.remainder());
        values.extend(whole.map(|b| e.dtype.decode(b)));
        self.at += n as u64;
        if self.at == e.end {
            let v = filling.take().expect("being filled");
            let t = Tensor::from_vec(v, e.shape.as_slice(), &Device::Cpu)
                .map_err(|err| ModelError::weights(&self.file, format!("tensor {:?}: {err}", e.name)))?;
            self.tensors.insert(e.name.clone(), t);
            *next += 1;
            self.complete_empty()?;
        }
        Ok(rest)
    }

    /// Builds the tensors of zero bytes that come next (they get no bytes to trigger them).
    fn complete_empty(&mut self) -> Result<(), ModelError> {
        let Stage::Data { entries, next, .. } = &mut self.stage else { return Ok(()) };
        while let Some(e) = entries.get(*next).filter(|e| e.start == e.end) {
            *next += 1;
            if let Dtype::Skipped(_) = e.dtype {
                continue;
            }
            let t = Tensor::from_vec(Vec::<f32>::new(), e.shape.as_slice(), &Device::Cpu)
                .map_err(|err| ModelError::weights(&self.file, format!("tensor {:?}: {err}", e.name)))?;
            self.tensors.insert(e.name.clone(), t);
        }
        Ok(())
    }

    /// After the last chunk: the file must be whole and match its pin.
    pub fn finish(self) -> Result<LoadedWeights, ModelError> {
        let found: String = self.hasher.clone().finalize().iter().map(|b| format!("{b:02x}")).collect();
        // The pin first: a tampered file is named as such even when it is also malformed.
        let verdict = pin::verdict(&self.file, found, self.expected.as_deref())?;
        if let Some(e) = self.failed {
            return Err(e);
        }
        let read = match &self.stage {
            Stage::Data { entries, next, .. } if *next == entries.len() => {
                return Ok(LoadedWeights { name: self.file, tensors: self.tensors, verdict });
            }
            Stage::Data { total, .. } => format!("{} of its {total} bytes of tensor data", self.at),
            Stage::Length => format!("{} of the 8 bytes of its header length", self.pending.len()),
            Stage::Header(n) => format!("{} of its {n} header bytes", self.pending.len()),
        };
        Err(self.err(format!("the file ended early: read {read}")))
    }
}

/// A whole file in memory (tests, and small files).
pub fn from_bytes(file: &str, bytes: &[u8], expected_sha256: Option<&str>) -> Result<LoadedWeights, ModelError> {
    let mut w = Weights::new(file, expected_sha256);
    w.feed(bytes)?;
    w.finish()
}

/// A file on disk, read in [`CHUNK`]s into the feeder (`name` in errors).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_file(
    path: &std::path::Path,
    name: &str,
    expected_sha256: Option<&str>,
) -> Result<LoadedWeights, ModelError> {
    use std::io::Read;
    let read_err = |e: std::io::Error| ModelError::Read { file: name.into(), message: e.to_string() };
    let mut f = std::fs::File::open(path).map_err(read_err)?;
    let mut w = Weights::new(name, expected_sha256);
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = f.read(&mut buf).map_err(read_err)?;
        if n == 0 {
            break;
        }
        w.feed(&buf[..n])?;
    }
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::DType;

    /// A file written by candle's own safetensors writer: three tensors of `dtype` (one scalar,
    /// one empty) and its bytes.
    fn written(dtype: DType) -> (HashMap<String, Tensor>, Vec<u8>) {
        let values: Vec<f32> = (0..60).map(|i| (i as f32 - 30.0) * 0.37).collect();
        let mut ts = HashMap::new();
        ts.insert("a.weight".to_string(), Tensor::from_vec(values, (3, 4, 5), &Device::Cpu).unwrap());
        ts.insert("b.bias".to_string(), Tensor::new(&[1.5f32, -2.25, 3.0], &Device::Cpu).unwrap());
        ts.insert("c.scalar".to_string(), Tensor::new(7.0f32, &Device::Cpu).unwrap());
        ts.insert("d.empty".to_string(), Tensor::zeros((0, 4), DType::F32, &Device::Cpu).unwrap());
        let ts: HashMap<String, Tensor> = ts.into_iter().map(|(k, t)| (k, t.to_dtype(dtype).unwrap())).collect();
        let path = std::env::temp_dir().join(format!("evenhand-weights-{dtype:?}-{}.safetensors", std::process::id()));
        candle_core::safetensors::save(&ts, &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        (ts, bytes)
    }

    fn fed(bytes: &[u8], chunk: usize, pin: Option<&str>) -> Result<LoadedWeights, ModelError> {
        let mut w = Weights::new("m.safetensors", pin);
        for c in bytes.chunks(chunk) {
            w.feed(c)?;
        }
        w.finish()
    }

    /// The header of `bytes` replaced by `header` (the data kept).
    fn with_header(header: &str, data: &[u8]) -> Vec<u8> {
        let mut out = (header.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn f32_f16_bf16_files_equal_candles_own_reading_at_any_chunk_size() {
        for dtype in [DType::F32, DType::F16, DType::BF16] {
            let (ts, bytes) = written(dtype);
            for chunk in [1, 7, 4096, bytes.len() + 1] {
                let w = fed(&bytes, chunk, Some(&pin::sha256_hex(&bytes))).unwrap();
                assert!(w.verdict.is_pinned());
                assert_eq!(w.tensors.len(), ts.len(), "{dtype:?} {chunk}");
                for (name, t) in &ts {
                    let ours = &w.tensors[name];
                    assert_eq!(ours.dtype(), DType::F32);
                    assert_eq!(ours.dims(), t.dims(), "{name} {dtype:?} {chunk}");
                    let want: Vec<f32> = t.to_dtype(DType::F32).unwrap().flatten_all().unwrap().to_vec1().unwrap();
                    let got: Vec<f32> = ours.flatten_all().unwrap().to_vec1().unwrap();
                    assert_eq!(got, want, "{name} {dtype:?} chunk {chunk}");
                }
            }
        }
    }

    #[test]
    fn a_file_that_ends_early_is_refused_saying_how_far_it_got() {
        let (_, bytes) = written(DType::F32);
        for cut in [3, 20, bytes.len() - 1] {
            let e = fed(&bytes[..cut], 7, None).err().unwrap().to_string();
            assert!(e.starts_with("m.safetensors: weights: the file ended early: read "), "{e}");
        }
        let e = fed(&bytes[..bytes.len() - 1], 7, None).err().unwrap().to_string();
        assert!(e.contains("of tensor data"), "{e}");
        let mut longer = bytes.clone();
        longer.push(0);
        let e = fed(&longer, 7, None).err().unwrap().to_string();
        assert!(e.contains("bytes after the last tensor's end"), "{e}");
    }

    #[test]
    fn bad_headers_are_errors_naming_the_tensor_never_panics() {
        let data = [0u8; 16];
        let cases = [
            ("not json", "header is not safetensors JSON"),
            (
                r#"{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"y":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}"#,
                "tensor \"y\": data_offsets start at 4 and overlaps the tensor before it (ending at 8)",
            ),
            (
                r#"{"x":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}"#,
                "tensor \"x\": data_offsets start at 8 and leaves a hole",
            ),
            (
                r#"{"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#,
                "tensor \"x\": data_offsets [0, 8] hold 8 bytes, but shape [3] of F32 needs 12",
            ),
            (
                r#"{"x":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}}"#,
                "tensor \"x\": data_offsets [8, 0] hold 0 bytes",
            ),
            (
                r#"{"x":{"dtype":"F8_E4M3","shape":[16],"data_offsets":[0,16]}}"#,
                "tensor \"x\": dtype F8_E4M3 is not one of F32, F16, BF16",
            ),
            (
                r#"{"x":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,16]}}"#,
                "tensor \"x\": shape [4294967296, 4294967296, 16] is too large",
            ),
            (r#"{"x":{"dtype":"F32","shape":[2]}}"#, "tensor \"x\": missing field `data_offsets`"),
            (
                r#"{"__metadata__":{"format":"pt"},"x":{"dtype":"F32","shape":[2],"data_offsets":[0,1000000000000]}}"#,
                "hold 1000000000000 bytes",
            ),
        ];
        for (header, want) in cases {
            let e = fed(&with_header(header, &data), 5, None).err().unwrap().to_string();
            assert!(e.starts_with("m.safetensors: weights: ") && e.contains(want), "{header}: {e}");
        }
        // A length past any sane header, before anything is buffered.
        let e = fed(&u64::MAX.to_le_bytes(), 8, None).err().unwrap().to_string();
        assert!(e.contains("a header of 18446744073709551615 bytes is larger than"), "{e}");
        // Offsets past the file's end: an early end, not an out-of-bounds read.
        let e = fed(&with_header(r#"{"x":{"dtype":"F32","shape":[8],"data_offsets":[0,32]}}"#, &data), 5, None);
        assert!(e.err().unwrap().to_string().contains("ended early: read 16 of its 32 bytes"));
        // An integer buffer (BERT's position_ids) is passed over, the tensors around it kept.
        let header = r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"ids":{"dtype":"I64","shape":[1],"data_offsets":[4,12]},"b":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}}"#;
        let w = fed(&with_header(header, &data), 3, None).unwrap();
        let mut kept: Vec<&str> = w.tensors.keys().map(String::as_str).collect();
        kept.sort();
        assert_eq!(kept, ["a", "b"]);
        // Metadata alone is a valid, empty file.
        assert!(fed(&with_header(r#"{"__metadata__":{}}"#, &[]), 3, None).unwrap().tensors.is_empty());
    }

    #[test]
    fn a_tampered_byte_is_refused_naming_both_hashes_even_where_it_breaks_the_header() {
        let (_, bytes) = written(DType::F16);
        let good = pin::sha256_hex(&bytes);
        for at in [bytes.len() - 1, 2, 12] {
            let mut bad = bytes.clone();
            bad[at] ^= 1;
            let found = pin::sha256_hex(&bad);
            let e = fed(&bad, 7, Some(&good)).err().unwrap().to_string();
            assert_eq!(
                e,
                format!("m.safetensors: sha256 {found} does not match the pinned {good}; the file was not used")
            );
        }
        let tofu = fed(&bytes, 7, None).unwrap();
        assert_eq!(tofu.verdict, Verdict::TrustOnFirstUse { sha256: good });
    }
}
