//! Arguments read the way the C server reads them, and the server's error texts.
//!
//! Redis mixes two views of an argument: numbers are parsed over the whole binary-safe string
//! (`string2ll`: no spaces, no `+`, no leading zeros, at most 20 characters), while option
//! words and the text echoed in some errors are C strings that end at the first NUL byte. Error
//! texts never contain a line break (the server maps `\r` and `\n` to spaces). Every error
//! text of the model is built here, so each exists once and matches the real server's.

/// `WRONGTYPE` for a command on a key of another type.
pub const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";
/// An argument or a stored string that is not a 64-bit integer.
pub(crate) const NOT_AN_INTEGER: &str = "ERR value is not an integer or out of range";
/// An option the command does not accept in that place.
pub(crate) const SYNTAX: &str = "ERR syntax error";
/// `INCR` or `HINCRBY` past the 64-bit range.
pub(crate) const OVERFLOW: &str = "ERR increment or decrement would overflow";
/// `HINCRBY` on a field whose value is not an integer.
pub(crate) const HASH_NOT_AN_INTEGER: &str = "ERR hash value is not an integer";
/// A write sent by a normal client to a read-only replica.
pub const READONLY: &str = "READONLY You can't write against a read only replica.";
/// `WAIT` sent to a replica.
pub(crate) const WAIT_ON_REPLICA: &str =
    "ERR WAIT cannot be used with replica instances. Please also \
     note that since Redis 4.0 if a replica is configured to be writable (which is not the \
     default) writes to replicas are just local and are not propagated.";
/// A sorted-set score or increment that is not a number.
pub(crate) const NOT_A_FLOAT: &str = "ERR value is not a valid float";
/// A score the model does not keep: not an integer of at most 2^53 in magnitude, or a
/// command form beyond the lock scripts' (a documented limitation, not a Redis error).
pub const UNMODELLED_FORM: &str =
    "ERR lockcheck models lists and sorted sets only in the forms lock scripts use (integer scores, no options)";
/// `WAIT` with a timeout that is not an integer.
pub(crate) const TIMEOUT_NOT_AN_INTEGER: &str = "ERR timeout is not an integer or out of range";
/// `WAIT` with a negative timeout.
pub(crate) const TIMEOUT_NEGATIVE: &str = "ERR timeout is negative";
/// `PEXPIRE` with NX and another condition.
pub(crate) const EXPIRE_NX_AND_OTHERS: &str =
    "ERR NX and XX, GT or LT options at the same time are not compatible";
/// `PEXPIRE` with both GT and LT.
pub(crate) const EXPIRE_GT_AND_LT: &str =
    "ERR GT and LT options at the same time are not compatible";
/// `EVAL` with more keys than arguments.
pub(crate) const EVAL_TOO_MANY_KEYS: &str =
    "ERR Number of keys can't be greater than number of args";
/// `EVAL` with a negative number of keys.
pub(crate) const EVAL_NEGATIVE_KEYS: &str = "ERR Number of keys can't be negative";

/// The longest decimal of a 64-bit integer plus one (`LONG_STR_SIZE` in the server).
const LONG_STR_SIZE: usize = 21;
/// How much of the arguments an unknown-command error echoes, in bytes.
const ECHO_LIMIT: usize = 128;

/// `string2ll`: the whole argument as a canonical signed 64-bit decimal, or `None`.
pub fn parse_i64(arg: &[u8]) -> Option<i64> {
    if arg.is_empty() || arg.len() >= LONG_STR_SIZE {
        return None;
    }
    if arg == b"0" {
        return Some(0);
    }
    let (negative, digits) = match arg.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, arg),
    };
    match digits.first() {
        Some(b'1'..=b'9') => {}
        _ => return None,
    }
    let mut magnitude: u64 = 0;
    for &digit in digits {
        if !digit.is_ascii_digit() {
            return None;
        }
        magnitude = magnitude
            .checked_mul(10)?
            .checked_add(u64::from(digit - b'0'))?;
    }
    signed(negative, magnitude)
}

fn signed(negative: bool, magnitude: u64) -> Option<i64> {
    if negative {
        0i64.checked_sub_unsigned(magnitude)
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// `parse_i64`, or the server's "not an integer" error.
pub(crate) fn parse_i64_or_err(arg: &[u8]) -> Result<i64, String> {
    parse_i64(arg).ok_or_else(|| NOT_AN_INTEGER.to_string())
}

/// The argument as the C string the server sees: up to its first NUL byte.
pub(crate) fn c_str(arg: &[u8]) -> &[u8] {
    match arg.iter().position(|&b| b == 0) {
        Some(end) => &arg[..end],
        None => arg,
    }
}

/// Whether the C string of `arg` equals `word` ignoring ASCII case (`strcasecmp`).
pub(crate) fn is_word(arg: &[u8], word: &str) -> bool {
    c_str(arg).eq_ignore_ascii_case(word.as_bytes())
}

/// Bytes as they appear inside an error text: lossy UTF-8, line breaks as spaces.
pub(crate) fn echo(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).replace(['\r', '\n'], " ")
}

/// `ERR wrong number of arguments for '<name>' command`.
pub(crate) fn wrong_arity(name: &str) -> String {
    format!("ERR wrong number of arguments for '{name}' command")
}

/// `ERR invalid expire time in '<name>' command`.
pub(crate) fn invalid_expire(name: &str) -> String {
    format!("ERR invalid expire time in '{name}' command")
}

/// `ERR Unsupported option <opt>` (PEXPIRE's unknown condition).
pub(crate) fn unsupported_option(opt: &[u8]) -> String {
    format!("ERR Unsupported option {}", echo(c_str(opt)))
}

/// The unknown-command error: the name (at most 128 bytes) and the first 128 bytes of the
/// quoted arguments, each argument a C string.
pub(crate) fn unknown_command(argv: &[Vec<u8>]) -> String {
    let name = argv.first().map(|n| c_str(n)).unwrap_or_default();
    let name = &name[..name.len().min(ECHO_LIMIT)];
    let mut args: Vec<u8> = Vec::new();
    for arg in argv.iter().skip(1) {
        if args.len() >= ECHO_LIMIT {
            break;
        }
        let arg = c_str(arg);
        let room = ECHO_LIMIT - args.len();
        args.push(b'\'');
        args.extend_from_slice(&arg[..arg.len().min(room)]);
        args.extend_from_slice(b"' ");
    }
    format!(
        "ERR unknown command '{}', with args beginning with: {}",
        echo(name),
        echo(&args)
    )
}
