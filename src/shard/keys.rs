//! A shard's key file: the sorted deduplication keys of the states it stored, as a magic
//! header, the count, then each key as 8 little-endian bytes (`LCKEYS01`, 64-bit keys) or
//! 16 (`LCKEYS02`, 128-bit keys). Read back as a stream, so that merging never holds more
//! than one key per shard in memory.

use lockcheck_sim::{lane_a, Fingerprint};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

const MAGIC: &[u8; 8] = b"LCKEYS01";
const MAGIC_WIDE: &[u8; 8] = b"LCKEYS02";

/// Writes `keys` (sorted, distinct) to `path`: 128 bits each when `wide`, lane A otherwise.
pub fn write_keys(path: &Path, keys: &[Fingerprint], wide: bool) -> std::io::Result<()> {
    crate::atomic_write::write_with(path, |out| {
        out.write_all(if wide { MAGIC_WIDE } else { MAGIC })?;
        out.write_all(&(keys.len() as u64).to_le_bytes())?;
        for &key in keys {
            if wide {
                out.write_all(&key.to_le_bytes())?;
            } else {
                out.write_all(&lane_a(key).to_le_bytes())?;
            }
        }
        Ok(())
    })
}

/// A key file being read: its keys in order, checked to be sorted and as many as announced.
pub struct KeysReader {
    input: BufReader<File>,
    /// Bytes a key: 8 or 16.
    width: usize,
    left: u64,
    last: Option<Fingerprint>,
    /// The first problem met, which ends the stream (the caller reports it).
    pub error: Option<String>,
}

/// Opens the key file at `path`, checking its header.
pub fn read_keys(path: &Path) -> Result<KeysReader, String> {
    let file = File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut input = BufReader::new(file);
    let mut header = [0u8; 16];
    input.read_exact(&mut header).map_err(|_| {
        format!(
            "{} is not a shard key file (too short for its header)",
            path.display()
        )
    })?;
    let width = match &header[..8] {
        m if m == MAGIC => 8,
        m if m == MAGIC_WIDE => 16,
        _ => {
            return Err(format!(
                "{} is not a shard key file (it does not start with {} or {})",
                path.display(),
                String::from_utf8_lossy(MAGIC),
                String::from_utf8_lossy(MAGIC_WIDE)
            ))
        }
    };
    let left = u64::from_le_bytes(header[8..].try_into().expect("8 bytes"));
    Ok(KeysReader {
        input,
        width,
        left,
        last: None,
        error: None,
    })
}

impl KeysReader {
    /// Whether the file holds 128-bit keys.
    pub fn is_wide(&self) -> bool {
        self.width == 16
    }
}

impl Iterator for KeysReader {
    type Item = Fingerprint;
    fn next(&mut self) -> Option<Fingerprint> {
        if self.left == 0 || self.error.is_some() {
            return None;
        }
        let mut word = [0u8; 16];
        if self.input.read_exact(&mut word[..self.width]).is_err() {
            self.error = Some(format!("it ends {} keys early", self.left));
            return None;
        }
        let key = u128::from_le_bytes(word);
        if self.last.is_some_and(|last| key <= last) {
            self.error = Some("its keys are not sorted".into());
            return None;
        }
        self.left -= 1;
        self.last = Some(key);
        Some(key)
    }
}
