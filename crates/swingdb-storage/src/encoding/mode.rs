//! A table's `compression`: which encodings its segments get. Chosen per
//! table (`CREATE TABLE t (...) WITH (compression = 'zstd')`, also
//! `CREATE TABLE t WITH (...) AS SELECT`, PostgreSQL's storage-parameter
//! syntax), changed by `ALTER TABLE t SET (compression = ...)` (which
//! rewrites the table), and defaulted by `SET default_compression`.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// See the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Compression {
    /// The default: integer, float, date, time and timestamp columns stored
    /// as they are, which numpy, pyarrow and polars view in the mapped file
    /// without a copy; decimals narrowed, few-valued strings as dictionaries
    /// and other strings ZSTD compressed (see [`crate::encoding`]).
    #[default]
    ZeroCopy,
    /// As [`Self::ZeroCopy`], and integer, date, time and timestamp columns
    /// stored in the narrowest integer that holds a segment's values, float
    /// columns of decimal values (prices, rates) as 32-bit decimals (see
    /// [`crate::encoding::narrow`]): compact storage still decoded at memory
    /// speed, by a widening copy per batch; numpy gets a copy.
    Light,
    /// As [`Self::Light`], and every other fixed-width column ZSTD
    /// compressed too, one frame per run of rows (see
    /// [`crate::encoding::compressed`]): for archives queried rarely and
    /// handed out less. Every scan decompresses what it reads (about 1.3 GB/s
    /// per core), and numpy gets a copy.
    Zstd,
}

impl Compression {
    /// Every mode, by its name.
    pub const ALL: [Compression; 3] = [Compression::ZeroCopy, Compression::Light, Compression::Zstd];

    /// The mode's name in SQL (`'zero-copy'`, `'light'`, `'zstd'`).
    pub fn name(self) -> &'static str {
        match self {
            Compression::ZeroCopy => "zero-copy",
            Compression::Light => "light",
            Compression::Zstd => "zstd",
        }
    }

    /// Every mode's name, quoted, for messages: `'zero-copy', 'light', 'zstd'`.
    pub fn listed() -> String {
        Compression::ALL.iter().map(|m| format!("'{m}'")).collect::<Vec<_>>().join(", ")
    }

    /// What a scan does with the mode's columns, for plans: how they are
    /// decoded and what numpy gets.
    pub fn scan_note(self) -> &'static str {
        match self {
            Compression::ZeroCopy => "columns read in place, numpy gets views",
            Compression::Light => "columns widened as read, numpy gets copies",
            Compression::Zstd => "columns decompressed as read, numpy gets copies",
        }
    }

    /// Whether this is the default mode (which manifests leave unsaid).
    pub fn is_default(&self) -> bool {
        *self == Compression::default()
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Compression {
    type Err = Error;

    /// A mode by its name, any case; `'none'` and `'uncompressed'` are
    /// `'zero-copy'` (DuckDB's and Parquet's words for it).
    fn from_str(name: &str) -> Result<Self> {
        let name = name.trim().to_ascii_lowercase();
        if matches!(name.as_str(), "none" | "uncompressed" | "zero_copy") {
            return Ok(Compression::ZeroCopy);
        }
        Compression::ALL.into_iter().find(|mode| mode.name() == name).ok_or_else(|| {
            Error::programming(format!("compression '{name}' is not known; use one of {}", Compression::listed()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_read_their_names_and_refuse_others() {
        for mode in Compression::ALL {
            assert_eq!(mode.name().to_uppercase().parse::<Compression>().unwrap(), mode);
            assert_eq!(serde_json::to_string(&mode).unwrap(), format!("\"{mode}\""));
        }
        assert_eq!("none".parse::<Compression>().unwrap(), Compression::ZeroCopy);
        let error = "lz4".parse::<Compression>().unwrap_err();
        assert!(error.message().contains("'zero-copy', 'light', 'zstd'"), "{error}");
    }
}
