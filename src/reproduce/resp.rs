//! The Redis wire protocol (RESP2), as much as a replayer needs: a command written as an
//! array of bulk strings, and one reply read back into the model's [`Reply`].

use lockcheck_model::redis::Reply;
use std::io::{self, BufRead, Write};

/// `argv` as one RESP command.
pub fn encode(argv: &[Vec<u8>]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", argv.len()).into_bytes();
    for arg in argv {
        out.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
        out.extend_from_slice(arg);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// Writes `argv` as one command.
pub fn write_command(w: &mut impl Write, argv: &[Vec<u8>]) -> io::Result<()> {
    w.write_all(&encode(argv))?;
    w.flush()
}

/// Reads one reply (an array with its elements).
pub fn read_reply(r: &mut impl BufRead) -> io::Result<Reply> {
    let line = read_line(r)?;
    let (kind, rest) = line
        .split_first()
        .ok_or_else(|| bad("an empty reply line"))?;
    let text = String::from_utf8_lossy(rest).into_owned();
    match kind {
        b'+' => Ok(Reply::Status(text)),
        b'-' => Ok(Reply::Error(text)),
        b':' => Ok(Reply::Integer(number(&text)?)),
        b'$' => match number(&text)? {
            n if n < 0 => Ok(Reply::Bulk(None)),
            n => {
                let mut data = vec![0; n as usize + 2];
                r.read_exact(&mut data)?;
                data.truncate(n as usize);
                Ok(Reply::Bulk(Some(data)))
            }
        },
        b'*' => match number(&text)? {
            n if n < 0 => Ok(Reply::Array(None)),
            n => (0..n)
                .map(|_| read_reply(r))
                .collect::<io::Result<Vec<_>>>()
                .map(|items| Reply::Array(Some(items))),
        },
        other => Err(bad(&format!("an unknown reply type byte {other:#04x}"))),
    }
}

fn read_line(r: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut line = Vec::new();
    if r.read_until(b'\n', &mut line)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the server closed the connection",
        ));
    }
    if !line.ends_with(b"\r\n") {
        return Err(bad("a reply line without CRLF"));
    }
    line.truncate(line.len() - 2);
    Ok(line)
}

fn number(text: &str) -> io::Result<i64> {
    text.parse()
        .map_err(|_| bad(&format!("`{text}` is not a number")))
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("bad RESP: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> Reply {
        read_reply(&mut io::BufReader::new(bytes)).unwrap()
    }

    #[test]
    fn a_command_is_an_array_of_bulk_strings() {
        let argv = vec![b"SET".to_vec(), b"k".to_vec(), b"v1".to_vec()];
        assert_eq!(encode(&argv), b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nv1\r\n");
    }

    #[test]
    fn replies_of_every_kind_read_back() {
        assert_eq!(read(b"+OK\r\n"), Reply::Status("OK".into()));
        assert_eq!(read(b"-ERR no\r\n"), Reply::Error("ERR no".into()));
        assert_eq!(read(b":-2\r\n"), Reply::Integer(-2));
        assert_eq!(read(b"$-1\r\n"), Reply::Bulk(None));
        assert_eq!(read(b"$2\r\nab\r\n"), Reply::Bulk(Some(b"ab".to_vec())));
        assert_eq!(
            read(b"*2\r\n:1\r\n$-1\r\n"),
            Reply::Array(Some(vec![Reply::Integer(1), Reply::Bulk(None)]))
        );
    }

    #[test]
    fn a_closed_connection_is_an_error_not_a_reply() {
        let e = read_reply(&mut io::BufReader::new(&b""[..])).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    }
}
